package main

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"path"
	"strings"
)

// requireMetricsToken guards /metrics with METRICS_TOKEN: a request for it without
// "Authorization: Bearer <token>" is answered 401 (RFC 6750 section 3) and never reaches the
// collectors; every other path passes through. The token is compared in constant time, over SHA-256
// digests so that its length leaks nothing either. Any spelling of the path that could route to
// /metrics ("/metrics/", "//metrics", an escaped form) is guarded too.
func requireMetricsToken(token string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isMetricsPath(r.URL.Path) && !isMetricsPath(r.URL.RawPath) {
			next.ServeHTTP(w, r)
			return
		}
		given, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		got := sha256.Sum256([]byte(given))
		if !ok || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			http.Error(w, "metrics require Authorization: Bearer <METRICS_TOKEN>", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func isMetricsPath(p string) bool {
	if p == "" {
		return false
	}
	return strings.EqualFold(path.Clean("/"+p), "/metrics")
}
