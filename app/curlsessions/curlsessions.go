package curlsessions

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/curlsession"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/plugins"
)

// Defaults of Options.
const (
	DefaultAuditQueue   = 1024
	DefaultAuditWorkers = 2
)

// AuditTimeout bounds the wait for a record that must be durable before an answer or a forward
// (Forwarded, Refused): a log that cannot commit within it (less at most 50 ms, as the waits share
// their deadlines) is treated as down, rather than holding the caller.
const AuditTimeout = 5 * time.Second

// Catalog is the part of the plugin registry minting reads.
type Catalog interface {
	Integration(name string) (*plugins.Integration, bool)
}

// Credentials is the part of the connection use case minting uses (*connections.Service): the
// user's credential for one integration, or a CodeNotConnected error.
type Credentials interface {
	Access(ctx context.Context, user uuid.UUID, in *plugins.Integration, account string) (connections.Access, error)
}

// Appender is the part of the event store the sessions' streams are appended to.
type Appender interface {
	Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.Position, error)
}

// Grant is what a minted token asserts: the session, the user, the integrations and the expiry.
type Grant struct {
	SessionID    uuid.UUID
	UserID       uuid.UUID
	Integrations []string
	// Account is the label of the account used for every integration; empty for each one's default.
	Account   string
	ExpiresAt time.Time
}

// Tokens issues the bearer token of a grant. The token format and its key belong to the proxy that
// verifies it (handlers/proxy.Issuer); minting only needs one issued.
type Tokens interface {
	Issue(Grant) (string, error)
}

// Options wire a Service. Catalog, Credentials, Store, Tokens and PublicURL are required.
type Options struct {
	Catalog     Catalog
	Credentials Credentials
	Store       Appender
	Tokens      Tokens
	// PublicURL is SERVER_PUBLIC_URL; a session's integrations are reached at <PublicURL>/c/<name>/.
	PublicURL string
	// TTL is how long a token lives (default curlsession.TTL, 15 minutes).
	TTL time.Duration
	// AuditQueue is how many outcome records (RequestProxied of forwarded requests) may wait for the
	// log (default DefaultAuditQueue); when it is full, Proxied appends the record itself before it
	// returns. It bounds what a crash can lose of them; the RequestForwarded records and refusals are
	// durable before the answer and never wait here (see the package documentation).
	AuditQueue int
	// AuditWorkers append queued records (default DefaultAuditWorkers).
	AuditWorkers int
	Logger       *slog.Logger
	Now          func() time.Time
}

// Service mints curl sessions and records their requests. Run must be running to write the outcome
// records queued for the log.
type Service struct {
	catalog   Catalog
	creds     Credentials
	store     Appender
	tokens    Tokens
	publicURL string
	ttl       time.Duration
	log       *slog.Logger
	now       func() time.Time
	codec     *eventstore.JSONCodec[domain.Event]
	queue     chan curlsession.RequestProxied
	workers   int
	deadlines deadlines
}

// New checks opts and returns a Service.
func New(opts Options) (*Service, error) {
	if opts.Catalog == nil || opts.Credentials == nil || opts.Store == nil || opts.Tokens == nil {
		return nil, errors.New("curlsessions: Catalog, Credentials, Store and Tokens are required")
	}
	u, err := url.Parse(opts.PublicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("curlsessions: the public URL (SERVER_PUBLIC_URL) must be an absolute http or https URL")
	}
	s := &Service{
		catalog: opts.Catalog, creds: opts.Credentials, store: opts.Store, tokens: opts.Tokens,
		publicURL: strings.TrimRight(opts.PublicURL, "/"), ttl: opts.TTL, log: opts.Logger, now: opts.Now,
		workers: opts.AuditWorkers, codec: eventstore.NewJSONCodec(curlsession.Events()...),
	}
	if s.ttl <= 0 {
		s.ttl = curlsession.TTL
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.workers <= 0 {
		s.workers = DefaultAuditWorkers
	}
	q := opts.AuditQueue
	if q <= 0 {
		q = DefaultAuditQueue
	}
	s.queue = make(chan curlsession.RequestProxied, q)
	return s, nil
}
