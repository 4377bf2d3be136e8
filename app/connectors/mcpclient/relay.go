//lint:file-ignore SA1019 sampling and roots are deprecated from protocol 2026-07-28 (SEP-2577) but are part of the revisions Workbench speaks (2025-03-26 to 2025-11-25), and relaying them to the agent's client is a feature.

package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/internal/mcppeer"
)

// Which client capabilities a session declares, and so where a remote's elicitation/create,
// sampling/createMessage and roots/list go:
//
//   - A login's shared session (listings, and the calls of agents whose client declared none of
//     them) declares all three, so that its listing shows every tool, also those a remote lists only
//     to clients that can answer them. A request the remote sends on it is answered with a JSON-RPC
//     error saying the agent's client did not declare the capability: the session is shared, so no
//     one agent's client may be asked.
//   - A call whose agent's client declared any of them runs on a session of its own login and that
//     exact capability set, leased to that call alone while it runs (idle ones are kept for the next
//     call of the same set, at most maxIdleLeased per login and set). Every request the remote sends
//     on it goes to that call's agent, on the call's response stream, and waits at most the call's
//     remaining time.

// maxIdleLeased bounds the idle sessions kept per login and capability set.
const maxIdleLeased = 4

type leaseKey struct {
	login uuid.UUID
	caps  mcppeer.Caps
}

// clientFor returns the SDK client that declares caps (built once per set). AllCaps is the shared
// sessions' client.
func (p *Pool) clientFor(caps mcppeer.Caps) *mcp.Client {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.clients[caps]; c != nil {
		return c
	}
	capabilities := &mcp.ClientCapabilities{}
	opts := &mcp.ClientOptions{Logger: p.log, ProgressNotificationHandler: p.onProgress, LoggingMessageHandler: p.onLog,
		ResourceUpdatedHandler: p.onUpdated, Capabilities: capabilities}
	if caps&(mcppeer.Elicitation|mcppeer.ElicitationURL) != 0 {
		capabilities.Elicitation = &mcp.ElicitationCapabilities{}
		if caps&mcppeer.Elicitation != 0 {
			capabilities.Elicitation.Form = &mcp.FormElicitationCapabilities{}
		}
		if caps&mcppeer.ElicitationURL != 0 {
			capabilities.Elicitation.URL = &mcp.URLElicitationCapabilities{}
		}
		opts.ElicitationHandler = p.onElicit
	}
	if caps&mcppeer.Sampling != 0 {
		capabilities.Sampling = &mcp.SamplingCapabilities{}
		opts.CreateMessageHandler = p.onSample
	}
	if caps&mcppeer.Roots != 0 {
		capabilities.RootsV2 = &mcp.RootCapabilities{}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: p.opts.ClientName, Version: p.opts.ClientVersion}, opts)
	c.AddReceivingMiddleware(p.rootsRelay)
	p.clients[caps] = c
	return c
}

// onLog passes a remote's log message (notifications/message) on to the agent's client of the call
// that holds the session; on a shared session no single call owns it, and it is dropped.
func (p *Pool) onLog(ctx context.Context, req *mcp.LoggingMessageRequest) {
	defer handledNotification(ctx)
	if req == nil || req.Params == nil {
		return
	}
	v, ok := p.leased.Load(req.Session)
	if !ok {
		return
	}
	data, err := json.Marshal(req.Params.Data)
	if err != nil {
		return
	}
	mcppeer.Log(v.(context.Context), string(req.Params.Level), req.Params.Logger, data)
}

// relay passes a remote's request on to the agent's client of the call that holds the session, or
// refuses it when no call holds it (a shared session) or its agent's client did not declare it.
func (p *Pool) relay(cs *mcp.ClientSession, method string, params any, result any) error {
	raw, err := relayParams(params)
	if err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "params are not JSON"}
	}
	ctx := context.Background()
	if v, ok := p.leased.Load(cs); ok {
		ctx = v.(context.Context)
	}
	res, err := mcppeer.Ask(ctx, method, raw)
	var re *mcppeer.RemoteError
	switch {
	case errors.As(err, &re):
		return &jsonrpc.Error{Code: re.Code, Message: re.Message}
	case errors.Is(err, mcppeer.ErrNotDeclared):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: err.Error()}
	case err != nil && ctx.Err() != nil:
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the agent's client did not answer " + method + " within the call's time"}
	case err != nil:
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Workbench could not pass " + method + " on to the agent's client"}
	}
	if err := json.Unmarshal(res, result); err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the agent's client answered " + method + " with a malformed result"}
	}
	return nil
}

