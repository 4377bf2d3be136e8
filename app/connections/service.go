package connections

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/bus"
	"github.com/workbench/workbench/internal/config"
	"github.com/workbench/workbench/internal/signed"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/projections/connectionsrm"
)

// Catalog is the part of the plugin registry this package reads.
type Catalog interface {
	Integration(name string) (*plugins.Integration, bool)
	Integrations() []*plugins.Integration
}

// Projections is the part of the projections runner this package uses to read its own writes.
type Projections interface {
	WaitFor(ctx context.Context, pos eventstore.Position) error
}

// Subscriber is the part of the bus this package uses: the committed events of the streams it
// watches, on every replica.
type Subscriber interface {
	SubscribeWhere(ctx context.Context, topic string, match bus.Match, fn bus.Handler) (*bus.Subscription, error)
}

// Defaults of Config.
const (
	DefaultSweepInterval = 60 * time.Second
	// DefaultRetention is how long a terminal attempt stays answerable (spec, Connection: "kept for
	// another hour before a 60-second sweep prunes it").
	DefaultRetention = time.Hour
	// RefreshLeaseTTL is how long a refresh claim holds before another replica may take it over.
	RefreshLeaseTTL = 30 * time.Second
	// tokenRequestTimeout bounds one request to a provider's token endpoint; it is shorter than the
	// refresh lease so a claim never lapses while its holder is still waiting on the provider.
	tokenRequestTimeout = 20 * time.Second
)

// Config wires a Service. Store, Vault, Catalog, DB, Projections, PublicURL and LinkKey are required.
type Config struct {
	Store eventstore.Store
	Vault Sealer
	// Catalog is the plugin registry.
	Catalog Catalog
	// DB holds the connections read models (projections/connectionsrm).
	DB *sql.DB
	// Projections is the runner keeping those read models, for reading this replica's own writes.
	Projections Projections
	// Bus delivers every committed event (bus.EventsTopic), so that a wait completes here when the
	// callback lands on another replica. Run subscribes to it. Nil makes waits fall back to reading
	// the log every PollFallback.
	Bus   Subscriber
	Topic string // default bus.EventsTopic
	// PublicURL is SERVER_PUBLIC_URL: claim links and OAuth redirect URIs are built on it.
	PublicURL string
	// LinkKey signs claim links; at least 32 bytes, the same on every replica.
	LinkKey []byte
	// Clients are the integrations' OAuth clients, by integration name, as internal/config read them
	// (<PLUGIN>_CLIENT_ID and <PLUGIN>_CLIENT_SECRET). An OAuth integration without one cannot be
	// connected.
	Clients map[string]config.OAuthClient
	// PlatformKeys, when set, are read at connect time and at every token request before Clients:
	// the platform key "integration:<name>" (fields client_id, client_secret) an instance admin set
	// in the portal (Admin, Platform keys) is the integration's OAuth client, on every replica and
	// with no restart. Nil: Clients alone.
	PlatformKeys PlatformKeys
	// HTTPClient calls token endpoints. Default: a client with a 20-second timeout that follows no
	// redirects.
	HTTPClient *http.Client
	// Transport sends the requests made to an integration's own API through the plugin runtime's
	// guarded client (an API key's check before it is stored). Nil means http.DefaultTransport.
	Transport http.RoundTripper
	Now       func() time.Time
	Logger    *slog.Logger

	SweepInterval time.Duration // default DefaultSweepInterval
	Retention     time.Duration // default DefaultRetention
	LinkTTL       time.Duration // default LinkTTL
	// PollFallback is how often a wait re-reads the log when there is no bus (default 1s).
	PollFallback time.Duration
}

// Service is the credential layer: the connect flow, the stored credentials, lazy refresh and
// wait_for_connection. It is safe for concurrent use.
type Service struct {
	store     eventstore.Store
	vault     Sealer
	catalog   Catalog
	reader    connectionsrm.Reader
	db        *sql.DB
	runner    Projections
	bus       Subscriber
	topic     string
	publicURL string
	links     *signed.Sealer[claim]
	clients   map[string]config.OAuthClient
	keys      PlatformKeys
	client    *http.Client
	transport http.RoundTripper
	now       func() time.Time
	log       *slog.Logger
	// redactors caches the redactors of the credential values calls used (redactors.go).
	redactors *redactors

	sweepEvery time.Duration
	retention  time.Duration
	linkTTL    time.Duration
	pollEvery  time.Duration

	hub      *hub
	ready    chan struct{} // closed once Run's bus subscription is in place
	readyOne sync.Once

	flightsMu sync.Mutex
	flights   map[string]*flight
}

