package connection

import (
	"errors"
	"time"
	"unicode"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Command is a request to change a connection: Start, Connect, ExpirePending, Refresh,
// RequireReauth or Disconnect, one file each. The interface is sealed so that Decide knows them all.
type Command interface {
	decide(State) ([]domain.Event, error)
}

// ErrCredentialChanged is the cause of the CodeConflict a Refresh or RequireReauth gets when the
// credential it acted on is no longer the stored one: another caller (maybe on another replica)
// refreshed first. The caller re-reads the connection and uses the newer credential; it must not call
// the provider again with the old refresh token, which the provider may have rotated away.
var ErrCredentialChanged = errors.New("the credential changed since it was read")

// Decide turns a command into the events it causes, or refuses it with a *domain.Error. It is pure:
// times and ids arrive in the command, the past in the state. What can be checked in the command
// alone is CodeInvalid whatever the state; then the state decides: CodeNotFound for a connection with
// no events where one is needed, CodeNotConnected for using a credential that is not there,
// CodeConflict for every other transition the state does not allow.
func Decide(s State, c Command) ([]domain.Event, error) {
	if c == nil {
		return nil, domain.Errorf(domain.CodeInvalid, "no command")
	}
	return c.decide(s)
}

// checkTime refuses a command without a time and returns the time in UTC without a monotonic
// reading, the form the log keeps.
func checkTime(what string, t time.Time) (time.Time, error) {
	if t.IsZero() {
		return time.Time{}, domain.Errorf(domain.CodeInvalid, "%s: the command carries no time", what)
	}
	return t.UTC(), nil
}

// checkExpiry refuses an expiry that is not after at; a zero expiry (never) passes when optional.
func checkExpiry(what string, expires, at time.Time, optional bool) (time.Time, error) {
	if expires.IsZero() {
		if optional {
			return time.Time{}, nil
		}
		return time.Time{}, domain.Errorf(domain.CodeInvalid, "%s: no expiry", what)
	}
	if !expires.After(at) {
		return time.Time{}, domain.Errorf(domain.CodeInvalid, "%s: expiry %s is not after %s", what, expires.UTC().Format(time.RFC3339), at.Format(time.RFC3339))
	}
	return expires.UTC(), nil
}

// checkTarget validates the user, integration and account a first-event command names, and that
// they are the stream's own when the stream exists. It returns the label as events carry it: empty
// for DefaultAccount, so that the default account's events read as they did before accounts existed.
func checkTarget(what string, s State, user uuid.UUID, integration, account string) (string, error) {
	if user == uuid.Nil {
		return "", domain.Errorf(domain.CodeInvalid, "%s: no user id", what)
	}
	if !ValidIntegrationName(integration) {
		return "", domain.Errorf(domain.CodeInvalid, "%s: %q is not an integration name (lower-case letters, digits, '-' and '_', at most %d)", what, integration, maxIntegrationLen)
	}
	if err := CheckAccountLabel(account); err != nil {
		return "", domain.Errorf(domain.CodeInvalid, "%s: %s", what, domain.ErrorMessage(err))
	}
	account = eventAccount(account)
	if s.Exists() && (s.UserID != user || s.Integration != integration || s.Account != account) {
		return "", domain.Errorf(domain.CodeInvalid, "%s: the command is for %s/%s (account %s) but the connection is %s/%s (account %s)", what, user, integration, NormalAccount(account), s.UserID, s.Integration, s.Label())
	}
	return account, nil
}

// checkMode accepts the modes that have a connection: every mode but none.
func checkMode(what string, m AuthMode) error {
	if !m.Valid() {
		return domain.Errorf(domain.CodeInvalid, "%s: unknown auth mode %q (want oauth2, apikey or cookie)", what, m)
	}
	if m == AuthNone {
		return domain.Errorf(domain.CodeInvalid, "%s: an integration with auth mode none is always connected and has no connection", what)
	}
	return nil
}

// checkCredential requires a sealed credential, sealed under its user's data key so that shredding
// the user shreds it.
func checkCredential(what string, c domain.Sealed, user uuid.UUID) error {
	if c.IsZero() {
		return domain.Errorf(domain.CodeInvalid, "%s: no credential", what)
	}
	if c.Subject != user.String() {
		return domain.Errorf(domain.CodeInvalid, "%s: the credential is sealed for subject %q, not for user %s", what, c.Subject, user)
	}
	return nil
}

// notConnected is the error for using a credential the connection does not hold. Its message is
// written for an agent: it names the connect call to make (spec, What a tool call does).
func notConnected(what string, s State) error {
	name := s.Integration
	switch s.CredentialStatus {
	case StatusNeedsReauth:
		return domain.Errorf(domain.CodeNotConnected, "%s: %s needs re-authorization (%s); reconnect with connect('%s')", what, name, s.Reason, name)
	case StatusDisconnected:
		return domain.Errorf(domain.CodeNotConnected, "%s: %s was disconnected; connect it with connect('%s')", what, name, name)
	default:
		return domain.Errorf(domain.CodeNotConnected, "%s: %s is not connected; connect it with connect('%s')", what, name, name)
	}
}

// maxIntegrationLen bounds an integration name.
const maxIntegrationLen = 64

// ValidIntegrationName reports whether name can name an integration: 1 to 64 of lower-case ASCII
// letters, digits, '-' and '_', starting with a letter or digit ("github", "google-gmail").
func ValidIntegrationName(name string) bool {
	if name == "" || len(name) > maxIntegrationLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case (c == '-' || c == '_') && i > 0:
		default:
			return false
		}
	}
	return true
}

// checkText bounds a free-text field and refuses control characters.
func checkText(what, field, v string, max int, required bool) error {
	if v == "" && required {
		return domain.Errorf(domain.CodeInvalid, "%s: no %s", what, field)
	}
	if len(v) > max {
		return domain.Errorf(domain.CodeInvalid, "%s: %s is %d bytes long; at most %d are allowed", what, field, len(v), max)
	}
	for _, r := range v {
		if unicode.IsControl(r) {
			return domain.Errorf(domain.CodeInvalid, "%s: %s contains a control character", what, field)
		}
	}
	return nil
}

// maxTextLen bounds reasons and account hints.
const maxTextLen = 512

// expiryOf is why a pending attempt ends when something else replaces it at at: it had expired
// already, or it is superseded now.
func expiryOf(a Attempt, at time.Time) ExpiryReason {
	if a.ExpiredBy(at) {
		return ExpiryTimedOut
	}
	return ExpirySuperseded
}
