package identitydom

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// EmailStreamName is the stream that makes an address unique: "user-email-<hex SHA-256 of the
// normalised address>". The address is hashed so that stream names, which show up in logs and
// metrics, do not carry it. The name is the same for every spelling NormalizeEmail folds together.
func EmailStreamName(email string) string {
	sum := sha256.Sum256([]byte(canonicalEmail(email)))
	return "user-email-" + hex.EncodeToString(sum[:])
}

// EmailClaim is an email stream folded: who the address belongs to, if anyone. It is a small
// aggregate of its own, beside the user: one stream per address, one event ever.
type EmailClaim struct {
	Email     string
	UserID    uuid.UUID
	ClaimedAt time.Time
}

// InitialEmailClaim is the state of an email stream with no events: the address is free.
func InitialEmailClaim() EmailClaim { return EmailClaim{} }

// Claimed reports whether the address belongs to a user id.
func (c EmailClaim) Claimed() bool { return c.UserID != uuid.Nil }

// EvolveEmailClaim folds an event into the claim. A claim is permanent: the first one holds (Decide
// never records a second, and NoStream appends make a second impossible anyway).
func EvolveEmailClaim(c EmailClaim, ev domain.Event) EmailClaim {
	if e, ok := ev.(EmailClaimed); ok && !c.Claimed() {
		//lint:ignore S1016 the event and the state are separate types whose fields may diverge
		return EmailClaim{Email: e.Email, UserID: e.UserID, ClaimedAt: e.ClaimedAt}
	}
	return c
}

// ClaimEmail is step one of creating a user: it reserves an address for a user id.
type ClaimEmail struct {
	Email  string // normalised by the decider
	UserID uuid.UUID
	At     time.Time
}

// EmailClaimedError is the cause inside the CodeConflict error of a claim on an address that already
// belongs to another user id. The caller uses UserID to finish or find that user (see doc.go); the
// error's caller-safe message does not name it.
type EmailClaimedError struct {
	Email  string
	UserID uuid.UUID
}

func (e *EmailClaimedError) Error() string {
	return fmt.Sprintf("email %s is claimed by user %s", e.Email, e.UserID)
}

// DecideEmailClaim decides a claim. A free address is claimed; an address already claimed by the same
// user id yields no event (a retried step one); one claimed by another user id is a CodeConflict whose
// cause is an *EmailClaimedError.
func DecideEmailClaim(c EmailClaim, cmd ClaimEmail) ([]domain.Event, error) {
	email, err := NormalizeEmail(cmd.Email)
	if err != nil {
		return nil, err
	}
	if cmd.UserID == uuid.Nil {
		return nil, domain.Errorf(domain.CodeInvalid, "claim email: no user id")
	}
	at, err := checkTime("claim email", cmd.At)
	if err != nil {
		return nil, err
	}
	switch {
	case !c.Claimed():
		return []domain.Event{EmailClaimed{UserID: cmd.UserID, ClaimedAt: at}}, nil
	case c.UserID == cmd.UserID:
		return nil, nil
	default:
		return nil, &domain.Error{
			Code:    domain.CodeConflict,
			Message: "the email address is already in use",
			Err:     &EmailClaimedError{Email: email, UserID: c.UserID},
		}
	}
}
