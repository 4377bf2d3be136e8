package connection

import (
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// # The OAuth handshake
//
// A connect attempt's claim link carries no PKCE verifier (spec, Connecting an integration). The
// verifier is made when the signed-in user redeems the link, and it must reach the callback even when
// the provider sends the browser back to another replica. So it lives in the log, sealed, in a stream
// of its own per OAuth state: "connection_handshake-<hex SHA-256 of the state>". The callback finds
// it by hashing the state it receives; the state itself is never stored.
//
// A handshake is used once: ReceiveCallback records that the callback arrived (with a code or with
// the provider's error) and refuses a second one, so a replayed state never exchanges a code twice.
// Its event types do not start with "connection." on purpose: they are not events of the connection
// stream, and the connections projection skips them.

// Handshake event type names.
const (
	TypeHandshakeStarted          = "connection_handshake.started"
	TypeHandshakeCallbackReceived = "connection_handshake.callback_received"
)

// HandshakeStreamName is the stream of the handshake whose OAuth state hashes to stateHash (64
// lower-case hex digits of SHA-256).
func HandshakeStreamName(stateHash string) string { return "connection_handshake-" + stateHash }

// HandshakeStarted records a redeemed claim link: the PKCE verifier (RFC 7636 section 4.1), sealed
// under the user's data key, and the redirect URI the authorization request named (the token request
// must repeat it exactly, RFC 6749 section 4.1.3).
type HandshakeStarted struct {
	StateHash   string        `json:"state_hash"`
	AttemptID   uuid.UUID     `json:"attempt_id"`
	UserID      uuid.UUID     `json:"user_id"`
	Integration string        `json:"integration"`
	Account     string        `json:"account,omitempty"`
	Verifier    domain.Sealed `json:"verifier"`
	RedirectURI string        `json:"redirect_uri"`
	StartedAt   time.Time     `json:"started_at"`
	ExpiresAt   time.Time     `json:"expires_at"`
}

// HandshakeCallbackReceived records that the provider's redirect arrived for this state. ProviderError
// is the error code the provider sent instead of a code ("access_denied", RFC 6749 section 4.1.2.1),
// empty when a code came.
type HandshakeCallbackReceived struct {
	StateHash     string    `json:"state_hash"`
	AttemptID     uuid.UUID `json:"attempt_id"`
	UserID        uuid.UUID `json:"user_id"`
	Integration   string    `json:"integration"`
	Account       string    `json:"account,omitempty"`
	ProviderError string    `json:"provider_error,omitempty"`
	At            time.Time `json:"at"`
}

func (HandshakeStarted) EventType() string          { return TypeHandshakeStarted }
func (HandshakeCallbackReceived) EventType() string { return TypeHandshakeCallbackReceived }

// HandshakeEvents returns a zero value of every handshake event, for a codec.
func HandshakeEvents() []domain.Event {
	return []domain.Event{HandshakeStarted{}, HandshakeCallbackReceived{}}
}

// Handshake is one OAuth handshake folded from its stream.
type Handshake struct {
	StateHash   string
	AttemptID   uuid.UUID
	UserID      uuid.UUID
	Integration string
	Account     string // the account the attempt connects, as events carry it (empty: DefaultAccount)
	Verifier    domain.Sealed
	RedirectURI string
	StartedAt   time.Time
	ExpiresAt   time.Time
	// Used says the callback arrived; UsedAt is when, ProviderError what the provider said instead of
	// a code.
	Used          bool
	UsedAt        time.Time
	ProviderError string
}

// InitialHandshake is a handshake stream with no events.
func InitialHandshake() Handshake { return Handshake{} }

// Exists reports whether the handshake was started.
func (h Handshake) Exists() bool { return h.AttemptID != uuid.Nil }

// EvolveHandshake folds one event into a handshake.
func EvolveHandshake(h Handshake, ev domain.Event) Handshake {
	switch e := ev.(type) {
	case HandshakeStarted:
		h = Handshake{
			StateHash: e.StateHash, AttemptID: e.AttemptID, UserID: e.UserID, Integration: e.Integration,
			Account: eventAccount(e.Account), Verifier: e.Verifier, RedirectURI: e.RedirectURI, StartedAt: e.StartedAt, ExpiresAt: e.ExpiresAt,
		}
	case HandshakeCallbackReceived:
		h.Used, h.UsedAt, h.ProviderError = true, e.At, e.ProviderError
	}
	return h
}

// HandshakeCommand is StartHandshake or ReceiveCallback.
type HandshakeCommand interface {
	decideHandshake(Handshake) ([]domain.Event, error)
}

// DecideHandshake turns a handshake command into its events, or refuses it with a *domain.Error.
func DecideHandshake(h Handshake, c HandshakeCommand) ([]domain.Event, error) {
	if c == nil {
		return nil, domain.Errorf(domain.CodeInvalid, "no command")
	}
	return c.decideHandshake(h)
}

var (
	// ErrHandshakeUsed causes the CodeConflict of a second callback for one state (a replay).
	ErrHandshakeUsed = errors.New("the OAuth state was already used")
	// ErrHandshakeExpired causes the CodeConflict of a callback after the handshake's expiry.
	ErrHandshakeExpired = errors.New("the OAuth handshake expired")
)

// StartHandshake records a redeemed claim link. ExpiresAt is the attempt's own expiry: the handshake
// cannot outlive the attempt it completes.
type StartHandshake struct {
	StateHash   string
	AttemptID   uuid.UUID
	UserID      uuid.UUID
	Integration string
	Account     string // empty means DefaultAccount
	Verifier    domain.Sealed
	RedirectURI string
	At          time.Time
	ExpiresAt   time.Time
}

func (c StartHandshake) decideHandshake(h Handshake) ([]domain.Event, error) {
	const what = "start OAuth handshake"
	if !validStateHash(c.StateHash) {
		return nil, domain.Errorf(domain.CodeInvalid, "%s: the state hash must be 64 lower-case hex digits", what)
	}
	if c.AttemptID == uuid.Nil {
		return nil, domain.Errorf(domain.CodeInvalid, "%s: no attempt id", what)
	}
	account, err := checkTarget(what, State{}, c.UserID, c.Integration, c.Account)
	if err != nil {
		return nil, err
	}
	if err := checkCredential(what, c.Verifier, c.UserID); err != nil {
		return nil, err
	}
	if err := checkText(what, "redirect URI", c.RedirectURI, 2048, true); err != nil {
		return nil, err
	}
	at, err := checkTime(what, c.At)
	if err != nil {
		return nil, err
	}
	expires, err := checkExpiry(what, c.ExpiresAt, at, false)
	if err != nil {
		return nil, err
	}
	if h.Exists() {
		return nil, domain.Errorf(domain.CodeConflict, "%s: this state was already used; every handshake needs a fresh state", what)
	}
	return []domain.Event{HandshakeStarted{
		StateHash: c.StateHash, AttemptID: c.AttemptID, UserID: c.UserID, Integration: c.Integration, Account: account,
		Verifier: c.Verifier, RedirectURI: c.RedirectURI, StartedAt: at, ExpiresAt: expires,
	}}, nil
}

// ReceiveCallback records that the provider redirected back with this handshake's state, once.
type ReceiveCallback struct {
	ProviderError string // the provider's error code, empty when it sent a code
	At            time.Time
}

func (c ReceiveCallback) decideHandshake(h Handshake) ([]domain.Event, error) {
	const what = "OAuth callback"
	if err := checkText(what, "provider error", c.ProviderError, 128, false); err != nil {
		return nil, err
	}
	at, err := checkTime(what, c.At)
	if err != nil {
		return nil, err
	}
	switch {
	case !h.Exists():
		return nil, domain.Errorf(domain.CodeNotFound, "%s: the state names no connect handshake; start again from the connect link", what)
	case h.Used:
		return nil, &domain.Error{Code: domain.CodeConflict, Message: what + ": this state was already used; start again from the connect link", Err: ErrHandshakeUsed}
	case !at.Before(h.ExpiresAt):
		return nil, &domain.Error{Code: domain.CodeConflict, Message: what + ": the connect link expired before the provider answered; ask for a new one", Err: ErrHandshakeExpired}
	}
	return []domain.Event{HandshakeCallbackReceived{
		StateHash: h.StateHash, AttemptID: h.AttemptID, UserID: h.UserID, Integration: h.Integration, Account: h.Account,
		ProviderError: c.ProviderError, At: at,
	}}, nil
}

func validStateHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
