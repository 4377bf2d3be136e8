package platformkeys

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/platformkey"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/projections/connectorsrm"
	"github.com/workbench/workbench/projections/platform"
)

const sealPurpose = "platform-key"

// Sealer seals, opens and shreds (*vault.Vault).
type Sealer interface {
	Seal(ctx context.Context, subject, purpose string, plaintext []byte) (domain.Sealed, error)
	Open(ctx context.Context, sealed domain.Sealed, purpose string) ([]byte, error)
	Shred(ctx context.Context, subject string, md eventstore.Metadata) error
}

// Projections is the runner, for reading this replica's own writes.
type Projections interface {
	WaitFor(ctx context.Context, pos eventstore.Position) error
}

// Integrations are the loaded plugins (*plugins.Registry).
type Integrations interface {
	Integration(name string) (*plugins.Integration, bool)
	Integrations() []*plugins.Integration
}

// Catalog reads the connector catalog (projections/connectorsrm.Reader).
type Catalog interface {
	Server(ctx context.Context, id string) (connectorsrm.Server, error)
	Servers(ctx context.Context) ([]connectorsrm.Server, error)
}

// Principal is who asks: a signed-in user with their email.
type Principal struct {
	ID    uuid.UUID
	Email string
}

// Options wire a Service. Store, DB-backed Reader, Projections, Vault, Integrations and Catalog are
// required.
type Options struct {
	Store        eventstore.Store
	Reader       platform.Reader
	Projections  Projections
	Vault        Sealer
	Integrations Integrations
	Catalog      Catalog
	// Admins are the instance admins' normalised emails (Config.Admins, WORKBENCH_ADMINS).
	Admins []string
	// AfterWrite runs after every write this replica makes (the platform login sync); nil: nothing.
	AfterWrite func(ctx context.Context) error
	// MonthlyCap is the cap of a connector slug (config.OrgLimits.MonthlyCap), shown beside the usage.
	MonthlyCap func(slug string) (int, bool)
	Now        func() time.Time
}

// Service is the platform keys use case; safe for concurrent use.
type Service struct {
	opts Options

	mu    sync.Mutex
	gen   uint64
	cache map[string]cached
}

type cached struct {
	fields map[string]string
	ok     bool
}

var aggregate = eventstore.Aggregate[platformkey.State, platformkey.Command, domain.Event]{
	Initial: platformkey.Initial, Evolve: platformkey.Evolve, Decide: platformkey.Decide,
	Codec: eventstore.NewJSONCodec(platformkey.Events()...),
}

