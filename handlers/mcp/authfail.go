package mcp

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers"
)

// authFailed answers a request whose authentication failed, by what the failure was:
//
//   - the credential could not be checked (CodeUnavailable: the database is down): 503 with
//     Retry-After, so the client keeps its credential and retries instead of re-authorising;
//   - a good token without the scope /mcp needs (an error with RequiredScope): 403 with the
//     insufficient_scope challenge naming the scope (RFC 6750 section 3.1; MCP authorization, "Scope
//     Challenge Handling");
//   - anything else: 401 with the resource metadata (RFC 9728).
func (s *Server) authFailed(w http.ResponseWriter, r *http.Request, err error) {
	var scoped interface{ RequiredScope() string }
	switch {
	case domain.ErrorCode(err) == domain.CodeUnavailable:
		s.log.WarnContext(r.Context(), "mcp: credential could not be checked", "err", err)
		w.Header().Set("Retry-After", handlers.RetryAfterSeconds)
		writeJSON(w, http.StatusServiceUnavailable, errorResponse(nil, CodeInternalError,
			"Service Unavailable: the credential cannot be checked now (the server's database is unavailable); retry shortly"))
	case errors.As(err, &scoped):
		v := fmt.Sprintf(`Bearer error="insufficient_scope", scope="%s"`, scoped.RequiredScope())
		if md := s.resourceMetadataURL(r); md != "" {
			v += fmt.Sprintf(`, resource_metadata="%s"`, md)
		}
		v += `, error_description="the access token was not granted the scope this endpoint needs"`
		w.Header().Set("WWW-Authenticate", v)
		writeJSON(w, http.StatusForbidden, errorResponse(nil, CodeUnauthorized,
			fmt.Sprintf("Forbidden: the access token lacks the %s scope", scoped.RequiredScope())))
	default:
		s.unauthorized(w, r, r.Header.Get("Authorization") != "")
	}
}
