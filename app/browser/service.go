package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/browser/replicaauth"
	"github.com/workbench/workbench/app/browserpool"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/browserdom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/signed"
)

// Defaults for Options left zero.
const (
	DefaultCallTimeout = 30 * time.Second
	MaxCallTimeout     = 120 * time.Second
	DefaultLiveURLTTL  = 5 * time.Minute
	// LivePath is the portal page a live URL opens, with the signed token as ?t=.
	LivePath = "/portal/browser/live"
	// LiveLabel is the key label of live-view tokens (internal/signed).
	LiveLabel = "browser-live"
)

// Options wire a Service. Store, Pool.DataDir and LiveKey are required.
type Options struct {
	Store eventstore.Store
	// Pool configures the Chromium pool (its OnEvent is set by New: pool changes are appended here).
	Pool browserpool.Config
	// AllowEvaluate turns browser_evaluate on (BROWSER_ALLOW_EVALUATE).
	AllowEvaluate bool
	// PublicURL is SERVER_PUBLIC_URL, the origin live URLs point into.
	PublicURL string
	// LiveKey is the secret live-view tokens are signed with (at least 32 bytes).
	LiveKey []byte
	// LiveURLTTL is how long a live URL works (default 5 minutes).
	LiveURLTTL time.Duration
	// CallTimeout is a browser tool call's time limit when the call gives none (default 30s).
	CallTimeout time.Duration
	Logger      *slog.Logger
	// Now is the clock events and live tokens are stamped with (default time.Now).
	Now func() time.Time
	// ReplicaURL is this replica's own base URL, reachable by the other replicas
	// (WORKBENCH_REPLICA_URL); it is recorded in BrowserSessionStarted. With Replicas it turns on
	// forwarding: a browser call for a session another replica holds is sent there.
	ReplicaURL string
	// Replicas signs the calls forwarded to other replicas (a key derived from the root key).
	Replicas *replicaauth.Signer
	// ReplicaClient sends forwarded calls (default: a client without proxy, 3s dial).
	ReplicaClient *http.Client
}

// LiveClaim is what a live-view token carries: whose session it opens.
type LiveClaim struct {
	UserID string `json:"u"`
}

// Service is the browser use case: the users' sessions (one Chromium each, in the pool), the log of
// their lifecycle, the live-view links, and the nine browser tools.
type Service struct {
	opts Options
	log  *slog.Logger
	pool *browserpool.Pool
	live *signed.Sealer[LiveClaim]
	agg  eventstore.Aggregate[browserdom.State, browserdom.Command, domain.Event]
	// client sends calls forwarded to the replica holding a session.
	client *http.Client
}

// New checks opts and builds the service and its pool (no Chromium starts until a session is used).
func New(opts Options) (*Service, error) {
	if opts.Store == nil {
		return nil, errors.New("app/browser: Store is required")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.LiveURLTTL <= 0 {
		opts.LiveURLTTL = DefaultLiveURLTTL
	}
	opts.PublicURL = strings.TrimRight(opts.PublicURL, "/")
	opts.ReplicaURL = strings.TrimRight(opts.ReplicaURL, "/")
	if opts.ReplicaClient == nil {
		opts.ReplicaClient = newReplicaClient()
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	live, err := signed.New[LiveClaim](opts.LiveKey, LiveLabel, &signed.Options{Now: opts.Now})
	if err != nil {
		return nil, fmt.Errorf("app/browser: live-view key: %w", err)
	}
	s := &Service{opts: opts, log: log, live: live, client: opts.ReplicaClient, agg: eventstore.Aggregate[browserdom.State, browserdom.Command, domain.Event]{
		Initial: func() browserdom.State { return browserdom.State{} },
		Evolve:  browserdom.Evolve,
		Decide:  browserdom.Decide,
		Codec:   eventstore.NewJSONCodec(browserdom.Events()...),
	}}
	cfg := opts.Pool
	if cfg.Logger == nil {
		cfg.Logger = log
	}
	if cfg.Now == nil {
		cfg.Now = opts.Now
	}
	cfg.OnEvent = s.poolEvent
	pool, err := browserpool.NewPool(cfg)
	if err != nil {
		return nil, err
	}
	s.pool = pool
	return s, nil
}

// Pool is the Chromium pool (the live view drives sessions through it).
func (s *Service) Pool() *browserpool.Pool { return s.pool }

// Close stops every Chromium.
func (s *Service) Close() error { return s.pool.Close() }

// poolEvent appends the pool's lifecycle changes to the user's stream.
func (s *Service) poolEvent(ev browserpool.Event) {
	user, err := uuid.Parse(ev.UserID)
	if err != nil {
		s.log.Error("browser event for a user id that is not a uuid", "user", ev.UserID, "kind", ev.Kind)
		return
	}
	at := ev.At.UTC()
	var cmd browserdom.Command
	switch ev.Kind {
	case browserpool.EventStarted:
		cmd = browserdom.RecordStart{Event: browserdom.BrowserSessionStarted{UserID: user, PID: ev.PID, Restart: ev.Restart, SpawnMS: ev.SpawnDuration.Milliseconds(), At: at, Replica: s.opts.ReplicaURL}}
	case browserpool.EventStopped:
		cmd = browserdom.RecordStop{Event: browserdom.BrowserSessionStopped{UserID: user, Reason: ev.Reason, MemoryBytes: ev.MemoryBytes, At: at, Replica: s.opts.ReplicaURL}}
	case browserpool.EventReset:
		cmd = browserdom.RecordReset{Event: browserdom.BrowserSessionReset{UserID: user, At: at}}
	default:
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.execute(ctx, user, cmd, eventstore.Metadata{Actor: "system:browser"}); err != nil {
		s.log.Error("browser session event not recorded", "user", ev.UserID, "kind", ev.Kind, "err", err)
	}
}

// sessionState folds the user's session stream.
func (s *Service) sessionState(ctx context.Context, user uuid.UUID) (browserdom.State, error) {
	st, _, err := eventstore.LoadState(ctx, s.opts.Store, browserdom.StreamName(user), s.agg)
	return st, err
}

func (s *Service) execute(ctx context.Context, user uuid.UUID, cmd browserdom.Command, md eventstore.Metadata) error {
	_, err := eventstore.Execute(ctx, s.opts.Store, browserdom.StreamName(user), s.agg, cmd, md)
	return err
}

// poolError turns the pool's refusals into application errors.
func poolError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, browserpool.ErrBusy):
		return &domain.Error{Code: domain.CodeConflict, Message: "BROWSER_SESSION_BUSY: the browser session is starting or its profile is being reset; retry in a few seconds", Err: err}
	case errors.Is(err, browserpool.ErrLimit):
		return &domain.Error{Code: domain.CodeUnavailable, Message: "the server runs as many browser sessions as it may (BROWSER_MAX_SESSIONS); retry later", Err: err}
	case errors.Is(err, browserpool.ErrHumanInControl):
		return &domain.Error{Code: domain.CodeConflict, Message: "HUMAN_IN_CONTROL: a person is driving this browser through the live view; retry once they give control back", Err: err}
	case errors.Is(err, browserpool.ErrClosed):
		return &domain.Error{Code: domain.CodeUnavailable, Message: "the server is shutting down", Err: err}
	}
	return &domain.Error{Code: domain.CodeUnavailable, Message: "the browser session could not be started; retry shortly", Err: err}
}

