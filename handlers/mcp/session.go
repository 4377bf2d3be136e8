package mcp

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"sync"
	"time"

	"github.com/workbench/workbench/internal/mcppeer"
)

// SessionLifetime is how long a session id stays valid; a client whose session lapsed gets 404 and
// initializes again, as the transport specifies.
const SessionLifetime = 7 * 24 * time.Hour

// A session id is a token of internal/signed under this label, at most maxSessionIDLen bytes long.
const (
	sessionLabel    = "workbench/mcp-session/v2"
	maxSessionIDLen = 512
)

// session is what a signed session id carries. Expires is the token's own expiry, filled in when
// the id is checked.
type session struct {
	ID      string `json:"s"`
	UserID  string `json:"u"`
	Version string `json:"v"`
	// Caps are the client capabilities its initialize declared that remote requests may be passed
	// on to (absent, none, in ids minted before they were kept).
	Caps    mcppeer.Caps `json:"c,omitempty"`
	Expires time.Time    `json:"-"`
}

// SessionStore remembers sessions that were ended by DELETE before they expired. Session ids are
// self-contained and signed, so a store holds only the ended ones, and only until they would have
// expired anyway.
type SessionStore interface {
	Ended(ctx context.Context, id string) (bool, error)
	End(ctx context.Context, id string, expires time.Time) error
}

func (s *Server) newSession(p Principal, version string, caps mcppeer.Caps) (string, error) {
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	sess := session{ID: base64.RawURLEncoding.EncodeToString(raw[:]), UserID: p.UserID, Version: version, Caps: caps}
	return s.ids.Seal(sess, s.now().Add(SessionLifetime))
}

// checkSession verifies a session id's signature and expiry, that it was minted for the same user, and
// that it was not ended.
func (s *Server) checkSession(ctx context.Context, sid string, p Principal) (session, bool) {
	sess, ok := s.verified.get(sid, s.now())
	if !ok {
		var exp time.Time
		var err error
		if sess, exp, err = s.ids.Open(sid); err != nil {
			return session{}, false
		}
		sess.Expires = exp
		s.verified.put(sid, sess)
	}
	if sess.UserID != p.UserID {
		return session{}, false
	}
	ended, err := s.sessions.Ended(ctx, sess.ID)
	if err != nil {
		s.log.ErrorContext(ctx, "session store", "err", err)
		return session{}, false
	}
	return sess, !ended
}

// verifiedIDs remembers the session ids whose signature checked out, with what they carry, so that a
// session's every request does not verify its id again; an id is answered from here only until it
// expires. Whether the session was ended is asked every time.
type verifiedIDs struct {
	mu  sync.Mutex
	ids map[string]session
}

// maxVerifiedIDs bounds verifiedIDs; when full it starts over.
const maxVerifiedIDs = 10000

func (v *verifiedIDs) get(sid string, now time.Time) (session, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	sess, ok := v.ids[sid]
	if ok && !now.Before(sess.Expires) {
		delete(v.ids, sid)
		return session{}, false
	}
	return sess, ok
}

func (v *verifiedIDs) put(sid string, sess session) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.ids == nil || len(v.ids) >= maxVerifiedIDs {
		v.ids = make(map[string]session)
	}
	v.ids[sid] = sess
}

// MemorySessions is a SessionStore in process memory. It suits one replica; with several, give the
// server a store they share, or an ended session stays usable on the replicas that did not see the
// DELETE until it expires.
type MemorySessions struct {
	mu    sync.Mutex
	ended map[string]time.Time
	now   func() time.Time
}

// NewMemorySessions returns an empty store that forgets an ended session once it would have expired
// by the clock now (nil: time.Now).
func NewMemorySessions(now func() time.Time) *MemorySessions {
	if now == nil {
		now = time.Now
	}
	return &MemorySessions{ended: map[string]time.Time{}, now: now}
}

// Ended implements SessionStore.
func (m *MemorySessions) Ended(_ context.Context, id string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.ended[id]
	return ok, nil
}

// End implements SessionStore.
func (m *MemorySessions) End(_ context.Context, id string, expires time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	for k, exp := range m.ended {
		if now.After(exp) {
			delete(m.ended, k)
		}
	}
	m.ended[id] = expires
	return nil
}
