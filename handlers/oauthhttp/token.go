package oauthhttp

import (
	"net/http"

	"github.com/workbench/workbench/domain/oauthdom"
)

// token is the token endpoint (RFC 6749 section 3.2): the code exchange with PKCE verification and
// the refresh grant with rotation. fosite decides; the storage records (see storage.go).
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	r = withFailureNote(r)
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		writeOAuthJSON(w, http.StatusBadRequest, oauthError{Error: "invalid_request", ErrorDescription: "the form body could not be read"})
		return
	}
	for k, v := range r.PostForm {
		if len(v) > 1 {
			writeOAuthJSON(w, http.StatusBadRequest, oauthError{Error: "invalid_request", ErrorDescription: "the parameter " + k + " appears more than once"})
			return
		}
	}
	if r.URL.RawQuery != "" {
		writeOAuthJSON(w, http.StatusBadRequest, oauthError{Error: "invalid_request", ErrorDescription: "send the token request parameters in the form body, not the query string"})
		return
	}
	// RFC 8707 section 2.2: a token request may name the resource again; it must be /mcp (of the
	// public URL or of a loopback alias: one server).
	if res := r.PostForm.Get("resource"); res != "" && !s.isResource(res) {
		writeOAuthJSON(w, http.StatusBadRequest, oauthError{Error: "invalid_target", ErrorDescription: invalidTarget(s.resource).DescriptionField})
		return
	}
	clientID := r.PostForm.Get("client_id")
	ctx := withReason(r.Context(), "")
	ctx = withOrigin(ctx, s.origin(r, "oauth-client:"+clientID, clientID))
	ar, err := s.provider.NewAccessRequest(ctx, r, &session{KeyID: s.keys.kid})
	if err != nil {
		if !s.unavailableJSON(ctx, w, err) {
			s.provider.WriteAccessError(ctx, w, ar, err)
		}
		return
	}
	resp, err := s.provider.NewAccessResponse(ctx, ar)
	if err != nil {
		if !s.unavailableJSON(ctx, w, err) {
			s.provider.WriteAccessError(ctx, w, ar, err)
		}
		return
	}
	s.provider.WriteAccessResponse(ctx, w, ar, resp)
}

// revoke is RFC 7009 token revocation. Revoking a refresh token or an access token ends the grant's
// whole refresh-token family and its access tokens. An unknown token is answered 200, as section 2.2
// requires.
//
// A storage failure is 503 temporarily_unavailable, never invalid_client: the client's registration
// stands and the revocation may be retried (section 2.2.1).
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	r = withFailureNote(r)
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	clientID := ""
	if err := r.ParseForm(); err == nil {
		clientID = r.PostForm.Get("client_id")
	}
	ctx := withReason(r.Context(), oauthdom.ReasonTokenRevocation)
	ctx = withOrigin(ctx, s.origin(r, "oauth-client:"+clientID, clientID))
	err := s.provider.NewRevocationRequest(ctx, r)
	if err != nil && s.unavailableJSON(ctx, w, err) {
		return
	}
	s.provider.WriteRevocationResponse(ctx, w, err)
}
