package identitydom

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// MaxDisplayNameLen bounds a display name, in characters.
const MaxDisplayNameLen = 200

// CreateUser creates a user. Claim the email first (ClaimEmail on EmailStreamName); see doc.go.
type CreateUser struct {
	UserID      uuid.UUID
	Email       string // normalised by Decide
	DisplayName string // optional; trimmed
	// Profile, when set, is ProfileData{Email, DisplayName} (normalised as Decide normalises them)
	// sealed under the user's data key: the event then carries it instead of the two in clear.
	Profile domain.Sealed
	At      time.Time
}

func (c CreateUser) decide(s State) ([]domain.Event, error) {
	if c.UserID == uuid.Nil {
		return nil, domain.Errorf(domain.CodeInvalid, "create user: no user id")
	}
	email, err := NormalizeEmail(c.Email)
	if err != nil {
		return nil, err
	}
	name, err := normalizeDisplayName(c.DisplayName)
	if err != nil {
		return nil, err
	}
	at, err := checkTime("create user", c.At)
	if err != nil {
		return nil, err
	}
	if s.Exists() {
		return nil, domain.Errorf(domain.CodeConflict, "user %s already exists", s.UserID)
	}
	if !c.Profile.IsZero() {
		if c.Profile.Subject != c.UserID.String() {
			return nil, domain.Errorf(domain.CodeInvalid, "create user: the profile is sealed for %q, not for the user", c.Profile.Subject)
		}
		return []domain.Event{UserCreated{UserID: c.UserID, Profile: c.Profile, CreatedAt: at}}, nil
	}
	return []domain.Event{UserCreated{UserID: c.UserID, Email: email, DisplayName: name, CreatedAt: at}}, nil
}

// NormalizeDisplayName is the display name as CreateUser records it (trimmed), or the reason it is
// refused.
func NormalizeDisplayName(name string) (string, error) { return normalizeDisplayName(name) }

// normalizeDisplayName trims a display name and refuses control characters, invalid UTF-8 and
// names longer than MaxDisplayNameLen characters. An empty name is allowed (SSO may not give one).
func normalizeDisplayName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if !utf8.ValidString(name) {
		return "", domain.Errorf(domain.CodeInvalid, "display name is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(name); n > MaxDisplayNameLen {
		return "", domain.Errorf(domain.CodeInvalid, "display name is %d characters long; at most %d are allowed", n, MaxDisplayNameLen)
	}
	if strings.ContainsFunc(name, unicode.IsControl) {
		return "", domain.Errorf(domain.CodeInvalid, "display name contains a control character")
	}
	return name, nil
}
