package login

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Event type names of an OAuth login, never changed once stored.
const (
	TypeOAuthStarted = "login.oauth_started"
	TypeDisconnected = "login.disconnected"
)

// OAuthStarted opens an OAuth sign-in (spec connectors.md, OAuth): a new login is pending; a retried
// disconnected one stays disconnected. Pending is the sealed PKCE verifier and what the token request
// needs; Nonce is what the signed state carries, so a callback finds this sign-in and no older one.
type OAuthStarted struct {
	LoginID  uuid.UUID     `json:"login_id"`
	ServerID string        `json:"server_id"`
	Owner    Owner         `json:"owner"`
	Account  string        `json:"account,omitempty"` // empty for the default account
	Pending  domain.Sealed `json:"pending"`
	Nonce    string        `json:"nonce"`
	At       time.Time     `json:"at"`
}

// Disconnected marks a login disconnected (a refresh the provider refused with invalid_grant), or
// closes a denied sign-in over a login that was disconnected already.
type Disconnected struct {
	LoginID  uuid.UUID `json:"login_id"`
	ServerID string    `json:"server_id"`
	Owner    Owner     `json:"owner"`
	Reason   string    `json:"reason"`
	At       time.Time `json:"at"`
}

func (OAuthStarted) EventType() string { return TypeOAuthStarted }
func (Disconnected) EventType() string { return TypeDisconnected }

// evolveOAuth folds the OAuth events; ok is false for another event.
func evolveOAuth(s State, e domain.Event) (State, bool) {
	switch ev := e.(type) {
	case OAuthStarted:
		if s.LoginID != ev.LoginID {
			s = State{LoginID: ev.LoginID, CreatedAt: ev.At, Seen: s.Seen, Status: StatusPending}
		}
		s.ServerID, s.Owner, s.Account, s.OAuthPending, s.OAuthNonce, s.UpdatedAt = ev.ServerID, ev.Owner, ev.Account, ev.Pending, ev.Nonce, ev.At
		return s, true
	case Disconnected:
		s.Status, s.OAuthPending, s.OAuthNonce, s.UpdatedAt = StatusDisconnected, domain.Sealed{}, "", ev.At
		return s, true
	}
	return s, false
}

// StartOAuth opens a sign-in. A connected login of the same owner is refused: remove it first.
type StartOAuth struct {
	NewLoginID uuid.UUID
	ServerID   string
	Owner      Owner
	Account    string // the account's label; empty means the default account
	Pending    domain.Sealed
	Nonce      string
	At         time.Time
}

func (c StartOAuth) decide(s State) ([]domain.Event, error) {
	const what = "oauth sign-in"
	if err := checkOwner(what, c.Owner); err != nil {
		return nil, err
	}
	if c.Owner.Scope == ScopePlatform {
		return nil, domain.Errorf(domain.CodeInvalid, "%s: connect at an organization, a guild or an agent", what)
	}
	if c.ServerID == "" || c.At.IsZero() || c.Pending.IsZero() || c.Nonce == "" {
		return nil, domain.Errorf(domain.CodeInvalid, "%s: no connector, time, verifier or nonce", what)
	}
	account, err := checkAccount(what, s, c.Account)
	if err != nil {
		return nil, err
	}
	if s.Exists() && (s.ServerID != c.ServerID || s.Owner != c.Owner) {
		return nil, domain.Errorf(domain.CodeInvalid, "%s: the command names another login", what)
	}
	if s.Exists() && s.Status == StatusConnected {
		return nil, domain.Errorf(domain.CodeConflict, "a connected login to %s (account %s) exists at this %s; remove it first", c.ServerID, s.Label(), c.Owner.Scope)
	}
	id := s.LoginID
	if id == uuid.Nil {
		if c.NewLoginID == uuid.Nil {
			return nil, domain.Errorf(domain.CodeInvalid, "%s: no login id", what)
		}
		id = c.NewLoginID
	}
	return []domain.Event{OAuthStarted{LoginID: id, ServerID: c.ServerID, Owner: c.Owner, Account: account, Pending: c.Pending, Nonce: c.Nonce, At: c.At.UTC()}}, nil
}

