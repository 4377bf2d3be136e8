package jot

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/workbench/workbench/domain"
)

// MaxPathBytes bounds the length of one file path.
const MaxPathBytes = 512

var nameRE = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$`)

// ValidateName checks a jot name: 1 to 63 of a-z, 0-9 and "-", not starting or ending with "-" (a DNS
// label, so a name can become a subdomain of a separate jots origin later).
func ValidateName(name string) error {
	if !nameRE.MatchString(name) {
		return domain.Errorf(domain.CodeInvalid, "jot name %q: use 1 to 63 lowercase letters, digits and hyphens, not starting or ending with a hyphen", name)
	}
	return nil
}

// ValidatePath checks a file path inside a jot: relative, slash-separated, valid UTF-8 without control
// characters or backslashes, no empty, "." or ".." component, at most MaxPathBytes. The error message
// says which rule the path breaks.
func ValidatePath(p string) error {
	bad := func(why string) error {
		return domain.Errorf(domain.CodeInvalid, "path %q: %s", p, why)
	}
	switch {
	case p == "":
		return bad("is empty")
	case len(p) > MaxPathBytes:
		return bad("is longer than 512 bytes")
	case !utf8.ValidString(p):
		return bad("is not valid UTF-8")
	case strings.HasPrefix(p, "/"):
		return bad("is absolute; paths must be relative to the jot's root")
	case strings.Contains(p, `\`):
		return bad("contains a backslash; use / between directories")
	}
	for _, r := range p {
		if unicode.IsControl(r) {
			return bad("contains a control character")
		}
	}
	for _, part := range strings.Split(p, "/") {
		switch part {
		case "..":
			return bad(`climbs out of the jot with ".." (path traversal)`)
		case ".", "":
			return bad(`has an empty or "." component`)
		}
	}
	return nil
}

// ValidSHA256 reports whether s is a lowercase hex sha256 digest.
func ValidSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
