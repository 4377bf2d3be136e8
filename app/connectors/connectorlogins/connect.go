package connectorlogins

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors/connectorcore"
	"github.com/workbench/workbench/app/connectors/mcpclient"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// ConnectRequest is a token connect.
type ConnectRequest struct {
	ServerID string
	Owner    login.Owner
	// Account is the label of the account to connect: a new label adds an account, an existing one
	// connects that account again; empty means the default label.
	Account string
	// Fields are the auth.fields inputs by name.
	Fields map[string]string
	// Settings, when sent, are checked against the settings_schema and stored.
	Settings   json.RawMessage
	OnExisting login.OnExisting
	// RequestBase is the scheme and host the request came in on: the OAuth callback's base when
	// PublicURL is not set.
	RequestBase string
}

// ConnectResult is what a connect did.
type ConnectResult struct {
	Login   View
	Outcome login.Outcome
	// ListingError is set when the login connected but its first listing failed (the stored list
	// stays empty until a listing succeeds).
	ListingError string
	// AuthorizationURL and AuthorizationHost are where an OAuth sign-in goes.
	AuthorizationURL  string
	AuthorizationHost string
}

// Connect runs token connect exactly as the spec's steps (connectors.md, Token logins): read the
// auth.fields inputs (422 naming a missing one), check settings when sent, apply onExisting to a
// connected login of the same owner, run validate for the account hint (the provider's 401 or 403 is
// a 422 storing nothing, another failure a 502), store the credentials sealed under the field names,
// and list the login's tools in the same request; a listing the server rejects with 401 or 403
// removes the new login. A login whose settings lack a required property stays pending.
func (s *Service) Connect(ctx context.Context, user uuid.UUID, req ConnectRequest) (ConnectResult, error) {
	var res ConnectResult
	if req.Owner.Scope == login.ScopePlatform {
		return res, domain.Errorf(domain.CodeInvalid, "connect refuses the platform owner: connect at an organization, a guild or an agent")
	}
	if !req.Owner.Scope.Valid() || req.Owner.ID == uuid.Nil {
		return res, domain.Errorf(domain.CodeInvalid, "owner_scope must be organization, guild or agent, with its owner_id")
	}
	if err := connection.CheckAccountLabel(req.Account); err != nil {
		return res, err
	}
	srv, m, err := s.ServerFor(ctx, req.ServerID)
	if err != nil {
		return res, err
	}
	if err := s.Opts.Scopes.MayManage(ctx, user, req.Owner); err != nil {
		return res, err
	}
	if err := s.VisibleAt(ctx, user, srv, req.Owner); err != nil {
		return res, err
	}
	if !srv.Enabled {
		return res, domain.Errorf(domain.CodeUnprocessable, "%s is switched off in this catalog", m.DisplayName)
	}
	if m.Auth.Kind == connector.AuthOAuth {
		return s.connectOAuth(ctx, user, req, srv.ID, m)
	}
	// 1. The inputs auth.fields names.
	creds := Creds{}
	for _, f := range m.TokenFields() {
		v := strings.TrimSpace(req.Fields[f.Name])
		if v == "" {
			if !f.Optional {
				return res, domain.Errorf(domain.CodeUnprocessable, "%s is required", f.Name)
			}
			continue
		}
		creds[f.Name] = v
	}
	red := newRedactor(creds)
	// 2. Settings, when sent.
	var schema *connector.SettingsSchema
	if len(m.SettingsSchema) > 0 {
		if schema, err = connector.ParseSettingsSchema(m.SettingsSchema); err != nil {
			return res, err
		}
	}
	if len(req.Settings) > 0 && string(req.Settings) != "null" {
		if schema == nil {
			return res, domain.Errorf(domain.CodeUnprocessable, "%s takes no settings", m.DisplayName)
		}
		if err := schema.Validate(req.Settings); err != nil {
			return res, domain.Errorf(domain.CodeUnprocessable, "%s", red.Text(err.Error()))
		}
	} else {
		req.Settings = nil
	}
	// 3. onExisting against a connected login of the same owner.
	stream := login.StreamName(srv.ID, req.Owner, req.Account)
	cur, err := s.loadLogin(ctx, stream)
	if err != nil {
		return res, err
	}
	cmd := login.Connect{ServerID: srv.ID, Owner: req.Owner, Account: req.Account, OnExisting: req.OnExisting, Settings: req.Settings, At: s.Opts.Now()}
	if cur.Exists() && cur.Status == login.StatusConnected {
		stored, err := s.Open(ctx, cur.Credential)
		if err != nil {
			return res, err
		}
		cmd.SameCredentials = stored.Equal(creds)
	}
	outcome, err := cmd.Resolve(cur)
	if err != nil {
		return res, err
	}
	if outcome == login.OutcomeKept || outcome == login.OutcomeCurrent {
		v, err := s.LoginView(ctx, cur.LoginID)
		return ConnectResult{Login: v, Outcome: outcome}, err
	}
	settings := req.Settings
	if settings == nil && cur.Exists() {
		settings = cur.Settings
	}
	if schema != nil {
		if settings == nil {
			settings = json.RawMessage("{}")
		}
		cmd.NeedsSettings = schema.Missing(settings)
	}
	// The address check at save time.
	if m.Endpoint != nil {
		if err := mcpclient.CheckURL(ctx, m.Endpoint.URL, s.Opts.AllowLoopback, s.Opts.Resolver); err != nil {
			return res, domain.Errorf(domain.CodeUnprocessable, "%s", err.Error())
		}
	}
	// 4. validate gives the account hint.
	loginID := cur.LoginID
	if loginID == uuid.Nil {
		loginID = uuid.Must(uuid.NewV7())
	}
	hint, err := s.validate(ctx, m, creds, settings)
	if err != nil {
		return res, providerError("validate", err, red)
	}
	cmd.AccountHint = hint
	// 5. Store the credentials sealed.
	sealed, err := s.Seal(ctx, loginID, creds)
	if err != nil {
		return res, err
	}
	cmd.NewLoginID, cmd.Credential = loginID, sealed
	cmd.At = s.Opts.Now()
	r, err := s.executeLogin(ctx, user.String(), stream, cmd)
	if err != nil {
		return res, err
	}
	s.Opts.Pool.Drop(loginID)
	res.Outcome = outcome
	// 6. List in the same request.
	if r.State.Status == login.StatusConnected {
		if err := s.List(ctx, user.String(), srv, m, r.State, creds); err != nil {
			if rejected(err) && !cur.Exists() {
				if rerr := s.RemoveLogin(ctx, user.String(), r.State, "the listing was refused"); rerr != nil {
					s.Log.ErrorContext(ctx, "remove a login whose listing was refused", "login", loginID, "err", rerr)
				}
				s.Opts.Pool.Drop(loginID)
				return ConnectResult{}, providerError("list tools", err, red)
			}
			res.ListingError = providerError("list tools", err, red).(*domain.Error).Message
			s.Log.WarnContext(ctx, "first listing failed", "login", loginID, "server", srv.ID, "err", red.Text(err.Error()))
		}
	}
	if r.State.Status == login.StatusConnected {
		s.catalog.FillCopy(ctx, user.String(), srv, m, creds)
	}
	res.Login, err = s.LoginView(ctx, loginID)
	return res, err
}

