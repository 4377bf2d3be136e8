package connectorlogins

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors/connectorcatalog"
	"github.com/workbench/workbench/app/connectors/mcpclient"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// List lists a login's tools (the adapter's list, else the endpoint's tools/list, else the manifest's
// tools) and records the listing: digest, diff, and the default switches of new tools.
func (s *Service) List(ctx context.Context, actor string, srv connectorsrm.Server, m *connector.Manifest, l login.State, creds Creds) error {
	creds, err := s.Fresh(ctx, l, m, creds, false)
	if err != nil {
		return err
	}
	listed, err := s.fetchTools(ctx, m, l, creds)
	if err != nil && isOAuth(m) && rejected(err) {
		// A 401 gets one refresh and one retry.
		if creds, err = s.Fresh(ctx, l, m, creds, true); err != nil {
			return err
		}
		listed, err = s.fetchTools(ctx, m, l, creds)
	}
	if err != nil {
		return err
	}
	listed = connectorcatalog.OverrideListed(srv, listed)
	tools := make([]login.Tool, 0, len(listed))
	names := modelNames(ctx, s, srv, listed)
	byName := map[string]connector.Tool{}
	for i, t := range listed {
		if names[i] == "" {
			s.Log.WarnContext(ctx, "listed tool skipped: its name has no usable character or is listed twice", "server", srv.ID, "tool", t.Name)
			continue
		}
		byName[names[i]] = t
		tools = append(tools, login.Tool{Name: names[i], Remote: t.Name, Description: t.Description, InputSchema: t.InputSchema,
			ReadOnlyHint: t.ReadOnlyHint, DestructiveHint: t.DestructiveHint, TaskSupport: t.TaskSupport, OutputSchema: t.OutputSchema})
	}
	overrides, err := overridesOf(srv)
	if err != nil {
		return err
	}
	cmd := login.RecordListing{LoginID: l.LoginID, Tools: tools, At: s.Opts.Now(), StartsOn: func(t login.Tool) (bool, string) {
		return connector.StartsOff(m, byName[t.Name], overrides.AdminDefault(t.Remote))
	}}
	_, err = s.executeLogin(ctx, actor, l.Stream(), cmd)
	return err
}

func (s *Service) fetchTools(ctx context.Context, m *connector.Manifest, l login.State, creds Creds) ([]connector.Tool, error) {
	var listed []connector.Tool
	var err error
	c := s.BySlug[m.Slug]
	ep, hasEndpoint := endpoint(m, creds)
	switch {
	case c != nil && isLister(c.Adapter):
		listed, err = c.Adapter.(connector.Lister).List(ctx, creds, s.AdapterContext(l.LoginID, m, creds, l.Settings))
	case hasEndpoint:
		var ts []mcpclient.Tool
		ts, err = s.Opts.Pool.ListTools(ctx, l.LoginID, ep)
		listed = fromPool(ts)
	default:
		for _, t := range m.Tools {
			listed = append(listed, connector.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
		}
	}
	if err != nil {
		return nil, err
	}
	if len(listed) > 200 {
		return nil, &connector.Error{Message: "the listing has more than 200 tools"}
	}
	for i := range listed {
		if len(listed[i].InputSchema) == 0 {
			listed[i].InputSchema = json.RawMessage(`{"type":"object"}`)
		}
	}
	return listed, nil
}

func isLister(a connector.Adapter) bool { _, ok := a.(connector.Lister); return ok }

// Relist lists a login's tools again now (a run start past RelistAfter, or an operator's refresh).
func (s *Service) Relist(ctx context.Context, actor string, loginID uuid.UUID) error {
	l, err := s.Reader.Login(ctx, loginID)
	if err != nil {
		return err
	}
	srv, m, err := s.ServerOf(ctx, l)
	if err != nil {
		return err
	}
	creds, err := s.Open(ctx, l.Credential)
	if err != nil {
		return err
	}
	if l.Owner.Scope == login.ScopePlatform { // a platform login lists with the platform key
		pc, _, ok, err := s.PlatformCreds(ctx, srv, m)
		if err != nil {
			return err
		}
		if !ok {
			return domain.Errorf(domain.CodeNotConnected, "%s runs on a platform key that is not set", m.DisplayName)
		}
		creds = pc
	}
	if err := s.List(ctx, actor, srv, m, l.State, creds); err != nil {
		return providerError("list tools", err, newRedactor(creds))
	}
	return nil
}
