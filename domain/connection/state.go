package connection

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// StreamName is the stream of one account of a user's connection to one integration. The account
// labelled DefaultAccount (every connection made before accounts existed) keeps the original name
// "connection-<user uuid>-<integration>"; any other label is appended after a dot:
// "connection-<user uuid>-<integration>.<account>". The uuid has a fixed length and neither
// integration names nor labels contain a dot, so the name is unambiguous.
func StreamName(userID uuid.UUID, integration, account string) string {
	return "connection-" + userID.String() + "-" + integration + accountSuffix(account)
}

// accountSuffix is what a stream name of account carries after the integration: nothing for the
// default label, "."+label otherwise.
func accountSuffix(account string) string {
	if account = NormalAccount(account); account == DefaultAccount {
		return ""
	}
	return "." + account
}

// DefaultAccount is the label of the account a connection has when nobody named one: every
// connection made before a user could hold several accounts, and the first connect that names none.
const DefaultAccount = "default"

// maxAccountLen bounds an account label.
const maxAccountLen = 32

// NormalAccount is the label an event or command names: DefaultAccount for an empty one.
func NormalAccount(label string) string {
	if label == "" {
		return DefaultAccount
	}
	return label
}

// eventAccount is the label as events and State carry it: empty for DefaultAccount.
func eventAccount(label string) string {
	if label == DefaultAccount {
		return ""
	}
	return label
}

// ValidAccountLabel reports whether label can name an account: 1 to 32 of lower-case ASCII letters,
// digits, '-' and '_', starting with a letter or digit ("work", "personal", "acme-eu").
func ValidAccountLabel(label string) bool {
	return label != "" && len(label) <= maxAccountLen && ValidIntegrationName(label)
}

// CheckAccountLabel refuses a label that ValidAccountLabel refuses with a CodeInvalid error that says
// what a label may be; an empty label passes (it means the default).
func CheckAccountLabel(label string) error {
	if label == "" || ValidAccountLabel(label) {
		return nil
	}
	return domain.Errorf(domain.CodeInvalid, "%q is not an account label: use 1 to %d lower-case letters, digits, '-' and '_' (for example \"work\" or \"personal\")", label, maxAccountLen)
}

// RefreshWindow is how close to its expiry a token is refreshed on use: "when ctx.getToken() sees
// the token expiring within 30 seconds it performs a refresh_token exchange" (spec, Where credentials
// live). Pass it to State.NeedsRefresh.
const RefreshWindow = 30 * time.Second

// AuthMode is an integration's declared way of connecting (spec, Integration).
type AuthMode string

const (
	AuthOAuth2 AuthMode = "oauth2"
	AuthAPIKey AuthMode = "apikey"
	AuthCookie AuthMode = "cookie"
	// AuthNone integrations are always connected and have no connection stream; commands refuse it.
	AuthNone AuthMode = "none"
)

// Valid reports whether m is one of the four auth modes.
func (m AuthMode) Valid() bool {
	switch m {
	case AuthOAuth2, AuthAPIKey, AuthCookie, AuthNone:
		return true
	}
	return false
}

// Status is where a connection is in its life.
type Status string

const (
	StatusNone         Status = "none"         // never started nor connected
	StatusPending      Status = "pending"      // an attempt is in flight and no credential is usable
	StatusConnected    Status = "connected"    // a credential is stored and usable
	StatusNeedsReauth  Status = "needs_reauth" // the provider refused the credential; reconnect
	StatusDisconnected Status = "disconnected" // the credential was removed
)

// AttemptOutcome is where a connect attempt is; the wait_for_connection answers follow from it.
type AttemptOutcome string

const (
	AttemptPending   AttemptOutcome = "pending"
	AttemptConnected AttemptOutcome = "connected"
	AttemptExpired   AttemptOutcome = "expired"
)

// ExpiryReason says why an attempt ended without connecting.
type ExpiryReason string

