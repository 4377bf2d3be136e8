package auditsink

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/dbtime"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/profile"
)

// Batch is one delivery: records in log order, and the log positions it spans. ID is stable across
// re-sends of the same batch (the sink's name and the span), for the receiver to deduplicate.
type Batch struct {
	Sink    string           `json:"sink"`
	ID      string           `json:"batch_id"`
	From    string           `json:"from"`
	Through string           `json:"through"`
	Records []auditrm.Record `json:"records"`
}

// Destination sends one batch and returns nil only once the destination has acknowledged it.
type Destination interface {
	Deliver(ctx context.Context, b Batch) error
}

// Gate serialises writers of a SQLite file (eventstore/sqlite.WriteGate); nil on PostgreSQL.
type Gate interface {
	Lock(ctx context.Context) error
	Unlock()
}

// Lock is internal/bus.Lock: Acquire blocks until this process holds the lock; held ends when it is lost.
type Lock interface {
	Acquire(ctx context.Context) (held context.Context, release func(), err error)
}

// Options configures a Sink. Store, DB, Name and Destination are required.
type Options struct {
	Store       eventstore.Store
	DB          *sql.DB
	Name        string // the checkpoint's name and the sink label: "webhook", "nats"
	Destination Destination
	// Emails resolves a user's email for records whose user_created event came before the sink's
	// checkpoint (projections/auditrm.Reader.EmailOf); nil leaves such emails empty.
	Emails func(ctx context.Context, user uuid.UUID) (string, error)
	// Opener opens the sealed profiles (emails) of newer user_created events: the vault. Without one,
	// a sealed profile stops the sink (an audit record must not go out with a wrong email).
	Opener profile.Opener
	// BatchSize caps the records in one batch (default 100); ReadSize the events read at once (1000).
	BatchSize, ReadSize int
	// PollInterval is how long the sink waits at the end of the log before reading again (500ms).
	PollInterval time.Duration
	// RetryMin and RetryMax bound the backoff between attempts at one batch (1s, 5m).
	RetryMin, RetryMax time.Duration
	Gate               Gate
	// Lock, when set, lets one sink of this name among several replicas deliver at a time (the bus
	// relay's PostgreSQL advisory lock); the others wait for it.
	Lock       Lock
	Registerer prometheus.Registerer
	Logger     *slog.Logger
	Now        func() time.Time
}

// Sink delivers the log's audit records to one destination, at least once, in order.
type Sink struct {
	o   Options
	dec *auditrm.Decoder

	mu                  sync.Mutex
	pending             time.Time // the time of the oldest event read and not yet acknowledged; zero when none
	emails              map[uuid.UUID]string
	delivered, failures prometheus.Counter
}

// New checks o and returns the sink; its metrics are registered on o.Registerer when set.
func New(o Options) (*Sink, error) {
	if o.Store == nil || o.DB == nil || o.Name == "" || o.Destination == nil {
		return nil, errors.New("auditsink: Store, DB, Name and Destination are required")
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 100
	}
	if o.ReadSize <= 0 {
		o.ReadSize = 1000
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 500 * time.Millisecond
	}
	if o.RetryMin <= 0 {
		o.RetryMin = time.Second
	}
	if o.RetryMax < o.RetryMin {
		o.RetryMax = max(5*time.Minute, o.RetryMin)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Sink{o: o, dec: auditrm.NewDecoder().WithOpener(o.Opener), emails: map[uuid.UUID]string{}}
	labels := prometheus.Labels{"sink": o.Name}
	s.delivered = prometheus.NewCounter(prometheus.CounterOpts{Name: "workbench_audit_sink_delivered_total",
		Help: "Audit records the SIEM sink's destination acknowledged.", ConstLabels: labels})
	s.failures = prometheus.NewCounter(prometheus.CounterOpts{Name: "workbench_audit_sink_failures_total",
		Help: "Failed attempts to deliver a batch of audit records to the SIEM sink.", ConstLabels: labels})
	lag := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "workbench_audit_sink_lag",
		Help: "Seconds the SIEM sink is behind: the age of the oldest event read and not yet acknowledged (0 when caught up).", ConstLabels: labels},
		s.Lag)
	if o.Registerer != nil {
		for _, c := range []prometheus.Collector{s.delivered, s.failures, lag} {
			if err := o.Registerer.Register(c); err != nil {
				return nil, fmt.Errorf("auditsink: register metrics: %w", err)
			}
		}
	}
	return s, nil
}

