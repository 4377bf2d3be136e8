package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/workbench/workbench/eventstore"
)

// tailSize is how many of the latest events the tail keeps: the readers that follow the log
// (projection loops, the bus relay, subscribers) read from close behind its end.
const tailSize = 4096

// tail holds the envelopes of this store's latest commits, decoded once, so that every reader that
// follows the log does not read and decode again from SQLite the events that were just written.
// Its events have gap-free, consecutive positions: a commit that does not continue them (another
// process, or another Store on the same file, wrote in between) starts the tail over. The envelopes
// are built from the bytes the batch stored, exactly as scanEnvelopes would read them back; Data is
// shared between readers, who must not modify it.
type tail struct {
	mu   sync.Mutex
	envs []eventstore.Envelope // guarded by mu; never modified in place, only appended to or replaced
	// head reads the highest stored position (prepared once): a read is served from the tail only when
	// the tail reaches it, so events another process appended are never skipped.
	head *sql.Stmt
}

// add appends the envelopes of a durable batch, in position order.
func (t *tail) add(envs []eventstore.Envelope) {
	if t == nil || len(envs) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := len(t.envs); n == 0 || envs[0].Position.Commit != t.envs[n-1].Position.Commit+1 {
		t.envs = nil
	}
	if len(t.envs)+len(envs) > 2*tailSize {
		keep := t.envs[max(0, len(t.envs)-tailSize):]
		t.envs = append(make([]eventstore.Envelope, 0, len(keep)+len(envs)+tailSize), keep...)
	}
	t.envs = append(t.envs, envs...)
}

// reset forgets every event (a batch whose envelopes could not be built).
func (t *tail) reset() {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.envs = nil
	t.mu.Unlock()
}

// read returns up to limit events after from when the tail holds the first of them and reaches the
// last stored event; ok is false otherwise, and the caller reads SQLite.
func (t *tail) read(ctx context.Context, from eventstore.Position, limit int) (envs []eventstore.Envelope, ok bool) {
	if t == nil {
		return nil, false
	}
	t.mu.Lock()
	snap := t.envs
	t.mu.Unlock()
	if len(snap) == 0 {
		return nil, false
	}
	first, last := snap[0].Position.Commit, snap[len(snap)-1].Position.Commit
	if from.Commit+1 < first || from.Commit >= last {
		return nil, false
	}
	if head, err := t.readHead(ctx); err != nil || head != last {
		return nil, false
	}
	start := int(from.Commit + 1 - first)
	end := min(len(snap), start+limit)
	return append([]eventstore.Envelope(nil), snap[start:end]...), true
}

// readHead returns the highest stored position. It reads the rows to their end, so the statement
// runs to completion (and SQLite ends its read transaction) before the connection is reused.
func (t *tail) readHead(ctx context.Context) (uint64, error) {
	rows, err := t.head.QueryContext(ctx)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var head int64
	for rows.Next() {
		if err := rows.Scan(&head); err != nil {
			return 0, err
		}
	}
	return uint64(head), rows.Err()
}

// tailEnvelopes builds the envelopes of the rows a batch wrote as a read of them would return them:
// their own copy of the body, and the metadata decoded from the stored text.
func tailEnvelopes(rows []row) ([]eventstore.Envelope, error) {
	out := make([]eventstore.Envelope, len(rows))
	for i, r := range rows {
		env := eventstore.Envelope{
			ID: r.ev.ID, Stream: r.stream, Version: r.version, Position: position(r.pos),
			Type: r.ev.Type, SchemaVersion: r.ev.SchemaVersion, Data: append(json.RawMessage(nil), r.ev.Data...),
		}
		if md, ok := decodedMetadata(r.ev.Metadata); ok {
			env.Metadata = md
		} else if err := json.Unmarshal([]byte(r.metadata), &env.Metadata); err != nil {
			return nil, err
		}
		out[i] = env
	}
	return out, nil
}

// decodedMetadata returns md as decoding its stored JSON would, without decoding it, when it can tell
// that they are equal: its strings are valid UTF-8 (JSON would replace the rest) and its time is in
// UTC (as Metadata.Time says it is; another zone would come back as a fixed offset or as Local), which
// then only loses its monotonic clock reading. ok is false otherwise, and the caller decodes.
func decodedMetadata(md eventstore.Metadata) (out eventstore.Metadata, ok bool) {
	if md.Time.Location() != time.UTC {
		return out, false
	}
	for _, s := range [...]string{md.Actor, md.OnBehalfOf, md.MCPClient, md.CorrelationID, md.CausationID, md.TraceID} {
		if !utf8.ValidString(s) {
			return out, false
		}
	}
	md.Time = md.Time.Round(0)
	return md, true
}
