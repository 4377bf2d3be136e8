package auditrm

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/profile"
)

// replayBatch is how many events one ReadAll of the replay asks for.
const replayBatch = 1000

// Progress is how far a replay has got.
type Progress struct {
	// Scanned counts the events read from the log; Emitted the records passed to emit.
	Scanned, Emitted int64
	// Position is that of the last event read (Start before the first).
	Position eventstore.Position
	// Elapsed is the time since the replay began.
	Elapsed time.Duration
	// Done is set on the last call, once the replay has read to the end of the log.
	Done bool
	// UserSeen says whether the log named the filter's user (a user_created event with its email);
	// always true without a user filter. A replay that ends with UserSeen false matched no user.
	UserSeen bool
}

// Rate is the scan rate so far, in events per second.
func (p Progress) Rate() float64 {
	if p.Elapsed <= 0 {
		return 0
	}
	return float64(p.Scanned) / p.Elapsed.Seconds()
}

// Replay reads the whole event log from the start with ReadAll, turns every audited event into a
// Record (emails resolved from the log's own identity.user_created events as it goes), and every
// access event (sign-in links, OAuth client registrations, grants and token-family revocations, see
// accessTrail) too, with the OAuth client's name beside its id, and calls emit
// with each record that passes the filter, in log order. It reads until a ReadAll returns nothing, so
// events committed while it runs are included up to the moment it reaches the end.
//
// progress, when not nil, is called after every batch read (about every thousand events) and once more
// with Done set at the end; the caller decides how often to show it. An error from emit stops the
// replay and is returned wrapped; so is an audited event that cannot be decoded.
func Replay(ctx context.Context, store eventstore.Store, filter Filter, emit func(Record) error, progress func(Progress)) error {
	return replay(ctx, store, nil, filter, nil, emit, progress)
}

// ReplayWith is Replay with the vault to open the emails newer user_created events seal; without one
// (nil) their users' records carry no email.
func ReplayWith(ctx context.Context, store eventstore.Store, opener profile.Opener, filter Filter, emit func(Record) error, progress func(Progress)) error {
	return replay(ctx, store, opener, filter, nil, emit, progress)
}

// replayEnvelopes is Replay without a filter that also calls seen with every envelope read, before its
// record (if any) is emitted.
func replayEnvelopes(ctx context.Context, store eventstore.Store, opener profile.Opener, seen func(eventstore.Envelope), emit func(Record) error) error {
	return replay(ctx, store, opener, Filter{}, seen, emit, nil)
}

func replay(ctx context.Context, store eventstore.Store, opener profile.Opener, filter Filter, seen func(eventstore.Envelope), emit func(Record) error, progress func(Progress)) error {
	f, err := filter.normalized()
	if err != nil {
		return err
	}
	dec := NewDecoder()
	dec.opener = opener
	access := newAccessTrail()
	emails := make(map[uuid.UUID]string)
	began := time.Now()
	p := Progress{UserSeen: f.Email == ""}
	report := func() {
		if progress != nil {
			p.Elapsed = time.Since(began)
			progress(p)
		}
	}
	// The next batch is read while this one is decoded and written: on a log much larger than memory
	// the two halves of the work overlap instead of taking turns (see BenchmarkReplay).
	batches, stop := readAhead(ctx, store)
	defer stop()
	ended := false
	for b := range batches {
		if b.err != nil {
			return b.err
		}
		if len(b.envs) == 0 {
			ended = true
			break
		}
		for _, env := range b.envs {
			p.Scanned++
			p.Position = env.Position
			if seen != nil {
				seen(env)
			}
			if user, email, ok, err := dec.UserCreated(env); err != nil {
				return err
			} else if ok {
				emails[user] = email
				p.UserSeen = p.UserSeen || email == f.Email
				continue
			}
			rec, ok, err := dec.Decode(env)
			if err != nil {
				return err
			}
			if !ok {
				if rec, ok, err = access.record(env); err != nil {
					return err
				} else if !ok {
					continue
				}
			}
			access.name(&rec)
			rec.Email = emails[rec.UserID]
			if !f.Match(rec) {
				continue
			}
			if err := emit(rec); err != nil {
				return fmt.Errorf("audit replay: emit the record of event %s at %s: %w", rec.EventID, rec.Position, err)
			}
			p.Emitted++
		}
		report()
	}
	if !ended { // the reader stopped early: ctx ended
		return fmt.Errorf("audit replay: stopped after %s: %w", p.Position, context.Cause(ctx))
	}
	p.Done = true
	report()
	return nil
}

// batch is one ReadAll result; an empty envs with a nil err is the end of the log.
type batch struct {
	envs []eventstore.Envelope
	err  error
}

// readAhead reads the log from the start in a goroutine, one batch ahead of its consumer. It sends
// every batch, then either an empty batch (the end) or one with an error, and closes the channel. stop
// ends the goroutine and waits for it, so nothing reads the store once the replay has returned.
func readAhead(ctx context.Context, store eventstore.Store) (<-chan batch, func()) {
	ctx, cancel := context.WithCancel(ctx)
	out := make(chan batch, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(out)
		from := eventstore.Start
		for {
			envs, err := store.ReadAll(ctx, from, replayBatch)
			if err != nil {
				err = fmt.Errorf("audit replay: read the log after %s: %w", from, err)
			}
			select {
			case out <- batch{envs: envs, err: err}:
			case <-ctx.Done():
				return
			}
			if err != nil || len(envs) == 0 {
				return
			}
			from = envs[len(envs)-1].Position
		}
	}()
	return out, func() { cancel(); <-done }
}
