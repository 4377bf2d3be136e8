package signindom

import (
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Event type names. They are written into the log and never change once an event has been stored.
const (
	TypeLinkIssued   = "signin_link.issued"
	TypeLinkRedeemed = "signin_link.redeemed"
)

// LinkTTL is how long a one-time sign-in link lives.
const LinkTTL = 15 * time.Minute

// StreamName is the stream of the link whose token hashes to linkHash (64 lower-case hex digits of
// SHA-256). The token itself is never stored.
func StreamName(linkHash string) string { return "signin_link-" + linkHash }

// EmailPurpose binds a link's sealed address (LinkIssued.SealedEmail) to its use.
const EmailPurpose = "signin:email"

// LinkIssued records a one-time sign-in link for UserID, valid until ExpiresAt.
//
// Newer events carry the user's address only in SealedEmail, sealed under the user's own data key
// (purpose EmailPurpose), so that erasing the user leaves it unreadable; Email is then empty. Older
// events carry Email in clear. Nothing reads the address back: UserID names the user.
type LinkIssued struct {
	LinkHash    string        `json:"link_hash"`
	UserID      uuid.UUID     `json:"user_id"`
	Email       string        `json:"email,omitempty"`
	SealedEmail domain.Sealed `json:"sealed_email,omitzero"`
	Purpose     string        `json:"purpose"` // why it was issued, e.g. "startup"
	IssuedAt    time.Time     `json:"issued_at"`
	ExpiresAt   time.Time     `json:"expires_at"`
}

// LinkRedeemed records that the link signed its user in. No second one can follow.
type LinkRedeemed struct {
	LinkHash   string    `json:"link_hash"`
	UserID     uuid.UUID `json:"user_id"`
	RedeemedAt time.Time `json:"redeemed_at"`
}

func (LinkIssued) EventType() string   { return TypeLinkIssued }
func (LinkRedeemed) EventType() string { return TypeLinkRedeemed }

// Events returns a zero value of every event type of this package, for a codec:
// eventstore.NewJSONCodec(signin.Events()...).
func Events() []domain.Event { return []domain.Event{LinkIssued{}, LinkRedeemed{}} }

// Link is one sign-in link folded from its stream. The zero Link (Initial) was never issued.
type Link struct {
	LinkHash string
	UserID   uuid.UUID
	// Email is empty when the event sealed it.
	Email      string
	IssuedAt   time.Time
	ExpiresAt  time.Time
	Redeemed   bool
	RedeemedAt time.Time
}

// Initial is the state of a link stream with no events.
func Initial() Link { return Link{} }

// Issued reports whether the link exists.
func (l Link) Issued() bool { return l.UserID != uuid.Nil }

// Evolve folds one event into the link. It never fails: events are facts.
func Evolve(l Link, ev domain.Event) Link {
	switch e := ev.(type) {
	case LinkIssued:
		l = Link{LinkHash: e.LinkHash, UserID: e.UserID, Email: e.Email, IssuedAt: e.IssuedAt, ExpiresAt: e.ExpiresAt}
	case LinkRedeemed:
		l.Redeemed, l.RedeemedAt = true, e.RedeemedAt
	}
	return l
}

// Command is IssueLink or RedeemLink; the interface is sealed so that Decide knows them all.
type Command interface {
	decide(Link) ([]domain.Event, error)
}

// Decide turns a command into its events, or refuses it with a *domain.Error.
func Decide(l Link, c Command) ([]domain.Event, error) {
	if c == nil {
		return nil, domain.Errorf(domain.CodeInvalid, "no command")
	}
	return c.decide(l)
}

// Causes of the refusals of RedeemLink, for errors.Is.
var (
	ErrUnknownLink = errors.New("no such sign-in link")
	ErrLinkUsed    = errors.New("the sign-in link was already used")
	ErrLinkExpired = errors.New("the sign-in link expired")
)

// IssueLink opens a link stream. The stream must be new: a token is never issued twice.
type IssueLink struct {
	LinkHash string
	UserID   uuid.UUID
	Email    string
	// SealedEmail, when set, is Email sealed for the user (EmailPurpose): the event carries it instead
	// of the address in clear.
	SealedEmail domain.Sealed
	Purpose     string
	At          time.Time
	ExpiresAt   time.Time
}

func (c IssueLink) decide(l Link) ([]domain.Event, error) {
	const what = "issue sign-in link"
	switch {
	case !validHash(c.LinkHash):
		return nil, domain.Errorf(domain.CodeInvalid, "%s: the link hash must be 64 lower-case hex digits", what)
	case c.UserID == uuid.Nil:
		return nil, domain.Errorf(domain.CodeInvalid, "%s: no user", what)
	case c.Email == "" || len(c.Email) > 254:
		return nil, domain.Errorf(domain.CodeInvalid, "%s: the user's email is missing or too long", what)
	case len(c.Purpose) > 64:
		return nil, domain.Errorf(domain.CodeInvalid, "%s: the purpose is longer than 64 bytes", what)
	case c.At.IsZero():
		return nil, domain.Errorf(domain.CodeInvalid, "%s: the command carries no time", what)
	case !c.ExpiresAt.After(c.At):
		return nil, domain.Errorf(domain.CodeInvalid, "%s: the link must expire after it is issued", what)
	case !c.SealedEmail.IsZero() && c.SealedEmail.Subject != c.UserID.String():
		return nil, domain.Errorf(domain.CodeInvalid, "%s: the address is sealed for %q, not for the user", what, c.SealedEmail.Subject)
	case l.Issued():
		return nil, domain.Errorf(domain.CodeConflict, "%s: this link was already issued; every link needs a fresh token", what)
	}
	e := LinkIssued{LinkHash: c.LinkHash, UserID: c.UserID, Purpose: c.Purpose, IssuedAt: c.At.UTC(), ExpiresAt: c.ExpiresAt.UTC()}
	if c.SealedEmail.IsZero() {
		e.Email = c.Email
	} else {
		e.SealedEmail = c.SealedEmail
	}
	return []domain.Event{e}, nil
}

// RedeemLink uses the link once, at At, which must be before its expiry.
type RedeemLink struct {
	At time.Time
}

func (c RedeemLink) decide(l Link) ([]domain.Event, error) {
	const what = "sign-in link"
	switch {
	case c.At.IsZero():
		return nil, domain.Errorf(domain.CodeInvalid, "%s: the command carries no time", what)
	case !l.Issued():
		return nil, &domain.Error{Code: domain.CodeNotFound, Message: "this sign-in link is not valid", Err: ErrUnknownLink}
	case l.Redeemed:
		return nil, &domain.Error{Code: domain.CodeConflict, Message: "this sign-in link was already used; each link signs in once", Err: ErrLinkUsed}
	case !c.At.Before(l.ExpiresAt):
		return nil, &domain.Error{Code: domain.CodeConflict, Message: "this sign-in link expired; links last 15 minutes", Err: ErrLinkExpired}
	}
	return []domain.Event{LinkRedeemed{LinkHash: l.LinkHash, UserID: l.UserID, RedeemedAt: c.At.UTC()}}, nil
}

func validHash(s string) bool {
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
