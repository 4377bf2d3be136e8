// Package mcpsessions is the use case behind the MCP endpoint's SessionStore (handlers/mcp) for
// several replicas: ending a session appends an mcp.session_ended event, and every replica learns of it
// from the bus (Observe) and, at start, from the ended-sessions read model (Preload). Checking a
// session is a map lookup: nothing on the request path touches the database.
//
// It does not import handlers/mcp (the app layer sits below the handlers); cmd/workbench passes a
// *Store where the MCP server wants its SessionStore, which is where the compiler checks the fit.
package mcpsessions

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/mcpsession"
	"github.com/workbench/workbench/eventstore"
)

// Appender is the part of the event store the store needs.
type Appender interface {
	Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.Position, error)
}

// Store remembers ended sessions until they would have expired.
type Store struct {
	log   Appender
	now   func() time.Time
	codec *eventstore.JSONCodec[domain.Event]

	mu    sync.Mutex
	ended map[string]time.Time
}

// New returns an empty store appending to log. now may be nil (time.Now).
func New(log Appender, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{log: log, now: now, codec: eventstore.NewJSONCodec(mcpsession.Events()...), ended: map[string]time.Time{}}
}

// Ended reports whether the session id was ended and has not lapsed yet (mcp.SessionStore).
func (s *Store) Ended(_ context.Context, id string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.ended[id]
	if ok && s.now().After(exp) {
		delete(s.ended, id) // lapsed anyway: the signed id's own expiry refuses it now
		return false, nil
	}
	return ok, nil
}

// End records a session's end (mcp.SessionStore): the end is recorded in the log (once: a second DELETE of the same
// session finds it recorded) and remembered here at once.
func (s *Store) End(ctx context.Context, id string, expires time.Time) error {
	ev := mcpsession.SessionEnded{SessionID: id, ExpiresAt: expires.UTC(), At: s.now().UTC()}
	if err := ev.Validate(); err != nil {
		return err
	}
	typ, sv, data, err := s.codec.Encode(ev)
	if err != nil {
		return err
	}
	_, err = s.log.Append(ctx, mcpsession.StreamName(id), eventstore.NoStream,
		eventstore.EventData{ID: uuid.New(), Type: typ, SchemaVersion: sv, Data: data, Metadata: eventstore.Metadata{Actor: "mcp", Time: ev.At}})
	if err != nil && !errors.Is(err, eventstore.ErrConflict) {
		return fmt.Errorf("record session end: %w", err)
	}
	s.remember(id, expires)
	return nil
}

// Observe is a bus handler: it remembers a session ended on any replica.
func (s *Store) Observe(_ context.Context, env eventstore.Envelope) error {
	if env.Type != mcpsession.TypeSessionEnded {
		return nil
	}
	ev, err := s.codec.Decode(env.Type, env.SchemaVersion, env.Data)
	if err != nil {
		return err
	}
	e := ev.(mcpsession.SessionEnded)
	s.remember(e.SessionID, e.ExpiresAt)
	return nil
}

// Preload remembers sessions ended before this replica started (from the read model).
func (s *Store) Preload(ended map[string]time.Time) {
	for id, exp := range ended {
		s.remember(id, exp)
	}
}

func (s *Store) remember(id string, expires time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	for k, exp := range s.ended {
		if now.After(exp) {
			delete(s.ended, k)
		}
	}
	if now.Before(expires) {
		s.ended[id] = expires
	}
}
