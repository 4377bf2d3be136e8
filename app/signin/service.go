package signin

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/accounts"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/signindom"
	"github.com/workbench/workbench/eventstore"
)

// Users is the part of app/accounts this package needs: find or create the user of an address
// whose ownership the caller has established, and read the user a sign-in link names.
type Users interface {
	EnsureUser(ctx context.Context, email, displayName string, md eventstore.Metadata) (accounts.User, bool, eventstore.Position, error)
	User(ctx context.Context, id uuid.UUID) (accounts.User, error)
}

// Organizations is the part of app/organizations sign-in calls for every user it signs in (an SSO
// callback, a one-time link's redemption): the personal organisation is made at the first sign-in.
// Pending invitations of the address stay pending for the user to accept or decline.
type Organizations interface {
	SignedIn(ctx context.Context, user uuid.UUID, email string, md eventstore.Metadata) error
}

// Projections is the part of the projections runner this package uses to read its own writes.
type Projections interface {
	WaitFor(ctx context.Context, pos eventstore.Position) error
}

// Sealer is the part of the vault this package needs.
type Sealer interface {
	Seal(ctx context.Context, subject, purpose string, plaintext []byte) (domain.Sealed, error)
}

// Config wires a Service. Users, Store, Projections, PublicURL and FlowKey are required.
type Config struct {
	Settings
	Users Users
	Store eventstore.Store
	// Vault seals the user's address in the sign-in link events under the user's own data key, so that
	// erasing the user leaves it unreadable in the log. Without one (only tests build that) the
	// address is recorded in clear.
	Vault Sealer
	// Organizations, when set, is told of every sign-in (see Organizations).
	Organizations Organizations
	Projections   Projections
	// PublicURL is SERVER_PUBLIC_URL: redirect URIs and sign-in links are built on it.
	PublicURL string
	// FlowKey seals the short-lived cookie that binds an SSO sign-in to the browser that started it
	// (AES-256-GCM); 32 bytes, the same on every replica.
	FlowKey []byte
	// HTTPClient calls the providers (discovery, keys, token endpoint). Default: a client with a
	// 20-second timeout.
	HTTPClient *http.Client
	Now        func() time.Time
	Logger     *slog.Logger
}

// Links is the one-time sign-in link aggregate (signin.StreamName of the token's hash); this
// package is the only one that writes it.
var Links = eventstore.Aggregate[signindom.Link, signindom.Command, domain.Event]{
	Initial: signindom.Initial, Evolve: signindom.Evolve, Decide: signindom.Decide,
	Codec: eventstore.NewJSONCodec(signindom.Events()...),
}

// Service signs people in to the portal.
type Service struct {
	cfg       Config
	publicURL string
	secure    bool
	aead      cipher.AEAD
	client    *http.Client
	now       func() time.Time
	log       *slog.Logger

	mu        sync.Mutex
	providers map[string]*provider
}

// provider is a configured OpenID provider and, once discovery has succeeded, what it published.
type provider struct {
	cfg      ProviderConfig
	oidc     *oidc.Provider // nil until discovered
	verifier *oidc.IDTokenVerifier
}

// New checks cfg and returns a Service. It makes no network call: each provider's discovery
// document is fetched on its first sign-in, and again after a failure.
func New(cfg Config) (*Service, error) {
	switch {
	case cfg.Users == nil:
		return nil, errors.New("signin: no accounts service")
	case cfg.Store == nil:
		return nil, errors.New("signin: no event store")
	case cfg.Projections == nil:
		return nil, errors.New("signin: no projections runner")
	case len(cfg.FlowKey) != 32:
		return nil, errors.New("signin: the flow key must be 32 bytes")
	}
	u, err := url.Parse(cfg.PublicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("signin: the public URL %q must be an absolute http or https URL", cfg.PublicURL)
	}
	if cfg.AdminEmail == "" {
		cfg.AdminEmail = DefaultAdminEmail
	}
	block, err := aes.NewCipher(cfg.FlowKey)
	if err != nil {
		return nil, fmt.Errorf("signin: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("signin: %w", err)
	}
	s := &Service{
		cfg:       cfg,
		publicURL: strings.TrimSuffix(cfg.PublicURL, "/"),
		secure:    u.Scheme == "https",
		aead:      aead,
		client:    cfg.HTTPClient,
		now:       cfg.Now,
		log:       cfg.Logger,
		providers: map[string]*provider{},
	}
	if s.client == nil {
		s.client = &http.Client{Timeout: 20 * time.Second}
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	for _, p := range cfg.Providers {
		switch {
		case p.ID == "" || strings.ContainsAny(p.ID, "/?#% ") || p.ID == "plugin":
			return nil, fmt.Errorf("signin: provider id %q cannot name a route", p.ID)
		case p.Issuer == "" || p.ClientID == "":
			return nil, fmt.Errorf("signin: provider %s needs an issuer and a client id", p.ID)
		case s.providers[p.ID] != nil:
			return nil, fmt.Errorf("signin: provider %s is configured twice", p.ID)
		}
		if p.Name == "" {
			p.Name = p.ID
		}
		s.providers[p.ID] = &provider{cfg: p}
	}
	return s, nil
}

// signedIn tells Organizations, when configured, that u signed in.
func (s *Service) signedIn(ctx context.Context, u accounts.User, m eventstore.Metadata) error {
	if s.cfg.Organizations == nil {
		return nil
	}
	if err := s.cfg.Organizations.SignedIn(ctx, u.ID, u.Email, m); err != nil {
		return fmt.Errorf("organisations of %s: %w", u.ID, err)
	}
	return nil
}

// ProviderInfo is a provider as the sign-in page lists it.
type ProviderInfo struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Providers lists the configured SSO providers in configuration order.
func (s *Service) Providers() []ProviderInfo {
	out := make([]ProviderInfo, 0, len(s.cfg.Providers))
	for _, p := range s.cfg.Providers {
		out = append(out, ProviderInfo{ID: p.ID, Name: s.providers[p.ID].cfg.Name})
	}
	return out
}

// SSOConfigured reports whether any SSO provider is configured. When none is, `serve` prints the
// one-time startup link (IssueStartupLink).
func (s *Service) SSOConfigured() bool { return len(s.cfg.Providers) > 0 }

// AdminEmail is the address the startup link signs in.
func (s *Service) AdminEmail() string { return s.cfg.AdminEmail }

// PublicURL is SERVER_PUBLIC_URL without a trailing slash.
func (s *Service) PublicURL() string { return s.publicURL }

func (s *Service) clock() time.Time { return s.now().UTC() }

// md is the metadata of an event caused by a sign-in; actor is who it is about ("system" before the
// user is known).
func md(ctx context.Context, actor string, now time.Time) eventstore.Metadata {
	m := eventstore.Metadata{Actor: actor, Time: now}
	if id, ok := ctx.Value(correlationKey{}).(string); ok {
		m.CorrelationID = id
	}
	return m
}

type correlationKey struct{}

// WithCorrelationID returns ctx carrying the inbound request's id, stamped on the events a sign-in
// records.
func WithCorrelationID(ctx context.Context, id string) context.Context {
	if id == "" {
		return ctx
	}
	return context.WithValue(ctx, correlationKey{}, id)
}
