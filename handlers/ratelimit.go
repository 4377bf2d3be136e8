package handlers

import (
	"net"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5/middleware"
	"github.com/go-chi/httprate"
)

// ClientAddress is the key a per-address limit counts under: the address chi's ClientIPFrom*
// middleware resolved when one is installed, else the connection's; IPv6 by its /64, so one host
// cannot dodge a limit by walking its own prefix.
func ClientAddress(r *http.Request) string {
	ip := middleware.GetClientIP(r.Context())
	if ip == "" {
		ip, _, _ = net.SplitHostPort(r.RemoteAddr)
	}
	return httprate.CanonicalizeIP(ip)
}

// LimitPerAddress lets each client address make at most n requests per window through the handler
// it wraps (a sliding window, httprate's in-memory counter: two windows of counts, older ones
// dropped, so memory is bounded by the requests of one window). A request over the limit is answered
// 429 Too Many Requests with Retry-After (RFC 6585 section 4) and a JSON error carrying msg.
func LimitPerAddress(n int, window time.Duration, msg string) func(http.Handler) http.Handler {
	return httprate.LimitBy(n, window, func(r *http.Request) (string, error) {
		return ClientAddress(r), nil
	}, httprate.WithLimitHandler(func(w http.ResponseWriter, _ *http.Request) {
		WriteJSON(w, http.StatusTooManyRequests, ErrorBody{Error: "too_many_requests", Message: msg})
	}))
}