// Lag is the value of workbench_audit_sink_lag, in seconds.
func (s *Sink) Lag() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending.IsZero() {
		return 0
	}
	return max(0, s.o.Now().Sub(s.pending).Seconds())
}

func (s *Sink) setPending(t time.Time) {
	s.mu.Lock()
	s.pending = t
	s.mu.Unlock()
}

// Checkpoint returns the position after which the sink resumes, and the records it has delivered.
func Checkpoint(ctx context.Context, db *sql.DB, name string) (eventstore.Position, int64, error) {
	var pos string
	var n int64
	err := db.QueryRowContext(ctx, `SELECT position, delivered FROM audit_sink_checkpoints WHERE sink = $1`, name).Scan(&pos, &n)
	if errors.Is(err, sql.ErrNoRows) {
		return eventstore.Start, 0, nil
	}
	if err != nil {
		return eventstore.Start, 0, fmt.Errorf("auditsink: read the checkpoint of %s: %w", name, err)
	}
	p, err := eventstore.ParsePosition(pos)
	if err != nil {
		return eventstore.Start, 0, fmt.Errorf("auditsink: checkpoint of %s: %w", name, err)
	}
	return p, n, nil
}

func (s *Sink) save(ctx context.Context, pos eventstore.Position, delivered int64) error {
	if s.o.Gate != nil {
		if err := s.o.Gate.Lock(ctx); err != nil {
			return err
		}
		defer s.o.Gate.Unlock()
	}
	_, err := s.o.DB.ExecContext(ctx, `INSERT INTO audit_sink_checkpoints (sink, position, delivered, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (sink) DO UPDATE SET position = excluded.position, delivered = excluded.delivered, updated_at = excluded.updated_at`,
		s.o.Name, pos.String(), delivered, dbtime.Format(s.o.Now()))
	if err != nil {
		return fmt.Errorf("auditsink: save the checkpoint of %s: %w", s.o.Name, err)
	}
	return nil
}

// Run follows the log from the checkpoint until ctx ends (holding Lock, when set, while it delivers).
// A failed read or checkpoint write is retried with the same backoff as a delivery; Run returns nil
// when ctx ends.
func (s *Sink) Run(ctx context.Context) error {
	if s.o.Lock == nil {
		return s.run(ctx)
	}
	for ctx.Err() == nil {
		held, release, err := s.o.Lock.Acquire(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			s.o.Logger.Warn("audit sink: cannot take the lock; retrying", "sink", s.o.Name, "err", err)
			if !sleep(ctx, s.o.RetryMin) {
				return nil
			}
			continue
		}
		err = s.run(held)
		release()
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *Sink) run(ctx context.Context) error {
	var pos eventstore.Position
	var delivered int64
	var err error
	for wait := time.Duration(0); ; {
		if pos, delivered, err = Checkpoint(ctx, s.o.DB, s.o.Name); err == nil {
			break
		}
		wait = s.backoff(wait)
		s.o.Logger.Warn("audit sink: cannot read its checkpoint; retrying", "sink", s.o.Name, "err", err, "retry_in", wait)
		if !sleep(ctx, wait) {
			return nil
		}
	}
	s.o.Logger.Info("audit sink following the log", "sink", s.o.Name, "from", pos.String(), "delivered", delivered)
	for {
		next, n, err := s.step(ctx, pos, delivered)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			s.o.Logger.Warn("audit sink: step failed; retrying", "sink", s.o.Name, "err", err)
			if !sleep(ctx, s.o.RetryMin) {
				return nil
			}
			continue
		}
		if next == pos {
			s.setPending(time.Time{})
			if !sleep(ctx, s.o.PollInterval) {
				return nil
			}
			continue
		}
		pos, delivered = next, n
	}
}