// relayParams encodes a request's params as the agent's client expects them: an object ({} for
// none), without the empty "mode" the SDK writes for a form elicitation that named none (clients
// reject a mode that is neither "form" nor "url").
func relayParams(params any) (json.RawMessage, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return json.RawMessage(`{}`), nil
	}
	if mode, ok := m["mode"]; ok && string(mode) == `""` {
		delete(m, "mode")
		return json.Marshal(m)
	}
	return raw, nil
}

func (p *Pool) onElicit(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	var out mcp.ElicitResult
	if err := p.relay(req.Session, "elicitation/create", req.Params, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

func (p *Pool) onSample(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	var out mcp.CreateMessageResult
	if err := p.relay(req.Session, "sampling/createMessage", req.Params, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// rootsRelay answers roots/list by relaying it (the SDK would answer its own empty list).
func (p *Pool) rootsRelay(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "roots/list" {
			return next(ctx, method, req)
		}
		cs, _ := req.GetSession().(*mcp.ClientSession)
		var out mcp.ListRootsResult
		if err := p.relay(cs, method, req.GetParams(), &out); err != nil {
			return nil, err
		}
		return &out, nil
	}
}

// withLease runs fn on a session of the login that declares caps and is held by this call alone
// (see the top of this file). Its retry rule is withSession's for a call: once more on a new session
// only when the request provably never reached the remote.
func (p *Pool) withLease(parent context.Context, login uuid.UUID, ep Endpoint, caps mcppeer.Caps, timeout time.Duration, fn func(context.Context, *entry) error) error {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	key := leaseKey{login: login, caps: caps}
	var last error
	for attempt := 0; attempt < 2; attempt++ {
		e, err := p.lease(ctx, key, ep)
		if err != nil {
			return err
		}
		e.status.Store(0)
		p.leased.Store(e.cs, ctx)
		err = fn(ctx, e)
		p.leased.Delete(e.cs)
		if err == nil || parent.Err() != nil || answered(err) && e.status.Load() == 0 && e.overCap.Load() == 0 {
			p.release(key, e)
			if err == nil {
				return nil
			}
			if parent.Err() != nil {
				return &Error{Message: "the call was cancelled"}
			}
			return p.classify(e, err)
		}
		var ce *Error
		if errors.As(err, &ce) && ce.Status == 0 && e.status.Load() == 0 {
			p.release(key, e)
			return err
		}
		last = p.classify(e, err)
		_ = e.cs.Close()
		if Rejected(last) || errors.Is(last, ErrAddress) || ctx.Err() != nil || !neverReached(err) {
			return last
		}
	}
	return last
}

// lease takes an idle session of key for ep, or connects a new one.
func (p *Pool) lease(ctx context.Context, key leaseKey, ep Endpoint) (*entry, error) {
	fp := ep.fingerprint()
	p.mu.Lock()
	idle := p.idle[key]
	var stale []*entry
	var e *entry
	for len(idle) > 0 {
		last := idle[len(idle)-1]
		idle = idle[:len(idle)-1]
		if last.fp == fp {
			e = last
			break
		}
		stale = append(stale, last)
	}
	p.idle[key] = idle
	p.mu.Unlock()
	for _, s := range stale {
		_ = s.cs.Close()
	}
	if e != nil {
		return e, nil
	}
	e = &entry{fp: fp, ready: make(chan struct{}), barrier: newBarrier()}
	e.cs, e.err = p.connectWith(ctx, p.clientFor(key.caps), ep, e)
	close(e.ready)
	if e.err != nil {
		return nil, e.err
	}
	return e, nil
}

// release keeps a sound leased session for the next call of its key, or closes it.
func (p *Pool) release(key leaseKey, e *entry) {
	p.mu.Lock()
	if p.closed || len(p.idle[key]) >= maxIdleLeased {
		p.mu.Unlock()
		_ = e.cs.Close()
		return
	}
	p.idle[key] = append(p.idle[key], e)
	p.mu.Unlock()
}

// dropLeased closes the idle leased sessions of login (every login when all).
func (p *Pool) dropLeased(login uuid.UUID, all bool) {
	p.mu.Lock()
	var gone []*entry
	for k, list := range p.idle {
		if all || k.login == login {
			gone = append(gone, list...)
			delete(p.idle, k)
		}
	}
	p.mu.Unlock()
	for _, e := range gone {
		_ = e.cs.Close()
	}
}
