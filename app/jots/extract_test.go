package jots_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"

	"github.com/workbench/workbench/app/jots"
	"github.com/workbench/workbench/domain"
)

func TestExtractAccepts(t *testing.T) {
	arc := tgz(t,
		tarEntry{hdr: tar.Header{Name: "./", Typeflag: tar.TypeDir, Mode: 0o755}},
		fileEntry("./index.html", "<h1>hi</h1>"),
		tarEntry{hdr: tar.Header{Name: "./assets/", Typeflag: tar.TypeDir, Mode: 0o755}},
		fileEntry("./assets/app.js", "console.log(1)"),
		fileEntry("data.json", "{}"),
		fileEntry("empty.txt", ""),
	)
	got, err := jots.Extract(bytes.NewReader(arc), jots.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range got {
		paths = append(paths, e.Path+"="+string(e.Body))
	}
	want := "assets/app.js=console.log(1) data.json={} empty.txt= index.html=<h1>hi</h1>"
	if strings.Join(paths, " ") != want {
		t.Errorf("got %q\nwant %q", strings.Join(paths, " "), want)
	}
}

// Every refusal has its own case, its own kind and a message that says what is wrong.
func TestExtractRefuses(t *testing.T) {
	small := jots.Limits{MaxBytes: 100, MaxFiles: 3}
	cases := []struct {
		name    string
		archive func(t *testing.T) []byte
		limits  jots.Limits
		kind    jots.Refusal
		message string
	}{
		{"not gzip", func(t *testing.T) []byte { return []byte("PK\x03\x04 a zip file") }, jots.Limits{}, jots.RefusedNotGzip, "not gzip-compressed"},
		{"gzip of something that is not tar", func(t *testing.T) []byte {
			var b bytes.Buffer
			gz := gzip.NewWriter(&b)
			gz.Write(bytes.Repeat([]byte("not a tar header "), 64))
			gz.Close()
			return b.Bytes()
		}, jots.Limits{}, jots.RefusedNotTar, "not a valid tar archive"},
		{"truncated tar", func(t *testing.T) []byte {
			full := tgzRaw(t, fileEntry("index.html", strings.Repeat("x", 2000)))
			var b bytes.Buffer
			gz := gzip.NewWriter(&b)
			gz.Write(full[:1000])
			gz.Close()
			return b.Bytes()
		}, jots.Limits{}, jots.RefusedNotTar, "truncated or corrupt"},
		{"parent traversal", func(t *testing.T) []byte { return tgz(t, fileEntry("../../etc/cron.d/x", "x")) }, jots.Limits{}, jots.RefusedTraversal, "path traversal"},
		{"traversal in the middle", func(t *testing.T) []byte { return tgz(t, fileEntry("a/../../x", "x")) }, jots.Limits{}, jots.RefusedTraversal, "path traversal"},
		{"traversal in a directory entry", func(t *testing.T) []byte {
			return tgz(t, tarEntry{hdr: tar.Header{Name: "../up/", Typeflag: tar.TypeDir, Mode: 0o755}})
		}, jots.Limits{}, jots.RefusedTraversal, "path traversal"},
		{"absolute path", func(t *testing.T) []byte { return tgz(t, fileEntry("/etc/passwd", "x")) }, jots.Limits{}, jots.RefusedAbsolute, "absolute path"},
		{"backslash path", func(t *testing.T) []byte { return tgz(t, fileEntry(`..\..\x`, "x")) }, jots.Limits{}, jots.RefusedBadPath, "backslash"},
		{"symlink", func(t *testing.T) []byte {
			return tgz(t, tarEntry{hdr: tar.Header{Name: "link", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd", Mode: 0o777}})
		}, jots.Limits{}, jots.RefusedSymlink, "symbolic link"},
		{"harmless-looking symlink", func(t *testing.T) []byte {
			return tgz(t, fileEntry("index.html", "x"), tarEntry{hdr: tar.Header{Name: "alias.html", Typeflag: tar.TypeSymlink, Linkname: "index.html", Mode: 0o777}})
		}, jots.Limits{}, jots.RefusedSymlink, "symbolic link"},
		{"hardlink", func(t *testing.T) []byte {
			return tgz(t, tarEntry{hdr: tar.Header{Name: "hard", Typeflag: tar.TypeLink, Linkname: "../../etc/shadow", Mode: 0o644}})
		}, jots.Limits{}, jots.RefusedHardlink, "hard link"},
		{"character device", func(t *testing.T) []byte {
			return tgz(t, tarEntry{hdr: tar.Header{Name: "null", Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 3, Mode: 0o666}})
		}, jots.Limits{}, jots.RefusedDevice, "device file"},
		{"block device", func(t *testing.T) []byte {
			return tgz(t, tarEntry{hdr: tar.Header{Name: "sda", Typeflag: tar.TypeBlock, Devmajor: 8, Mode: 0o660}})
		}, jots.Limits{}, jots.RefusedDevice, "device file"},
		{"fifo", func(t *testing.T) []byte {
			return tgz(t, tarEntry{hdr: tar.Header{Name: "pipe", Typeflag: tar.TypeFifo, Mode: 0o644}})
		}, jots.Limits{}, jots.RefusedSpecial, "named pipe"},
		{"setuid file", func(t *testing.T) []byte {
			return tgz(t, tarEntry{hdr: tar.Header{Name: "run.sh", Typeflag: tar.TypeReg, Mode: 0o4755, Size: 1}, body: "x"})
		}, jots.Limits{}, jots.RefusedSetuid, "setuid"},
		{"setgid directory", func(t *testing.T) []byte {
			return tgz(t, tarEntry{hdr: tar.Header{Name: "shared/", Typeflag: tar.TypeDir, Mode: 0o2755}})
		}, jots.Limits{}, jots.RefusedSetuid, "setgid"},
		{"duplicate path", func(t *testing.T) []byte { return tgz(t, fileEntry("a.txt", "1"), fileEntry("./a.txt", "2")) }, jots.Limits{}, jots.RefusedDuplicate, "appears twice"},
		{"the same name precomposed and decomposed", func(t *testing.T) []byte {
			return tgz(t, fileEntry("caf\u00e9.html", "1"), fileEntry("cafe\u0301.html", "2"))
		}, jots.Limits{}, jots.RefusedUnicodeDuplicate, "different Unicode normalization forms"},
		{"a directory precomposed and decomposed", func(t *testing.T) []byte {
			return tgz(t, fileEntry("\u00e9/a.txt", "1"), fileEntry("e\u0301/b.txt", "2"))
		}, jots.Limits{}, jots.RefusedUnicodeDuplicate, "normalization"},
		{"a file and a directory of the same name", func(t *testing.T) []byte {
			return tgz(t, fileEntry("docs", "1"), fileEntry("docs/index.html", "2"))
		}, jots.Limits{}, jots.RefusedFileDirConflict, "both a file and a directory"},
		{"a directory entry and a file of the same name", func(t *testing.T) []byte {
			return tgz(t, tarEntry{hdr: tar.Header{Name: "docs/", Typeflag: tar.TypeDir, Mode: 0o755}}, fileEntry("docs", "1"))
		}, jots.Limits{}, jots.RefusedFileDirConflict, "both a file and a directory"},
		{"too many files", func(t *testing.T) []byte {
			return tgz(t, fileEntry("1", "a"), fileEntry("2", "b"), fileEntry("3", "c"), fileEntry("4", "d"))
		}, small, jots.RefusedTooManyFiles, "limit is 3 files"},
		{"too many bytes across files", func(t *testing.T) []byte {
			return tgz(t, fileEntry("a", strings.Repeat("a", 60)), fileEntry("b", strings.Repeat("b", 60)))
		}, small, jots.RefusedTooLarge, "100-byte limit"},
		{"one file over the limit", func(t *testing.T) []byte { return tgz(t, fileEntry("big", strings.Repeat("z", 101))) }, small, jots.RefusedTooLarge, "100-byte limit"},
		{"no files", func(t *testing.T) []byte {
			return tgz(t, tarEntry{hdr: tar.Header{Name: "dir/", Typeflag: tar.TypeDir, Mode: 0o755}})
		}, jots.Limits{}, jots.RefusedEmpty, "no files"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files, err := jots.Extract(bytes.NewReader(tc.archive(t)), tc.limits)
			if err == nil {
				t.Fatalf("accepted: %d files", len(files))
			}
			if got := jots.RefusalOf(err); got != tc.kind {
				t.Errorf("kind %q, want %q (%v)", got, tc.kind, err)
			}
			if domain.ErrorCode(err) != domain.CodeInvalid || !strings.Contains(domain.ErrorMessage(err), tc.message) {
				t.Errorf("got %s %q, want invalid containing %q", domain.ErrorCode(err), domain.ErrorMessage(err), tc.message)
			}
		})
	}
}

// tgzRaw returns the uncompressed tar stream.
func tgzRaw(t *testing.T, entries ...tarEntry) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(tgz(t, entries...)))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// endlessBomb streams a gzip-compressed tar whose one file header claims 1 TiB and whose data never
// ends, counting the uncompressed bytes it has produced. If Extract trusted the header or did not
// count, it would read forever.
type endlessBomb struct {
	pr       *io.PipeReader
	produced int64
	done     chan struct{}
}

func newEndlessBomb(headerSize int64) *endlessBomb {
	pr, pw := io.Pipe()
	b := &endlessBomb{pr: pr, done: make(chan struct{})}
	go func() {
		defer close(b.done)
		gz := gzip.NewWriter(pw)
		tw := tar.NewWriter(gz)
		if err := tw.WriteHeader(&tar.Header{Name: "bomb.bin", Typeflag: tar.TypeReg, Mode: 0o644, Size: headerSize}); err != nil {
			pw.CloseWithError(err)
			return
		}
		zeros := make([]byte, 64<<10)
		for b.produced < headerSize {
			n, err := tw.Write(zeros)
			b.produced += int64(n)
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		tw.Close()
		gz.Close()
		pw.Close()
	}()
	return b
}

func (b *endlessBomb) Read(p []byte) (int, error) { return b.pr.Read(p) }

func TestExtractStopsADecompressionBombAtTheCap(t *testing.T) {
	lim := jots.Limits{MaxBytes: 1 << 20, MaxFiles: 10}
	bomb := newEndlessBomb(1 << 40)
	_, err := jots.Extract(bomb, lim)
	if jots.RefusalOf(err) != jots.RefusedTooLarge {
		t.Fatalf("got %v, want a too_large refusal", err)
	}
	bomb.pr.CloseWithError(io.ErrClosedPipe) // stop the producer
	<-bomb.done
	// The producer runs ahead of what Extract decompressed by what the gzip reader holds compressed
	// in its input buffer (4 KiB of compressed zeros is about 4 MiB of them) and one pipe write.
	if limit := lim.MaxStreamBytes() + 8<<20; bomb.produced > limit {
		t.Errorf("the bomb produced %d bytes before Extract stopped; the cap is %d", bomb.produced, limit)
	}
	t.Logf("stopped after %d of a claimed %d bytes", bomb.produced, int64(1<<40))
}
