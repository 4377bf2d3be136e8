package connectorlogins

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/plugins/connector"
)

// SaveSettings checks a settings document against the connector's schema (422 naming the first
// problem), runs validate with it, stores it with the hint validate returns, and, when it is the
// first complete document, connects the login and lists its tools.
func (s *Service) SaveSettings(ctx context.Context, user, loginID uuid.UUID, settings json.RawMessage) (View, error) {
	l, err := s.ManagedLogin(ctx, user, loginID)
	if err != nil {
		return View{}, err
	}
	if l.Owner.Scope == login.ScopePlatform {
		return View{}, domain.Errorf(domain.CodeInvalid, "a platform login's settings are not saved here")
	}
	if l.Credential.IsZero() {
		return View{}, domain.Errorf(domain.CodeConflict, "the login is still waiting on its sign-in")
	}
	srv, m, err := s.ServerOf(ctx, l)
	if err != nil {
		return View{}, err
	}
	if len(m.SettingsSchema) == 0 {
		return View{}, domain.Errorf(domain.CodeUnprocessable, "%s takes no settings", m.DisplayName)
	}
	schema, err := connector.ParseSettingsSchema(m.SettingsSchema)
	if err != nil {
		return View{}, err
	}
	if len(settings) == 0 {
		settings = json.RawMessage("{}")
	}
	creds, err := s.Open(ctx, l.Credential)
	if err != nil {
		return View{}, err
	}
	// An OAuth login's tokens are refreshed (a GitHub App login's installation token got) before any
	// adapter code runs.
	if creds, err = s.Fresh(ctx, l.State, m, creds, false); err != nil {
		return View{}, err
	}
	red := newRedactor(creds)
	if err := schema.Validate(settings); err != nil {
		return View{}, domain.Errorf(domain.CodeUnprocessable, "%s", red.Text(err.Error()))
	}
	missing := schema.Missing(settings)
	hint := l.AccountHint
	h, err := s.validate(ctx, m, creds, settings)
	if err != nil {
		return View{}, providerError("validate", err, red)
	}
	if h != "" {
		hint = h
	}
	wasPending := l.Status != login.StatusConnected
	r, err := s.executeLogin(ctx, user.String(), l.Stream(),
		login.SaveSettings{LoginID: loginID, Settings: settings, AccountHint: hint, NeedsSettings: missing, At: s.Opts.Now()})
	if err != nil {
		return View{}, err
	}
	if wasPending && r.State.Status == login.StatusConnected {
		if err := s.List(ctx, user.String(), srv, m, r.State, creds); err != nil {
			s.Log.WarnContext(ctx, "listing after settings failed", "login", loginID, "err", red.Text(err.Error()))
		}
	}
	return s.LoginView(ctx, loginID)
}

// LookupSaved searches a settings box with a saved login's credentials.
func (s *Service) LookupSaved(ctx context.Context, user, loginID uuid.UUID, property, q string) ([]connector.Option, error) {
	l, err := s.ManagedLogin(ctx, user, loginID)
	if err != nil {
		return nil, err
	}
	_, m, err := s.ServerOf(ctx, l)
	if err != nil {
		return nil, err
	}
	creds, err := s.Open(ctx, l.Credential)
	if err != nil {
		return nil, err
	}
	if creds, err = s.Fresh(ctx, l.State, m, creds, false); err != nil {
		return nil, err
	}
	return s.lookup(ctx, loginID, m, property, q, creds, l.Settings)
}

// LookupWithCredentials searches a settings box with the Connect form's credentials, before the
// login exists. Another organisation's server answers as one that does not exist.
func (s *Service) LookupWithCredentials(ctx context.Context, user uuid.UUID, serverID, property, q string, fields map[string]string) ([]connector.Option, error) {
	srv, m, err := s.ServerFor(ctx, serverID)
	if err != nil {
		return nil, err
	}
	if srv.OwnerOrgID != "" {
		org, perr := uuid.Parse(srv.OwnerOrgID)
		role, err := s.OrgRole(ctx, org, user)
		if err != nil {
			return nil, err
		}
		if perr != nil || role == "" {
			return nil, domain.Errorf(domain.CodeNotFound, "no connector %s", serverID)
		}
	}
	creds := Creds{}
	for _, f := range m.TokenFields() {
		if v := fields[f.Name]; v != "" {
			creds[f.Name] = v
		}
	}
	probe := uuid.New()
	defer s.Opts.Pool.Drop(probe)
	return s.lookup(ctx, probe, m, property, q, creds, nil)
}

func (s *Service) lookup(ctx context.Context, key uuid.UUID, m *connector.Manifest, property, q string, creds Creds, settings json.RawMessage) ([]connector.Option, error) {
	c := s.BySlug[m.Slug]
	var lk connector.Looker
	if c != nil {
		lk, _ = c.Adapter.(connector.Looker)
	}
	if lk == nil || len(m.SettingsSchema) == 0 {
		return nil, domain.Errorf(domain.CodeNotFound, "%s has no lookup", m.DisplayName)
	}
	schema, err := connector.ParseSettingsSchema(m.SettingsSchema)
	if err != nil {
		return nil, err
	}
	if !schema.LookupProperty(property) {
		return nil, domain.Errorf(domain.CodeNotFound, "%s is not a lookup setting of %s", property, m.DisplayName)
	}
	red := newRedactor(creds)
	opts, err := lk.Lookup(ctx, property, q, creds, s.AdapterContext(key, m, creds, settings))
	if err != nil {
		return nil, providerError("lookup", err, red)
	}
	if opts == nil {
		opts = []connector.Option{}
	}
	// The options come from the provider and go to the portal: redacted like a tool result.
	for i := range opts {
		o := &opts[i]
		o.Value, o.Label, o.Detail, o.Image = red.Text(o.Value), red.Text(o.Label), red.Text(o.Detail), red.Text(o.Image)
	}
	return opts, nil
}
