package jots

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/jot"
)

// Refusal names why an archive was refused.
type Refusal string

// The refusals of Extract, one per rule.
const (
	RefusedNotGzip   Refusal = "not_gzip"
	RefusedNotTar    Refusal = "not_tar"
	RefusedAbsolute  Refusal = "absolute_path"
	RefusedTraversal Refusal = "path_traversal"
	RefusedBadPath   Refusal = "bad_path"
	RefusedSymlink   Refusal = "symlink"
	RefusedHardlink  Refusal = "hardlink"
	RefusedDevice    Refusal = "device_file"
	RefusedSpecial   Refusal = "special_file"
	RefusedSetuid    Refusal = "setuid"
	RefusedDuplicate Refusal = "duplicate_path"
	// RefusedUnicodeDuplicate: two paths that differ only in Unicode normalization (NFC against NFD,
	// e.g. "é" precomposed and "e" with a combining accent), which many filesystems and browsers treat
	// as one name.
	RefusedUnicodeDuplicate Refusal = "unicode_duplicate_path"
	// RefusedFileDirConflict: a file and a directory of the same name ("docs" and "docs/index.html").
	RefusedFileDirConflict Refusal = "file_directory_conflict"
	RefusedTooManyFiles    Refusal = "too_many_files"
	RefusedTooLarge        Refusal = "too_large"
	RefusedEmpty           Refusal = "empty"
)

// ArchiveError is why Extract refused an upload. It travels as the cause of a *domain.Error with
// CodeInvalid whose message is Error().
type ArchiveError struct {
	Kind Refusal
	// Path is the archive entry concerned, when there is one.
	Path string
	Msg  string
}

func (e *ArchiveError) Error() string {
	if e.Path != "" {
		return fmt.Sprintf("archive entry %q: %s", e.Path, e.Msg)
	}
	return "archive: " + e.Msg
}

func refuse(kind Refusal, path, format string, args ...any) error {
	ae := &ArchiveError{Kind: kind, Path: path, Msg: fmt.Sprintf(format, args...)}
	return &domain.Error{Code: domain.CodeInvalid, Message: ae.Error(), Err: ae}
}

// RefusalOf returns the kind of an Extract refusal in err's chain, or "".
func RefusalOf(err error) Refusal {
	var ae *ArchiveError
	if errors.As(err, &ae) {
		return ae.Kind
	}
	return ""
}

// Entry is one extracted file.
type Entry struct {
	Path string
	Body []byte
}