// New checks opts and returns a Service.
func New(opts Options) (*Service, error) {
	if opts.Store == nil || opts.Reader.DB == nil || opts.Projections == nil || opts.Vault == nil || opts.Integrations == nil || opts.Catalog == nil {
		return nil, errors.New("platformkeys: Store, Reader, Projections, Vault, Integrations and Catalog are required")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Service{opts: opts, cache: map[string]cached{}}, nil
}

// IsAdmin reports whether p is an instance admin.
func (s *Service) IsAdmin(p Principal) bool {
	return p.ID != uuid.Nil && p.Email != "" && slices.Contains(s.opts.Admins, strings.ToLower(p.Email))
}

func (s *Service) requireAdmin(p Principal) error {
	if !s.IsAdmin(p) {
		return domain.Errorf(domain.CodeForbidden, "platform keys are the instance admins' (WORKBENCH_ADMINS)")
	}
	return nil
}

// Field is one field a key name declares.
type Field struct {
	Name     string `json:"name"`
	Label    string `json:"label,omitempty"`
	Optional bool   `json:"optional,omitempty"`
}

// Declared lists the fields a key name may hold; CodeUnprocessable for a name of no known form, or
// one whose plugin or connector does not exist or declares no key.
func (s *Service) Declared(ctx context.Context, name string) ([]Field, error) {
	kind, slug, err := platformkey.Parse(name)
	if err != nil {
		return nil, err
	}
	switch kind {
	case platformkey.KindGitHubApp:
		return []Field{{Name: "app_id", Label: "App ID"}, {Name: "app_slug", Label: "App slug", Optional: true},
			{Name: "client_id", Label: "Client ID"}, {Name: "client_secret", Label: "Client secret"}, {Name: "private_key", Label: "Private key (PEM)"}}, nil
	case platformkey.KindIntegration:
		in, ok := s.opts.Integrations.Integration(slug)
		if !ok {
			return nil, domain.Errorf(domain.CodeUnprocessable, "platform key %s: no integration %q is loaded", name, slug)
		}
		switch {
		case in.Auth.APIKey != nil:
			var out []Field
			for _, f := range in.Auth.APIKey.Fields {
				out = append(out, Field{Name: f.Name, Label: f.Label, Optional: f.Optional})
			}
			return out, nil
		case in.Auth.OAuth2 != nil:
			return oauthClient(), nil
		}
		return nil, domain.Errorf(domain.CodeUnprocessable, "platform key %s: integration %q takes no key", name, slug)
	}
	srv, err := s.opts.Catalog.Server(ctx, "mcp_"+slug)
	if domain.ErrorCode(err) == domain.CodeNotFound {
		return nil, domain.Errorf(domain.CodeUnprocessable, "platform key %s: no connector %q in the catalog", name, slug)
	}
	if err != nil {
		return nil, err
	}
	var m connector.Manifest
	if err := json.Unmarshal(srv.Manifest, &m); err != nil {
		return nil, fmt.Errorf("platform key %s: read the manifest: %w", name, err)
	}
	switch m.Auth.Kind {
	case connector.AuthOAuth:
		return oauthClient(), nil
	case connector.AuthToken:
		var out []Field
		for _, f := range m.TokenFields() {
			out = append(out, Field{Name: f.Name, Label: f.Label, Optional: f.Optional})
		}
		return out, nil
	}
	return nil, domain.Errorf(domain.CodeUnprocessable, "platform key %s: connector %q signs in with no key", name, slug)
}

func oauthClient() []Field {
	return []Field{{Name: "client_id", Label: "Client ID"}, {Name: "client_secret", Label: "Client secret"}}
}

func subject(name string) string { return "platform-key:" + name + ":" + uuid.NewString() }

// Set sets or replaces the key name with fields (every value a declared field's, every required
// field present, none blank). The previous values, if any, are shredded.
func (s *Service) Set(ctx context.Context, p Principal, name string, fields map[string]string) (View, error) {
	if err := s.requireAdmin(p); err != nil {
		return View{}, err
	}
	declared, err := s.Declared(ctx, name)
	if err != nil {
		return View{}, err
	}
	known := map[string]bool{}
	for _, f := range declared {
		known[f.Name] = true
	}
	names := slices.Sorted(maps.Keys(fields))
	for _, n := range names {
		if !known[n] {
			return View{}, domain.Errorf(domain.CodeUnprocessable, "platform key %s: fields.%s is not a field it declares", name, n)
		}
		if strings.TrimSpace(fields[n]) == "" {
			return View{}, domain.Errorf(domain.CodeUnprocessable, "platform key %s: fields.%s is blank", name, n)
		}
	}
	for _, f := range declared {
		if _, ok := fields[f.Name]; !ok && !f.Optional {
			return View{}, domain.Errorf(domain.CodeUnprocessable, "platform key %s: fields.%s is required", name, f.Name)
		}
	}
	raw, err := json.Marshal(fields)
	if err != nil {
		return View{}, err
	}
	sealed, err := s.opts.Vault.Seal(ctx, subject(name), sealPurpose, raw)
	if err != nil {
		return View{}, fmt.Errorf("seal platform key: %w", err)
	}
	prev, err := s.current(ctx, name)
	if err != nil {
		return View{}, err
	}
	md := s.md(p)
	res, err := eventstore.Execute(ctx, s.opts.Store, platformkey.StreamName(name), aggregate,
		platformkey.Command(platformkey.SetKey{Name: name, Fields: names, Sealed: sealed, By: p.Email, At: md.Time}), md)
	if err != nil {
		return View{}, err
	}
	if err := s.after(ctx, res.Position, prev, md); err != nil {
		return View{}, err
	}
	return View{Name: name, Fields: names, Set: true, SetBy: p.Email, SetAt: md.Time}, nil
}

// Remove removes the key name and shreds its values; a key that is not set is CodeNotFound.
func (s *Service) Remove(ctx context.Context, p Principal, name string) error {
	if err := s.requireAdmin(p); err != nil {
		return err
	}
	if _, _, err := platformkey.Parse(name); err != nil {
		return err
	}
	prev, err := s.current(ctx, name)
	if err != nil {
		return err
	}
	md := s.md(p)
	res, err := eventstore.Execute(ctx, s.opts.Store, platformkey.StreamName(name), aggregate,
		platformkey.Command(platformkey.RemoveKey{Name: name, By: p.Email, At: md.Time}), md)
	if err != nil {
		return err
	}
	return s.after(ctx, res.Position, prev, md)
}

func (s *Service) md(p Principal) eventstore.Metadata {
	return eventstore.Metadata{Actor: p.ID.String(), Time: s.opts.Now().UTC()}
}

// current is the sealed value the key's stream holds now (zero when unset), read from the stream
// itself rather than the read model, which may not hold another replica's write yet. A write racing
// another may still find its predecessor replaced by then; its values then stay sealed in the log.
func (s *Service) current(ctx context.Context, name string) (domain.Sealed, error) {
	st, _, err := eventstore.LoadState(ctx, s.opts.Store, platformkey.StreamName(name), aggregate)
	if err != nil || !st.IsSet {
		return domain.Sealed{}, err
	}
	return st.Last.Sealed, nil
}

// after waits for the read model, shreds the values the write replaced (prev), and runs AfterWrite.
func (s *Service) after(ctx context.Context, pos eventstore.Position, prev domain.Sealed, md eventstore.Metadata) error {
	if err := s.opts.Projections.WaitFor(ctx, pos); err != nil {
		return fmt.Errorf("wait for the read models: %w", err)
	}
	s.Forget(nil)
	if prev.Subject != "" {
		// The values this write replaced or removed open to nothing from now on, in every copy.
		if err := s.opts.Vault.Shred(ctx, prev.Subject, md); err != nil {
			return fmt.Errorf("shred the previous platform key: %w", err)
		}
	}
	if s.opts.AfterWrite != nil {
		return s.opts.AfterWrite(ctx)
	}
	return nil
}

// View is a key as the admin API shows it: never its values.
type View struct {
	Name   string    `json:"name"`
	Fields []string  `json:"fields"`
	Set    bool      `json:"set"`
	SetBy  string    `json:"set_by,omitempty"`
	SetAt  time.Time `json:"set_at,omitzero"`
}

// List lists the keys that are set, by name.
func (s *Service) List(ctx context.Context, p Principal) ([]View, error) {
	if err := s.requireAdmin(p); err != nil {
		return nil, err
	}
	keys, err := s.opts.Reader.Keys(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]View, 0, len(keys))
	for _, k := range keys {
		out = append(out, View{Name: k.Name, Fields: k.Fields, Set: true, SetBy: k.SetBy, SetAt: k.SetAt})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// PlatformKey implements app/connectors.PlatformKeys: the key's fields at call time, from the cache
// or the read model.
func (s *Service) PlatformKey(ctx context.Context, name string) (map[string]string, bool, error) {
	s.mu.Lock()
	c, hit := s.cache[name]
	gen := s.gen
	s.mu.Unlock()
	if hit {
		return maps.Clone(c.fields), c.ok, nil
	}
	k, ok, err := s.opts.Reader.Key(ctx, name)
	if err != nil {
		return nil, false, fmt.Errorf("read platform key %s: %w", name, err)
	}
	var fields map[string]string
	if ok {
		raw, err := s.opts.Vault.Open(ctx, k.Sealed, sealPurpose)
		if err != nil {
			return nil, false, fmt.Errorf("open platform key %s: %w", name, err)
		}
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, false, fmt.Errorf("read platform key %s: %w", name, err)
		}
	}
	s.mu.Lock()
	if s.gen == gen { // no key event applied since the read began
		s.cache[name] = cached{fields: fields, ok: ok}
	}
	s.mu.Unlock()
	return maps.Clone(fields), ok, nil
}

// Forget empties the cache (wired as the platform_keys projection's AfterApply: envs are the
// batch applied, nil when another runner moved the read model).
func (s *Service) Forget(_ []eventstore.Envelope) {
	s.mu.Lock()
	s.gen++
	s.cache = map[string]cached{}
	s.mu.Unlock()
}

// Slot is one key name the box knows, with the fields it declares and whether it is set: the rows of
// Admin, Platform keys. Values are never part of it.
type Slot struct {
	View
	Declared []Field `json:"declared"`
	// UsedBy are the connectors whose platform login or OAuth client reads the key.
	UsedBy []string `json:"used_by,omitempty"`
}

// Slots lists every key name the box knows (its integrations that take a key, its connectors that run
// on their own key or a configured OAuth client without a provider, the GitHub App) and every key set
// under another name, by name.
func (s *Service) Slots(ctx context.Context, p Principal) ([]Slot, error) {
	set, err := s.List(ctx, p)
	if err != nil {
		return nil, err
	}
	slots := map[string]*Slot{}
	add := func(name string) *Slot {
		if sl, ok := slots[name]; ok {
			return sl
		}
		sl := &Slot{View: View{Name: name, Fields: []string{}}}
		sl.Declared, _ = s.Declared(ctx, name)
		slots[name] = sl
		return sl
	}
	add(platformkey.GitHubApp)
	for _, in := range s.opts.Integrations.Integrations() {
		if in.Auth.APIKey != nil || in.Auth.OAuth2 != nil {
			add("integration:" + in.Name)
		}
	}
	servers, err := s.opts.Catalog.Servers(ctx)
	if err != nil {
		return nil, err
	}
	for _, srv := range servers {
		var m connector.Manifest
		if json.Unmarshal(srv.Manifest, &m) != nil {
			continue
		}
		switch {
		case m.Auth.Instance != nil:
			sl := add(m.KeyName())
			sl.UsedBy = append(sl.UsedBy, m.Slug)
		case m.Auth.OAuth != nil && m.Auth.OAuth.Strategy == "configured" && m.Auth.OAuth.Provider == "":
			sl := add("connector:" + m.Slug)
			sl.UsedBy = append(sl.UsedBy, m.Slug)
		}
	}
	for _, v := range set {
		add(v.Name).View = v
	}
	out := make([]Slot, 0, len(slots))
	for _, sl := range slots {
		out = append(out, *sl)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Usage is one organisation's calls on one connector's platform login in one UTC month, beside the
// connector's cap.
type Usage struct {
	OrganizationID uuid.UUID `json:"organization_id"`
	ServerID       string    `json:"server_id"`
	Slug           string    `json:"slug"`
	Month          string    `json:"month"`
	Calls          int       `json:"calls"`
	// Cap is the monthly cap (nil: uncapped).
	Cap *int `json:"cap"`
}

// Usage lists the counted calls, newest month first, with each connector's cap.
func (s *Service) Usage(ctx context.Context, p Principal) ([]Usage, error) {
	if err := s.requireAdmin(p); err != nil {
		return nil, err
	}
	rows, err := s.opts.Reader.Usage(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Usage, 0, len(rows))
	for _, r := range rows {
		u := Usage{OrganizationID: r.OrgID, ServerID: r.ServerID, Slug: r.Slug, Month: r.Month, Calls: r.Calls}
		if s.opts.MonthlyCap != nil {
			if c, ok := s.opts.MonthlyCap(r.Slug); ok {
				u.Cap = &c
			}
		}
		out = append(out, u)
	}
	return out, nil
}
