package bus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/workbench/workbench/eventstore"
)

// EventsTopic is the topic the Relay publishes every committed event to.
const EventsTopic = "workbench.events"

// DefaultNATSPrefix is Options.NATSPrefix when none is given: the namespace of the topics themselves.
const DefaultNATSPrefix = "workbench"

// Metadata keys set on every published message, so a consumer can route without decoding the payload.
const (
	MetaStream   = "stream"
	MetaType     = "type"
	MetaPosition = "position" // Position.String(): "commit/prepare"
)

// ErrClosed is returned by calls on a closed Bus.
var ErrClosed = errors.New("bus: closed")

// Options tune Open; nil means defaults.
type Options struct {
	// Logger receives the bus's own logs and watermill's (watermill's info lines at debug level).
	Logger *slog.Logger

	// Name is this replica's consumer name. Empty (the default) gives every subscription an
	// ephemeral consumer of its own that receives what is published after it subscribed and is
	// removed when it ends. A name makes subscriptions durable: on NATS a durable consumer named after
	// it and the topic, on PostgreSQL a consumer group of that name; it starts at the oldest message
	// the bus keeps and resumes after the last one it acknowledged. Every replica needs its own name
	// (two replicas sharing one would split the messages between them), and one Bus with a name holds
	// at most one subscription per topic at a time.
	Name string

	// NATSPrefix namespaces this deployment's streams and subjects on NATS (BUS_NATS_PREFIX), so that
	// two deployments can share one NATS server: a topic "workbench.<rest>" is the subject
	// "<prefix>.<rest>" in the stream "<prefix>_<rest>" (dots made underscores). Empty means
	// DefaultNATSPrefix, which keeps the names of deployments from before the prefix existed. Other
	// transports ignore it (a PostgreSQL bus is namespaced by its database).
	NATSPrefix string

	// RetryDelay is how long a subscription waits before a message whose handler failed is delivered
	// again (default 1s).
	RetryDelay time.Duration
}

// Handler consumes one envelope. Returning nil acknowledges the message; an error has it delivered
// again after Options.RetryDelay. ctx ends when the subscription does.
type Handler func(ctx context.Context, env eventstore.Envelope) error

// backend is one watermill transport.
type backend interface {
	// publish sends msgs to topic, in order, returning once the transport has them.
	publish(ctx context.Context, topic string, msgs []*message.Message) error
	// subscribe starts a consumer of its own on topic (durable under name durable when it is not
	// empty) and returns its messages; stop ends it and waits for it.
	subscribe(ctx context.Context, topic, durable string) (msgs <-chan *message.Message, stop func() error, err error)
	// close releases the transport after every subscription has stopped.
	close() error
}

// Bus publishes envelopes to topics and delivers them to subscribers, at least once.
type Bus struct {
	kind    string // "gochannel", "nats" or "postgres", for logs and errors
	be      backend
	log     *slog.Logger
	name    string
	retry   time.Duration
	mu      sync.Mutex
	closed  bool
	subs    map[*Subscription]struct{}
	durable map[string]bool // topics with an active durable subscription
	wg      sync.WaitGroup
	// back is closed (and replaced) when the transport has reconnected after losing its server; see
	// Reconnected.
	back chan struct{}
	// wanted holds, per topic, the match of every subscription ever made on this Bus (a nil match
	// wants everything; see Wants).
	wanted map[string][]Match
}

// Open connects to the bus that url names:
//
//   - "" — watermill GoChannel, in this process only;
//   - "nats://host:port" — NATS JetStream (one stream per topic, created when missing);
//   - "postgres://…" or "postgresql://…" — watermill-sql on PostgreSQL (one table per topic).
//
// Anything else is an error that names BUS_URL and these forms.
func Open(ctx context.Context, url string, opts *Options) (*Bus, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.RetryDelay <= 0 {
		o.RetryDelay = time.Second
	}
	if o.Name != "" && !validName.MatchString(o.Name) {
		return nil, fmt.Errorf("bus: consumer name %q: want letters, digits, '-' and '_' only", o.Name)
	}
	if o.NATSPrefix == "" {
		o.NATSPrefix = DefaultNATSPrefix
	}
	if len(o.NATSPrefix) > 100 || !validTopic.MatchString(o.NATSPrefix) {
		return nil, fmt.Errorf("bus: BUS_NATS_PREFIX %q: want dot-separated words of letters, digits, '-' and '_'", o.NATSPrefix)
	}
	wlog := watermill.NewSlogLoggerWithLevelMapping(o.Logger, map[slog.Level]slog.Level{slog.LevelInfo: slog.LevelDebug})

	b := &Bus{log: o.Logger, name: o.Name, retry: o.RetryDelay, subs: map[*Subscription]struct{}{}, durable: map[string]bool{}, wanted: map[string][]Match{}, back: make(chan struct{})}
	var err error
	switch scheme := schemeOf(url); {
	case url == "":
		b.kind, b.be = "gochannel", newGoChannel(wlog)
	case scheme == "nats":
		b.kind = "nats"
		b.be, err = openNATS(ctx, url, o.NATSPrefix, wlog, b.transportBack)
	case scheme == "postgres" || scheme == "postgresql":
		b.kind = "postgres"
		b.be, err = openPostgres(ctx, url, wlog)
	default:
		return nil, fmt.Errorf("bus: BUS_URL %s is not supported: want empty (in-process GoChannel), nats://HOST:PORT (NATS JetStream) or postgres://USER@HOST:PORT/DB (PostgreSQL)", describeURL(url))
	}
	if err != nil {
		return nil, fmt.Errorf("bus: BUS_URL (%s): %w", b.kind, err)
	}
	b.log = b.log.With("bus", b.kind)
	return b, nil
}

