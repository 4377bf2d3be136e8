// Package accounts holds the identity use cases: ensuring a user exists for an email (claim the
// address, then create: domain/identitydom's two-step create), reading a user from the log, and the life
// of the one workbench API key each user holds (mint, reveal, rotate, revoke). Handlers and the CLI
// call it; it calls the command loop with the domain's functions.
//
// It owns the identity aggregates' eventstore.Aggregate values (Users, EmailClaims): anything else
// that writes or folds those streams (tests building a log, for one) uses these, so there is one
// definition of how an identity stream is decided and folded.
package accounts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/vault"
)

// SealPurpose binds a sealed API key to its use, so the blob cannot be opened as anything else.
const SealPurpose = "identity:api_key"

// Sealer is the part of the vault this package needs.
type Sealer interface {
	Seal(ctx context.Context, subject, purpose string, plaintext []byte) (domain.Sealed, error)
	Open(ctx context.Context, sealed domain.Sealed, purpose string) ([]byte, error)
}

// AgentChecker says whether an agent exists and belongs to a user (app/organizations.Service.AgentOf):
// CodeNotFound when it does not.
type AgentChecker interface {
	AgentOf(ctx context.Context, user, agent uuid.UUID) error
}

// Service runs the identity use cases.
type Service struct {
	Store eventstore.Store
	Vault Sealer
	// Agents checks the agent a key is minted for. Without it only the default agent may hold keys.
	Agents AgentChecker
	// Now is the clock (default time.Now).
	Now func() time.Time
}

var (
	// Users is the user aggregate (identity.StreamName): profile and API keys.
	Users = eventstore.Aggregate[identitydom.State, identitydom.Command, domain.Event]{
		Initial: identitydom.Initial, Evolve: identitydom.Evolve, Decide: identitydom.Decide,
		Codec: eventstore.NewJSONCodec(identitydom.Events()...),
	}
	// EmailClaims is the aggregate that makes an address name one user (identity.EmailStreamName).
	EmailClaims = eventstore.Aggregate[identitydom.EmailClaim, identitydom.ClaimEmail, domain.Event]{
		Initial: identitydom.InitialEmailClaim, Evolve: identitydom.EvolveEmailClaim, Decide: identitydom.DecideEmailClaim,
		Codec: eventstore.NewJSONCodec(identitydom.Events()...),
	}
)

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// User is a user as the log knows it.
type User struct {
	ID          uuid.UUID
	Email       string
	DisplayName string
	// LiveKey is the API key that authenticates the user now; nil when there is none. User fills
	// it; the other use cases leave it nil.
	LiveKey *KeyInfo
}

// KeyInfo describes an API key without its secret.
type KeyInfo struct {
	ID       uuid.UUID
	Prefix   string
	MintedAt time.Time
}

// EnsureUser returns the user that owns email, creating it when there is none. created says whether
// this call created it. The caller must have established that whoever asks owns the address (SSO
// sign-in, an operator at the CLI). pos is the position of the last event written (Start when none).
func (s *Service) EnsureUser(ctx context.Context, email, displayName string, md eventstore.Metadata) (u User, created bool, pos eventstore.Position, err error) {
	norm, err := identitydom.NormalizeEmail(email)
	if err != nil {
		return User{}, false, pos, err
	}
	id := uuid.New()
	claim, err := eventstore.Execute(ctx, s.Store, identitydom.EmailStreamName(norm), EmailClaims,
		identitydom.ClaimEmail{Email: norm, UserID: id, At: s.now()}, md)
	var taken *identitydom.EmailClaimedError
	switch {
	case errors.As(err, &taken):
		id = taken.UserID // an earlier create claimed it: use (or finish) that user
	case err != nil:
		return User{}, false, pos, fmt.Errorf("claim email: %w", err)
	default:
		pos = claim.Position
	}
	st, _, err := eventstore.LoadState(ctx, s.Store, identitydom.StreamName(id), Users)
	if err != nil {
		return User{}, false, pos, err
	}
	if !st.Exists() {
		name, err := identitydom.NormalizeDisplayName(displayName)
		if err != nil {
			return User{}, false, pos, err
		}
		// The address and name go into the log sealed under the user's own data key, so that erasing the
		// user (shredding the key) leaves nothing readable of them in the log.
		// (A Service without a vault, which only tests build, records them in clear as before.)
		var sealed domain.Sealed
		if s.Vault != nil {
			profile, err := json.Marshal(identitydom.ProfileData{Email: norm, DisplayName: name})
			if err != nil {
				return User{}, false, pos, err
			}
			if sealed, err = s.Vault.Seal(ctx, id.String(), identitydom.ProfilePurpose, profile); err != nil {
				return User{}, false, pos, fmt.Errorf("seal profile: %w", err)
			}
		}
		res, err := eventstore.Execute(ctx, s.Store, identitydom.StreamName(id), Users,
			identitydom.Command(identitydom.CreateUser{UserID: id, Email: norm, DisplayName: displayName, Profile: sealed, At: s.now()}), md)
		if err == nil {
			return User{ID: id, Email: norm, DisplayName: name}, true, res.Position, nil
		}
		if domain.ErrorCode(err) != domain.CodeConflict {
			return User{}, false, pos, fmt.Errorf("create user: %w", err)
		}
		// A concurrent creator of the same address got there first: use that user.
		if st, _, err = eventstore.LoadState(ctx, s.Store, identitydom.StreamName(id), Users); err != nil {
			return User{}, false, pos, err
		}
	}
	if st.Erased {
		// The address's claim is permanent and names the erased user: nobody signs in as them again.
		return User{}, false, pos, domain.Errorf(domain.CodeForbidden, "the workbench account of this address was erased")
	}
	u, uerr := s.user(ctx, st)
	return u, false, pos, uerr
}

