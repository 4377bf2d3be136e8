package audithttp

import (
	"context"
	"errors"
	"net/http"

	"github.com/google/uuid"

	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/oauthrm"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// CredentialSource lists the credentials the records name (projections/auditrm.Reader).
type CredentialSource interface {
	Credentials(ctx context.Context, limit int) ([]auditrm.Credential, error)
}

var _ CredentialSource = auditrm.Reader{}

// CredentialNames names them: agents by name, live API keys by display prefix, OAuth clients by their
// registered client_name. A nil field leaves those unnamed.
type CredentialNames struct {
	Agents  Agents
	Keys    Keys
	Clients Clients
}

// maxCredentials caps the list GET /api/admin/audit/credentials answers.
const maxCredentials = 500

// NamedCredential is a credential of the list with its human name: Name for an agent or an OAuth
// client, Prefix for a live API key (the portal's naming.js makes the one label of each).
type NamedCredential struct {
	auditrm.Credential
	Name   string `json:"name,omitempty"`
	Prefix string `json:"prefix,omitempty"`
}

// credentials: GET /api/admin/audit/credentials (auditors): the API keys, OAuth clients, curl
// sessions and agents the newest records name, most recently seen first, with their names, for the
// blast-radius list and the names of the Audit page. The read is recorded like every other.
func (a *admin) credentials(w http.ResponseWriter, r *http.Request) {
	if len(r.URL.Query()) > 0 {
		handlers.WriteError(w, r, a.Logger, invalid("credentials takes no parameters"))
		return
	}
	if !a.authorize(w, r, "credentials") {
		return
	}
	ctx := r.Context()
	creds, err := a.Credentials.Credentials(ctx, maxCredentials)
	if err != nil {
		handlers.WriteError(w, r, a.Logger, err)
		return
	}
	n := a.Names
	prefixes := map[uuid.UUID]map[string]string{} // owner → key id → prefix
	out := make([]NamedCredential, 0, len(creds))
	for _, c := range creds {
		nc := NamedCredential{Credential: c}
		switch c.Kind {
		case auditrm.CredentialAgent:
			if n.Agents != nil {
				if id, err := uuid.Parse(c.ID); err == nil {
					ag, err := n.Agents.Agent(ctx, id)
					if err != nil && !errors.Is(err, organizationsrm.ErrNotFound) {
						handlers.WriteError(w, r, a.Logger, unavailable(err))
						return
					}
					nc.Name = ag.Name
				}
			}
		case auditrm.CredentialAPIKey:
			if n.Keys != nil {
				m, ok := prefixes[c.UserID]
				if !ok {
					keys, err := n.Keys.LiveKeys(ctx, c.UserID)
					if err != nil {
						handlers.WriteError(w, r, a.Logger, unavailable(err))
						return
					}
					m = map[string]string{}
					for _, k := range keys {
						m[k.ID.String()] = k.Prefix
					}
					prefixes[c.UserID] = m
				}
				nc.Prefix = m[c.ID]
			}
		case auditrm.CredentialOAuthClient:
			if n.Clients != nil {
				cl, err := n.Clients.Client(ctx, c.ID)
				if err != nil && !errors.Is(err, oauthrm.ErrNotFound) {
					handlers.WriteError(w, r, a.Logger, unavailable(err))
					return
				}
				nc.Name = cl.ClientName
			}
		}
		out = append(out, nc)
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"credentials": out})
}
