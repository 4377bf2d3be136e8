package bus_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/nats-io/nats.go"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/bus"
)

func TestOpenRejectsBadURL(t *testing.T) {
	noLeaks(t)
	tests := []struct {
		name string
		url  string
		want []string // substrings of the error
		not  string   // must not appear in the error
	}{
		{name: "unknown scheme", url: "redis://localhost:6379", want: []string{"BUS_URL", `"redis"`, "nats://", "postgres://"}},
		{name: "no scheme", url: "localhost:4222", want: []string{"BUS_URL", "no scheme", "nats://"}},
		{name: "password is not repeated", url: "amqp://user:s3cret@host/", want: []string{"BUS_URL", `"amqp"`}, not: "s3cret"},
		{name: "nats server not listening", url: "nats://127.0.0.1:1", want: []string{"BUS_URL", "nats", "connect"}},
		{name: "postgres server not listening", url: "postgres://postgres:s3cret@127.0.0.1:1/x?connect_timeout=2", want: []string{"BUS_URL", "postgres", "connect"}, not: "s3cret"},
		{name: "postgres URL malformed", url: "postgresql://%zz", want: []string{"BUS_URL", "postgres"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			b, err := bus.Open(ctx, tc.url, nil)
			if err == nil {
				b.Close()
				t.Fatalf("Open(%q) succeeded, want an error", tc.url)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if tc.not != "" && strings.Contains(err.Error(), tc.not) {
				t.Errorf("error %q repeats %q", err, tc.not)
			}
		})
	}
}

func TestBadArguments(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	b := open(t, ctx, "", &bus.Options{Name: "replica-1"})
	nop := func(context.Context, eventstore.Envelope) error { return nil }
	tests := []struct {
		name string
		call func() error
	}{
		{name: "publish to an empty topic", call: func() error { return b.Publish(ctx, "", envelopes(1, 1, 0)...) }},
		{name: "publish to a topic with a space", call: func() error { return b.Publish(ctx, "a b", envelopes(1, 1, 0)...) }},
		{name: "subscribe to a topic with a quote", call: func() error { _, err := b.Subscribe(ctx, `a"b`, nop); return err }},
		{name: "subscribe with no handler", call: func() error { _, err := b.Subscribe(ctx, "ok.topic", nil); return err }},
		{name: "a named consumer subscribes twice to one topic", call: func() error {
			s, err := b.Subscribe(ctx, "twice", nop)
			if err != nil {
				return nil // the first must work: report no error, so the case fails
			}
			defer s.Close()
			_, err = b.Subscribe(ctx, "twice", nop)
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); err == nil {
				t.Fatal("no error")
			}
		})
	}
	if _, err := bus.Open(ctx, "", &bus.Options{Name: "has.dot"}); err == nil {
		t.Error("Open with a consumer name holding a dot: no error")
	}
}

func TestClosedBus(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	b, err := bus.Open(ctx, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	c := newCollector()
	sub, err := b.Subscribe(ctx, "closing", c.handle)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sub.Done():
	default:
		t.Error("subscription still running after Close")
	}
	if err := b.Publish(ctx, "closing", envelopes(1, 1, 0)...); !errors.Is(err, bus.ErrClosed) {
		t.Errorf("Publish after Close: %v, want ErrClosed", err)
	}
	if _, err := b.Subscribe(ctx, "closing", c.handle); !errors.Is(err, bus.ErrClosed) {
		t.Errorf("Subscribe after Close: %v, want ErrClosed", err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestFanOut publishes from one Bus and proves that a subscription on a second Bus (its own
// connections, as another replica would have) and one on the publishing Bus each receive every
// event exactly once after de-duplication, in order per stream, intact, even when a handler fails
// once and the message comes again. GoChannel reaches only its own process, so there both
// subscriptions are on the one Bus.
func TestFanOut(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			noLeaks(t)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			topic := uniqueTopic(t)
			u := be.url(t, topic)
			pub := open(t, ctx, u, nil)
			other := pub
			if be.shared {
				other = open(t, ctx, u, nil)
			}

			want := envelopes(60, 3, 0)
			local, remote := newCollector(), newCollector()
			remote.failOnce = want[7].ID
			for _, s := range []struct {
				b *bus.Bus
				c *collector
			}{{pub, local}, {other, remote}} {
				sub, err := s.b.Subscribe(ctx, topic, s.c.handle)
				if err != nil {
					t.Fatalf("Subscribe: %v", err)
				}
				t.Cleanup(func() { sub.Close() })
			}

			for _, batch := range [][]eventstore.Envelope{want[:1], want[1:11], want[11:]} {
				if err := pub.Publish(ctx, topic, batch...); err != nil {
					t.Fatalf("Publish: %v", err)
				}
			}
			for name, c := range map[string]*collector{"publisher's bus": local, "second bus": remote} {
				got := c.wait(t, len(want))
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s received (-want +got):\n%s", name, diff)
				}
				checkInOrder(t, got)
			}
			if raw, _ := remote.counts(); raw < len(want)+1 {
				t.Errorf("second bus saw %d deliveries; the failed one was not delivered again", raw)
			}
		})
	}
}