// user is st as a User, its email and name opened from the sealed profile when the log holds them so.
func (s *Service) user(ctx context.Context, st identitydom.State) (User, error) {
	u := User{ID: st.UserID, Email: st.Email, DisplayName: st.DisplayName}
	if u.Email == "" && !st.Profile.IsZero() && s.Vault != nil {
		raw, err := s.Vault.Open(ctx, st.Profile, identitydom.ProfilePurpose)
		if errors.Is(err, vault.ErrShredded) {
			return u, nil // shredded: the email and name are gone for good
		}
		if err != nil {
			return User{}, fmt.Errorf("open the profile of user %s: %w", st.UserID, err)
		}
		var p identitydom.ProfileData
		if err := json.Unmarshal(raw, &p); err != nil {
			return User{}, fmt.Errorf("profile of user %s: %w", st.UserID, err)
		}
		u.Email, u.DisplayName = p.Email, p.DisplayName
	}
	return u, nil
}

// User reads a user from the log, not a read model, so a user created a moment ago on another
// replica is already there. A user the log does not know is a *domain.Error of CodeNotFound.
func (s *Service) User(ctx context.Context, id uuid.UUID) (User, error) {
	st, _, err := eventstore.LoadState(ctx, s.Store, identitydom.StreamName(id), Users)
	if err != nil {
		return User{}, err
	}
	if !st.Exists() {
		return User{}, domain.Errorf(domain.CodeNotFound, "there is no workbench user %s", id)
	}
	u, err := s.user(ctx, st)
	if err != nil {
		return User{}, err
	}
	if k, ok := st.LiveKey(); ok {
		u.LiveKey = &KeyInfo{ID: k.KeyID, Prefix: k.Prefix, MintedAt: k.MintedAt}
	}
	return u, nil
}

// Key is a freshly minted or rotated key. Secret is shown to its owner and never stored in clear.
type Key struct {
	ID     uuid.UUID
	Secret string
	Prefix string
}

func (s *Service) newKey(ctx context.Context, user uuid.UUID) (Key, string, domain.Sealed, error) {
	secret, hash, prefix := identitydom.NewAPIKey()
	sealed, err := s.Vault.Seal(ctx, user.String(), SealPurpose, []byte(secret))
	if err != nil {
		return Key{}, "", domain.Sealed{}, fmt.Errorf("seal api key: %w", err)
	}
	return Key{ID: uuid.New(), Secret: secret, Prefix: prefix}, hash, sealed, nil
}

// checkAgent refuses an agent that is not the user's. uuid.Nil and the default agent always pass.
func (s *Service) checkAgent(ctx context.Context, user, agent uuid.UUID) error {
	if agent == uuid.Nil || agent == identitydom.DefaultAgentID(user) {
		return nil
	}
	if s.Agents == nil {
		return domain.Errorf(domain.CodeNotFound, "you have no agent %s", agent)
	}
	return s.Agents.AgentOf(ctx, user, agent)
}

// MintKey gives a user's default agent, when it has no live key, a new one.
func (s *Service) MintKey(ctx context.Context, user uuid.UUID, md eventstore.Metadata) (Key, eventstore.Position, error) {
	return s.MintAgentKey(ctx, user, uuid.Nil, md)
}

// MintAgentKey gives one of the user's agents (uuid.Nil: the default agent), when it has no live key,
// a new one.
func (s *Service) MintAgentKey(ctx context.Context, user, agent uuid.UUID, md eventstore.Metadata) (Key, eventstore.Position, error) {
	if err := s.checkAgent(ctx, user, agent); err != nil {
		return Key{}, eventstore.Start, err
	}
	k, hash, sealed, err := s.newKey(ctx, user)
	if err != nil {
		return Key{}, eventstore.Start, err
	}
	res, err := eventstore.Execute(ctx, s.Store, identitydom.StreamName(user), Users,
		identitydom.Command(identitydom.MintAPIKey{AgentID: agent, KeyID: k.ID, Hash: hash, Prefix: k.Prefix, Sealed: sealed, At: s.now()}), md)
	if err != nil {
		return Key{}, eventstore.Start, err
	}
	return k, res.Position, nil
}