// schemeOf returns the lower-cased scheme of a URL, or "" when it has none.
func schemeOf(url string) string {
	scheme, _, ok := strings.Cut(url, "://")
	if !ok {
		return ""
	}
	return strings.ToLower(scheme)
}

// describeURL names a URL in an error without repeating what may be a password.
func describeURL(url string) string {
	if s := schemeOf(url); s != "" {
		return fmt.Sprintf("with scheme %q", s)
	}
	return "(no scheme)"
}

// Reconnected returns a channel that is closed the next time the transport reconnects after losing
// its server (NATS only; the channel of another transport is never closed). Take it before the
// attempt that may fail, so that a reconnection during the attempt is not missed.
func (b *Bus) Reconnected() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.back
}

// transportBack wakes every Reconnected channel taken so far.
func (b *Bus) transportBack() {
	b.mu.Lock()
	defer b.mu.Unlock()
	close(b.back)
	b.back = make(chan struct{})
}

// Kind names the transport: "gochannel", "nats" or "postgres".
func (b *Bus) Kind() string { return b.kind }

var (
	// Topics become NATS subjects and SQL table names: keep them to characters safe in both.
	validTopic = regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`)
	validName  = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
)

func checkTopic(topic string) error {
	if len(topic) > 200 || !validTopic.MatchString(topic) {
		return fmt.Errorf("bus: topic %q: want dot-separated words of letters, digits, '-' and '_'", topic)
	}
	return nil
}

// Publish sends envelopes to topic, in order. Each message's UUID is the event id, its payload the
// envelope's JSON, and its metadata carries the stream, type and position. It returns once the
// transport holds the messages (on GoChannel: once every subscriber has handled them).
func (b *Bus) Publish(ctx context.Context, topic string, envs ...eventstore.Envelope) error {
	if err := checkTopic(topic); err != nil {
		return err
	}
	if len(envs) == 0 {
		return nil
	}
	b.mu.Lock()
	closed := b.closed
	if !closed {
		b.wg.Add(1)
	}
	b.mu.Unlock()
	if closed {
		return ErrClosed
	}
	defer b.wg.Done()
	msgs := make([]*message.Message, len(envs))
	for i, env := range envs {
		m, err := encode(env)
		if err != nil {
			return err
		}
		m.SetContext(ctx)
		msgs[i] = m
	}
	if err := b.be.publish(ctx, topic, msgs); err != nil {
		return fmt.Errorf("bus: publish %d message(s) to %s on %s: %w", len(msgs), topic, b.kind, err)
	}
	return nil
}

func encode(env eventstore.Envelope) (*message.Message, error) {
	payload, err := json.Marshal(env)
	if err != nil {
		return nil, fmt.Errorf("bus: encode event %s: %w", env.ID, err)
	}
	m := message.NewMessage(env.ID.String(), payload)
	m.Metadata.Set(MetaStream, env.Stream)
	m.Metadata.Set(MetaType, env.Type)
	m.Metadata.Set(MetaPosition, env.Position.String())
	return m, nil
}

func decode(m *message.Message) (eventstore.Envelope, error) {
	var env eventstore.Envelope
	if err := json.Unmarshal(m.Payload, &env); err != nil {
		return env, fmt.Errorf("bus: message %s is not an envelope: %w", m.UUID, err)
	}
	if env.ID.String() != m.UUID {
		return env, fmt.Errorf("bus: message %s carries event %s", m.UUID, env.ID)
	}
	return env, nil
}

// Match picks the events a subscription wants by their stream and type, which every message Publish
// sends carries in its metadata: a message it refuses is acknowledged without its payload being
// decoded or the handler called.
type Match func(stream, eventType string) bool

// matchMessage applies match to a message's metadata; known is false when the message lacks it (it
// was not sent by Publish), and the decoded envelope must decide.
func matchMessage(match Match, m *message.Message) (want, known bool) {
	stream, typ := m.Metadata.Get(MetaStream), m.Metadata.Get(MetaType)
	if stream == "" || typ == "" {
		return false, false
	}
	return match(stream, typ), true
}

// Subscription is one running Subscribe.
type Subscription struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// Done is closed once the subscription has stopped and its handler will not be called again.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Close stops the subscription and waits for its handler to return. It is safe to call twice.
func (s *Subscription) Close() error {
	s.cancel()
	<-s.done
	return nil
}

// Subscribe starts delivering topic's messages to fn, one at a time and in publish order, and
// returns once the subscription is in place (what is published after that reaches it). It runs
// until ctx ends, Close is called on it, or the Bus closes. Each subscription has a consumer of its
// own, so every subscription, in this process or another, receives every message.
func (b *Bus) Subscribe(ctx context.Context, topic string, fn Handler) (*Subscription, error) {
	return b.SubscribeWhere(ctx, topic, nil, fn)
}

// SubscribeWhere is Subscribe for the events match accepts (all when match is nil). The others are
// acknowledged as they arrive, without being decoded: a subscriber that needs a few kinds of event
// does not pay for every event of the log.
func (b *Bus) SubscribeWhere(ctx context.Context, topic string, match Match, fn Handler) (*Subscription, error) {
	if err := checkTopic(topic); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, errors.New("bus: Subscribe with a nil handler")
	}
	ctx, cancel := context.WithCancel(ctx)
	sub := &Subscription{cancel: cancel, done: make(chan struct{})}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		cancel()
		return nil, ErrClosed
	}
	if b.name != "" {
		if b.durable[topic] {
			b.mu.Unlock()
			cancel()
			return nil, fmt.Errorf("bus: consumer %q already has a subscription to %s", b.name, topic)
		}
		b.durable[topic] = true
	}
	// Registered before the transport subscribes, so a Close that runs meanwhile cancels it.
	b.subs[sub] = struct{}{}
	b.wanted[topic] = append(b.wanted[topic], match)
	b.wg.Add(1)
	b.mu.Unlock()

	msgs, stop, err := b.be.subscribe(ctx, topic, b.name)
	if err != nil {
		cancel()
		b.release(sub, topic)
		return nil, fmt.Errorf("bus: subscribe to %s on %s: %w", topic, b.kind, err)
	}
	go func() {
		defer b.release(sub, topic)
		defer close(sub.done)
		defer func() {
			if err := stop(); err != nil {
				b.log.Warn("bus: stop subscription", "topic", topic, "err", err)
			}
		}()
		b.deliver(ctx, topic, msgs, match, fn)
	}()
	return sub, nil
}

// Wants reports whether a subscription made on this Bus to topic, running or since stopped, accepts
// an event of this stream and type (one without a Match accepts every event). A Relay given it as its
// Select publishes only what some subscriber of the process asks for; every replica runs the same
// subscriptions, so one that publishes for another publishes what that one wants too.
func (b *Bus) Wants(topic, stream, eventType string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range b.wanted[topic] {
		if m == nil || m(stream, eventType) {
			return true
		}
	}
	return false
}

// release forgets a subscription that has stopped.
func (b *Bus) release(sub *Subscription, topic string) {
	b.mu.Lock()
	delete(b.subs, sub)
	if b.name != "" {
		delete(b.durable, topic)
	}
	b.mu.Unlock()
	b.wg.Done()
}

// deliver hands each message to fn and acknowledges it when fn succeeds. A failed handler's message
// is negatively acknowledged after the retry delay, so the transport delivers it again.
func (b *Bus) deliver(ctx context.Context, topic string, msgs <-chan *message.Message, match Match, fn Handler) {
	for {
		var m *message.Message
		select {
		case <-ctx.Done():
			return
		case mm, ok := <-msgs:
			if !ok {
				return
			}
			m = mm
		}
		var known bool
		if match != nil {
			var want bool
			if want, known = matchMessage(match, m); known && !want {
				m.Ack()
				continue
			}
		}
		env, err := decode(m)
		if err != nil {
			// A message that is not an envelope will never become one: drop it rather than loop.
			b.log.Error("bus: dropping undecodable message", "topic", topic, "uuid", m.UUID, "err", err)
			m.Ack()
			continue
		}
		if match != nil && !known && !match(env.Stream, env.Type) {
			m.Ack()
			continue
		}
		if err := fn(ctx, env); err != nil {
			if ctx.Err() != nil {
				m.Nack()
				return
			}
			b.log.Warn("bus: handler failed; message will be delivered again", "topic", topic, "event", env.ID, "type", env.Type, "err", err)
			t := time.NewTimer(b.retry)
			select {
			case <-ctx.Done():
			case <-t.C:
			}
			t.Stop()
			m.Nack()
			continue
		}
		m.Ack()
	}
}

// Close stops every subscription, waits for publishes in flight, and releases the transport.
func (b *Bus) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	for s := range b.subs {
		s.cancel()
	}
	b.mu.Unlock()
	b.wg.Wait()
	if err := b.be.close(); err != nil {
		return fmt.Errorf("bus: close %s: %w", b.kind, err)
	}
	return nil
}
