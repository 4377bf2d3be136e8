package signin

import (
	"net/url"
	"strings"
)

// maxNextLen bounds a post-sign-in destination (an authorize URL with its query fits easily).
const maxNextLen = 4096

// SafeNext returns next if it is a path on this origin, and "/" otherwise: it must start with a
// single "/" (not "//" or "/\", which browsers read as another host), hold no scheme, host, user
// info, control character or backslash, and fit in maxNextLen bytes. The result is where a sign-in
// sends the browser, so an open redirect here would hand attackers a trusted-looking link
// (RFC 9700 section 4.11).
func SafeNext(next string) string {
	if next == "" || len(next) > maxNextLen || next[0] != '/' || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\") {
		return "/"
	}
	for i := 0; i < len(next); i++ {
		if next[i] < 0x20 || next[i] == 0x7f {
			return "/"
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" || !strings.HasPrefix(u.Path, "/") {
		return "/"
	}
	return next
}
