package proxy

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/plugins"
)

// gatedCreds answers Access once release is closed, counting the calls.
type gatedCreds struct {
	calls   atomic.Int32
	entered chan struct{}
	release chan struct{}
	err     error
}

func (g *gatedCreds) Access(ctx context.Context, _ uuid.UUID, _ *plugins.Integration, _ string) (connections.Access, error) {
	if g.calls.Add(1) == 1 {
		close(g.entered)
	}
	<-g.release
	return connections.Access{ConnectionVersion: 7}, g.err
}

// Requests that need a credential while it is being resolved wait for that one resolution instead of
// each making their own; a failed resolution is answered to all of them and not kept.
func TestConcurrentMissesResolveOnce(t *testing.T) {
	for _, failing := range []bool{false, true} {
		g := &gatedCreds{entered: make(chan struct{}), release: make(chan struct{})}
		if failing {
			g.err = errors.New("the connection read failed")
		}
		now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) // the clock stands still: no entry expires
		p := &Proxy{creds: g, transport: http.DefaultTransport, now: func() time.Time { return now },
			access: accessCache{ttl: time.Minute, m: map[accessKey]cachedAccess{}}}
		in, user := &plugins.Integration{Manifest: plugins.Manifest{Name: "keyed"}}, uuid.New()
		const n = 8
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a, err := p.accessFor(context.Background(), user, in, "")
				if err == nil && a.access.ConnectionVersion != 7 {
					err = errors.New("wrong access")
				}
				errs <- err
			}()
		}
		<-g.entered
		time.Sleep(20 * time.Millisecond) // lets the others reach the wait (not asserted on)
		close(g.release)
		wg.Wait()
		close(errs)
		for err := range errs {
			if (err != nil) != failing {
				t.Fatalf("failing=%v: %v", failing, err)
			}
		}
		if c := g.calls.Load(); failing && c < 1 || !failing && c != 1 {
			t.Fatalf("failing=%v: %d resolutions for %d concurrent requests", failing, c, n)
		}
		if _, kept := p.access.m[accessKey{user, "keyed", ""}]; kept == failing {
			t.Fatalf("failing=%v: kept=%v", failing, kept)
		}
		if len(p.access.resolving) != 0 {
			t.Fatal("a finished resolution is still listed")
		}
	}
}
