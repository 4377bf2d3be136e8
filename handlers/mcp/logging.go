package mcp

import (
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/workbench/workbench/internal/mcppeer"
)

// LogLevels are the levels of logging/setLevel, the syslog severities of RFC 5424 section 6.2.1 in
// the names the MCP specification gives them, least severe first.
var LogLevels = mcppeer.Levels

// callLog passes a remote's log messages during one tools/call on to the client as
// notifications/message on the call's stream, those at least as severe as the level the session set.
type callLog struct {
	st  *stream
	min string
}

// Log implements mcppeer.LogSink.
func (l callLog) Log(level, logger string, data json.RawMessage) {
	if !mcppeer.AtLeast(level, l.min) {
		return
	}
	params := map[string]any{"level": level, "data": data}
	if logger != "" {
		params["logger"] = logger
	}
	l.st.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": params})
}

// setLevel answers logging/setLevel: a known level is kept for the session (empty result); anything
// else is -32602.
func (s *Server) setLevel(sess session, req *request) response {
	var level string
	m, err := members(req.Params)
	if err == nil {
		err = json.Unmarshal(m["level"], &level)
	}
	if err != nil || !slices.Contains(LogLevels, level) {
		return errorResponse(req.ID, CodeInvalidParams, "Invalid params: level must be one of debug, info, notice, warning, error, critical, alert, emergency")
	}
	s.levels.set(sess.ID, level, sess.Expires)
	return response{JSONRPC: "2.0", ID: req.ID, Result: struct{}{}}
}

// levels holds each session's logging level in process memory, until the session expires or ends.
// A level is a client preference for messages this replica would send; a replica that did not see
// the setLevel uses its default.
type levels struct {
	mu     sync.Mutex
	by     map[string]levelEntry
	writes int
	now    func() time.Time
}

type levelEntry struct {
	level   string
	expires time.Time
}

func newLevels(now func() time.Time) *levels { return &levels{by: map[string]levelEntry{}, now: now} }

func (l *levels) set(id, level string, expires time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes++
	if l.writes%1024 == 0 {
		now := l.now()
		for k, e := range l.by {
			if now.After(e.expires) {
				delete(l.by, k)
			}
		}
	}
	l.by[id] = levelEntry{level, expires}
}

func (l *levels) get(id string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.by[id]
	if !ok || l.now().After(e.expires) {
		return ""
	}
	return e.level
}

func (l *levels) forget(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.by, id)
}
