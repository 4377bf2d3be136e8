package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
)

// subscribe answers resources/subscribe and resources/unsubscribe of a Subscriber: an update is
// queued for the session's GET stream on this replica.
func (s *Server) subscribe(ctx context.Context, p Principal, sess session, sub Subscriber, req *request) response {
	var params struct {
		URI string `json:"uri"`
	}
	if len(req.Params) > 0 && string(req.Params) != "null" {
		if err := json.Unmarshal(req.Params, &params); err != nil {
			return errorResponse(req.ID, CodeInvalidParams, "Invalid params: "+err.Error())
		}
	}
	if params.URI == "" {
		return errorResponse(req.ID, CodeInvalidParams, "Invalid params: "+req.Method+" needs a uri")
	}
	var err error
	if req.Method == "resources/subscribe" {
		id := sess.ID
		err = sub.Subscribe(ctx, p, id, params.URI, sess.Expires, func(uri string) {
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": map[string]string{"uri": uri}})
			s.updates.send(id, b)
		})
	} else {
		err = sub.Unsubscribe(ctx, p, sess.ID, params.URI)
	}
	if err != nil {
		var pe *ParamsError
		if errors.As(err, &pe) {
			return errorResponse(req.ID, CodeInvalidParams, pe.Message)
		}
		s.log.ErrorContext(ctx, req.Method+" failed", "user", p.UserID, "err", err)
		return errorResponse(req.ID, CodeInternalError, "Internal error: "+req.Method)
	}
	return response{JSONRPC: "2.0", ID: req.ID, Result: struct{}{}}
}

// updates hands server-initiated messages (resource updates) to the GET streams of their session open
// on this replica. A message for a session with no open stream is dropped, as is one for a stream
// that has fallen 64 messages behind.
type updates struct {
	mu sync.Mutex
	by map[string]map[chan []byte]struct{}
}

// open registers a GET stream of session id; close it with the returned function.
func (u *updates) open(id string) (<-chan []byte, func()) {
	ch := make(chan []byte, 64)
	u.mu.Lock()
	if u.by == nil {
		u.by = map[string]map[chan []byte]struct{}{}
	}
	if u.by[id] == nil {
		u.by[id] = map[chan []byte]struct{}{}
	}
	u.by[id][ch] = struct{}{}
	u.mu.Unlock()
	return ch, func() {
		u.mu.Lock()
		delete(u.by[id], ch)
		if len(u.by[id]) == 0 {
			delete(u.by, id)
		}
		u.mu.Unlock()
	}
}

// send queues msg for every open GET stream of session id.
func (u *updates) send(id string, msg []byte) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for ch := range u.by[id] {
		select {
		case ch <- msg:
		default:
		}
	}
}
