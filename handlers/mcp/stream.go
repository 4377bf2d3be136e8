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
)

// stream is the answer to one POST of a request that may send messages before its response
// (streamable HTTP, 2025-11-25 basic/transports: the server may answer a POST with an SSE stream that
// carries requests and notifications related to the request, then its response). It turns into
// text/event-stream at its first message; a request that sent none is answered as reply answers it,
// so a call that reports nothing keeps its plain JSON response.
type stream struct {
	s *Server
	w http.ResponseWriter
	r *http.Request
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