// cappedReader reads at most left bytes and remembers whether the source had more.
type cappedReader struct {
	r        io.Reader
	left     int64
	exceeded bool
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// Probe one byte: only a source that really has more is over the cap.
		var one [1]byte
		if n, _ := c.r.Read(one[:]); n > 0 {
			c.exceeded = true
			return 0, errStreamCap
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

var errStreamCap = errors.New("stream cap reached")

// setuid and setgid bits of a tar header's mode (POSIX c_ISUID, c_ISGID).
const setIDBits = 0o4000 | 0o2000

// Extract reads a gzip-compressed tar archive into memory and returns its regular files sorted by
// path. It counts bytes as it decompresses and stops at lim's caps, whatever the headers claim, so a
// decompression bomb costs at most MaxStreamBytes of reading and MaxBytes of memory. Directories are
// accepted (and implied by file paths); a leading "./" is dropped. Everything else that is not a plain
// file is refused, as are unsafe paths and setuid/setgid bits; the error is a *domain.Error with
// CodeInvalid wrapping an *ArchiveError.
func Extract(r io.Reader, lim Limits) ([]Entry, error) {
	lim = lim.withDefaults()
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, refuse(RefusedNotGzip, "", "the upload is not gzip-compressed (%v); send a .tar.gz archive", err)
	}
	defer gz.Close()
	stream := &cappedReader{r: gz, left: lim.MaxStreamBytes()}
	tooLarge := func() error {
		return refuse(RefusedTooLarge, "", "the archive unpacks to more than the %d-byte limit; extraction stopped there", lim.MaxBytes)
	}
	tr := tar.NewReader(stream)
	var (
		files   []Entry
		seen    = map[string]bool{}
		names   = namespace{}
		total   int64
		entries int
	)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if stream.exceeded {
				return nil, tooLarge()
			}
			return nil, refuse(RefusedNotTar, "", "the upload is not a valid tar archive inside the gzip stream (%v)", err)
		}
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			continue // PAX global header (git archive writes one): metadata only
		}
		if entries++; entries > lim.MaxEntries() {
			return nil, refuse(RefusedTooManyFiles, "", "the archive has more than %d entries", lim.MaxEntries())
		}
		name, err := entryPath(hdr)
		if err != nil {
			return nil, err
		}
		switch hdr.Typeflag {
		case tar.TypeSymlink:
			return nil, refuse(RefusedSymlink, hdr.Name, "is a symbolic link (to %q); jots hold plain files only", hdr.Linkname)
		case tar.TypeLink:
			return nil, refuse(RefusedHardlink, hdr.Name, "is a hard link (to %q); jots hold plain files only", hdr.Linkname)
		case tar.TypeChar, tar.TypeBlock:
			return nil, refuse(RefusedDevice, hdr.Name, "is a device file; jots hold plain files only")
		case tar.TypeDir, tar.TypeReg: // (archive/tar reports old-style TypeRegA files as TypeReg)
		case tar.TypeFifo:
			return nil, refuse(RefusedSpecial, hdr.Name, "is a named pipe; jots hold plain files only")
		default:
			return nil, refuse(RefusedSpecial, hdr.Name, "has entry type %q, which is not a plain file or directory", string(hdr.Typeflag))
		}
		if hdr.Mode&setIDBits != 0 {
			return nil, refuse(RefusedSetuid, hdr.Name, "has the setuid or setgid bit set (mode %o)", hdr.Mode)
		}
		if name == "" {
			continue
		}
		if err := names.add(hdr.Name, name, hdr.Typeflag == tar.TypeDir); err != nil {
			return nil, err
		}
		if hdr.Typeflag == tar.TypeDir {
			continue
		}
		if seen[name] {
			return nil, refuse(RefusedDuplicate, hdr.Name, "appears twice in the archive")
		}
		seen[name] = true
		if len(files) == lim.MaxFiles {
			return nil, refuse(RefusedTooManyFiles, hdr.Name, "is file number %d; the limit is %d files", lim.MaxFiles+1, lim.MaxFiles)
		}
		// Read at most one byte more than the room left, whatever hdr.Size says.
		room := lim.MaxBytes - total
		var buf bytes.Buffer
		n, err := io.Copy(&buf, io.LimitReader(tr, room+1))
		if err != nil {
			if stream.exceeded {
				return nil, tooLarge()
			}
			return nil, refuse(RefusedNotTar, hdr.Name, "could not be read (%v); the archive is truncated or corrupt", err)
		}
		if n > room {
			return nil, tooLarge()
		}
		total += n
		files = append(files, Entry{Path: name, Body: buf.Bytes()})
	}
	if len(files) == 0 {
		return nil, refuse(RefusedEmpty, "", "the archive holds no files; put index.html at its root")
	}
	sortEntries(files)
	return files, nil
}

// namespace is the tree an archive describes, keyed by the NFC form of every path, so that names a
// filesystem or a browser could take for one another are caught: a file and a directory of the same
// name, and two spellings of one name in different Unicode normalization forms.
type namespace map[string]nsEntry

type nsEntry struct {
	path string // as the archive spells it
	dir  bool
}

// add records name (a file, or a directory when dir) and every directory its path implies. raw is the
// entry's name for the message. Adding the same directory twice is fine; the same file twice is the
// caller's duplicate_path.
func (ns namespace) add(raw, name string, dir bool) error {
	parts := strings.Split(name, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		isDir := dir || i < len(parts)-1
		key := norm.NFC.String(p)
		prev, ok := ns[key]
		switch {
		case !ok:
			ns[key] = nsEntry{path: p, dir: isDir}
			continue
		case prev.path != p:
			return refuse(RefusedUnicodeDuplicate, raw, "%q and %q are the same name in different Unicode normalization forms (NFC and NFD); keep one spelling", prev.path, p)
		case prev.dir != isDir:
			return refuse(RefusedFileDirConflict, raw, "%q is both a file and a directory in this archive", p)
		}
	}
	return nil
}

// entryPath normalises and checks an entry's name. It returns "" for the root directory.
func entryPath(hdr *tar.Header) (string, error) {
	raw := hdr.Name
	if strings.HasPrefix(raw, "/") {
		return "", refuse(RefusedAbsolute, raw, "is an absolute path; archive paths must be relative to the site's root")
	}
	name := raw
	for strings.HasPrefix(name, "./") {
		name = name[2:]
	}
	if hdr.Typeflag == tar.TypeDir {
		name = strings.TrimSuffix(name, "/")
	}
	if name == "" || name == "." {
		return "", nil
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", refuse(RefusedTraversal, raw, `climbs out of the site with ".." (path traversal)`)
		}
	}
	if err := jot.ValidatePath(name); err != nil {
		return "", refuse(RefusedBadPath, raw, "%s", domain.ErrorMessage(err))
	}
	return name, nil
}

func sortEntries(es []Entry) {
	slices.SortFunc(es, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
}