// validate runs the adapter's validate, or initialize against the endpoint, or nothing.
func (s *Service) validate(ctx context.Context, m *connector.Manifest, creds Creds, settings json.RawMessage) (string, error) {
	c := s.BySlug[m.Slug]
	probe := uuid.New() // a throwaway session: the login's own is opened by its first listing
	defer s.Opts.Pool.Drop(probe)
	if c != nil {
		if v, ok := c.Adapter.(connector.Validator); ok {
			return v.Validate(ctx, creds, s.AdapterContext(probe, m, creds, settings))
		}
	}
	if ep, ok := endpoint(m, creds); ok {
		_, _, err := s.Opts.Pool.Initialize(ctx, probe, ep)
		return "", err
	}
	return "", nil
}

func (s *Service) loadLogin(ctx context.Context, stream string) (login.State, error) {
	st, _, err := loadState(ctx, s, stream)
	return st, err
}

// Remove deletes a login and the bindings that point at it: the default switches its listings wrote
// at the login owner's scope go first (toolswitch.cleared, defaults_only; a switch someone set at that
// scope outlives the login), then the login's vault subject is shredded (its
// sealed credential, in the log and in every copy of it, opens to vault.ErrShredded), then the login
// (login.removed). Each step may be repeated, so a failed removal is retried whole. Switches other
// scopes hold for the connector stay with those scopes.
func (s *Service) Remove(ctx context.Context, user, loginID uuid.UUID) error {
	l, err := s.ManagedLogin(ctx, user, loginID)
	if err != nil {
		return err
	}
	if l.Owner.Scope == login.ScopePlatform {
		return domain.Errorf(domain.CodeInvalid, "a platform login is not removed here")
	}
	return s.RemoveLogin(ctx, user.String(), l.State, "removed")
}