// RotateKey replaces the default agent's live key; the old one stops authenticating in the same event.
func (s *Service) RotateKey(ctx context.Context, user uuid.UUID, md eventstore.Metadata) (Key, eventstore.Position, error) {
	return s.RotateAgentKey(ctx, user, uuid.Nil, md)
}

// RotateAgentKey replaces an agent's live key (uuid.Nil: the default agent's).
func (s *Service) RotateAgentKey(ctx context.Context, user, agent uuid.UUID, md eventstore.Metadata) (Key, eventstore.Position, error) {
	if err := s.checkAgent(ctx, user, agent); err != nil {
		return Key{}, eventstore.Start, err
	}
	k, hash, sealed, err := s.newKey(ctx, user)
	if err != nil {
		return Key{}, eventstore.Start, err
	}
	res, err := eventstore.Execute(ctx, s.Store, identitydom.StreamName(user), Users,
		identitydom.Command(identitydom.RotateAPIKey{AgentID: agent, KeyID: k.ID, Hash: hash, Prefix: k.Prefix, Sealed: sealed, At: s.now()}), md)
	if err != nil {
		return Key{}, eventstore.Start, err
	}
	return k, res.Position, nil
}

// MintOrRotate mints a key for a user's default agent without one and rotates its live key otherwise.
func (s *Service) MintOrRotate(ctx context.Context, user uuid.UUID, md eventstore.Metadata) (Key, eventstore.Position, error) {
	return s.MintOrRotateAgent(ctx, user, uuid.Nil, md)
}

// MintOrRotateAgent mints a key for an agent without one and rotates its live key otherwise
// (uuid.Nil: the default agent).
func (s *Service) MintOrRotateAgent(ctx context.Context, user, agent uuid.UUID, md eventstore.Metadata) (Key, eventstore.Position, error) {
	st, _, err := eventstore.LoadState(ctx, s.Store, identitydom.StreamName(user), Users)
	if err != nil {
		return Key{}, eventstore.Start, err
	}
	if _, live := st.LiveKeyFor(agent); live {
		return s.RotateAgentKey(ctx, user, agent, md)
	}
	return s.MintAgentKey(ctx, user, agent, md)
}

// HasLiveKey says whether the agent (uuid.Nil: the default agent) has a key that authenticates now,
// read from the log. It answers false when the log cannot be read: callers use it for messages only.
func (s *Service) HasLiveKey(ctx context.Context, user, agent uuid.UUID) bool {
	st, _, err := eventstore.LoadState(ctx, s.Store, identitydom.StreamName(user), Users)
	if err != nil {
		return false
	}
	_, live := st.LiveKeyFor(agent)
	return live
}

// RevokeKey retires the default agent's live key without a replacement.
func (s *Service) RevokeKey(ctx context.Context, user uuid.UUID, md eventstore.Metadata) (eventstore.Position, error) {
	return s.RevokeAgentKey(ctx, user, uuid.Nil, md)
}

// RevokeAgentKey retires an agent's live key without a replacement (uuid.Nil: the default agent's).
// It does not check that the agent still exists: a deleted agent's key is revoked this way.
func (s *Service) RevokeAgentKey(ctx context.Context, user, agent uuid.UUID, md eventstore.Metadata) (eventstore.Position, error) {
	res, err := eventstore.Execute(ctx, s.Store, identitydom.StreamName(user), Users, identitydom.Command(identitydom.RevokeAPIKey{AgentID: agent, At: s.now()}), md)
	if err != nil {
		return eventstore.Start, err
	}
	return res.Position, nil
}

// RevealKey opens the live key of the user's default agent for its owner. It reads the log, not a
// read model, so a key rotated a moment ago is never revealed in its old form.
func (s *Service) RevealKey(ctx context.Context, user uuid.UUID) (Key, error) {
	return s.RevealAgentKey(ctx, user, uuid.Nil)
}

// RevealAgentKey opens the live key of one of the user's agents (uuid.Nil: the default agent).
func (s *Service) RevealAgentKey(ctx context.Context, user, agent uuid.UUID) (Key, error) {
	st, _, err := eventstore.LoadState(ctx, s.Store, identitydom.StreamName(user), Users)
	if err != nil {
		return Key{}, err
	}
	live, ok := st.LiveKeyFor(agent)
	if !ok {
		return Key{}, domain.Errorf(domain.CodeNotFound, "you have no live API key; mint one")
	}
	if live.Sealed.IsZero() {
		return Key{}, domain.Errorf(domain.CodeNotFound, "this key was minted without a sealed copy and cannot be revealed; rotate it")
	}
	secret, err := s.Vault.Open(ctx, live.Sealed, SealPurpose)
	if err != nil {
		return Key{}, fmt.Errorf("open api key: %w", err)
	}
	return Key{ID: live.KeyID, Secret: string(secret), Prefix: live.Prefix}, nil
}