// TestDurableConsumer: a named consumer resumes after a restart without losing what was published
// while it was away, and a new name starts at the oldest message the bus keeps.
func TestDurableConsumer(t *testing.T) {
	for _, be := range backends {
		if !be.shared {
			continue // GoChannel keeps nothing
		}
		t.Run(be.name, func(t *testing.T) {
			noLeaks(t)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			topic := uniqueTopic(t)
			u := be.url(t, topic)
			pub := open(t, ctx, u, nil)
			want := envelopes(20, 2, 0)

			c := newCollector() // one de-duplicating consumer across the restart, as a replica would dedupe
			first, err := bus.Open(ctx, u, &bus.Options{Name: "replica-a"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := first.Subscribe(ctx, topic, c.handle); err != nil {
				t.Fatal(err)
			}
			if err := pub.Publish(ctx, topic, want[:10]...); err != nil {
				t.Fatal(err)
			}
			c.wait(t, 10)
			if err := first.Close(); err != nil {
				t.Fatal(err)
			}

			if err := pub.Publish(ctx, topic, want[10:]...); err != nil { // while replica-a is away
				t.Fatal(err)
			}
			again := open(t, ctx, u, &bus.Options{Name: "replica-a"})
			if _, err := again.Subscribe(ctx, topic, c.handle); err != nil {
				t.Fatal(err)
			}
			got := c.wait(t, len(want))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("replica-a received (-want +got):\n%s", diff)
			}

			late := newCollector()
			fresh := open(t, ctx, u, &bus.Options{Name: "replica-b"})
			if _, err := fresh.Subscribe(ctx, topic, late.handle); err != nil {
				t.Fatal(err)
			}
			got = late.wait(t, len(want))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("replica-b, new, received (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEphemeralStartsAtEnd: a subscription without a name receives only what is published after it
// subscribed, on every transport.
func TestEphemeralStartsAtEnd(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			noLeaks(t)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			topic := uniqueTopic(t)
			b := open(t, ctx, be.url(t, topic), nil)
			all := envelopes(10, 2, 0)
			if err := b.Publish(ctx, topic, all[:4]...); err != nil {
				t.Fatal(err)
			}
			c := newCollector()
			if _, err := b.Subscribe(ctx, topic, c.handle); err != nil {
				t.Fatal(err)
			}
			if err := b.Publish(ctx, topic, all[4:]...); err != nil {
				t.Fatal(err)
			}
			c.wait(t, 6)
			time.Sleep(300 * time.Millisecond) // room for an old message to arrive, if one were coming
			c.mu.Lock()
			got := append([]eventstore.Envelope(nil), c.got...)
			c.mu.Unlock()
			if be.name == "postgres" && len(got) > 6 {
				// A new consumer group starts below the oldest transaction running anywhere on the
				// server, so on a busy server it may also get messages committed just before (see
				// startAtEnd). It must never miss a new one: check the tail.
				t.Logf("postgres: %d messages from before the subscription came too (an older transaction was running)", len(got)-6)
				got = got[len(got)-6:]
			}
			if diff := cmp.Diff(all[4:], got); diff != "" {
				t.Errorf("want exactly the 6 published after subscribing (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDedup(t *testing.T) {
	ids := make([]uuid.UUID, 4)
	for i := range ids {
		ids[i] = uuid.New()
	}
	tests := []struct {
		name   string
		size   int
		mark   []int // indexes of ids marked, in order
		seen   []int // indexes Seen must report (checked in order, which refreshes them)
		unseen []int
	}{
		{name: "remembers what it marked", size: 4, mark: []int{0, 1}, seen: []int{0, 1}, unseen: []int{2}},
		{name: "forgets the oldest past its bound", size: 2, mark: []int{0, 1, 2}, seen: []int{1, 2}, unseen: []int{0}},
		{name: "marking again refreshes", size: 2, mark: []int{0, 1, 0, 2}, seen: []int{0, 2}, unseen: []int{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := bus.NewDedup(tc.size)
			for _, i := range tc.mark {
				d.Mark(ids[i])
			}
			for _, i := range tc.unseen {
				if d.Seen(ids[i]) {
					t.Errorf("id %d seen", i)
				}
			}
			for _, i := range tc.seen {
				if !d.Seen(ids[i]) {
					t.Errorf("id %d not seen", i)
				}
			}
			if d.Len() > tc.size {
				t.Errorf("remembers %d ids, bound %d", d.Len(), tc.size)
			}
		})
	}

	t.Run("a failed handler is not marked", func(t *testing.T) {
		d := bus.NewDedup(10)
		calls := 0
		h := d.Handler(func(context.Context, eventstore.Envelope) error {
			calls++
			if calls == 1 {
				return errors.New("first try fails")
			}
			return nil
		})
		env := envelopes(1, 1, 0)[0]
		if err := h(context.Background(), env); err == nil {
			t.Fatal("first call: no error")
		}
		for range 3 {
			if err := h(context.Background(), env); err != nil {
				t.Fatal(err)
			}
		}
		if calls != 2 {
			t.Errorf("handler called %d times, want 2 (one failure, one success, then repeats dropped)", calls)
		}
	})
}

// TestSubscribeWhere: a subscription with a Match receives the events it accepts, all of them, in
// order and intact, and none of the others.
func TestSubscribeWhere(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			noLeaks(t)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			topic := uniqueTopic(t)
			b := open(t, ctx, be.url(t, topic), nil)

			all := envelopes(30, 3, 0)
			all[5].Type = "thing.other" // stream thing-2, another type: refused too
			match := func(stream, eventType string) bool { return stream == "thing-2" && eventType == "thing.happened" }
			var want []eventstore.Envelope
			for _, env := range all {
				if match(env.Stream, env.Type) {
					want = append(want, env)
				}
			}
			c := newCollector()
			sub, err := b.SubscribeWhere(ctx, topic, match, c.handle)
			if err != nil {
				t.Fatalf("SubscribeWhere: %v", err)
			}
			t.Cleanup(func() { sub.Close() })
			if err := b.Publish(ctx, topic, all...); err != nil {
				t.Fatalf("Publish: %v", err)
			}
			got := c.wait(t, len(want))
			// The last event is accepted, so anything refused before it would have arrived by now.
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("received (-want +got):\n%s", diff)
			}
			if raw, _ := c.counts(); raw != len(want) {
				t.Errorf("handler called %d times, want %d", raw, len(want))
			}
		})
	}
}

// TestNATSPrefix: two deployments with different BUS_NATS_PREFIX share one NATS server; each
// receives its own events and none of the other's, and each has a stream of its own.
func TestNATSPrefix(t *testing.T) {
	noLeaks(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	u := natsURL(t)
	run := strings.ReplaceAll(uuid.NewString(), "-", "")[:10]
	prefixes := []string{"alpha" + run, "beta.t" + run}
	streams := []string{"alpha" + run + "_events", "beta_t" + run + "_events"}
	for _, s := range streams {
		dropNATSStream(t, u, s)
	}
	buses := make([]*bus.Bus, 2)
	collectors := []*collector{newCollector(), newCollector()}
	for i, p := range prefixes {
		buses[i] = open(t, ctx, u, &bus.Options{NATSPrefix: p})
		sub, err := buses[i].Subscribe(ctx, bus.EventsTopic, collectors[i].handle)
		if err != nil {
			t.Fatalf("Subscribe: %v", err)
		}
		t.Cleanup(func() { sub.Close() })
	}
	want := [][]eventstore.Envelope{envelopes(5, 2, 0), envelopes(3, 2, 100)}
	for i := range buses {
		if err := buses[i].Publish(ctx, bus.EventsTopic, want[i]...); err != nil {
			t.Fatalf("Publish: %v", err)
		}
	}
	for i, c := range collectors {
		if diff := cmp.Diff(want[i], c.wait(t, len(want[i]))); diff != "" {
			t.Errorf("prefix %s received (-want +got):\n%s", prefixes[i], diff)
		}
	}

	// Each stream holds its own deployment's events only, under its own subject.
	nc, err := nats.Connect(u)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := nc.JetStream()
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range streams {
		info, err := js.StreamInfo(name)
		if err != nil {
			t.Fatalf("stream %s: %v", name, err)
		}
		if subj := info.Config.Subjects; len(subj) != 1 || subj[0] != prefixes[i]+".events" {
			t.Errorf("stream %s has subjects %v, want %s.events", name, subj, prefixes[i])
		}
		if info.State.Msgs != uint64(len(want[i])) {
			t.Errorf("stream %s holds %d messages, want %d", name, info.State.Msgs, len(want[i]))
		}
	}
	// After both streams hold all their messages, a subscriber has nothing of the other's: its
	// stream never had any (the counts above), so nothing can arrive later.
	for i, c := range collectors {
		if _, distinct := c.counts(); distinct != len(want[i]) {
			t.Errorf("prefix %s saw %d events, want %d", prefixes[i], distinct, len(want[i]))
		}
	}

	if _, err := bus.Open(ctx, u, &bus.Options{NATSPrefix: "has space"}); err == nil || !strings.Contains(err.Error(), "BUS_NATS_PREFIX") {
		t.Errorf("a malformed prefix: %v", err)
	}
}
