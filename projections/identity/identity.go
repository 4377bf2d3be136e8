// Package identity projects the identity events into the users and api_keys tables: who exists, and
// which API key hash authenticates whom. It also answers the lookups the HTTP layer needs (by key
// hash, by email, by id).
package identity

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identity"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/dbtime"
	"github.com/workbench/workbench/internal/profile"
	"github.com/workbench/workbench/projections"
)

// Name is the projection's checkpoint name.
const Name = "identity"

// Projection keeps users and api_keys.
type Projection struct {
	codec  *eventstore.JSONCodec[domain.Event]
	opener profile.Opener
}

// WithOpener gives the projection the vault, to read the emails that newer user_created events seal
// (internal/profile). It returns p.
func (p *Projection) WithOpener(o profile.Opener) *Projection {
	p.opener = o
	return p
}

var _ projections.Projection = (*Projection)(nil)

// New returns the projection.
func New() *Projection {
	return &Projection{codec: eventstore.NewJSONCodec(identity.Events()...)}
}

// Handles implements projections.Selective.
func (*Projection) Handles(eventType string) bool { return strings.HasPrefix(eventType, "identity.") }

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Reset implements projections.Projection.
func (*Projection) Reset(ctx context.Context, tx *sql.Tx) error {
	return projections.DeleteAll(ctx, tx, "api_keys", "users")
}