const (
	ExpiryTimedOut   ExpiryReason = "expired"    // its claim link ran out (ExpirePending)
	ExpirySuperseded ExpiryReason = "superseded" // a newer attempt replaced it (Start, direct Connect)
	ExpiryCancelled  ExpiryReason = "cancelled"  // the connection was disconnected meanwhile
)

// Attempt is one connect attempt: the claim link minted by connect() and the handshake behind it.
type Attempt struct {
	ID        uuid.UUID
	AuthMode  AuthMode
	StartedAt time.Time
	ExpiresAt time.Time
	Outcome   AttemptOutcome
	EndedAt   time.Time    // when it connected or expired
	Reason    ExpiryReason // why it expired
}

// Pending reports whether the attempt is still in flight as far as the log knows. It may be past
// ExpiresAt already if nobody has recorded its expiry yet; see ExpiredBy.
func (a Attempt) Pending() bool { return a.ID != uuid.Nil && a.Outcome == AttemptPending }

// ExpiredBy reports whether a pending attempt's claim link has run out at now.
func (a Attempt) ExpiredBy(now time.Time) bool { return a.Pending() && !now.Before(a.ExpiresAt) }

// State is one connection folded from its stream. The zero State (Initial) has no events.
type State struct {
	UserID      uuid.UUID
	Integration string
	// Account is the account's label as its events carry it: empty for DefaultAccount (use Label).
	Account string

	// CredentialStatus is the credential's own status: none, connected, needs_reauth or
	// disconnected, never pending (see Status).
	CredentialStatus Status
	// AuthMode is the mode of the stored credential, or of the latest attempt when none was stored.
	AuthMode AuthMode
	// Credential is the sealed credential document; zero unless CredentialStatus is connected.
	Credential domain.Sealed
	// ExpiresAt is the credential's expiry, zero when it never expires (or none is stored).
	ExpiresAt   time.Time
	Scopes      []string
	AccountHint string
	ConnectedAt time.Time
	// Since is when the account got its first credential after having none (never connected, or
	// disconnected): the oldest account is the default until the user chooses one (DefaultOf).
	Since time.Time
	// DefaultChosenAt is when the user last made this account the default; zero when never, and
	// cleared by a disconnect.
	DefaultChosenAt time.Time
	RefreshedAt     time.Time // the last refresh, zero when none since the last connect
	// Generation counts the credentials this connection has held: every Connected and every
	// TokenRefreshed adds one. Refresh and RequireReauth name the generation they acted on, so a
	// replica that lost a refresh race cannot overwrite or withdraw the winner's newer credential.
	Generation int64
	// Reason is why the credential was withdrawn (needs_reauth, disconnected).
	Reason string

	// Attempt is the latest connect attempt, zero when none was ever started. Only the latest is
	// remembered: every earlier one has ended (a newer Start supersedes the pending one).
	Attempt Attempt
}

// Initial is the state of a connection stream with no events.
func Initial() State { return State{CredentialStatus: StatusNone} }

// Exists reports whether the stream has any event.
func (s State) Exists() bool { return s.UserID != uuid.Nil }

// Status combines the credential and the attempt: a usable credential makes the connection connected
// even while a reconnect attempt is pending (the old credential serves until the new one arrives);
// otherwise a pending attempt makes it pending; otherwise it is the credential's status. Status uses
// no clock: an attempt past its expiry counts as pending until PendingExpired is recorded.
func (s State) Status() Status {
	switch {
	case s.CredentialStatus == StatusConnected:
		return StatusConnected
	case s.Attempt.Pending():
		return StatusPending
	case s.CredentialStatus == "":
		return StatusNone
	default:
		return s.CredentialStatus
	}
}

// Label is the account's label: DefaultAccount or the one its user chose.
func (s State) Label() string { return NormalAccount(s.Account) }

