package connectorcatalog

import (
	"context"
	"encoding/json"

	"github.com/workbench/workbench/app/connectors/connectorcore"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// ServerView is one catalog entry as GET /api/mcp/servers answers it.
type ServerView struct {
	ID             string              `json:"id"`
	Slug           string              `json:"slug"`
	DisplayName    string              `json:"display_name"`
	Description    string              `json:"description"`
	Limitations    string              `json:"limitations,omitempty"`
	SetupHint      string              `json:"setup_hint,omitempty"`
	ToolPrefix     string              `json:"tool_prefix"`
	AuthKind       string              `json:"auth_kind"`
	AuthFields     []connector.Field   `json:"auth_fields"`
	OAuthStrategy  string              `json:"oauth_strategy,omitempty"`
	Endpoint       string              `json:"endpoint,omitempty"`
	Source         string              `json:"source"`
	Verified       bool                `json:"verified"`
	Publisher      string              `json:"publisher"`
	Version        string              `json:"version"`
	Enabled        bool                `json:"enabled"`
	LogoURL        string              `json:"logo_url,omitempty"`
	SettingsSchema json.RawMessage     `json:"settings_schema,omitempty"`
	ConnectSupport string              `json:"connect_support"`
	Manifest       *connector.Manifest `json:"-"`
}

// Servers lists the catalog the caller's organization sees (every connector of this box: servers an
// organization adds by hand are Connectors II).
func (s *Service) Servers(ctx context.Context) ([]ServerView, error) {
	rows, err := s.Reader.Servers(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ServerView, 0, len(rows))
	for _, r := range rows {
		m, err := s.ManifestOf(r)
		if err != nil {
			s.Log.ErrorContext(ctx, "catalog row unreadable", "server", r.ID, "err", err)
			continue
		}
		out = append(out, s.serverView(r, m))
	}
	return out, nil
}

// Server is one catalog entry.
func (s *Service) Server(ctx context.Context, id string) (ServerView, error) {
	r, m, err := s.ServerFor(ctx, id)
	if err != nil {
		return ServerView{}, err
	}
	return s.serverView(r, m), nil
}

func (s *Service) serverView(r connectorsrm.Server, m *connector.Manifest) ServerView {
	v := ServerView{ID: r.ID, Slug: r.Slug, DisplayName: m.DisplayName, Description: m.Description, Limitations: m.Limitations, SetupHint: m.SetupHint,
		ToolPrefix: r.ToolPrefix, AuthKind: m.Auth.Kind, AuthFields: m.TokenFields(), Source: r.Source, Verified: r.Verified, Publisher: r.Publisher,
		Version: r.Version, Enabled: r.Enabled, SettingsSchema: m.SettingsSchema, ConnectSupport: "token", Manifest: m}
	if v.AuthFields == nil {
		v.AuthFields = []connector.Field{}
	}
	if m.Endpoint != nil {
		v.Endpoint = m.Endpoint.URL
	}
	if m.Auth.OAuth != nil {
		v.OAuthStrategy = m.Auth.OAuth.Strategy
	}
	switch m.Auth.Kind {
	case connector.AuthOAuth:
		v.ConnectSupport = "unsupported"
		if m.Auth.OAuth != nil && (m.Auth.OAuth.Strategy == connectorcore.StrategyDynamic || m.Auth.OAuth.Strategy == connectorcore.StrategyConfigured || m.Auth.OAuth.Strategy == connectorcore.StrategyGitHubApp) {
			v.ConnectSupport = "oauth"
		}
	case connector.AuthNone:
		v.ConnectSupport = "none"
	}
	if c := s.BySlug[r.Slug]; c != nil && len(c.Logo) > 0 {
		v.LogoURL = "/api/mcp/servers/" + r.ID + "/logo"
	}
	return v
}

// Logo is a connector's logo.svg.
func (s *Service) Logo(ctx context.Context, id string) ([]byte, error) {
	r, err := s.Reader.Server(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.OwnerOrgID != "" {
		// An organisation's own server is nobody else's to probe: the route is anonymous.
		return nil, domain.Errorf(domain.CodeNotFound, "no connector %s", id)
	}
	c := s.BySlug[r.Slug]
	if c == nil || len(c.Logo) == 0 {
		return nil, domain.Errorf(domain.CodeNotFound, "%s has no logo", id)
	}
	return c.Logo, nil
}
