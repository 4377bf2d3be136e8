package portalhttp

import (
	"context"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/projections/connectionsrm"
)

type field struct {
	Name        string `json:"name"`
	Label       string `json:"label"`
	Secret      bool   `json:"secret"`
	Optional    bool   `json:"optional"`
	Placeholder string `json:"placeholder"`
}

type integration struct {
	Name        string   `json:"name"`
	DisplayName string   `json:"display_name"`
	Description string   `json:"description"`
	AuthMode    string   `json:"auth_mode"`
	Categories  []string `json:"categories"`
	LogoURL     string   `json:"logo_url"`
	Connected   bool     `json:"connected"`
	// Status is one of the Status* words below.
	Status      string `json:"status"`
	AccountHint string `json:"account_hint"`
	// Accounts are the user's accounts of the integration (label, hint, status, default); Status,
	// AccountHint and Connected describe the default one, which a call without a label uses.
	Accounts []connections.AccountView `json:"accounts"`
	Fields   []field                   `json:"fields"`
	// Configured is false for an OAuth integration whose client is not set (the platform key
	// integration:<name>, else <PLUGIN>_CLIENT_ID): it cannot be connected here. Setup says what
	// to do: for an instance admin, the redirect URI to register and the key to set (SetupKey, the
	// platform key's name); for anyone else, MemberSetup.
	Configured bool   `json:"configured"`
	Setup      string `json:"setup,omitempty"`
	SetupKey   string `json:"setup_key,omitempty"`
}

// MemberSetup is what a member who is not an instance admin reads on an integration that is not set
// up: the operator's instructions are the admins'.
const MemberSetup = "Ask your admin to set this up."

// isAdmin reports whether user is an instance admin (Deps.Admins, matched by email).
func (h *routes) isAdmin(ctx context.Context, user uuid.UUID) bool {
	if len(h.Admins) == 0 || h.Accounts == nil {
		return false
	}
	u, err := h.Accounts.User(ctx, user)
	if err != nil || u.Email == "" {
		return false
	}
	for _, a := range h.Admins {
		if strings.EqualFold(strings.TrimSpace(a), u.Email) {
			return true
		}
	}
	return false
}

// The statuses /api/integrations reports. They name domain/connection's statuses in the portal's
// words, plus StatusExpired.
const (
	StatusNotConnected = "not_connected" // never connected (connection.StatusNone)
	StatusPending      = "pending"       // a connect attempt is waiting for consent
	StatusConnected    = "connected"     // a credential is stored and usable
	// StatusReauthRequired: the provider refused the stored credential; connect again.
	StatusReauthRequired = "reauthorization_required"
	StatusDisconnected   = "disconnected" // the user removed the credential
	// StatusExpired: a credential is stored but no longer counts as connected (a captured cookie
	// bundle past its last cookie's expiry).
	StatusExpired = "expired"
)

// statusWord maps a connection status to the portal's word.
func statusWord(s connection.Status) string {
	switch s {
	case connection.StatusPending:
		return StatusPending
	case connection.StatusConnected:
		return StatusConnected
	case connection.StatusNeedsReauth:
		return StatusReauthRequired
	case connection.StatusDisconnected:
		return StatusDisconnected
	}
	return StatusNotConnected
}