// Held reports whether the account holds a credential, usable or needing re-authorization: it is one
// of the user's accounts of the integration (list_integrations lists it; it can be the default).
func (s State) Held() bool {
	return s.CredentialStatus == StatusConnected || s.CredentialStatus == StatusNeedsReauth
}

// Connected reports whether a credential is stored and not withdrawn.
func (s State) Connected() bool { return s.CredentialStatus == StatusConnected }

// Usable reports whether the connection counts as connected at now, by the spec's rule per auth mode
// (spec, Connection): a cookie bundle must still hold an unexpired cookie (the credential layer
// records the latest cookie expiry as ExpiresAt); a token or API key only has to be stored, since an
// expired OAuth token is refreshed on use.
func (s State) Usable(now time.Time) bool {
	if !s.Connected() {
		return false
	}
	if s.AuthMode == AuthCookie && !s.ExpiresAt.IsZero() {
		return now.Before(s.ExpiresAt)
	}
	return true
}

// NeedsRefresh reports whether the stored credential expires within the window from now (pass
// RefreshWindow), so that getToken should refresh it before use. A credential without an expiry
// never needs a refresh; a connection without a usable credential has nothing to refresh.
func (s State) NeedsRefresh(now time.Time, within time.Duration) bool {
	return s.Connected() && !s.ExpiresAt.IsZero() && !now.Add(within).Before(s.ExpiresAt)
}

// Evolve folds one event into the state. It never fails: events are facts. Unknown events leave the
// state as it is.
func Evolve(s State, ev domain.Event) State {
	if s.CredentialStatus == "" {
		s.CredentialStatus = StatusNone
	}
	switch e := ev.(type) {
	case Started:
		s.UserID, s.Integration, s.Account = e.UserID, e.Integration, eventAccount(e.Account)
		if !s.Connected() {
			s.AuthMode = e.AuthMode
		}
		s.Attempt = Attempt{
			ID: e.AttemptID, AuthMode: e.AuthMode, StartedAt: e.StartedAt, ExpiresAt: e.ExpiresAt,
			Outcome: AttemptPending,
		}
	case PendingExpired:
		if s.Attempt.ID == e.AttemptID && s.Attempt.Pending() {
			s.Attempt.Outcome = AttemptExpired
			s.Attempt.EndedAt = e.At
			s.Attempt.Reason = e.Reason
		}
	case Connected:
		s.UserID, s.Integration, s.Account = e.UserID, e.Integration, eventAccount(e.Account)
		if !s.Held() {
			s.Since = e.ConnectedAt
		}
		s.CredentialStatus = StatusConnected
		s.AuthMode = e.AuthMode
		s.Credential = e.Credential
		s.ExpiresAt = e.ExpiresAt
		s.Scopes = e.Scopes
		s.AccountHint = e.AccountHint
		s.ConnectedAt = e.ConnectedAt
		s.RefreshedAt = time.Time{}
		s.Generation++
		s.Reason = ""
		if e.AttemptID != uuid.Nil && s.Attempt.ID == e.AttemptID && s.Attempt.Pending() {
			s.Attempt.Outcome = AttemptConnected
			s.Attempt.EndedAt = e.ConnectedAt
		}
	case TokenRefreshed:
		s.Credential = e.Credential
		s.ExpiresAt = e.ExpiresAt
		s.RefreshedAt = e.RefreshedAt
		s.Generation++
	case ReauthorizationRequired:
		s.CredentialStatus = StatusNeedsReauth
		s.Credential = domain.Sealed{}
		s.ExpiresAt = time.Time{}
		s.Reason = e.Reason
	case Disconnected:
		s.CredentialStatus = StatusDisconnected
		s.Credential = domain.Sealed{}
		s.ExpiresAt = time.Time{}
		s.Scopes = nil
		s.AccountHint = ""
		s.Reason = e.Reason
		s.Since, s.DefaultChosenAt = time.Time{}, time.Time{}
	case DefaultChosen:
		s.DefaultChosenAt = e.At
	}
	return s
}
