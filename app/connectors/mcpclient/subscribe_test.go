package mcpclient

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A subscription is held at the remote on one watch session of the login: the remote's updates reach
// every subscriber of the URI; one subscriber's Unsubscribe leaves the others' standing at the remote;
// Forget of the last subscriber's key ends the watch.
func TestSubscriptionsOfALogin(t *testing.T) {
	var mu sync.Mutex
	subscribed := map[string]int{} // URI → remote subscriptions standing
	sessions := 0                  // remote sessions open
	s := mcp.NewServer(&mcp.Implementation{Name: "watched", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler: func(_ context.Context, req *mcp.SubscribeRequest) error {
			mu.Lock()
			defer mu.Unlock()
			subscribed[req.Params.URI]++
			return nil
		},
		UnsubscribeHandler: func(_ context.Context, req *mcp.UnsubscribeRequest) error {
			mu.Lock()
			defer mu.Unlock()
			subscribed[req.Params.URI]--
			return nil
		},
		InitializedHandler: func(context.Context, *mcp.InitializedRequest) { mu.Lock(); sessions++; mu.Unlock() },
	})
	s.AddResource(&mcp.Resource{URI: "test://a", Name: "a"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "a"}}}, nil
	})
	p := New(Options{AllowLoopback: true})
	defer p.Close()
	ep := Endpoint{URL: serve(t, s, nil)}
	login := uuid.New()
	ctx := t.Context()
	got := map[string]chan string{"k1": make(chan string, 16), "k2": make(chan string, 16)}
	until := time.Now().Add(time.Hour)
	for key, ch := range got {
		if err := p.Subscribe(ctx, login, ep, "test://a", key, until, func(uri string) { ch <- uri }); err != nil {
			t.Fatal(err)
		}
	}
	wait := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("waited 10 s for %s", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	// The remote tells of a change until both subscribers heard it (its GET stream may open late).
	heard := map[string]bool{}
	wait("both subscribers to hear of test://a", func() bool {
		_ = s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://a"})
		for key, ch := range got {
			select {
			case uri := <-ch:
				if uri != "test://a" {
					t.Fatalf("%s heard of %q", key, uri)
				}
				heard[key] = true
			case <-time.After(50 * time.Millisecond):
			}
		}
		return heard["k1"] && heard["k2"]
	})
	mu.Lock()
	if sessions != 1 {
		t.Fatalf("%d remote sessions for one login's subscriptions, want 1", sessions)
	}
	mu.Unlock()

	if err := p.Unsubscribe(ctx, login, "test://a", "k1"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if n := subscribed["test://a"]; n != 2 { // both subscribed at the remote; k2 still stands
		t.Fatalf("the remote holds %d subscriptions after one of two left, want 2 (no unsubscribe yet)", n)
	}
	mu.Unlock()
	p.Forget("k2")
	p.watchesOf().mu.Lock()
	left := len(p.watchesOf().by)
	p.watchesOf().mu.Unlock()
	if left != 0 {
		t.Fatalf("%d watches after the last subscriber was forgotten, want 0", left)
	}
}
