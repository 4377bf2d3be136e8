package connections_test

import (
	"context"
	"maps"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/domain"
)

// platformKeys is the platform keys an instance admin set, as app/platformkeys answers them.
type platformKeys struct {
	mu   sync.Mutex
	keys map[string]map[string]string
}

func (p *platformKeys) set(name string, fields map[string]string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if fields == nil {
		delete(p.keys, name)
		return
	}
	p.keys[name] = fields
}

func (p *platformKeys) PlatformKey(_ context.Context, name string) (map[string]string, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, ok := p.keys[name]
	return maps.Clone(f), ok, nil
}

// TestPlatformKeyClient: an OAuth integration with no client in the environment becomes connectable
// once an instance admin sets the platform key integration:<name>, on the running service (the key
// is read at connect time), and its token refreshes read the key too.
func TestPlatformKeyClient(t *testing.T) {
	e := newEnv(t, "basic")
	e.clients = nil // no ACME_CLIENT_ID
	keys := &platformKeys{keys: map[string]map[string]string{}}
	e.opts = func(c *connections.Config) { c.PlatformKeys = keys }
	n := e.node(true)
	user := uuid.New()

	if ok, setup := n.svc.OAuthSetup(e.ctx, "acme"); ok || !strings.Contains(setup, "integration:acme") ||
		!strings.Contains(setup, e.publicURL+"/api/auth/plugin/acme/callback") {
		t.Fatalf("OAuthSetup before the key: %v %q", ok, setup)
	}
	if _, err := n.svc.Connect(e.ctx, user, "acme", ""); domain.ErrorCode(err) != domain.CodeUnavailable {
		t.Fatalf("connect before the key: %v", err)
	}

	keys.set("integration:acme", map[string]string{"client_id": clientID, "client_secret": clientSecret})
	if ok, setup := n.svc.OAuthSetup(e.ctx, "acme"); !ok || setup != "" {
		t.Fatalf("OAuthSetup once the key is set: %v %q", ok, setup)
	}
	connectExpiring(t, e, n, user) // the consent and the code exchange with the key's client

	// The token needs a refresh: with no client in the environment, only the key authenticates it.
	toks, errs := tokens(t, e, user, 1, n)
	if len(errs) > 0 || len(toks) != 1 || !strings.HasPrefix(toks[0], "at-2-") || e.provider.refreshes() != 1 {
		t.Fatalf("refresh with the platform key's client: %v %v (%d refreshes)", toks, errs, e.provider.refreshes())
	}

	// Removed, the key no longer connects anything: read at every connect.
	keys.set("integration:acme", nil)
	if _, err := n.svc.Connect(e.ctx, user, "acme", "other"); domain.ErrorCode(err) != domain.CodeUnavailable {
		t.Fatalf("connect once the key is removed: %v", err)
	}
}