// integrations lists the catalog as the signed-in user sees it: each integration with its connected
// flag (connections.Connected, the spec's rule per auth mode), its status and account hint from the
// connections read model, the API-key fields its manifest declares for the portal's form, and
// whether an OAuth integration's client is set on this server.
func (h *routes) integrations(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	connected, err := h.Credentials.Connected(r.Context(), user)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	rows, err := h.Connections.ForUser(r.Context(), user)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	accounts, err := h.Credentials.Accounts(r.Context(), user)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	admin := h.isAdmin(r.Context(), user)
	out := make([]integration, 0, len(h.Catalog.Integrations()))
	for _, in := range h.Catalog.Integrations() {
		it := integration{
			Name: in.Name, DisplayName: in.DisplayName, Description: in.Description, AuthMode: string(in.Auth.Mode),
			Categories: append([]string{}, in.Categories...), LogoURL: logoURL(in),
			Connected: connected[in.Name], Status: StatusNotConnected, Fields: []field{}, Configured: true,
			Accounts: append([]connections.AccountView{}, accounts[in.Name]...),
		}
		if in.Auth.Mode == plugins.AuthOAuth2 {
			it.Configured, it.Setup = h.Credentials.OAuthSetup(r.Context(), in.Name)
			switch {
			case it.Configured:
			case admin:
				it.SetupKey = connections.PlatformKeyName(in.Name)
			default:
				it.Setup = MemberSetup
			}
		}
		if row, ok := summaryRow(rows[in.Name]); ok {
			it.Status = statusWord(row.Status)
			it.AccountHint = row.State.AccountHint
		}
		switch {
		case in.Auth.Mode == plugins.AuthNone:
			it.Status = StatusConnected
		case it.Status == StatusConnected && !it.Connected:
			it.Status = StatusExpired
		}
		if in.Auth.Mode == plugins.AuthAPIKey && in.Auth.APIKey != nil {
			for _, f := range in.Auth.APIKey.Fields {
				it.Fields = append(it.Fields, field{Name: f.Name, Label: f.Label, Secret: f.Secret, Optional: f.Optional, Placeholder: f.Placeholder})
			}
		}
		out = append(out, it)
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"integrations": out})
}

// summaryRow is the account an integration's card describes: the default account, else (no account
// holds a credential) the one labelled connection.DefaultAccount, else the first.
func summaryRow(rows []connectionsrm.Row) (connectionsrm.Row, bool) {
	if d, ok := connectionsrm.Default(rows); ok {
		return d, true
	}
	for _, r := range rows {
		if r.Account == connection.DefaultAccount {
			return r, true
		}
	}
	if len(rows) > 0 {
		return rows[0], true
	}
	return connectionsrm.Row{}, false
}

// logoURL is where the portal loads an integration's logo: our logo route for a logo file shipped
// with the plugin, "" otherwise. A manifest's remote logo URL is not passed on: the portal's policy
// loads images from its own origin only, and a remote image would tell a third party who opens the
// portal.
func logoURL(in *plugins.Integration) string {
	if len(in.LogoSVG) > 0 {
		return "/api/integrations/" + in.Name + "/logo"
	}
	return ""
}

// logo serves a plugin's logo file. An SVG can hold script, so it is served under a policy that runs
// none and loads nothing, and never sniffed as anything else.
func (h *routes) logo(w http.ResponseWriter, r *http.Request) {
	in, ok := h.Catalog.Integration(chi.URLParam(r, "name"))
	if !ok || len(in.LogoSVG) == 0 {
		handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeNotFound, "no logo file for integration %q", chi.URLParam(r, "name")))
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(in.LogoSVG)
	}
}

type connectResponse struct {
	Type         string `json:"type"`
	URL          string `json:"url,omitempty"`
	ConnectionID string `json:"connection_id"`
}

// connect starts a connection from the portal: a connect attempt for the signed-in user, redeemed
// for that same user at once (the claim link never leaves the server), answering the provider's
// consent URL for the browser to open. API-key integrations are refused with a 400 that says to use
// their form; the callback is pluginCallback.
func (h *routes) connect(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	name := chi.URLParam(r, "name")
	account, err := accountParam(r)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	started, err := h.Credentials.Connect(r.Context(), user, name, account)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	token := started.URL
	if i := strings.LastIndex(token, "/connect/"); i >= 0 {
		token = token[i+len("/connect/"):]
	}
	res, err := h.Credentials.Redeem(r.Context(), user, token)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	noStore(w)
	handlers.WriteJSON(w, http.StatusOK, connectResponse{Type: res.Type, URL: res.URL, ConnectionID: res.ConnectionID.String()})
}
