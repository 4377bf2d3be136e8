package connectors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connectordom"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/projections/connectorsrm"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// OrgRoles is what the catalog needs of the organisations read model beyond Scopes: a user's role in
// an organisation and a guild's organisation. Scopes that implement it (OrganizationScopes,
// PersonalScopes) answer the organisation routes; others fall back to MayManage.
type OrgRoles interface {
	// OrgRole is the user's role in org; "" when they are not a member.
	OrgRole(ctx context.Context, org, user uuid.UUID) (organization.Role, error)
	// GuildOrg is the organisation a guild belongs to (CodeNotFound when there is none).
	GuildOrg(ctx context.Context, guild uuid.UUID) (uuid.UUID, error)
}

var (
	_ OrgRoles = OrganizationScopes{}
	_ OrgRoles = PersonalScopes{}
)

// OrgRole implements OrgRoles: a user owns their personal organisation.
func (o OrganizationScopes) OrgRole(ctx context.Context, org, user uuid.UUID) (organization.Role, error) {
	if org == organization.PersonalOrganizationID(user) {
		return organization.RoleOwner, nil
	}
	m, err := o.Reader.Membership(ctx, org, user)
	if errors.Is(err, organizationsrm.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return m.Role, nil
}

// GuildOrg implements OrgRoles.
func (o OrganizationScopes) GuildOrg(ctx context.Context, guild uuid.UUID) (uuid.UUID, error) {
	g, err := o.Reader.Guild(ctx, guild)
	if errors.Is(err, organizationsrm.ErrNotFound) {
		return uuid.Nil, domain.Errorf(domain.CodeNotFound, "no guild %s", guild)
	}
	return g.OrganizationID, err
}

// OrgRole implements OrgRoles: the user owns the organisation with their own id alone.
func (PersonalScopes) OrgRole(_ context.Context, org, user uuid.UUID) (organization.Role, error) {
	if org == user {
		return organization.RoleOwner, nil
	}
	return "", nil
}

// GuildOrg implements OrgRoles: there are no guilds.
func (PersonalScopes) GuildOrg(_ context.Context, guild uuid.UUID) (uuid.UUID, error) {
	return uuid.Nil, domain.Errorf(domain.CodeNotFound, "no guild %s", guild)
}

// orgRole is the user's role in org, through OrgRoles or, without it, MayManage (an organisation the
// user manages reads as admin).
func (s *Service) orgRole(ctx context.Context, org, user uuid.UUID) (organization.Role, error) {
	if r, ok := s.opts.Scopes.(OrgRoles); ok {
		return r.OrgRole(ctx, org, user)
	}
	err := s.opts.Scopes.MayManage(ctx, user, login.Owner{Scope: login.ScopeOrganization, ID: org})
	switch domain.ErrorCode(err) {
	case domain.CodeNotFound, domain.CodeForbidden:
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return organization.RoleAdmin, nil
}

// orgOf is the organisation a login owner belongs to (uuid.Nil for the platform).
func (s *Service) orgOf(ctx context.Context, user uuid.UUID, o login.Owner) (uuid.UUID, error) {
	switch o.Scope {
	case login.ScopePlatform:
		return uuid.Nil, nil
	case login.ScopeOrganization:
		return o.ID, nil
	case login.ScopeAgent:
		c, err := s.chainOf(ctx, user, o.ID)
		return c.OrganizationID, err
	case login.ScopeGuild:
		if r, ok := s.opts.Scopes.(OrgRoles); ok {
			return r.GuildOrg(ctx, o.ID)
		}
	}
	return uuid.Nil, domain.Errorf(domain.CodeNotFound, "no %s %s", o.Scope, o.ID)
}

// visibleAt refuses, as not found, an organisation's own server to an owner of another organisation
// (spec connectors.md: another organisation's id is a 404 at Connect, at a binding, and at its routes).
func (s *Service) visibleAt(ctx context.Context, user uuid.UUID, srv connectorsrm.Server, o login.Owner) error {
	if srv.OwnerOrgID == "" {
		return nil
	}
	org, err := s.orgOf(ctx, user, o)
	if domain.ErrorCode(err) == domain.CodeNotFound || (err == nil && org.String() != srv.OwnerOrgID) {
		return domain.Errorf(domain.CodeNotFound, "no connector %s", srv.ID)
	}
	return err
}

// serverAt reads a catalog row as an owner sees it: another organisation's server is not found.
func (s *Service) serverAt(ctx context.Context, user uuid.UUID, o login.Owner, id string) (connectorsrm.Server, error) {
	srv, err := s.reader.Server(ctx, id)
	if err != nil {
		return srv, err
	}
	return srv, s.visibleAt(ctx, user, srv, o)
}

// CatalogEntry is one server of GET /api/mcp/servers: the catalog view with whether it is the
// caller organisation's own ("This organisation's") and whether the platform key it needs is set.
type CatalogEntry struct {
	ServerView
	// Own: the caller organisation's own server; OwnerOrgID is set for it alone.
	Own        bool   `json:"own"`
	OwnerOrgID string `json:"owner_org_id,omitempty"`
	// SetUp is false when a platform key the connector needs is not set (SetupState "not_set_up",
	// PlatformKey names it; Admin, Platform keys sets it).
	SetUp       bool   `json:"set_up"`
	SetupState  string `json:"setup_state,omitempty"`
	PlatformKey string `json:"platform_key,omitempty"`
}

// Catalog lists the servers an organisation sees: the platform's and its own (spec connectors.md,
// The catalog in Admin). org uuid.Nil is the user's home organisation (their default agent's);
// another organisation must count the user a member (else CodeNotFound).
func (s *Service) Catalog(ctx context.Context, user, org uuid.UUID) ([]CatalogEntry, error) {
	if org == uuid.Nil {
		_, chain, err := s.Home(ctx, user)
		if err != nil {
			return nil, err
		}
		org = chain.OrganizationID
	} else if role, err := s.orgRole(ctx, org, user); err != nil {
		return nil, err
	} else if role == "" {
		return nil, domain.Errorf(domain.CodeNotFound, "no organization %s", org)
	}
	rows, err := s.reader.ServersFor(ctx, org.String())
	if err != nil {
		return nil, err
	}
	out := make([]CatalogEntry, 0, len(rows))
	for _, r := range rows {
		e, err := s.catalogEntry(ctx, r)
		if err != nil {
			s.log.ErrorContext(ctx, "catalog row unreadable", "server", r.ID, "err", err)
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

func (s *Service) catalogEntry(ctx context.Context, r connectorsrm.Server) (CatalogEntry, error) {
	m, err := s.manifestOf(r)
	if err != nil {
		return CatalogEntry{}, err
	}
	e := CatalogEntry{ServerView: s.serverView(r, m), Own: r.OwnerOrgID != "", OwnerOrgID: r.OwnerOrgID, SetUp: true}
	if e.DisplayName == "" {
		e.DisplayName = r.Slug
	}
	for _, k := range requiredKeys(r.Slug, r.Manifest) {
		ok, err := s.platformKeySet(ctx, k)
		if err != nil {
			return CatalogEntry{}, err
		}
		if !ok {
			e.SetUp, e.SetupState, e.PlatformKey = false, "not_set_up", k
			break
		}
	}
	return e, nil
}

// platformKeySet reports whether a platform key is set (none is without PlatformKeys).
func (s *Service) platformKeySet(ctx context.Context, name string) (bool, error) {
	if s.opts.PlatformKeys == nil {
		return false, nil
	}
	_, ok, err := s.opts.PlatformKeys.PlatformKey(ctx, name)
	if err != nil {
		return false, fmt.Errorf("platform key %s: %w", name, err)
	}
	return ok, nil
}

// requiredKeys names the platform keys a manifest needs before it can be used (platformkeys.go's
// names): its requires.integration; auth.instance's integration, or its own key; the configured OAuth
// strategy's provider, or its own client; the GitHub App.
func requiredKeys(slug string, raw json.RawMessage) []string {
	var m struct {
		Requires struct {
			Integration string `json:"integration"`
		} `json:"requires"`
		Auth struct {
			OAuth *struct {
				Strategy string `json:"strategy"`
				Provider string `json:"provider"`
			} `json:"oauth"`
			Instance *struct {
				Integration string `json:"integration"`
				Own         bool   `json:"own"`
			} `json:"instance"`
		} `json:"auth"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	var out []string
	add := func(k string) {
		for _, x := range out {
			if x == k {
				return
			}
		}
		out = append(out, k)
	}
	if m.Requires.Integration != "" {
		add("integration:" + m.Requires.Integration)
	}
	if in := m.Auth.Instance; in != nil {
		switch {
		case in.Integration != "":
			add("integration:" + in.Integration)
		case in.Own:
			add("connector:" + slug)
		}
	}
	if o := m.Auth.OAuth; o != nil {
		switch o.Strategy {
		case "configured":
			if o.Provider != "" {
				add("integration:" + o.Provider)
			} else {
				add("connector:" + slug)
			}
		case "github_app":
			add("github_app")
		}
	}
	return out
}

// claimsAggregate is the catalog stream of slug claims (a connector's own stream is connectorAggregate).
var claimsAggregate = eventstore.Aggregate[connectordom.Claims, connectordom.ClaimCommand, domain.Event]{
	Initial: connectordom.InitialClaims, Evolve: connectordom.EvolveClaims, Decide: connectordom.DecideClaims,
	Codec: eventstore.NewJSONCodec(connectordom.Events()...),
}

// executeCatalog runs one catalog edit on a connector's stream and waits for the read models.
func (s *Service) executeCatalog(ctx context.Context, actor, id string, cmd connectordom.CatalogCommand) (connectordom.State, error) {
	res, err := eventstore.Execute(ctx, s.opts.Store, connectordom.StreamName(id), connectorAggregate, connectordom.Command(cmd), s.md(actor))
	if err != nil {
		return res.State, err
	}
	return res.State, s.wait(ctx, res.Position, len(res.Events))
}

// overrideListed applies the instance admin's tool overrides (description, input_schema) to a
// listing: a listed tool takes them at its next listing (spec connectors.md, The catalog in Admin).
func overrideListed(srv connectorsrm.Server, listed []connector.Tool) []connector.Tool {
	o, err := overridesOf(srv)
	if err != nil || o == nil || len(o.Tools) == 0 {
		return listed
	}
	out := make([]connector.Tool, len(listed))
	for i, t := range listed {
		if to, ok := o.Tools[t.Name]; ok {
			if to.Description != nil {
				t.Description = *to.Description
			}
			if len(to.InputSchema) > 0 {
				t.InputSchema = to.InputSchema
			}
		}
		out[i] = t
	}
	return out
}