// Apply implements projections.Projection.
func (p *Projection) Apply(ctx context.Context, tx *sql.Tx, env eventstore.Envelope) error {
	switch env.Type {
	case identity.TypeUserCreated, identity.TypeAPIKeyMinted, identity.TypeAPIKeyRotated, identity.TypeAPIKeyRevoked, identity.TypeUserErased:
	default:
		return nil
	}
	ev, err := p.codec.Decode(env.Type, env.SchemaVersion, env.Data)
	if err != nil {
		return err
	}
	switch e := ev.(type) {
	case identity.UserCreated:
		email, name, oerr := profile.Open(ctx, p.opener, e)
		if errors.Is(oerr, profile.ErrSealed) {
			email, name, oerr = profile.Placeholder(e), "", nil
		}
		if oerr != nil {
			return oerr
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO users (user_id, email, display_name, created_at) VALUES ($1, $2, $3, $4)`,
			e.UserID.String(), email, name, dbtime.Format(e.CreatedAt))
	case identity.APIKeyMinted:
		err = insertKey(ctx, tx, e.UserID, e.KeyID, e.Hash, e.Prefix, e.Sealed, e.MintedAt)
	case identity.APIKeyRotated:
		if err = revokeKey(ctx, tx, e.OldKeyID, e.RotatedAt); err == nil {
			err = insertKey(ctx, tx, e.UserID, e.KeyID, e.Hash, e.Prefix, e.Sealed, e.RotatedAt)
		}
	case identity.APIKeyRevoked:
		err = revokeKey(ctx, tx, e.KeyID, e.RevokedAt)
	case identity.UserErased:
		err = eraseUser(ctx, tx, e)
	}
	return err
}

func insertKey(ctx context.Context, tx *sql.Tx, user, key uuid.UUID, hash, prefix string, sealed domain.Sealed, at time.Time) error {
	var sealedJSON sql.NullString
	if !sealed.IsZero() {
		b, err := json.Marshal(sealed)
		if err != nil {
			return err
		}
		sealedJSON = sql.NullString{String: string(b), Valid: true}
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO api_keys (key_id, user_id, hash, prefix, sealed, minted_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		key.String(), user.String(), hash, prefix, sealedJSON, dbtime.Format(at))
	return err
}

// eraseUser purges the user's personal data: the email becomes the pseudonym, the display name goes,
// and every key is revoked with its sealed copy dropped (it was sealed for the shredded subject).
func eraseUser(ctx context.Context, tx *sql.Tx, e identity.UserErased) error {
	if _, err := tx.ExecContext(ctx, `UPDATE users SET email = $1, display_name = '', erased_at = $2 WHERE user_id = $3`,
		e.Pseudonym, dbtime.Format(e.ErasedAt), e.UserID.String()); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE api_keys SET sealed = NULL, revoked_at = COALESCE(revoked_at, $1) WHERE user_id = $2`,
		dbtime.Format(e.ErasedAt), e.UserID.String())
	return err
}

func revokeKey(ctx context.Context, tx *sql.Tx, key uuid.UUID, at time.Time) error {
	_, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = $1 WHERE key_id = $2 AND revoked_at IS NULL`, dbtime.Format(at), key.String())
	return err
}

// User is a row of the users read model.
type User struct {
	ID          uuid.UUID
	Email       string
	DisplayName string
	CreatedAt   time.Time
}

// APIKey is a live key as the read model knows it.
type APIKey struct {
	ID       uuid.UUID
	UserID   uuid.UUID
	Prefix   string
	Sealed   domain.Sealed
	MintedAt time.Time
}

// Reader answers identity questions from the read model.
type Reader struct{ DB *sql.DB }

// ErrNotFound is returned when no row matches.
var ErrNotFound = errors.New("identity: not found")

// UserByKeyHash returns the owner and id of the live (not revoked) key with this hash.
func (r Reader) UserByKeyHash(ctx context.Context, hash string) (User, uuid.UUID, error) {
	return scanKeyOwner(r.DB.QueryRowContext(ctx, `SELECT u.user_id, u.email, u.display_name, u.created_at, k.key_id
		FROM api_keys k JOIN users u ON u.user_id = k.user_id
		WHERE k.hash = $1 AND k.revoked_at IS NULL AND u.erased_at IS NULL`, hash))
}

// UserByID returns one user; an erased user is ErrNotFound (so is every lookup below).
func (r Reader) UserByID(ctx context.Context, id uuid.UUID) (User, error) {
	return r.user(ctx, `SELECT user_id, email, display_name, created_at FROM users WHERE user_id = $1 AND erased_at IS NULL`, id.String())
}

// UserByEmail returns the user with this normalised email.
func (r Reader) UserByEmail(ctx context.Context, email string) (User, error) {
	return r.user(ctx, `SELECT user_id, email, display_name, created_at FROM users WHERE email = $1 AND erased_at IS NULL`, email)
}

func (r Reader) user(ctx context.Context, q string, arg any) (User, error) {
	var u User
	var uid, created string
	err := r.DB.QueryRowContext(ctx, q, arg).Scan(&uid, &u.Email, &u.DisplayName, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("identity: user lookup: %w", err)
	}
	if u.ID, err = uuid.Parse(uid); err != nil {
		return User{}, err
	}
	u.CreatedAt, err = dbtime.Parse(created)
	return u, err
}

// LiveKey returns the user's live API key.
func (r Reader) LiveKey(ctx context.Context, user uuid.UUID) (APIKey, error) {
	var k APIKey
	var kid, minted string
	var sealed sql.NullString
	err := r.DB.QueryRowContext(ctx, `SELECT key_id, prefix, sealed, minted_at FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL`,
		user.String()).Scan(&kid, &k.Prefix, &sealed, &minted)
	if errors.Is(err, sql.ErrNoRows) {
		return APIKey{}, ErrNotFound
	}
	if err != nil {
		return APIKey{}, fmt.Errorf("identity: key lookup: %w", err)
	}
	k.UserID = user
	if k.ID, err = uuid.Parse(kid); err != nil {
		return APIKey{}, err
	}
	if sealed.Valid {
		if err := json.Unmarshal([]byte(sealed.String), &k.Sealed); err != nil {
			return APIKey{}, err
		}
	}
	k.MintedAt, err = dbtime.Parse(minted)
	return k, err
}

// KeyLookup answers the one question asked on every authenticated request, who owns a key hash, with a
// statement prepared once instead of parsed per call.
type KeyLookup struct {
	stmt *sql.Stmt
}

// NewKeyLookup prepares the lookup on db.
func NewKeyLookup(ctx context.Context, db *sql.DB) (*KeyLookup, error) {
	stmt, err := db.PrepareContext(ctx, `SELECT u.user_id, u.email, u.display_name, u.created_at, k.key_id
		FROM api_keys k JOIN users u ON u.user_id = k.user_id
		WHERE k.hash = $1 AND k.revoked_at IS NULL AND u.erased_at IS NULL`)
	if err != nil {
		return nil, fmt.Errorf("identity: prepare key lookup: %w", err)
	}
	return &KeyLookup{stmt: stmt}, nil
}

// Close releases the statement.
func (l *KeyLookup) Close() error { return l.stmt.Close() }

// UserByKeyHash returns the owner and id of the live (not revoked) key with this hash.
func (l *KeyLookup) UserByKeyHash(ctx context.Context, hash string) (User, uuid.UUID, error) {
	return scanKeyOwner(l.stmt.QueryRowContext(ctx, hash))
}

func scanKeyOwner(row *sql.Row) (User, uuid.UUID, error) {
	var u User
	var uid, kid, created string
	err := row.Scan(&uid, &u.Email, &u.DisplayName, &created, &kid)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, uuid.Nil, ErrNotFound
	}
	if err != nil {
		return User{}, uuid.Nil, fmt.Errorf("identity: key lookup: %w", err)
	}
	if u.ID, err = uuid.Parse(uid); err != nil {
		return User{}, uuid.Nil, err
	}
	if u.CreatedAt, err = dbtime.Parse(created); err != nil {
		return User{}, uuid.Nil, err
	}
	keyID, err := uuid.Parse(kid)
	return u, keyID, err
}
