package oauthhttp

import (
	"fmt"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/handlers/websession"
)

// NoticeHeader carries, on the revocation answer, what happens to access tokens already issued.
const NoticeHeader = "Workbench-Notice"

type mcpClient struct {
	ClientID     string    `json:"client_id"`
	ClientName   string    `json:"client_name"`
	RedirectHost string    `json:"redirect_host"`
	Scopes       []string  `json:"scopes"`
	CreatedAt    time.Time `json:"created_at"`
	LastUsedAt   time.Time `json:"last_used_at"`
}

type mcpClientList struct {
	Clients []mcpClient `json:"clients"`
	// AccessTokenTTLSeconds tells the portal how long an access token lives, so it can say that
	// tokens already issued to a revoked client stop working within that time.
	AccessTokenTTLSeconds int `json:"access_token_ttl_seconds"`
}

// portalUser returns the signed-in user of a portal API call, answering 401 or 403 itself when there
// is none or when a state-changing call fails websession's same-origin rule.
func (s *Server) portalUser(w http.ResponseWriter, r *http.Request) (uuid.UUID, bool) {
	if !s.opts.Sessions.SameOrigin(r) {
		handlers.WriteJSON(w, http.StatusForbidden, handlers.ErrorBody{Error: "CROSS_ORIGIN",
			Message: "this request did not come from the workbench portal (send an Origin header of " + s.opts.Sessions.Origin() + " or the " + websession.CSRFHeader + " header)"})
		return uuid.Nil, false
	}
	user, ok := s.opts.Sessions.User(r)
	if !ok {
		handlers.WriteError(w, r, s.log, domain.Errorf(domain.CodeUnauthenticated, "sign in to the workbench portal first"))
		return uuid.Nil, false
	}
	return user, true
}

// listClients is GET /api/mcp-clients: the clients holding live refresh tokens for the signed-in user.
func (s *Server) listClients(w http.ResponseWriter, r *http.Request) {
	user, ok := s.portalUser(w, r)
	if !ok {
		return
	}
	rows, err := s.reader.ClientsOfUser(r.Context(), user, s.opts.Now().UTC())
	if err != nil {
		handlers.WriteError(w, r, s.log, err)
		return
	}
	out := mcpClientList{Clients: []mcpClient{}, AccessTokenTTLSeconds: int(s.opts.AccessTokenTTL / time.Second)}
	for _, c := range rows {
		out.Clients = append(out.Clients, mcpClient{ClientID: c.ClientID, ClientName: displayName(c.ClientName), RedirectHost: c.RedirectHost,
			Scopes: c.Scopes, CreatedAt: c.CreatedAt, LastUsedAt: c.LastUsedAt})
	}
	w.Header().Set("Cache-Control", "no-store")
	handlers.WriteJSON(w, http.StatusOK, out)
}

// revokeClient is DELETE /api/mcp-clients/{client_id}: every grant of the signed-in user to the client
// loses its refresh tokens and its outstanding code (app/oauthclients.RevokeClient). Access tokens
// already issued are self-contained and lapse at their TTL; the answer says so in NoticeHeader.
func (s *Server) revokeClient(w http.ResponseWriter, r *http.Request) {
	user, ok := s.portalUser(w, r)
	if !ok {
		return
	}
	clientID := chi.URLParam(r, "client_id")
	if err := s.opts.Clients.RevokeClient(r.Context(), user, clientID, s.origin(r, user.String(), clientID)); err != nil {
		handlers.WriteError(w, r, s.log, err)
		return
	}
	w.Header().Set(NoticeHeader, fmt.Sprintf("refresh tokens and pending authorization codes revoked; access tokens already issued stay valid until they expire, within %s", s.opts.AccessTokenTTL))
	w.WriteHeader(http.StatusNoContent)
}
