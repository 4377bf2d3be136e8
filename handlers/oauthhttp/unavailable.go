package oauthhttp

import (
	"context"
	"net/http"
	"net/url"
	"sync"

	"github.com/ory/fosite"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers"
)

// A storage failure is never a bad credential (doc.go, "Storage failures"). fosite turns any error of
// GetClient into invalid_client and of a token lookup into invalid_grant or server_error, and keeps the
// cause where errors.Is cannot see it; so the storage notes every failure of the database in the
// request's context, and the endpoints answer 503 temporarily_unavailable when one was noted,
// whatever fosite made of it.

type failureKey struct{}

// failureNote holds the first storage failure of one request.
type failureNote struct {
	mu  sync.Mutex
	err error
}

// withFailureNote gives r a context the storage can note a failure in.
func withFailureNote(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), failureKey{}, &failureNote{}))
}

func noteFailure(ctx context.Context, err error) {
	if n, ok := ctx.Value(failureKey{}).(*failureNote); ok {
		n.mu.Lock()
		if n.err == nil {
			n.err = err
		}
		n.mu.Unlock()
	}
}

// failureOf returns the storage failure noted in ctx, if any.
func failureOf(ctx context.Context) error {
	if n, ok := ctx.Value(failureKey{}).(*failureNote); ok {
		n.mu.Lock()
		defer n.mu.Unlock()
		return n.err
	}
	return nil
}

// storageFailure notes err in ctx and returns it as a CodeUnavailable error.
func storageFailure(ctx context.Context, err error) error {
	noteFailure(ctx, err)
	return &domain.Error{Code: domain.CodeUnavailable, Message: "the database is unavailable; retry shortly", Err: err}
}

// storageFailed reports whether the request met a storage failure: noted in ctx, or err says so.
func storageFailed(ctx context.Context, err error) error {
	if f := failureOf(ctx); f != nil {
		return f
	}
	if err != nil && (domain.ErrorCode(err) == domain.CodeUnavailable || handlers.IsStorageFailure(err)) {
		return err
	}
	return nil
}

// unavailableJSON answers 503 temporarily_unavailable with Retry-After when the request met a storage
// failure, and reports whether it did. It suits the JSON endpoints (token, revocation, registration).
func (s *Server) unavailableJSON(ctx context.Context, w http.ResponseWriter, err error) bool {
	f := storageFailed(ctx, err)
	if f == nil {
		return false
	}
	s.log.ErrorContext(ctx, "oauth: storage unavailable", "err", f)
	w.Header().Set("Retry-After", handlers.RetryAfterSeconds)
	writeOAuthJSON(w, http.StatusServiceUnavailable, oauthError{Error: "temporarily_unavailable",
		ErrorDescription: "the server's database is unavailable; retry shortly (your client registration and tokens are unaffected)"})
	return true
}

// unavailablePage is unavailableJSON for the browser pages of the authorization endpoint, before a
// redirect URI is established.
func (s *Server) unavailablePage(ctx context.Context, w http.ResponseWriter, err error) bool {
	f := storageFailed(ctx, err)
	if f == nil {
		return false
	}
	s.log.ErrorContext(ctx, "oauth: storage unavailable", "err", f)
	w.Header().Set("Retry-After", handlers.RetryAfterSeconds)
	errorPage(w, http.StatusServiceUnavailable, "Workbench cannot reach its database right now. Wait a moment and reload this page.")
	return true
}

// writeAuthorizeError sends the browser back to the client's redirect URI with the error (RFC 6749
// section 4.1.2.1), as temporarily_unavailable when the request met a storage failure, and with the
// issuer (RFC 9207). A request whose redirect URI is not established gets fosite's JSON answer.
func (s *Server) writeAuthorizeError(ctx context.Context, w http.ResponseWriter, ar fosite.AuthorizeRequester, err error) {
	if storageFailed(ctx, err) != nil {
		s.log.ErrorContext(ctx, "oauth: storage unavailable during authorization", "err", err)
		err = fosite.ErrTemporarilyUnavailable.WithHint("The server's database is unavailable; try again shortly.")
	}
	s.provider.WriteAuthorizeError(ctx, &authorizeRedirect{ResponseWriter: w, issuer: s.issuerOfRequest(ar), state: ar.GetState()}, ar, err)
}

// writeAuthorizeResponse sends the browser back to the client with the code, the state when the
// client sent one, and the issuer (RFC 9207).
func (s *Server) writeAuthorizeResponse(ctx context.Context, w http.ResponseWriter, ar fosite.AuthorizeRequester, resp fosite.AuthorizeResponder) {
	s.provider.WriteAuthorizeResponse(ctx, &authorizeRedirect{ResponseWriter: w, issuer: s.issuerOfRequest(ar), state: ar.GetState()}, ar, resp)
}

// issuerOfRequest is the issuer an authorization request was made to: the one its resource names (a
// loopback alias's /mcp gives the alias; see authorizeGet), the public issuer otherwise.
func (s *Server) issuerOfRequest(ar fosite.AuthorizeRequester) string {
	if ar == nil || ar.GetRequestForm() == nil {
		return s.issuer
	}
	return s.issuerOfResource(ar.GetRequestForm().Get("resource"))
}

// authorizeRedirect adjusts fosite's redirect to the client just before it is sent: it adds iss (RFC
// 9207 section 2; fosite does not) and drops the empty state= fosite adds when the client sent none
// (RFC 6749 section 4.1.2: state is returned only if it was in the request).
type authorizeRedirect struct {
	http.ResponseWriter
	issuer string
	state  string
}

func (a *authorizeRedirect) WriteHeader(status int) {
	if status >= 300 && status < 400 {
		if loc := a.Header().Get("Location"); loc != "" {
			if u, err := url.Parse(loc); err == nil && u.Fragment == "" {
				q := u.Query()
				if a.state == "" && q.Has("state") && q.Get("state") == "" {
					q.Del("state")
				}
				q.Set("iss", a.issuer)
				u.RawQuery = q.Encode()
				a.Header().Set("Location", u.String())
			}
		}
	}
	a.ResponseWriter.WriteHeader(status)
}
