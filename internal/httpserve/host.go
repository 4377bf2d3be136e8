package httpserve

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// machinePrefixes are the paths CanonicalHost never redirects (see the package doc).
var machinePrefixes = []string{"/mcp", "/oauth/", "/.well-known/", "/c/", "/j/", "/jots/", "/api/", "/healthz", "/readyz", "/metrics"}

// CanonicalHost redirects portal page requests that name another host than publicURL's to publicURL
// (308, same path and query), and passes everything else to next.
func CanonicalHost(publicURL string, next http.Handler) (http.Handler, error) {
	u, err := url.Parse(publicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("httpserve: the public URL must be an absolute http or https URL")
	}
	base := strings.TrimRight(u.Scheme+"://"+u.Host+u.Path, "/")
	want := strings.ToLower(u.Host)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (r.Method != http.MethodGet && r.Method != http.MethodHead) || machinePath(r.URL.Path) || sameHost(requestHost(r), want, u.Scheme) {
			next.ServeHTTP(w, r)
			return
		}
		target := base + r.URL.EscapedPath()
		if r.URL.RawQuery != "" {
			target += "?" + r.URL.RawQuery
		}
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, target, http.StatusPermanentRedirect)
	}), nil
}

func machinePath(p string) bool {
	for _, pre := range machinePrefixes {
		if strings.HasSuffix(pre, "/") {
			if strings.HasPrefix(p, pre) {
				return true
			}
			continue
		}
		if p == pre || strings.HasPrefix(p, pre+"/") {
			return true
		}
	}
	return false
}

// requestHost is the host the browser asked for: X-Forwarded-Host when a reverse proxy set it, the
// Host header otherwise.
func requestHost(r *http.Request) string {
	if fh := r.Header.Get("X-Forwarded-Host"); fh != "" {
		first, _, _ := strings.Cut(fh, ",")
		return strings.TrimSpace(first)
	}
	return r.Host
}

// sameHost compares hosts case-insensitively, treating a default port as absent.
func sameHost(got, want, scheme string) bool {
	return stripDefaultPort(strings.ToLower(got), scheme) == stripDefaultPort(want, scheme)
}

func stripDefaultPort(h, scheme string) string {
	switch {
	case scheme == "http" && strings.HasSuffix(h, ":80"):
		return strings.TrimSuffix(h, ":80")
	case scheme == "https" && strings.HasSuffix(h, ":443"):
		return strings.TrimSuffix(h, ":443")
	}
	return h
}
