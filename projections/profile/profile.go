// Package profile reads the email and display name of a user_created event: in clear in older events,
// sealed under the user's data key in newer ones (domain/identitydom, "Personal data in events"). The read
// models that show emails (projections/identityrm, projections/auditrm) use it with the vault.
package profile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/internal/vault"
)

// Opener opens sealed secrets (internal/vault.Vault).
type Opener interface {
	Open(ctx context.Context, sealed domain.Sealed, purpose string) ([]byte, error)
}

// ErrSealed says a user's email and name are sealed in the log for good: the user's data key was
// shredded (the user was erased).
var ErrSealed = errors.New("profile: the user's profile is sealed")

// ErrNoOpener says a profile is sealed and the reader was given no vault to open it: a wiring mistake,
// reported rather than papered over with a wrong email.
var ErrNoOpener = errors.New("profile: a sealed profile and no vault to open it (give the read model the vault: WithOpener)")

// Open returns the email and display name a user_created event gives: in clear in older events,
// sealed in Profile in newer ones. A shredded profile is ErrSealed, a sealed one with no opener
// ErrNoOpener; any other failure to open it is returned as is (a missing master key, a storage
// failure), so a projection stops rather than records a wrong email.
func Open(ctx context.Context, o Opener, e identitydom.UserCreated) (email, displayName string, err error) {
	if e.Email != "" || e.Profile.IsZero() {
		return e.Email, e.DisplayName, nil
	}
	if o == nil {
		return "", "", ErrNoOpener
	}
	if e.Profile.Subject != e.UserID.String() {
		return "", "", fmt.Errorf("profile: the profile of user %s is sealed for %q", e.UserID, e.Profile.Subject)
	}
	raw, err := o.Open(ctx, e.Profile, identitydom.ProfilePurpose)
	if errors.Is(err, vault.ErrShredded) {
		return "", "", ErrSealed
	}
	if err != nil {
		return "", "", fmt.Errorf("profile: open the profile of user %s: %w", e.UserID, err)
	}
	var p identitydom.ProfileData
	if err := json.Unmarshal(raw, &p); err != nil {
		return "", "", fmt.Errorf("profile: profile of user %s: %w", e.UserID, err)
	}
	return p.Email, p.DisplayName, nil
}

// Placeholder is the email the users table holds for a user whose profile cannot be opened (the
// user was erased; identity.user_erased then replaces it by the pseudonym). It is unique per user, as
// the column must be, and names nobody.
func Placeholder(e identitydom.UserCreated) string { return "sealed-" + e.UserID.String() }
