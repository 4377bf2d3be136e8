package proxy

import (
	"errors"
	"net/url"
	"strings"
)

// Prefix is where the proxy is mounted: <PublicURL>/c/<integration>/<path>.
const Prefix = "/c/"

// splitPath cuts an escaped request path "/c/<integration>/<rest>" into the integration name and
// the escaped rest ("" or starting with "/").
func splitPath(escaped string) (name, rest string, ok bool) {
	after, ok := strings.CutPrefix(escaped, Prefix)
	if !ok {
		return "", "", false
	}
	name, rest, found := strings.Cut(after, "/")
	if found {
		rest = "/" + rest
	}
	return name, rest, name != ""
}

var errBadPath = errors.New("bad path")

// checkRest refuses a path that could leave the integration's proxy base path or be read
// differently upstream than here (RFC 3986 section 5.2.4 removes "." and ".." segments; servers
// and intermediaries differ on encoded ones, on "//" and on backslashes, so none is let through):
//
//   - an empty segment ("//" anywhere);
//   - a segment that is "." or ".." once percent-decoded (%2e, %2E, mixed);
//   - a decoded segment holding "/" or "\" whose pieces include "." or ".." (src%2F..%2Fx);
//   - a backslash, a NUL or another control character, decoded or not;
//   - a doubly encoded dot, slash or backslash (%252e, %252f, %255c), which a server that decodes
//     twice would turn into the above;
//   - an escape that does not decode.
//
// The rest is forwarded exactly as sent (escaped), so an encoded slash that an API expects (GitLab's
// "projects/group%2Fproject") stays encoded.
func checkRest(rest string) error {
	if rest == "" || rest == "/" {
		return nil
	}
	segs := strings.Split(rest[1:], "/")
	for i, seg := range segs {
		if seg == "" {
			if i == len(segs)-1 {
				continue // a trailing slash is a path of its own, not a traversal
			}
			return errBadPath
		}
		dec, err := url.PathUnescape(seg)
		if err != nil {
			return errBadPath
		}
		if dec == "." || dec == ".." {
			return errBadPath
		}
		for _, r := range dec {
			if r < 0x20 || r == 0x7f || r == '\\' {
				return errBadPath
			}
		}
		lower := strings.ToLower(dec)
		if strings.Contains(lower, "%2e") || strings.Contains(lower, "%2f") || strings.Contains(lower, "%5c") {
			return errBadPath
		}
		for _, piece := range strings.Split(dec, "/") {
			if piece == "." || piece == ".." {
				return errBadPath
			}
		}
	}
	return nil
}

// joinTarget is the upstream URL of a checked rest below base.
func joinTarget(base *url.URL, rest, rawQuery string) (*url.URL, error) {
	raw := strings.TrimRight(base.EscapedPath(), "/") + rest
	if raw == "" {
		raw = "/"
	}
	path, err := url.PathUnescape(raw)
	if err != nil {
		return nil, errBadPath
	}
	u := &url.URL{Scheme: base.Scheme, Host: base.Host, Path: path, RawQuery: rawQuery}
	if u.EscapedPath() != raw {
		u.RawPath = raw
	}
	return u, nil
}