// RemoveLogin clears the default switches of the login at its owner's scope (unless another account
// of the connector stays at that owner: the defaults are the owner's, and serve it), shreds its
// credential and removes it.
func (s *Service) RemoveLogin(ctx context.Context, actor string, l login.State, reason string) error {
	others, err := s.otherAccounts(ctx, l)
	if err != nil {
		return err
	}
	if !others {
		clear := login.SwitchesCleared{Owner: l.Owner, ServerID: l.ServerID, LoginID: l.LoginID, Reason: reason,
			DefaultsOnly: true, At: s.Opts.Now()}
		if err := s.Switches.ClearSwitches(ctx, actor, clear); err != nil {
			return err
		}
	}
	if err := s.Opts.Vault.Shred(ctx, connectorcore.CredentialSubject(l.LoginID), s.MD(actor)); err != nil {
		return err
	}
	_, err = s.executeLogin(ctx, actor, l.Stream(), login.Remove{LoginID: l.LoginID, Reason: reason, At: s.Opts.Now()})
	s.Opts.Pool.Drop(l.LoginID)
	s.Invalidate()
	return err
}

// otherAccounts reports whether the login's owner holds another account of its connector.
func (s *Service) otherAccounts(ctx context.Context, l login.State) (bool, error) {
	ls, err := s.Reader.Logins(ctx, []login.Owner{l.Owner})
	if err != nil {
		return false, err
	}
	for _, o := range ls {
		if o.ServerID == l.ServerID && o.LoginID != l.LoginID {
			return true, nil
		}
	}
	return false, nil
}

// ServerOf reads the login's server and manifest.
func (s *Service) ServerOf(ctx context.Context, l connectorsrm.Login) (connectorsrm.Server, *connector.Manifest, error) {
	srv, m, err := s.ServerFor(ctx, l.ServerID)
	if domain.ErrorCode(err) == domain.CodeNotFound {
		return srv, nil, domain.Errorf(domain.CodeNotFound, "the connector of login %s is gone", l.LoginID)
	}
	return srv, m, err
}

// EventLabel is an account label as events carry it: empty for the default account.
func EventLabel(label string) string {
	if label == connection.DefaultAccount {
		return ""
	}
	return label
}

// ChooseDefault makes a connected login its owner's default account of its connector: the one a call
// that names no account uses (login.DefaultOf). The user must manage the login's owner.
func (s *Service) ChooseDefault(ctx context.Context, user, loginID uuid.UUID) (View, error) {
	l, err := s.ManagedLogin(ctx, user, loginID)
	if err != nil {
		return View{}, err
	}
	if l.Owner.Scope == login.ScopePlatform {
		return View{}, domain.Errorf(domain.CodeInvalid, "a platform login has one account; there is no default to choose")
	}
	if _, err := s.executeLogin(ctx, user.String(), l.Stream(), login.ChooseDefault{LoginID: l.LoginID, At: s.Opts.Now()}); err != nil {
		return View{}, err
	}
	return s.LoginView(ctx, loginID)
}

// FillFromServer fills a hand-added server's blank display name and description from its initialize
// reply once a browser login of it is connected (the OAuth callback; token Connect does it itself).
// Failures log and change nothing.
func (s *Service) FillFromServer(ctx context.Context, actor string, loginID uuid.UUID) {
	l, err := s.Reader.Login(ctx, loginID)
	if err != nil || l.Status != login.StatusConnected {
		return
	}
	srv, m, err := s.ServerFor(ctx, l.ServerID)
	if err != nil || !s.catalog.HandMade(srv) || (m.DisplayName != "" && m.Description != "") {
		return
	}
	creds, err := s.Open(ctx, l.Credential)
	if err != nil {
		s.Log.WarnContext(ctx, "fill a server's copy from initialize", "server", srv.ID, "err", err)
		return
	}
	if creds, err = s.Fresh(ctx, l.State, m, creds, false); err != nil {
		s.Log.WarnContext(ctx, "fill a server's copy from initialize", "server", srv.ID, "err", err)
		return
	}
	s.catalog.FillCopy(ctx, actor, srv, m, creds)
}
