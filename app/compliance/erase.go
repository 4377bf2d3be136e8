package compliance

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/accounts"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
)

// Shredder is the part of the vault erasure needs.
type Shredder interface {
	Shred(ctx context.Context, subject string, md eventstore.Metadata) error
}

// Eraser erases users (GDPR art. 17).
type Eraser struct {
	Store eventstore.Store
	Vault Shredder
	// PseudonymKey keys the HMAC that turns a user id into its pseudonym (at least 16 bytes; the server
	// derives it from the master key), so a pseudonym cannot be recomputed from a user id alone.
	PseudonymKey []byte
	// InviteeKey, when set, is the key of the hash that names an invited address in the log
	// (organization.InviteeHash; the server derives it as app/organizations does): erasing a user also
	// shreds the subject that seals invitations of their address.
	InviteeKey []byte
	// Sessions, when set, ends every portal session of the user (app/portalsessions.Service), so a
	// browser still signed in as them is signed out.
	Sessions interface {
		EndAll(ctx context.Context, user uuid.UUID, md eventstore.Metadata) error
	}
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Erasure is what EraseUser did.
type Erasure struct {
	UserID    uuid.UUID           `json:"user_id"`
	Pseudonym string              `json:"pseudonym"`
	Position  eventstore.Position `json:"position"` // of identity.user_erased (of the earlier one when AlreadyErased)
	// AlreadyErased says the user had been erased before; the keys were shredded again (a no-op unless an
	// earlier erasure stopped half-way).
	AlreadyErased bool `json:"already_erased"`
}

// Pseudonym is what an erased user's email becomes: "erased-" and 16 hex digits of an HMAC of the user
// id. It is stable (a rebuilt read model shows the same one) and carries nothing of the address.
func (e *Eraser) Pseudonym(user uuid.UUID) string {
	m := hmac.New(sha256.New, e.PseudonymKey)
	m.Write(user[:])
	return identitydom.PseudonymPrefix + hex.EncodeToString(m.Sum(nil)[:8])
}

// EraseUser erases the user who owns email: it appends identity.user_erased to the user's stream (the
// read models then replace the email by the pseudonym, drop the display name and account labels, and
// revoke the API key), ends the user's portal sessions (when Sessions is set), then shreds the user's
// data key, which makes every secret sealed for them (API
// keys, connection credentials, PKCE verifiers) unreadable for good, in the log and in every backup.
// The log itself is not rewritten, so the audit chain still verifies. md is stamped on the event (the
// operator); its Time is filled in when zero. Erasing an erased user shreds again and appends nothing.
func (e *Eraser) EraseUser(ctx context.Context, email string, md eventstore.Metadata) (Erasure, error) {
	if len(e.PseudonymKey) < 16 {
		return Erasure{}, errors.New("compliance: eraser has no pseudonym key")
	}
	norm, err := identitydom.NormalizeEmail(email)
	if err != nil {
		return Erasure{}, err
	}
	claim, _, err := eventstore.LoadState(ctx, e.Store, identitydom.EmailStreamName(norm), accounts.EmailClaims)
	if err != nil {
		return Erasure{}, err
	}
	if !claim.Claimed() {
		return Erasure{}, domain.Errorf(domain.CodeNotFound, "no workbench user has the email %s", norm)
	}
	now := time.Now
	if e.Now != nil {
		now = e.Now
	}
	if md.Time.IsZero() {
		md.Time = now().UTC()
	}
	out := Erasure{UserID: claim.UserID, Pseudonym: e.Pseudonym(claim.UserID)}
	var inviteeHash string
	if len(e.InviteeKey) > 0 {
		inviteeHash = organization.InviteeHash(e.InviteeKey, norm)
	}
	res, err := eventstore.Execute(ctx, e.Store, identitydom.StreamName(claim.UserID), accounts.Users,
		identitydom.Command(identitydom.EraseUser{Pseudonym: out.Pseudonym, InviteeHash: inviteeHash, At: md.Time}), md)
	if err != nil {
		return Erasure{}, fmt.Errorf("erase user %s: %w", claim.UserID, err)
	}
	out.Position = res.Position
	out.AlreadyErased = len(res.Events) == 0
	if out.AlreadyErased && res.State.Email != out.Pseudonym {
		out.Pseudonym = res.State.Email // erased under another pseudonym key: report what the log holds
	}
	if e.Sessions != nil {
		if err := e.Sessions.EndAll(ctx, claim.UserID, md); err != nil {
			return out, fmt.Errorf("erase user %s: %w", claim.UserID, err)
		}
	}
	// The event is durable; now the keys. A crash in between leaves the user erased in every read model
	// with the keys still there: running the erasure again shreds them.
	if err := e.Vault.Shred(ctx, claim.UserID.String(), md); err != nil {
		return out, fmt.Errorf("erase user %s: shred data key: %w", claim.UserID, err)
	}
	if inviteeHash != "" {
		if err := e.Vault.Shred(ctx, organization.InviteeSubject(inviteeHash), md); err != nil {
			return out, fmt.Errorf("erase user %s: shred the key of their invitations: %w", claim.UserID, err)
		}
	}
	return out, nil
}