// checkNonce refuses a callback whose sign-in is not the login's open one.
func checkNonce(s State, id uuid.UUID, nonce string) error {
	if !s.Exists() || s.LoginID != id {
		return domain.Errorf(domain.CodeNotFound, "no such login")
	}
	if s.OAuthNonce == "" || s.OAuthNonce != nonce {
		return domain.Errorf(domain.CodeConflict, "this sign-in is no longer the login's open one; connect again")
	}
	return nil
}

// CompleteOAuth stores the tokens of a successful callback and connects the login (pending while a
// required setting is missing).
type CompleteOAuth struct {
	LoginID       uuid.UUID
	Nonce         string
	Credential    domain.Sealed
	NeedsSettings []string
	// AccountHint, when set, names the account signed in to (the GitHub App installation's account);
	// empty keeps the login's hint.
	AccountHint string
	At          time.Time
}

func (c CompleteOAuth) decide(s State) ([]domain.Event, error) {
	if err := checkNonce(s, c.LoginID, c.Nonce); err != nil {
		return nil, err
	}
	if c.Credential.IsZero() || c.At.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "oauth callback: no credential or time")
	}
	status := StatusConnected
	if len(c.NeedsSettings) > 0 {
		status = StatusPending
	}
	hint := s.AccountHint
	if c.AccountHint != "" {
		hint = c.AccountHint
	}
	return []domain.Event{Connected{LoginID: s.LoginID, ServerID: s.ServerID, Owner: s.Owner, Account: s.Account, Credential: c.Credential, AccountHint: hint,
		Settings: s.Settings, NeedsSettings: c.NeedsSettings, Status: status, At: c.At.UTC()}}, nil
}

// AbandonOAuth closes a denied or failed callback: a login that never signed in is removed; one that
// was disconnected stays disconnected, its bindings intact.
type AbandonOAuth struct {
	LoginID uuid.UUID
	Nonce   string
	Reason  string
	At      time.Time
}

func (c AbandonOAuth) decide(s State) ([]domain.Event, error) {
	if err := checkNonce(s, c.LoginID, c.Nonce); err != nil {
		return nil, err
	}
	if c.At.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "oauth callback: no time")
	}
	if s.Credential.IsZero() {
		return []domain.Event{Removed{LoginID: s.LoginID, ServerID: s.ServerID, Owner: s.Owner, Reason: c.Reason, At: c.At.UTC()}}, nil
	}
	return []domain.Event{Disconnected{LoginID: s.LoginID, ServerID: s.ServerID, Owner: s.Owner, Reason: c.Reason, At: c.At.UTC()}}, nil
}

// RefreshTokens stores refreshed tokens over a connected login, its status and settings unchanged.
type RefreshTokens struct {
	LoginID    uuid.UUID
	Credential domain.Sealed
	At         time.Time
}

func (c RefreshTokens) decide(s State) ([]domain.Event, error) {
	if !s.Exists() || s.LoginID != c.LoginID {
		return nil, domain.Errorf(domain.CodeNotFound, "no such login")
	}
	if s.Status == StatusDisconnected {
		return nil, domain.Errorf(domain.CodeConflict, "the login is disconnected; sign in again")
	}
	if c.Credential.IsZero() || c.At.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "refresh: no credential or time")
	}
	return []domain.Event{Connected{LoginID: s.LoginID, ServerID: s.ServerID, Owner: s.Owner, Credential: c.Credential, AccountHint: s.AccountHint,
		Settings: s.Settings, NeedsSettings: s.NeedsSettings, Status: s.Status, At: c.At.UTC()}}, nil
}

// Disconnect marks a login disconnected: its provider wants a new authorization.
type Disconnect struct {
	LoginID uuid.UUID
	Reason  string
	At      time.Time
}

func (c Disconnect) decide(s State) ([]domain.Event, error) {
	if !s.Exists() || s.LoginID != c.LoginID {
		return nil, domain.Errorf(domain.CodeNotFound, "no such login")
	}
	if c.At.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "disconnect: no time")
	}
	if s.Status == StatusDisconnected {
		return nil, nil
	}
	return []domain.Event{Disconnected{LoginID: s.LoginID, ServerID: s.ServerID, Owner: s.Owner, Reason: c.Reason, At: c.At.UTC()}}, nil
}
