package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/workbench/workbench/internal/mcppeer"
)

// stream is the answer to one POST of a request that may send messages before its response
// (streamable HTTP, 2025-11-25 basic/transports: the server may answer a POST with an SSE stream that
// carries requests and notifications related to the request, then its response). It turns into
// text/event-stream at its first message; a request that sent none is answered as reply answers it,
// so a call that reports nothing keeps its plain JSON response.
type stream struct {
	s    *Server
	w    http.ResponseWriter
	r    *http.Request
	sess session
	// token is the request's _meta.progressToken (nil: it asked for no progress).
	token json.RawMessage

	mu      sync.Mutex
	started bool // the SSE headers went out
	closed  bool // the response went out, or the request was cancelled: nothing more is sent
}

// sse reports whether the Accept header lists text/event-stream: only then may a POST be answered
// with a stream (the transport requires clients to list both it and application/json).
func sse(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(mt), "text/event-stream") {
			return true
		}
	}
	return false
}

// progressToken is params._meta.progressToken when it is a string or a number, else nil.
func progressToken(params json.RawMessage) json.RawMessage {
	if !mayHoldMeta(params) {
		return nil // most calls: no need to decode the whole params (the tool's arguments) to learn it
	}
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil || !validID(p.Meta.ProgressToken) {
		return nil
	}
	return bytes.TrimSpace(p.Meta.ProgressToken)
}

// mayHoldMeta reports whether params may hold a "_meta" member: false only when no "_meta" appears
// in it in any letter case (encoding/json matches member names case-insensitively; none of m, e, t,
// a has a non-ASCII fold) and it holds no backslash (an escaped name such as "\u005fmeta").
func mayHoldMeta(params []byte) bool {
	if bytes.IndexByte(params, '\\') >= 0 {
		return true
	}
	for i := bytes.IndexByte(params, '_'); i >= 0 && i+5 <= len(params); {
		if bytes.EqualFold(params[i+1:i+5], []byte("meta")) {
			return true
		}
		j := bytes.IndexByte(params[i+1:], '_')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// Progress implements mcppeer.Sink: one notifications/progress with the request's token.
func (st *stream) Progress(progress, total float64, message string) {
	params := map[string]any{"progressToken": st.token, "progress": progress}
	if total > 0 {
		params["total"] = total
	}
	if message != "" {
		params["message"] = message
	}
	st.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": params})
}

// send writes one message on the stream, starting it first; false when the stream is closed or the
// message could not be written.
func (st *stream) send(msg any) bool {
	b, err := json.Marshal(msg)
	if err != nil {
		return false
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return false
	}
	st.start()
	if _, err := fmt.Fprintf(st.w, "event: message\ndata: %s\n\n", b); err != nil {
		return false
	}
	return http.NewResponseController(st.w).Flush() == nil
}

func (st *stream) start() {
	if st.started {
		return
	}
	st.started = true
	st.w.Header().Set("Content-Type", "text/event-stream")
	st.w.Header().Set("Cache-Control", "no-cache")
	st.w.WriteHeader(http.StatusOK)
}

// finish sends the response: as the stream's last event when the stream started, else as reply does.
func (st *stream) finish(resp any) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return
	}
	st.closed = true
	if !st.started {
		st.s.reply(st.w, st.r, resp)
		return
	}
	b, err := json.Marshal(resp)
	if err != nil {
		b, _ = json.Marshal(errorResponse(nil, CodeInternalError, "Internal error: could not encode the response"))
	}
	fmt.Fprintf(st.w, "event: message\ndata: %s\n\n", b)
}

// abandon ends a request the client cancelled without a response (2025-11-25
// basic/utilities/cancellation: the receiver should not answer a cancelled request). A POST must
// still be answered: with an empty stream when it had not started.
func (st *stream) abandon() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return
	}
	st.closed = true
	if st.started {
		return
	}
	if sse(st.r.Header.Get("Accept")) {
		st.start()
		return
	}
	writeJSON(st.w, http.StatusOK, errorResponse(nil, CodeRequestCancelled, "Request cancelled by the client"))
}

// errCancelledByClient is the cause of a request's context when the client sent
// notifications/cancelled for it.
var errCancelledByClient = errors.New("the client cancelled the request")

// inflight are the requests running on this replica, by session and request id, so that a
// notifications/cancelled of the same session can cancel them. A cancellation that reaches another
// replica than its request finds nothing here and is ignored (cancellation is best-effort).
type inflight struct {
	mu sync.Mutex
	m  map[string]context.CancelCauseFunc
}