// step reads one window of the log after pos and delivers its records, moving the checkpoint after
// each acknowledged batch. It returns the new position (pos when the log had nothing new).
func (s *Sink) step(ctx context.Context, pos eventstore.Position, delivered int64) (eventstore.Position, int64, error) {
	envs, err := s.o.Store.ReadAll(ctx, pos, s.o.ReadSize)
	if err != nil || len(envs) == 0 {
		return pos, delivered, err
	}
	s.setPending(envs[0].Metadata.Time)
	var batch []auditrm.Record
	from := pos
	flush := func(through eventstore.Position) error {
		if len(batch) == 0 && through == pos {
			return nil // a batch that ended the window was saved already
		}
		if len(batch) > 0 {
			b := Batch{Sink: s.o.Name, ID: s.o.Name + ":" + from.String() + "-" + through.String(),
				From: from.String(), Through: through.String(), Records: batch}
			if err := s.deliver(ctx, b); err != nil {
				return err
			}
			delivered += int64(len(batch))
			s.delivered.Add(float64(len(batch)))
		}
		if err := s.save(ctx, through, delivered); err != nil {
			return err
		}
		batch, from, pos = nil, through, through
		return nil
	}
	for i, env := range envs {
		if user, email, ok, err := s.dec.UserCreated(env); err != nil {
			return pos, delivered, err
		} else if ok {
			s.emails[user] = email
			continue
		}
		rec, ok, err := s.dec.Decode(env)
		if err != nil {
			return pos, delivered, err
		}
		if !ok {
			continue
		}
		if rec.UserID != uuid.Nil {
			if rec.Email, err = s.email(ctx, rec.UserID); err != nil {
				return pos, delivered, err
			}
		}
		batch = append(batch, rec)
		if len(batch) == s.o.BatchSize {
			if err := flush(env.Position); err != nil {
				return pos, delivered, err
			}
			if i+1 < len(envs) {
				s.setPending(envs[i+1].Metadata.Time)
			}
		}
	}
	if err := flush(envs[len(envs)-1].Position); err != nil {
		return pos, delivered, err
	}
	if len(envs) < s.o.ReadSize {
		s.setPending(time.Time{}) // the log's end: caught up
	} else {
		s.setPending(envs[len(envs)-1].Metadata.Time) // more to read: as old as the last one read, at least
	}
	return pos, delivered, nil
}

func (s *Sink) email(ctx context.Context, user uuid.UUID) (string, error) {
	if e, ok := s.emails[user]; ok {
		return e, nil
	}
	if s.o.Emails == nil {
		return "", nil
	}
	e, err := s.o.Emails(ctx, user)
	if err != nil {
		return "", err
	}
	if e != "" {
		s.emails[user] = e
	}
	return e, nil
}

// deliver sends b until the destination acknowledges it or ctx ends, backing off between attempts.
func (s *Sink) deliver(ctx context.Context, b Batch) error {
	var wait time.Duration
	for attempt := 1; ; attempt++ {
		err := s.o.Destination.Deliver(ctx, b)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		s.failures.Inc()
		wait = s.backoff(wait)
		s.o.Logger.Warn("audit sink: delivery failed; retrying", "sink", s.o.Name, "batch", b.ID, "records", len(b.Records),
			"attempt", attempt, "err", err, "retry_in", wait)
		if !sleep(ctx, wait) {
			return ctx.Err()
		}
	}
}

// backoff doubles the previous wait, from RetryMin, capped at RetryMax.
func (s *Sink) backoff(prev time.Duration) time.Duration {
	if prev <= 0 {
		return s.o.RetryMin
	}
	return min(2*prev, s.o.RetryMax)
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