// Acquire returns the user's browser session, started if need be, claimed until Release. BUSY (while
// a spawn or a profile reset is in flight) is a CodeConflict error whose message starts
// BROWSER_SESSION_BUSY.
func (s *Service) Acquire(ctx context.Context, user uuid.UUID) (*browserpool.Session, error) {
	sess, err := s.pool.Acquire(ctx, user.String())
	if err != nil {
		return nil, poolError(err)
	}
	return sess, nil
}

// Reset closes the user's browser and wipes its profile (recorded as BrowserSessionReset). While the
// profile is claimed it answers BROWSER_SESSION_BUSY and the reset runs when the claim ends.
func (s *Service) Reset(ctx context.Context, user uuid.UUID) error {
	return poolError(s.pool.Reset(ctx, user.String()))
}

// HandOver gives control of the user's session to a person (the live view): the browser tools answer
// HUMAN_IN_CONTROL until TakeBack. Recorded as BrowserControlHandedOver.
func (s *Service) HandOver(ctx context.Context, sess *browserpool.Session, md eventstore.Metadata) error {
	return s.setControl(ctx, sess, true, md)
}

// TakeBack returns control to the agent. Recorded as BrowserControlTakenBack.
func (s *Service) TakeBack(ctx context.Context, sess *browserpool.Session, md eventstore.Metadata) error {
	return s.setControl(ctx, sess, false, md)
}

func (s *Service) setControl(ctx context.Context, sess *browserpool.Session, human bool, md eventstore.Metadata) error {
	user, err := uuid.Parse(sess.UserID())
	if err != nil {
		return domain.Errorf(domain.CodeInvalid, "browser: session of a user id that is not a uuid")
	}
	at := s.opts.Now().UTC()
	var cmd browserdom.Command = browserdom.TakeBack{Event: browserdom.BrowserControlTakenBack{UserID: user, At: at}}
	if human {
		cmd = browserdom.HandOver{Event: browserdom.BrowserControlHandedOver{UserID: user, At: at}}
	}
	// Recorded first: control changes hands only once the log says so.
	if err := s.execute(ctx, user, cmd, md); err != nil {
		return err
	}
	sess.SetHumanInControl(human)
	return nil
}

// RecordCapture appends a BrowserCookiesCaptured (the cookie bundle itself is sealed with the connection).
func (s *Service) RecordCapture(ctx context.Context, ev browserdom.BrowserCookiesCaptured, md eventstore.Metadata) error {
	if ev.At.IsZero() {
		ev.At = s.opts.Now().UTC()
	}
	return s.execute(ctx, ev.UserID, browserdom.RecordCapture{Event: ev}, md)
}

// LiveURL mints the signed, short-lived portal URL of the user's live view:
// <SERVER_PUBLIC_URL>/portal/browser/live?t=<token>.
func (s *Service) LiveURL(user uuid.UUID) (string, time.Time, error) {
	exp := s.opts.Now().Add(s.opts.LiveURLTTL).Truncate(time.Second)
	tok, err := s.live.Seal(LiveClaim{UserID: user.String()}, exp)
	if err != nil {
		return "", time.Time{}, err
	}
	return s.opts.PublicURL + LivePath + "?t=" + url.QueryEscape(tok), exp, nil
}

// OpenLiveToken checks a live-view token and returns the user whose session it opens. The caller must
// still check that the signed-in user is that user.
func (s *Service) OpenLiveToken(tok string) (uuid.UUID, error) {
	c, _, err := s.live.Open(tok)
	if err != nil {
		if errors.Is(err, signed.ErrExpired) {
			return uuid.Nil, domain.Errorf(domain.CodeInvalid, "the live-view link has expired; ask for a new one (browser_live_url)")
		}
		return uuid.Nil, domain.Errorf(domain.CodeInvalid, "the live-view link is not valid")
	}
	user, err := uuid.Parse(c.UserID)
	if err != nil {
		return uuid.Nil, domain.Errorf(domain.CodeInvalid, "the live-view link is not valid")
	}
	return user, nil
}
