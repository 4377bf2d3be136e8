package identitydom

import (
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// TypeUserErased is the event of an erased user (GDPR art. 17).
const TypeUserErased = "identity.user_erased"

// PseudonymPrefix starts every pseudonym an erased user's email becomes.
const PseudonymPrefix = "erased-"

// UserErased records that a user's personal data was erased: from this event on, every read model
// shows Pseudonym where the email was and no display name, the user's live key is revoked, and the
// user's data key has been (or is about to be) shredded, so every secret sealed for them is gone. The
// event carries no personal data; the events before it are kept as they are (the log is append-only and
// its hash chain must still verify), which is why personal data in events is sealed for the user's
// subject key (see doc.go, "Personal data in events").
type UserErased struct {
	UserID    uuid.UUID `json:"user_id"`
	Pseudonym string    `json:"pseudonym"`
	ErasedAt  time.Time `json:"erased_at"`
	// InviteeHash, when set, is the keyed hash that names the user's address in invitations
	// (organization.InviteeHash): the organisations read model drops the invitations of the address it
	// holds in clear (recorded before invitations were by hash).
	InviteeHash string `json:"invitee_hash,omitempty"`
}

func (UserErased) EventType() string { return TypeUserErased }

// EraseUser erases a user's personal data. Pseudonym is what the email becomes ("erased-<hex>"), stable
// for the user so repeated erasures and rebuilt read models agree.
type EraseUser struct {
	Pseudonym   string
	InviteeHash string // see UserErased
	At          time.Time
}

func (c EraseUser) decide(s State) ([]domain.Event, error) {
	const what = "erase user"
	at, err := checkTime(what, c.At)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(c.Pseudonym, PseudonymPrefix) || len(c.Pseudonym) <= len(PseudonymPrefix) || len(c.Pseudonym) > 100 {
		return nil, domain.Errorf(domain.CodeInvalid, "%s: the pseudonym must start with %q", what, PseudonymPrefix)
	}
	if !s.Exists() {
		return nil, domain.Errorf(domain.CodeNotFound, "%s: no such user", what)
	}
	if s.Erased {
		return nil, nil // erased already: nothing more to record
	}
	return []domain.Event{UserErased{UserID: s.UserID, Pseudonym: c.Pseudonym, ErasedAt: at, InviteeHash: c.InviteeHash}}, nil
}