// New checks cfg and returns a Service. Call Run to start the bus subscription and the sweep.
func New(cfg Config) (*Service, error) {
	switch {
	case cfg.Store == nil:
		return nil, errors.New("connections: no event store")
	case cfg.Vault == nil:
		return nil, errors.New("connections: no vault")
	case cfg.Catalog == nil:
		return nil, errors.New("connections: no plugin catalog")
	case cfg.DB == nil:
		return nil, errors.New("connections: no read-model database")
	case cfg.Projections == nil:
		return nil, errors.New("connections: no projections runner")
	case len(cfg.LinkKey) < 32:
		return nil, errors.New("connections: the claim-link key must be at least 32 bytes")
	}
	u, err := url.Parse(cfg.PublicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("connections: the public URL (SERVER_PUBLIC_URL) must be an absolute http or https URL")
	}
	s := &Service{
		store: cfg.Store, vault: cfg.Vault, catalog: cfg.Catalog, db: cfg.DB, reader: connectionsrm.Reader{DB: cfg.DB},
		runner: cfg.Projections, bus: cfg.Bus, topic: cfg.Topic,
		publicURL: strings.TrimRight(cfg.PublicURL, "/"),
		clients:   cfg.Clients, keys: cfg.PlatformKeys, client: cfg.HTTPClient, transport: cfg.Transport, now: cfg.Now, log: cfg.Logger,
		sweepEvery: cfg.SweepInterval, retention: cfg.Retention, linkTTL: cfg.LinkTTL, pollEvery: cfg.PollFallback,
		hub: newHub(), ready: make(chan struct{}), flights: map[string]*flight{},
	}
	s.redactors = newRedactors(s.clock)
	if s.links, err = signed.New[claim](cfg.LinkKey, linkLabel, &signed.Options{MaxLen: maxLinkLen, Now: s.clock}); err != nil {
		return nil, fmt.Errorf("credentials: %w", err)
	}
	if s.topic == "" {
		s.topic = bus.EventsTopic
	}
	if s.client == nil {
		s.client = &http.Client{
			Timeout:       tokenRequestTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.sweepEvery <= 0 {
		s.sweepEvery = DefaultSweepInterval
	}
	if s.retention <= 0 {
		s.retention = DefaultRetention
	}
	if s.linkTTL <= 0 {
		s.linkTTL = LinkTTL
	}
	if s.pollEvery <= 0 {
		s.pollEvery = time.Second
	}
	if s.bus == nil {
		s.readyOne.Do(func() { close(s.ready) })
	}
	return s, nil
}

func (s *Service) clock() time.Time { return s.now().UTC() }

// integration looks an integration up, answering not_found with its name.
func (s *Service) integration(name string) (*plugins.Integration, error) {
	in, ok := s.catalog.Integration(name)
	if !ok {
		return nil, domain.Errorf(domain.CodeNotFound, "unknown integration %q; list_integrations names the available ones", name)
	}
	return in, nil
}

// RedirectURI is the OAuth callback registered with every provider:
// <SERVER_PUBLIC_URL>/api/auth/plugin/<integration>/callback (spec, Connecting an integration).
func (s *Service) RedirectURI(integration string) string {
	return s.publicURL + "/api/auth/plugin/" + integration + "/callback"
}

// PublicURL is SERVER_PUBLIC_URL without a trailing slash.
func (s *Service) PublicURL() string { return s.publicURL }

// PlatformKeys reads the platform keys an instance admin set (app/platformkeys.Service satisfies it).
type PlatformKeys interface {
	// PlatformKey returns the key's fields; ok is false when no key of that name is set.
	PlatformKey(ctx context.Context, name string) (fields map[string]string, ok bool, err error)
}

// PlatformKeysFunc adapts a function to PlatformKeys (a reader wired after the service is built).
type PlatformKeysFunc func(ctx context.Context, name string) (map[string]string, bool, error)

// PlatformKey calls f.
func (f PlatformKeysFunc) PlatformKey(ctx context.Context, name string) (map[string]string, bool, error) {
	return f(ctx, name)
}

// PlatformKeyName is the platform key holding an integration's OAuth client.
func PlatformKeyName(integration string) string { return "integration:" + integration }

// clientCredentials is an integration's OAuth client, read now: the platform key
// integration:<name> when an instance admin set it with a client_id, else the environment's
// <PLUGIN>_CLIENT_ID and <PLUGIN>_CLIENT_SECRET. An unset secret with a set id is a public,
// PKCE-only client.
func (s *Service) clientCredentials(ctx context.Context, integration string) (id, secret string, err error) {
	if s.keys != nil {
		fields, ok, err := s.keys.PlatformKey(ctx, PlatformKeyName(integration))
		if err != nil {
			return "", "", &domain.Error{Code: domain.CodeUnavailable, Message: integration + "'s OAuth client (a platform key) cannot be read now; try again", Err: err}
		}
		if ok && strings.TrimSpace(fields["client_id"]) != "" {
			return strings.TrimSpace(fields["client_id"]), strings.TrimSpace(fields["client_secret"]), nil
		}
	}
	c := s.clients[integration]
	if c.ID == "" {
		return "", "", domain.Errorf(domain.CodeUnavailable, "%s cannot be connected on this server yet: an instance admin has not set its OAuth client (the platform key %s, or %s_CLIENT_ID; register an OAuth app with the redirect URI %s)", integration, PlatformKeyName(integration), config.PluginEnvPrefix(integration), s.RedirectURI(integration))
	}
	return c.ID, c.Secret, nil
}
