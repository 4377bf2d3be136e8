package mcp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"
	"time"
)

// SessionLifetime is how long a session id stays valid; a client whose session lapsed gets 404 and
// initializes again, as the transport specifies.
const SessionLifetime = 7 * 24 * time.Hour

// session is what a signed session id carries.
type session struct {
	ID      string    `json:"s"`
	UserID  string    `json:"u"`
	Version string    `json:"v"`
	Expires time.Time `json:"e"`
}

// SessionStore remembers sessions that were ended by DELETE before they expired. Session ids are
// self-contained and signed, so a store holds only the ended ones, and only until they would have
// expired anyway.
type SessionStore interface {
	Ended(ctx context.Context, id string) (bool, error)
	End(ctx context.Context, id string, expires time.Time) error
}

func (s *Server) newSession(p Principal, version string) (string, error) {
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	sess := session{ID: base64.RawURLEncoding.EncodeToString(raw[:]), UserID: p.UserID, Version: version, Expires: time.Now().Add(SessionLifetime).UTC().Truncate(time.Second)}
	payload, err := json.Marshal(sess)
	if err != nil {
		return "", err
	}
	body := base64.RawURLEncoding.EncodeToString(payload)
	return body + "." + s.sign(body), nil
}

func (s *Server) sign(body string) string {
	mac := hmac.New(sha256.New, s.opts.SessionKey)
	mac.Write([]byte("mcp-session:"))
	mac.Write([]byte(body))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// checkSession verifies a session id's signature and expiry, that it was minted for the same user, and
// that it was not ended.
func (s *Server) checkSession(ctx context.Context, sid string, p Principal) (session, bool) {
	body, sig, ok := strings.Cut(sid, ".")
	if !ok || len(sid) > 512 || !hmac.Equal([]byte(sig), []byte(s.sign(body))) {
		return session{}, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return session{}, false
	}
	var sess session
	if json.Unmarshal(payload, &sess) != nil || sess.UserID != p.UserID || time.Now().After(sess.Expires) {
		return session{}, false
	}
	ended, err := s.sessions.Ended(ctx, sess.ID)
	if err != nil {
		s.log.ErrorContext(ctx, "session store", "err", err)
		return session{}, false
	}
	return sess, !ended
}

// MemorySessions is a SessionStore in process memory. It suits one replica; with several, give the
// server a store they share, or an ended session stays usable on the replicas that did not see the
// DELETE until it expires.
type MemorySessions struct {
	mu    sync.Mutex
	ended map[string]time.Time
	max   time.Duration
}

// NewMemorySessions returns an empty store that forgets an ended session once it would have expired.
func NewMemorySessions(max time.Duration) *MemorySessions {
	return &MemorySessions{ended: map[string]time.Time{}, max: max}
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
	now := time.Now()
	for k, exp := range m.ended {
		if now.After(exp) {
			delete(m.ended, k)
		}
	}
	m.ended[id] = expires
	return nil
}
