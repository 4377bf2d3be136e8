package mcpclient

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resource subscriptions. A remote tells of a changed resource unprompted, on the session's
// standalone GET stream, which the pooled sessions do not keep open (a GET held per login would tie up
// a connection per login). So a login whose resources someone subscribed to gets a watch: a session of
// its own with the GET stream open, subscribed at the remote to every URI some subscriber asked for,
// and closed when the last subscriber leaves. A subscriber is a key (an agent's MCP session) with a
// deliver function and an expiry (its session's); an expired one is dropped at the next subscription
// or update. A credential change or a removal ends the login's watch (Drop).

type watch struct {
	e     *entry        // the session's caps and barrier (not a pooled session)
	ready chan struct{} // closed once cs or err is set
	cs    *mcp.ClientSession
	err   error
	// subs are the subscribers of each remote URI, by key.
	subs map[string]map[string]subscriber
}

type subscriber struct {
	deliver func(uri string)
	until   time.Time
}

type watches struct {
	mu sync.Mutex
	by map[uuid.UUID]*watch
}

func (p *Pool) watchesOf() *watches {
	p.watchOnce.Do(func() { p.watch = &watches{by: map[uuid.UUID]*watch{}} })
	return p.watch
}

// Subscribe subscribes key to the login's resource uri at the endpoint until until: deliver is told the
// URI each time the remote says it changed. Subscribing again renews the subscription.
func (p *Pool) Subscribe(ctx context.Context, login uuid.UUID, ep Endpoint, uri, key string, until time.Time, deliver func(uri string)) error {
	ws := p.watchesOf()
	ws.mu.Lock()
	w := ws.by[login]
	fresh := w == nil
	if fresh {
		w = &watch{e: &entry{ready: make(chan struct{}), barrier: newBarrier()}, ready: make(chan struct{}), subs: map[string]map[string]subscriber{}}
		ws.by[login] = w
	}
	ws.mu.Unlock()
	if fresh {
		w.cs, w.err = p.dial(ctx, p.client, ep, w.e, true)
		close(w.ready)
		if w.err != nil {
			ws.mu.Lock()
			if ws.by[login] == w {
				delete(ws.by, login)
			}
			ws.mu.Unlock()
			return w.err
		}
	} else {
		select {
		case <-w.ready:
		case <-ctx.Done():
			return ctx.Err()
		}
		if w.err != nil {
			return w.err
		}
	}
	cctx, cancel := context.WithTimeout(ctx, p.opts.CallTimeout)
	defer cancel()
	if err := w.cs.Subscribe(cctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		return p.classify(w.e, err)
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.by[login] != w { // dropped meanwhile
		return &Error{Message: "the login's session ended while subscribing"}
	}
	if w.subs[uri] == nil {
		w.subs[uri] = map[string]subscriber{}
	}
	w.subs[uri][key] = subscriber{deliver: deliver, until: until}
	p.prune(w, time.Now())
	return nil
}

// Unsubscribe ends key's subscription to the login's resource uri; the last subscriber of a URI
// unsubscribes at the remote, and the last of the login closes its watch.
func (p *Pool) Unsubscribe(ctx context.Context, login uuid.UUID, uri, key string) error {
	ws := p.watchesOf()
	ws.mu.Lock()
	w := ws.by[login]
	if w == nil || w.cs == nil {
		ws.mu.Unlock()
		return nil
	}
	delete(w.subs[uri], key)
	last := len(w.subs[uri]) == 0
	if last {
		delete(w.subs, uri)
	}
	empty := len(w.subs) == 0
	if empty {
		delete(ws.by, login)
	}
	ws.mu.Unlock()
	if empty {
		return w.cs.Close()
	}
	if last {
		cctx, cancel := context.WithTimeout(ctx, p.opts.CallTimeout)
		defer cancel()
		if err := w.cs.Unsubscribe(cctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
			return p.classify(w.e, err)
		}
	}
	return nil
}

// Forget drops every subscription of key; a watch left without subscribers is closed (its remote
// subscriptions end with its session).
func (p *Pool) Forget(key string) {
	ws := p.watchesOf()
	ws.mu.Lock()
	var ended []*watch
	for login, w := range ws.by {
		for uri, subs := range w.subs {
			delete(subs, key)
			if len(subs) == 0 {
				delete(w.subs, uri)
			}
		}
		if len(w.subs) == 0 && w.cs != nil {
			delete(ws.by, login)
			ended = append(ended, w)
		}
	}
	ws.mu.Unlock()
	for _, w := range ended {
		go w.cs.Close() // the remote's answer to the session's end is not waited for
	}
}

// prune drops w's expired subscribers (under ws.mu).
func (p *Pool) prune(w *watch, now time.Time) {
	for uri, subs := range w.subs {
		for key, s := range subs {
			if now.After(s.until) {
				delete(subs, key)
			}
		}
		if len(subs) == 0 {
			delete(w.subs, uri)
		}
	}
}

// onUpdated tells the subscribers of a remote's notifications/resources/updated.
func (p *Pool) onUpdated(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
	if req == nil || req.Params == nil {
		return
	}
	ws := p.watchesOf()
	var tell []func(string)
	var idle *watch
	ws.mu.Lock()
	for login, w := range ws.by {
		if w.cs != req.Session {
			continue
		}
		p.prune(w, time.Now())
		for _, s := range w.subs[req.Params.URI] {
			tell = append(tell, s.deliver)
		}
		if len(w.subs) == 0 { // every subscriber expired: the watch ends
			delete(ws.by, login)
			idle = w
		}
	}
	ws.mu.Unlock()
	if idle != nil {
		go idle.cs.Close() // not on the session's own handler
	}
	for _, f := range tell {
		f(req.Params.URI)
	}
}

// dropWatch ends the login's watch (every login's when login is uuid.Nil).
func (p *Pool) dropWatch(login uuid.UUID) {
	ws := p.watchesOf()
	ws.mu.Lock()
	var ended []*watch
	for l, w := range ws.by {
		if login == uuid.Nil || l == login {
			ended = append(ended, w)
			delete(ws.by, l)
		}
	}
	ws.mu.Unlock()
	for _, w := range ended {
		go func() {
			<-w.ready
			if w.cs != nil {
				_ = w.cs.Close()
			}
		}()
	}
}
