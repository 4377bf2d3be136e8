package connectorcore

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors/mcpclient"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/config"
	"github.com/workbench/workbench/internal/ssrf"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// Defaults.
const (
	// RelistAfter is the age of a stored list past which a run start lists again.
	RelistAfter = 10 * time.Minute
	// MaxTestResultBytes caps a test call's result.
	MaxTestResultBytes = 64 << 10
	// RunStartTimeout bounds a run start's listings (a remote tools/list is 15 s; an adapter's list
	// and the append come on top).
	RunStartTimeout = 30 * time.Second
)

// Sealer seals and opens credentials (*vault.Vault).
type Sealer interface {
	Seal(ctx context.Context, subject, purpose string, plaintext []byte) (domain.Sealed, error)
	Open(ctx context.Context, sealed domain.Sealed, purpose string) ([]byte, error)
	// Shred destroys a subject's keys: everything sealed for it opens to vault.ErrShredded.
	Shred(ctx context.Context, subject string, md eventstore.Metadata) error
}

// Projections is the runner, for reading this replica's own writes.
type Projections interface {
	WaitFor(ctx context.Context, pos eventstore.Position) error
}

// Chain is an agent's scopes (the organizations read model's).
type Chain = connectorsrm.Chain

// Scopes resolves an agent's chain and what a user may act for.
type Scopes interface {
	// Chain returns the agent's organization, guild (uuid.Nil when none) and itself.
	Chain(ctx context.Context, agentID uuid.UUID) (Chain, error)
	// DefaultAgent is the agent of a user's credential when the credential names none.
	DefaultAgent(ctx context.Context, userID uuid.UUID) (uuid.UUID, error)
	// MayManage refuses (domain.CodeForbidden or CodeNotFound) a user who may not connect logins or
	// set switches at owner.
	MayManage(ctx context.Context, userID uuid.UUID, owner login.Owner) error
}

// Pool is the MCP client pool (*mcpclient.Pool).
type Pool interface {
	Initialize(ctx context.Context, login uuid.UUID, ep mcpclient.Endpoint) (name, instructions string, err error)
	ListTools(ctx context.Context, login uuid.UUID, ep mcpclient.Endpoint) ([]mcpclient.Tool, error)
	CallTool(ctx context.Context, login uuid.UUID, ep mcpclient.Endpoint, name string, args json.RawMessage) (json.RawMessage, error)
	// Call is CallTool answering the remote's result as the SDK decoded it (its content blocks whole).
	Call(ctx context.Context, login uuid.UUID, ep mcpclient.Endpoint, name string, args json.RawMessage) (*mcp.CallToolResult, error)
	HTTPClient() *http.Client
	Drop(login uuid.UUID)
}

// Options wire a Service. Store, DB, Projections, Vault, Pool and Scopes are required.
type Options struct {
	Store       eventstore.Store
	DB          *sql.DB
	Projections Projections
	Vault       Sealer
	Pool        Pool
	// PlatformKeys reads the platform keys (platformkeys.go); nil: none is set.
	PlatformKeys PlatformKeys
	Scopes       Scopes
	// Connectors are the loaded folders (plugins/shipped.LoadConnectors and any extra).
	Connectors []*connector.Connector
	// Reserved reports a tool prefix that may not be used (a plugin's integration name, a meta-tool).
	Reserved func(prefix string) bool
	// AllowLoopback is WORKBENCH_DEV_ALLOW_LOOPBACK; Resolver is the resolver of the save-time check.
	AllowLoopback bool
	Resolver      ssrf.Resolver
	Now           func() time.Time
	Logger        *slog.Logger
	RelistAfter   time.Duration
	// PublicURL is SERVER_PUBLIC_URL, the base of the OAuth callback (empty: the request's own base).
	PublicURL string
	// OAuthStateKey signs OAuth sign-in states (at least signed.MinSecretLen bytes; empty: a random
	// key of this process, enough for one replica).
	OAuthStateKey []byte
	// MaxMCPServers caps the MCP servers an organisation adds of its own (Config.OrgLimits; 0: no cap).
	MaxMCPServers int
	// CacheTTL bounds how long the tool-call path reuses its reads (default DefaultCacheTTL; negative
	// turns the cache off).
	CacheTTL time.Duration

	// Integrations finds the server's integrations (*plugins.Registry): a configured OAuth connector
	// with a provider signs in with that integration's endpoints (strategy.go).
	Integrations IntegrationLookup
	// IntegrationClients are the <PLUGIN>_CLIENT_ID and _CLIENT_SECRET clients, by integration: the
	// fallback when no platform key integration:<slug> is set.
	IntegrationClients map[string]config.OAuthClient
	// GitHubURL and GitHubAPIURL are GitHub's web and REST API bases for the github_app strategy
	// (empty: DefaultGitHubURL and DefaultGitHubAPIURL).
	GitHubURL, GitHubAPIURL string
	// MonthlyCap is the cap on an organisation's platform-login calls of a connector slug in one UTC
	// month (config.OrgLimits.MonthlyCap); nil: none is capped (platformlogins.go).
	MonthlyCap func(slug string) (int, bool)
	// StateBudget bounds a run start's state hooks, all together (default DefaultStateBudget; state.go).
	StateBudget time.Duration
	// Registry is the connector registry an instance admin installs from (CONNECTOR_REGISTRY_DIR;
	// registry.go); nil: none.
	Registry fs.FS
	// RegistryURL is the registry index fetched over HTTPS instead (CONNECTOR_REGISTRY_URL;
	// registryurl.go); it wins over Registry. RegistryRootCAs are the roots its certificate is
	// checked against (nil: the system's; tests set their server's).
	RegistryURL     string
	RegistryRootCAs *x509.CertPool
}

