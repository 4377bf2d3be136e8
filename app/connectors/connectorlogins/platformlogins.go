package connectorlogins

import (
	"context"
	"errors"
	"strings"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/platformcall"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// Platform logins (spec connectors.md, Platform logins): a connector whose manifest names
// auth.instance gets one login owned by the platform while its platform key is set. The login holds
// an empty sealed payload; the key is read through PlatformKeys at every call and listing, never
// stored on the login. Its tools' default switches are written at the platform scope, which every
// organisation, guild and agent inherits and may turn Off. An organisation's own login to the same
// connector is more specific and wins, and calls with its own key.

var platformOwner = login.Owner{Scope: login.ScopePlatform}

// PlatformRedacted is what replaces a platform key's value in results and errors:
// [REDACTED:platform_<slug>_<field>], the connector's slug and the key's field.
func PlatformRedacted(slug, field string) string {
	return "[REDACTED:platform_" + slug + "_" + field + "]"
}

// tokenFieldName is the login field the endpoint's token comes from (as token() reads it).
func tokenFieldName(m *connector.Manifest) string {
	fields := m.TokenFields()
	for _, f := range fields {
		if f.Name == "token" {
			return f.Name
		}
	}
	for _, f := range fields {
		if f.Secret {
			return f.Name
		}
	}
	if len(fields) > 0 {
		return fields[0].Name
	}
	return "token"
}

// PlatformCreds reads the key srv's auth.instance names and maps it onto the login's fields, with the
// redaction label of each; ok is false while the key (or a required field of it) is not set, and for
// the {integration, field} form on a connector the box did not ship.
func (s *Service) PlatformCreds(ctx context.Context, srv connectorsrm.Server, m *connector.Manifest) (Creds, map[string]string, bool, error) {
	inst := m.Auth.Instance
	if inst == nil || s.Opts.PlatformKeys == nil || (!inst.Own && srv.Source != "core") {
		return nil, nil, false, nil
	}
	fields, ok, err := s.readPlatformKey(ctx, m.KeyName())
	if err != nil || !ok {
		return nil, nil, false, err
	}
	creds, labels := Creds{}, map[string]string{}
	if inst.Own {
		for _, f := range m.TokenFields() {
			v := fields[f.Name]
			if v == "" {
				if !f.Optional {
					return nil, nil, false, nil
				}
				continue
			}
			creds[f.Name], labels[f.Name] = v, PlatformRedacted(m.Slug, f.Name)
		}
		return creds, labels, true, nil
	}
	v := fields[inst.Field]
	if v == "" {
		return nil, nil, false, nil
	}
	name := tokenFieldName(m)
	creds[name], labels[name] = v, PlatformRedacted(m.Slug, inst.Field)
	return creds, labels, true, nil
}

// SyncPlatformLogins gives every connector of the catalog whose manifest names auth.instance a
// connected platform login while its key is set, and disconnects it while the key is unset (or the
// connector no longer names auth.instance, or left the catalog). A login that is already as it should
// be records nothing, and each login is written with the version it was read at: the sync is
// idempotent and several replicas may run it at once. A newly connected login lists its tools with
// the key; a listing that fails is logged, and the next run start lists again.
func (s *Service) SyncPlatformLogins(ctx context.Context) error {
	s.syncing.Lock()
	defer s.syncing.Unlock()
	servers, err := s.Reader.Servers(ctx)
	if err != nil {
		return err
	}
	existing, err := s.Reader.Logins(ctx, []login.Owner{platformOwner})
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var errs []error
	for _, srv := range servers {
		seen[srv.ID] = true
		m, err := s.ManifestOf(srv)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := s.syncPlatformLogin(ctx, srv, m); err != nil {
			s.Log.WarnContext(ctx, "platform login sync failed", "server", srv.ID, "err", err)
			errs = append(errs, err)
		}
	}
	for _, l := range existing {
		if !seen[l.ServerID] && l.Status == login.StatusConnected {
			if err := s.disconnectPlatform(ctx, l.ServerID, "the connector left the catalog"); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

func (s *Service) syncPlatformLogin(ctx context.Context, srv connectorsrm.Server, m *connector.Manifest) error {
	creds, _, set, err := s.PlatformCreds(ctx, srv, m)
	if err != nil {
		return err
	}
	stream := login.StreamName(srv.ID, platformOwner, "")
	st, _, err := eventstore.LoadState(ctx, s.Opts.Store, stream, loginAggregate)
	if err != nil {
		return err
	}
	connected := st.Exists() && st.Status == login.StatusConnected
	switch {
	case !set && !connected:
		return nil
	case !set:
		reason := "the platform key " + m.KeyName() + " is not set"
		if m.Auth.Instance == nil {
			reason = "the connector no longer runs on a platform key"
		}
		return s.disconnectPlatform(ctx, srv.ID, reason)
	case connected && !st.ListedAt.IsZero():
		return nil
	}
	if !connected {
		cmd := login.SyncPlatform{ServerID: srv.ID, KeySet: true, At: s.Opts.Now()}
		if st.Credential.IsZero() {
			cmd.NewLoginID = uuid.New()
			if cmd.Credential, err = s.Seal(ctx, cmd.NewLoginID, Creds{}); err != nil {
				return err
			}
		}
		res, err := s.executeLogin(ctx, "system", stream, cmd)
		if err != nil {
			return err
		}
		st = res.State
	}
	if err := s.List(ctx, "system", srv, m, st, creds); err != nil {
		s.Log.WarnContext(ctx, "platform login listing failed; the next run start lists again", "server", srv.ID,
			"err", providerError("list tools", err, newRedactor(creds)))
	}
	return nil
}

func (s *Service) disconnectPlatform(ctx context.Context, serverID, reason string) error {
	_, err := s.executeLogin(ctx, "system", login.StreamName(serverID, platformOwner, ""),
		login.SyncPlatform{ServerID: serverID, KeySet: false, Reason: reason, At: s.Opts.Now()})
	return err
}

// RequestPlatformSync asks RunPlatformSync for a sync; it never blocks, and requests made while one
// is pending are one.
func (s *Service) RequestPlatformSync() {
	select {
	case s.syncs <- struct{}{}:
	default:
	}
}

// RunPlatformSync syncs the platform logins each time it is asked, until ctx ends.
func (s *Service) RunPlatformSync(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.syncs:
			if err := s.SyncPlatformLogins(ctx); err != nil && ctx.Err() == nil {
				s.Log.WarnContext(ctx, "platform login sync", "err", err)
			}
		}
	}
}

// CatalogChanged is the connectors read model's AfterApply: a batch holding a catalog event (any type
// connector.*: an install at boot, an admin's edit) asks for a sync, as does a nil batch (another
// runner moved the read model).
func (s *Service) CatalogChanged(envs []eventstore.Envelope) {
	if envs == nil {
		s.RequestPlatformSync()
		return
	}
	for _, e := range envs {
		if strings.HasPrefix(e.Type, "connector.") {
			s.RequestPlatformSync()
			return
		}
	}
}

// PlatformKeysChanged is the platform keys read model's AfterApply: every key write, on whichever
// replica it was made, asks this replica for a sync.
func (s *Service) PlatformKeysChanged([]eventstore.Envelope) { s.RequestPlatformSync() }

type callerKey struct{}

// WithCaller carries the caller of a tool call to the platform login's count.
func WithCaller(ctx context.Context, c executions.Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// organizationOf is the organisation a call is counted under: the caller's agent's; uuid.Nil for a
// call with no caller (an operator's Test).
func (s *Service) organizationOf(ctx context.Context) (uuid.UUID, error) {
	c, ok := ctx.Value(callerKey{}).(executions.Caller)
	if !ok {
		return uuid.Nil, nil
	}
	agent, err := s.AgentOf(ctx, c)
	if err != nil {
		return uuid.Nil, err
	}
	chain, err := s.ChainOf(ctx, c.UserID, agent)
	if err != nil {
		return uuid.Nil, err
	}
	return chain.OrganizationID, nil
}

// PlatformUse is what a call on a platform login runs with.
type PlatformUse struct {
	Creds Creds
	Red   redactor
}

// PlatformCall prepares a call on login l: nil for a login that is not the platform's. For a platform
// login it reads the key (CodeNotConnected while it is unset) and counts the call against the
// organisation's monthly cap before anything reaches the provider; a call past the cap is refused
// with platformcall.LimitMessage as its whole message.
func (s *Service) PlatformCall(ctx context.Context, l connectorsrm.Login, srv connectorsrm.Server, m *connector.Manifest) (*PlatformUse, error) {
	if l.Owner.Scope != login.ScopePlatform {
		return nil, nil
	}
	creds, labels, ok, err := s.PlatformCreds(ctx, srv, m)
	if err != nil {
		return nil, &domain.Error{Code: domain.CodeUnavailable, Message: "the platform key cannot be read now; try again in a moment", Err: err}
	}
	if !ok {
		return nil, domain.Errorf(domain.CodeNotConnected, "%s runs on a platform key that is not set", m.DisplayName)
	}
	if err := s.countCall(ctx, srv, m); err != nil {
		return nil, err
	}
	return &PlatformUse{Creds: creds, Red: labelledRedactor(creds, labels)}, nil
}

// countCall counts one call of the caller's organisation on srv's platform login in this UTC month,
// or refuses it past the cap (see domain/platformcall: a capped count is decided on the month's stream
// with optimistic concurrency, so concurrent calls never overshoot the cap; that stream holds at most
// the cap's events). An uncapped call is appended without reading the stream, which grows with every
// call, and cannot fail for racing other calls.
func (s *Service) countCall(ctx context.Context, srv connectorsrm.Server, m *connector.Manifest) error {
	org, err := s.organizationOf(ctx)
	if err != nil {
		return err
	}
	cmd := platformcall.Count{OrgID: org, ServerID: srv.ID, Slug: m.Slug, At: s.Opts.Now()}
	if s.Opts.MonthlyCap != nil {
		cmd.Cap, cmd.Capped = s.Opts.MonthlyCap(m.Slug)
	}
	stream := platformcall.StreamName(org, srv.ID, platformcall.Month(cmd.At))
	if !cmd.Capped {
		// Nothing to decide: record the call without reading the month's stream or racing on it.
		ev, err := platformcall.Record(cmd)
		if err != nil {
			return err
		}
		typ, sv, body, err := callAggregate.Codec.Encode(ev)
		if err != nil {
			return err
		}
		_, err = s.Opts.Store.Append(ctx, stream, eventstore.Any, eventstore.EventData{ID: uuid.Must(uuid.NewV7()), Type: typ, SchemaVersion: sv, Data: body, Metadata: s.MD("system")})
		return err
	}
	_, err = eventstore.Execute(ctx, s.Opts.Store, stream, callAggregate, cmd, s.MD("system"))
	if errors.Is(err, eventstore.ErrConflict) {
		return domain.Errorf(domain.CodeUnavailable, "too many calls on %s at once to count; try again", m.DisplayName)
	}
	return err
}