func inflightKey(sessionID string, id json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, id) != nil {
		return ""
	}
	return sessionID + "\x00" + buf.String()
}

// track returns ctx made cancellable by a notifications/cancelled of the session naming id, and the
// function that forgets the request once it has been answered.
func (f *inflight) track(ctx context.Context, sessionID string, id json.RawMessage) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	key := inflightKey(sessionID, id)
	f.mu.Lock()
	if f.m == nil {
		f.m = map[string]context.CancelCauseFunc{}
	}
	_, dup := f.m[key]
	if !dup {
		f.m[key] = cancel
	}
	f.mu.Unlock()
	return ctx, func() {
		if !dup {
			f.mu.Lock()
			delete(f.m, key)
			f.mu.Unlock()
		}
		cancel(nil)
	}
}

// cancel cancels the session's request named by a notifications/cancelled's params; an unknown or
// finished request is ignored, as the protocol asks.
func (f *inflight) cancel(sessionID string, params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || !validID(p.RequestID) {
		return
	}
	key := inflightKey(sessionID, p.RequestID)
	f.mu.Lock()
	cancel := f.m[key]
	f.mu.Unlock()
	if cancel != nil {
		cancel(errCancelledByClient)
	}
}

// cancelledByClient reports whether ctx ended by the client's notifications/cancelled.
func cancelledByClient(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), errCancelledByClient)
}

// clientCaps reads the capabilities of an initialize's params that Workbench can pass remote
// requests on to (2025-11-25 client/elicitation, client/sampling, client/roots).
func clientCaps(params json.RawMessage) mcppeer.Caps {
	var p struct {
		Capabilities struct {
			Elicitation *struct {
				Form json.RawMessage `json:"form"`
				URL  json.RawMessage `json:"url"`
			} `json:"elicitation"`
			Sampling json.RawMessage `json:"sampling"`
			Roots    json.RawMessage `json:"roots"`
		} `json:"capabilities"`
	}
	if json.Unmarshal(params, &p) != nil {
		return 0
	}
	var caps mcppeer.Caps
	object := func(v json.RawMessage) bool { v = bytes.TrimSpace(v); return len(v) > 0 && v[0] == '{' }
	if e := p.Capabilities.Elicitation; e != nil {
		// {} is form mode (as before 2025-11-25 named the modes).
		if object(e.Form) || !object(e.URL) {
			caps |= mcppeer.Elicitation
		}
		if object(e.URL) {
			caps |= mcppeer.ElicitationURL
		}
	}
	if object(p.Capabilities.Sampling) {
		caps |= mcppeer.Sampling
	}
	if object(p.Capabilities.Roots) {
		caps |= mcppeer.Roots
	}
	return caps
}

// pending are the requests sent to clients on a call's stream that wait for their answer, by
// session and request id. Like inflight, they live on this replica: the client answers through the
// same endpoint, and an answer reaching another replica is not matched (the relay then waits out
// the call's time and the remote gets an error).
type pending struct {
	mu sync.Mutex
	m  map[string]chan *request
}

func (q *pending) add(key string) chan *request {
	ch := make(chan *request, 1)
	q.mu.Lock()
	if q.m == nil {
		q.m = map[string]chan *request{}
	}
	q.m[key] = ch
	q.mu.Unlock()
	return ch
}

func (q *pending) remove(key string) {
	q.mu.Lock()
	delete(q.m, key)
	q.mu.Unlock()
}

// answer delivers a client's response to the request it answers; false when none waits for it.
func (q *pending) answer(key string, resp *request) bool {
	q.mu.Lock()
	ch, ok := q.m[key]
	delete(q.m, key)
	q.mu.Unlock()
	if ok {
		ch <- resp
	}
	return ok
}

// Request implements mcppeer.Client: the request goes on this call's stream with an id of its own
// and waits for the client's POST of its response, at most until ctx ends.
func (st *stream) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	id, _ := json.Marshal("wb-" + uuid.NewString())
	key := inflightKey(st.sess.ID, id)
	ch := st.s.waiting.add(key)
	defer st.s.waiting.remove(key)
	if !st.send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method, "params": params}) {
		return nil, errors.New("the call's stream is closed")
	}
	select {
	case resp := <-ch:
		if len(resp.Error) > 0 {
			var e mcppeer.RemoteError
			if json.Unmarshal(resp.Error, &e) != nil {
				e = mcppeer.RemoteError{Code: CodeInternalError, Message: "the client answered a malformed error"}
			}
			return nil, &e
		}
		return resp.Result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