// DefaultCacheTTL is how long the tool-call path may reuse what it read of an agent's effective
// tools, a catalog row and a login's opened credentials. Every write this replica makes (a connect,
// a listing, a switch, a removal, an install) clears it at once; a write made on another replica is
// seen within the TTL.
const DefaultCacheTTL = time.Second

// IntegrationLookup finds one of the server's integrations by name (*plugins.Registry).
type IntegrationLookup interface {
	Integration(name string) (*plugins.Integration, bool)
}

// Core is what every connector use case shares: the checked options, the read model, the folders
// by slug, the manifests read once, and the hooks a write runs once the read models hold it.
// Each use-case package's Service embeds the one *Core of a connectors.Service.
type Core struct {
	Opts   Options
	Log    *slog.Logger
	Reader connectorsrm.Reader
	BySlug map[string]*connector.Connector

	mu        sync.Mutex
	manifests map[string]*connector.Manifest // by catalog digest: a manifest is read once
	// afterWrite run after every append a use case waits for (the tool-call path's cache clears).
	afterWrite []func()
}

// New checks opts, fills their defaults and returns the Core.
func New(opts Options) (*Core, error) {
	if opts.Store == nil || opts.DB == nil || opts.Projections == nil || opts.Vault == nil || opts.Pool == nil || opts.Scopes == nil {
		return nil, errors.New("connectors: Store, DB, Projections, Vault, Pool and Scopes are required")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.RelistAfter <= 0 {
		opts.RelistAfter = RelistAfter
	}
	if opts.CacheTTL == 0 {
		opts.CacheTTL = DefaultCacheTTL
	}
	if len(opts.OAuthStateKey) == 0 {
		opts.OAuthStateKey = make([]byte, 32)
		if _, err := rand.Read(opts.OAuthStateKey); err != nil {
			return nil, err
		}
	}
	if opts.Reserved == nil {
		opts.Reserved = func(string) bool { return false }
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Core{Opts: opts, Log: log, Reader: connectorsrm.Reader{DB: opts.DB}, BySlug: map[string]*connector.Connector{}, manifests: map[string]*connector.Manifest{}}
	for _, cn := range opts.Connectors {
		c.BySlug[cn.Manifest.Slug] = cn
	}
	return c, nil
}

// AfterWrite adds f to what runs after every append a use case waits for (before the wait: whatever
// the read models answer next, the caller reads afresh). Call it while wiring, before any use.
func (s *Core) AfterWrite(f func()) { s.afterWrite = append(s.afterWrite, f) }

// Invalidate runs the AfterWrite hooks now (a change outside the log: a login's session dropped).
func (s *Core) Invalidate() {
	for _, f := range s.afterWrite {
		f()
	}
}

// MD is the metadata of an append by actor, now.
func (s *Core) MD(actor string) eventstore.Metadata {
	return eventstore.Metadata{Actor: actor, Time: s.Opts.Now().UTC()}
}

// Wait makes the read models hold an append before the caller reads them.
func (s *Core) Wait(ctx context.Context, pos eventstore.Position, n int) error {
	if n == 0 {
		return nil
	}
	// Whatever the read models answer next, the tool-call path reads afresh.
	defer s.Invalidate()
	if err := s.Opts.Projections.WaitFor(ctx, pos); err != nil {
		return fmt.Errorf("wait for the read models: %w", err)
	}
	return nil
}

// ManifestOf reads a catalog row's manifest with the row's overrides applied (the one loader every
// reader goes through), once per manifest and overrides.
func (s *Core) ManifestOf(srv connectorsrm.Server) (*connector.Manifest, error) {
	key := srv.Digest + "\x00" + string(srv.Overrides)
	s.mu.Lock()
	m, ok := s.manifests[key]
	s.mu.Unlock()
	if ok {
		return m, nil
	}
	m, err := RowManifest(srv)
	if err != nil {
		return nil, err
	}
	o, err := OverridesOf(srv)
	if err != nil {
		return nil, err
	}
	m = o.Apply(m)
	s.mu.Lock()
	s.manifests[key] = m
	s.mu.Unlock()
	return m, nil
}

// OverridesOf reads a catalog row's overrides (nil when none).
func OverridesOf(srv connectorsrm.Server) (*connector.Overrides, error) {
	if len(srv.Overrides) == 0 || string(srv.Overrides) == "null" {
		return nil, nil
	}
	var o connector.Overrides
	if err := json.Unmarshal(srv.Overrides, &o); err != nil {
		return nil, fmt.Errorf("overrides of %s: %w", srv.ID, err)
	}
	return &o, nil
}

// RowManifest reads a catalog row's manifest as stored (no overrides).
func RowManifest(srv connectorsrm.Server) (*connector.Manifest, error) {
	c, reasons := connector.Parse(srv.Slug, srv.Manifest, nil)
	if c == nil {
		// An adapter-only manifest fails Parse without its adapter; read it plainly then.
		var m connector.Manifest
		if err := jsonUnmarshal(srv.Manifest, &m); err != nil {
			return nil, fmt.Errorf("manifest of %s: %v", srv.ID, reasons)
		}
		return &m, nil
	}
	return &c.Manifest, nil
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
