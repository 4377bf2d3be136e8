package connectorcatalog

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connectordom"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// Servers added by hand (spec connectors.md, The catalog in Admin: POST /api/admin/mcp/servers; An
// organisation's own servers). Each is a local row whose manifest is its source of truth. Its slug and
// tool prefix are claimed on the catalog stream (domain/connectordom/slugs.go) before the row is added.

// slugPattern is the manifest schema's slug.
var slugPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,47}$`)

// AddRequest is a remote MCP server added by hand.
type AddRequest struct {
	Slug        string   `json:"slug"`
	URL         string   `json:"url"`
	DisplayName string   `json:"display_name"`
	Description string   `json:"description"`
	Auth        AuthSpec `json:"auth"`
}

// AddServer is the instance admin's POST /api/admin/mcp/servers: a platform connector.
func (s *Service) AddServer(ctx context.Context, actor string, req AddRequest) (AdminEntry, error) {
	id, err := s.addLocal(ctx, actor, uuid.Nil, req)
	if err != nil {
		return AdminEntry{}, err
	}
	return s.AdminServer(ctx, id)
}

// addLocal checks a request, claims its slug and prefix, and adds the row (on at creation).
func (s *Service) addLocal(ctx context.Context, actor string, org uuid.UUID, req AddRequest) (string, error) {
	req.Slug = strings.TrimSpace(req.Slug)
	if !slugPattern.MatchString(req.Slug) {
		return "", domain.Errorf(domain.CodeUnprocessable, "slug must be 1 to 48 lowercase letters, digits and dashes, starting with a letter or digit")
	}
	if err := s.checkEndpoint(ctx, req.URL); err != nil {
		return "", err
	}
	doc := map[string]any{"slug": req.Slug, "endpoint": map[string]any{"url": req.URL}}
	for k, v := range map[string]string{"display_name": req.DisplayName, "description": req.Description} {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		if utf8.RuneCountInString(v) > copyKeys[k] {
			return "", domain.Errorf(domain.CodeUnprocessable, "%s is longer than %d characters", k, copyKeys[k])
		}
		doc[k] = v
	}
	if req.Auth.Kind == "" {
		return "", domain.Errorf(domain.CodeUnprocessable, "auth must be none, token or oauth")
	}
	auth, err := authDoc(req.Auth, org != uuid.Nil)
	if err != nil {
		return "", err
	}
	doc["auth"] = auth
	raw, err := checkedManifest(req.Slug, doc)
	if err != nil {
		return "", err
	}
	id := "mcp_" + req.Slug
	owner := ""
	if org != uuid.Nil {
		// Two organisations may each use one slug: an organisation's row gets an id of its own.
		b := make([]byte, 4)
		if _, err := rand.Read(b); err != nil {
			return "", err
		}
		id, owner = "mcp_"+req.Slug+"_"+hex.EncodeToString(b), org.String()
	}
	rows, err := s.Reader.Rows(ctx)
	if err != nil {
		return "", err
	}
	claim := connectordom.Claim{ID: id, Slug: req.Slug, OwnerOrgID: owner, Installed: rows, MaxPerOrg: s.Opts.MaxMCPServers, At: s.Opts.Now(),
		Prefix: func(taken func(string) bool) string {
			return connector.ToolPrefix(req.Slug, func(p string) bool { return taken(p) || s.Opts.Reserved(p) })
		}}
	res, err := eventstore.Execute(ctx, s.Opts.Store, connectordom.CatalogStream, claimsAggregate, connectordom.ClaimCommand(claim), s.MD(actor))
	if err != nil {
		return "", err
	}
	prefix := res.State.Rows[id].ToolPrefix
	ev := connectordom.Added{ID: id, Slug: req.Slug, ToolPrefix: prefix, OwnerOrgID: owner, Manifest: raw, Digest: digest(raw), By: actor, At: s.Opts.Now()}
	if _, err := s.executeCatalog(ctx, actor, id, connectordom.Add{Event: ev}); err != nil {
		s.release(ctx, actor, id)
		return "", err
	}
	return id, nil
}

// release frees a claim (after a failed add, or a removal).
func (s *Service) release(ctx context.Context, actor, id string) {
	rel := connectordom.Release{ID: id, At: s.Opts.Now()}
	if _, err := eventstore.Execute(ctx, s.Opts.Store, connectordom.CatalogStream, claimsAggregate, connectordom.ClaimCommand(rel), s.MD(actor)); err != nil {
		s.Log.ErrorContext(ctx, "release a connector's slug", "server", id, "err", err)
	}
}

// mayEditOrg lets an organisation's owners and admins through; a member is refused (403), anyone else
// does not see the organisation (404).
func (s *Service) mayEditOrg(ctx context.Context, user, org uuid.UUID) error {
	role, err := s.OrgRole(ctx, org, user)
	if err != nil {
		return err
	}
	switch role {
	case organization.RoleOwner, organization.RoleAdmin:
		return nil
	case "":
		return domain.Errorf(domain.CodeNotFound, "no organization %s", org)
	}
	return domain.Errorf(domain.CodeForbidden, "only the organization's owners and admins manage its MCP servers")
}

// orgServer reads an organisation's own row: any other row, another organisation's among them, is not
// found.
func (s *Service) orgServer(ctx context.Context, org uuid.UUID, id string) (connectorsrm.Server, error) {
	srv, err := s.Reader.Server(ctx, id)
	if domain.ErrorCode(err) == domain.CodeNotFound || (err == nil && srv.OwnerOrgID != org.String()) {
		// A row that does not exist and one that is not this organisation's answer alike.
		return connectorsrm.Server{}, domain.Errorf(domain.CodeNotFound, "no MCP server %s in this organization", id)
	}
	if err != nil {
		return srv, err
	}
	return srv, nil
}

// OrgServers lists an organisation's own servers (every member may read them).
func (s *Service) OrgServers(ctx context.Context, user, org uuid.UUID) ([]CatalogEntry, error) {
	role, err := s.OrgRole(ctx, org, user)
	if err != nil {
		return nil, err
	}
	if role == "" {
		return nil, domain.Errorf(domain.CodeNotFound, "no organization %s", org)
	}
	all, err := s.Reader.ServersFor(ctx, org.String())
	if err != nil {
		return nil, err
	}
	out := []CatalogEntry{}
	for _, r := range all {
		if r.OwnerOrgID != org.String() {
			continue
		}
		e, err := s.catalogEntry(ctx, r)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// AddOrgServer is POST /api/orgs/{org}/mcp/servers: the organisation's own server, on at creation,
// visible to it alone; an OAuth server registers its client dynamically at its first Connect.
func (s *Service) AddOrgServer(ctx context.Context, user, org uuid.UUID, req AddRequest) (CatalogEntry, error) {
	if err := s.mayEditOrg(ctx, user, org); err != nil {
		return CatalogEntry{}, err
	}
	id, err := s.addLocal(ctx, user.String(), org, req)
	if err != nil {
		return CatalogEntry{}, err
	}
	srv, err := s.Reader.Server(ctx, id)
	if err != nil {
		return CatalogEntry{}, err
	}
	return s.catalogEntry(ctx, srv)
}

// EditOrgServer is PATCH /api/orgs/{org}/mcp/servers/{id}: its copy (null clears), url, auth and switch.
func (s *Service) EditOrgServer(ctx context.Context, user, org uuid.UUID, id string, edit ServerEdit) (CatalogEntry, error) {
	if err := s.mayEditOrg(ctx, user, org); err != nil {
		return CatalogEntry{}, err
	}
	srv, err := s.orgServer(ctx, org, id)
	if err != nil {
		return CatalogEntry{}, err
	}
	if err := s.editRow(ctx, user.String(), srv, edit); err != nil {
		return CatalogEntry{}, err
	}
	if srv, err = s.Reader.Server(ctx, id); err != nil {
		return CatalogEntry{}, err
	}
	return s.catalogEntry(ctx, srv)
}

// DeleteOrgServer is DELETE /api/orgs/{org}/mcp/servers/{id}: the server with its logins and the
// switches that name it, each removal its own event.
func (s *Service) DeleteOrgServer(ctx context.Context, user, org uuid.UUID, id string) error {
	if err := s.mayEditOrg(ctx, user, org); err != nil {
		return err
	}
	srv, err := s.orgServer(ctx, org, id)
	if err != nil {
		return err
	}
	return s.removeServer(ctx, user.String(), srv)
}

// removeServer removes a local row: every login of it (its switches at the login's scope cleared,
// its credential shredded, login.removed), the switches other scopes hold for it (toolswitch.cleared),
// the row (connector.removed), and its claim. Each step may be repeated: a failed removal is retried whole.
func (s *Service) removeServer(ctx context.Context, actor string, srv connectorsrm.Server) error {
	if err := s.Dependents.RemoveServerDependents(ctx, actor, srv); err != nil {
		return err
	}
	ev := connectordom.Removed{ID: srv.ID, Reason: "deleted", By: actor, At: s.Opts.Now()}
	if _, err := s.executeCatalog(ctx, actor, srv.ID, connectordom.Remove{Event: ev}); err != nil {
		return err
	}
	s.release(ctx, actor, srv.ID)
	return nil
}

// FillCopy fills a local row's blank display name and description from the server's initialize reply
// (serverInfo's name and the instructions) after a Connect. A failure logs and changes nothing.
func (s *Service) FillCopy(ctx context.Context, actor string, srv connectorsrm.Server, m *connector.Manifest, creds Creds) {
	if !s.HandMade(srv) || (m.DisplayName != "" && m.Description != "") {
		return
	}
	ep, ok := endpoint(m, creds)
	if !ok {
		return
	}
	probe := uuid.New()
	defer s.Opts.Pool.Drop(probe)
	name, instructions, err := s.Opts.Pool.Initialize(ctx, probe, ep)
	if err != nil {
		s.Log.WarnContext(ctx, "fill a server's copy from initialize", "server", srv.ID, "err", err)
		return
	}
	edit := ServerEdit{Copy: map[string]json.RawMessage{}}
	set := func(k, v string, max int) {
		v = strings.TrimSpace(v)
		if v == "" {
			return
		}
		if r := []rune(v); len(r) > max {
			v = string(r[:max])
		}
		b, _ := json.Marshal(v)
		edit.Copy[k] = b
	}
	if m.DisplayName == "" {
		set("display_name", name, copyKeys["display_name"])
	}
	if m.Description == "" {
		set("description", instructions, copyKeys["description"])
	}
	if len(edit.Copy) == 0 {
		return
	}
	if err := s.editRow(ctx, actor, srv, edit); err != nil {
		s.Log.WarnContext(ctx, "fill a server's copy from initialize", "server", srv.ID, "err", err)
	}
}
