package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/eventstore"
)

const (
	concurrentWriters = 50
	// oneStreamAcks is how many appends each writer gets acknowledged on the shared stream.
	oneStreamAcks = 2
	// ownStreamAppends is how many appends each writer makes to its own stream.
	ownStreamAppends = 6
)

// handles returns the store each writer uses: the first store, and the peer for odd writers when the
// harness has one, so that half the appends run in another process's transactions.
func handles(t *testing.T, h Harness) (first, peer eventstore.Store, pick func(i int) eventstore.Store) {
	first = h.Open(t)
	peer = first
	if h.OpenPeer != nil {
		peer = h.OpenPeer(t, first)
	}
	return first, peer, func(i int) eventstore.Store {
		if i%2 == 1 {
			return peer
		}
		return first
	}
}

// testConcurrentOneStream: many writers race on one stream with the command loop's pattern (read the
// version, append with Exact, retry on conflict). Each version must have exactly one winner, and the
// stream must hold exactly the acknowledged events.
func testConcurrentOneStream(t *testing.T, h Harness) {
	first, _, pick := handles(t, h)
	const stream = "contended"
	ctx := ctxFor(t)

	type ack struct {
		id       uuid.UUID
		version  int64
		position eventstore.Position
	}
	var (
		mu      sync.Mutex
		acks    []ack
		refused = map[uuid.UUID]bool{}
		wg      sync.WaitGroup
		failed  atomic.Bool
	)
	for w := 0; w < concurrentWriters; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s := pick(w)
			var known int64 // the last version this writer has seen
			for got := 0; got < oneStreamAcks && !failed.Load(); {
				tail, err := s.Load(ctx, stream, known+1)
				if err != nil {
					failed.Store(true)
					t.Errorf("writer %d: Load: %v", w, err)
					return
				}
				if n := len(tail); n > 0 {
					known = tail[n-1].Version
				}
				ev := newEvent("contended.append", w)
				pos, err := s.Append(ctx, stream, eventstore.Exact(known), ev)
				mu.Lock()
				switch {
				case err == nil:
					acks = append(acks, ack{ev.ID, known + 1, pos})
					got++
				case errors.Is(err, eventstore.ErrConflict):
					refused[ev.ID] = true
					if ce, ok := asConflict(err); !ok || ce.Actual <= known {
						failed.Store(true)
						t.Errorf("writer %d: conflict %v at expected %d does not report a later actual version", w, err, known)
					}
				default:
					failed.Store(true)
					t.Errorf("writer %d: Append: %v", w, err)
				}
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	got := mustLoad(t, first, stream, 1)
	if want := concurrentWriters * oneStreamAcks; len(acks) != want || len(got) != want {
		t.Fatalf("%d acknowledged appends, stream holds %d events; want %d of each", len(acks), len(got), want)
	}
	byVersion := map[int64]ack{}
	for _, a := range acks {
		if other, dup := byVersion[a.version]; dup {
			t.Errorf("version %d acknowledged twice: %s and %s", a.version, other.id, a.id)
		}
		byVersion[a.version] = a
	}
	seen := map[uuid.UUID]bool{}
	for i, env := range got {
		if env.Version != int64(i+1) {
			t.Errorf("event %d has version %d, want %d", i, env.Version, i+1)
		}
		if seen[env.ID] {
			t.Errorf("event id %s stored twice", env.ID)
		}
		seen[env.ID] = true
		if refused[env.ID] {
			t.Errorf("event %s was refused with a conflict but is stored at version %d", env.ID, env.Version)
		}
		a, ok := byVersion[env.Version]
		switch {
		case !ok:
			t.Errorf("version %d holds %s, which no writer was told was appended", env.Version, env.ID)
		case a.id != env.ID:
			t.Errorf("version %d holds %s, but %s was acknowledged there", env.Version, env.ID, a.id)
		case a.position != env.Position:
			t.Errorf("version %d: Append returned position %s, the event is at %s", env.Version, a.position, env.Position)
		}
	}
}

// testConcurrentGlobalOrder: writers append to their own streams (half through the peer handle, when
// there is one) while one reader follows ReadAll in a tight loop and one subscriber follows Subscribe.
// Both must see every acknowledged event exactly once, in strictly increasing position order. A
// backend whose readers can pass a position that a slower transaction has not committed yet (the
// "bigserial gap trap" on PostgreSQL) loses that event for good here: the reader has moved past it.
func testConcurrentGlobalOrder(t *testing.T, h Harness) {
	first, peer, pick := handles(t, h)
	ctx := ctxFor(t)

	var (
		mu       sync.Mutex
		acked    = map[uuid.UUID]eventstore.Position{} // event id -> the position its Append returned
		lastOf   = map[uuid.UUID]bool{}                // the last event of each append
		total    atomic.Int64
		wg       sync.WaitGroup
		failures atomic.Int64
	)
	total.Store(-1)

	// The reader: ReadAll from where it left off, as fast as it can, with a small page size so
	// that pages end at arbitrary places.
	var readerSeen []eventstore.Envelope
	readerDone := make(chan error, 1)
	go func() {
		from := eventstore.Start
		for {
			page, err := first.ReadAll(ctx, from, 7)
			if err != nil {
				readerDone <- fmt.Errorf("ReadAll(%s): %w", from, err)
				return
			}
			readerSeen = append(readerSeen, page...)
			if len(page) > 0 {
				from = page[len(page)-1].Position
				continue
			}
			if n := total.Load(); n >= 0 && int64(len(readerSeen)) >= n {
				readerDone <- nil
				return
			}
			select {
			case <-ctx.Done():
				readerDone <- fmt.Errorf("reader gave up after %d events: %w", len(readerSeen), ctx.Err())
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()

	// The subscriber, on the peer handle when there is one: it sees the others' commits only by polling.
	var (
		subMu   sync.Mutex
		subSeen []eventstore.Envelope
	)
	subCtx, stopSub := context.WithCancel(ctx)
	defer stopSub()
	subDone := make(chan error, 1)
	go func() {
		subDone <- peer.Subscribe(subCtx, eventstore.Start, func(env eventstore.Envelope) error {
			subMu.Lock()
			subSeen = append(subSeen, env)
			subMu.Unlock()
			return nil
		})
	}()

	for w := 0; w < concurrentWriters; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s := pick(w)
			stream := fmt.Sprintf("writer-%02d", w)
			var version int64
			for i := 0; i < ownStreamAppends; i++ {
				events := newEvents("own.append", i, 1+(w+i)%3)
				pos, err := s.Append(ctx, stream, eventstore.Exact(version), events...)
				if err != nil {
					failures.Add(1)
					t.Errorf("writer %d: Append %d: %v", w, i, err)
					return
				}
				version += int64(len(events))
				mu.Lock()
				for _, ev := range events {
					acked[ev.ID] = pos
				}
				lastOf[events[len(events)-1].ID] = true
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	if failures.Load() > 0 {
		return
	}
	total.Store(int64(len(acked)))

	if err := <-readerDone; err != nil {
		t.Errorf("reader: %v", err)
	}
	subLen := func() int64 {
		subMu.Lock()
		defer subMu.Unlock()
		return int64(len(subSeen))
	}
	for subLen() < total.Load() && ctx.Err() == nil {
		select {
		case err := <-subDone:
			t.Fatalf("Subscribe ended early with %v after %d events", err, subLen())
		case <-ctx.Done():
		case <-time.After(10 * time.Millisecond):
		}
	}
	stopSub()
	if err := <-subDone; !errors.Is(err, context.Canceled) {
		t.Errorf("Subscribe after cancel = %v; want context.Canceled", err)
	}

	check := func(who string, seen []eventstore.Envelope) {
		t.Helper()
		ids := map[uuid.UUID]bool{}
		streamVersion := map[string]int64{}
		for i, env := range seen {
			if ids[env.ID] {
				t.Errorf("%s: event %s seen twice", who, env.ID)
			}
			ids[env.ID] = true
			if i > 0 && !seen[i-1].Position.Less(env.Position) {
				t.Errorf("%s: event %d at %s is not after the previous one at %s", who, i, env.Position, seen[i-1].Position)
			}
			pos, ok := acked[env.ID]
			if !ok {
				t.Errorf("%s: event %s was never acknowledged", who, env.ID)
				continue
			}
			if lastOf[env.ID] && pos != env.Position {
				t.Errorf("%s: Append returned %s for the batch ending in %s, which is at %s", who, pos, env.ID, env.Position)
			}
			if env.Version != streamVersion[env.Stream]+1 {
				t.Errorf("%s: stream %q version %d follows version %d", who, env.Stream, env.Version, streamVersion[env.Stream])
			}
			streamVersion[env.Stream] = env.Version
		}
		missing := 0
		for id := range acked {
			if !ids[id] {
				missing++
			}
		}
		if missing > 0 {
			t.Errorf("%s: %d of %d acknowledged events never seen (skipped past a late commit?)", who, missing, len(acked))
		}
	}
	check("ReadAll reader", readerSeen)
	check("subscriber", subSeen)

	// And a fresh read of the whole log, after everything committed, agrees with the live reader.
	final := readAll(t, first, eventstore.Start)
	if len(final) != len(readerSeen) {
		t.Errorf("final ReadAll holds %d events, the live reader saw %d", len(final), len(readerSeen))
	}
	for i := 0; i < len(final) && i < len(readerSeen); i++ {
		if final[i].ID != readerSeen[i].ID || final[i].Position != readerSeen[i].Position {
			t.Errorf("event %d: final ReadAll has %s at %s, the live reader saw %s at %s", i, final[i].ID, final[i].Position, readerSeen[i].ID, readerSeen[i].Position)
			break
		}
	}
}
