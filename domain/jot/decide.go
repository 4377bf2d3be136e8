package jot

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Command is a request to change a jot: AuthorizeUpload, Deploy, Update or Delete, one file each. The
// interface is sealed so Decide knows them all.
type Command interface {
	decide(State) ([]domain.Event, error)
}

// Decide turns a command into the events it causes, or refuses it with a *domain.Error. It is pure:
// times, ids and hashes arrive in the command.
func Decide(s State, c Command) ([]domain.Event, error) {
	if c == nil {
		return nil, domain.Errorf(domain.CodeInvalid, "no command")
	}
	return c.decide(s)
}

func checkTime(what string, t time.Time) (time.Time, error) {
	if t.IsZero() {
		return time.Time{}, domain.Errorf(domain.CodeInvalid, "%s: the command carries no time", what)
	}
	return t.UTC().Round(0), nil
}

// ownedBy refuses a user who does not hold the name at at. A name nobody holds (never claimed,
// deleted, or a claim that lapsed unused) is CodeNotFound.
func ownedBy(s State, name string, user uuid.UUID, at time.Time) error {
	switch holder := s.Holder(at); {
	case holder == uuid.Nil:
		return domain.Errorf(domain.CodeNotFound, "there is no jot named %q", name)
	case holder != user:
		return domain.Errorf(domain.CodeForbidden, "the jot name %q belongs to another user; only its creator can change it (choose another name for your own jot)", name)
	}
	return nil
}

// validateManifest checks that files are valid, sorted by path and unique, and within the limits.
func validateManifest(files []File, maxFiles int, maxBytes int64) error {
	if maxFiles > 0 && len(files) > maxFiles {
		return domain.Errorf(domain.CodeInvalid, "the jot would hold %d files; the limit is %d", len(files), maxFiles)
	}
	var total int64
	for i, f := range files {
		if err := ValidatePath(f.Path); err != nil {
			return err
		}
		if i > 0 && files[i-1].Path >= f.Path {
			return domain.Errorf(domain.CodeInvalid, "manifest: paths must be unique and sorted (%q after %q)", f.Path, files[i-1].Path)
		}
		if f.Size < 0 || !ValidSHA256(f.SHA256) || f.ContentType == "" {
			return domain.Errorf(domain.CodeInvalid, "manifest: %q needs a size, a sha256 and a content type", f.Path)
		}
		total += f.Size
	}
	if maxBytes > 0 && total > maxBytes {
		return domain.Errorf(domain.CodeInvalid, "the jot would hold %d bytes; the limit is %d", total, maxBytes)
	}
	return nil
}
