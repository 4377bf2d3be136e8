// Package identity projects the identity events into the users and api_keys tables: who exists, and
// which API key hash authenticates whom. It also answers the lookups the HTTP layer needs (by key
// hash, by email, by id).
package identityrm

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
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/dbtime"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/profile"
)

// Name is the projection's checkpoint name.
const Name = "identity"

// Projection keeps users and api_keys.
type Projection struct {
	codec  *eventstore.JSONCodec[domain.Event]
	opener profile.Opener
}

// WithOpener gives the projection the vault, to read the emails that newer user_created events seal
// (projections/profile). It returns p.
func (p *Projection) WithOpener(o profile.Opener) *Projection {
	p.opener = o
	return p
}

var _ projections.Projection = (*Projection)(nil)

// New returns the projection.
func New() *Projection {
	return &Projection{codec: eventstore.NewJSONCodec(identitydom.Events()...)}
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
	case identitydom.TypeUserCreated, identitydom.TypeAPIKeyMinted, identitydom.TypeAPIKeyRotated, identitydom.TypeAPIKeyRevoked, identitydom.TypeUserErased:
	default:
		return nil
	}
	ev, err := p.codec.Decode(env.Type, env.SchemaVersion, env.Data)
	if err != nil {
		return err
	}
	switch e := ev.(type) {
	case identitydom.UserCreated:
		email, name, oerr := profile.Open(ctx, p.opener, e)
		if errors.Is(oerr, profile.ErrSealed) {
			email, name, oerr = profile.Placeholder(e), "", nil
		}
		if oerr != nil {
			return oerr
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO users (user_id, email, display_name, created_at) VALUES ($1, $2, $3, $4)`,
			e.UserID.String(), email, name, dbtime.Format(e.CreatedAt))
	case identitydom.APIKeyMinted:
		err = insertKey(ctx, tx, e.UserID, e.AgentID, e.KeyID, e.Hash, e.Prefix, e.Sealed, e.MintedAt)
	case identitydom.APIKeyRotated:
		if err = revokeKey(ctx, tx, e.OldKeyID, e.RotatedAt); err == nil {
			err = insertKey(ctx, tx, e.UserID, e.AgentID, e.KeyID, e.Hash, e.Prefix, e.Sealed, e.RotatedAt)
		}
	case identitydom.APIKeyRevoked:
		err = revokeKey(ctx, tx, e.KeyID, e.RevokedAt)
	case identitydom.UserErased:
		err = eraseUser(ctx, tx, e)
	}
	return err
}

// insertKey writes a key with the agent it acts as; an event without an agent names the user's
// default agent, and the row says so explicitly (rows written before the column existed hold NULL,
// which the readers read the same way).
func insertKey(ctx context.Context, tx *sql.Tx, user, agent, key uuid.UUID, hash, prefix string, sealed domain.Sealed, at time.Time) error {
	var sealedJSON sql.NullString
	if !sealed.IsZero() {
		b, err := json.Marshal(sealed)
		if err != nil {
			return err
		}
		sealedJSON = sql.NullString{String: string(b), Valid: true}
	}
	if agent == uuid.Nil {
		agent = identitydom.DefaultAgentID(user)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO api_keys (key_id, user_id, agent_id, hash, prefix, sealed, minted_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		key.String(), user.String(), agent.String(), hash, prefix, sealedJSON, dbtime.Format(at))
	return err
}

// eraseUser purges the user's personal data: the email becomes the pseudonym, the display name goes,
// and every key is revoked with its sealed copy dropped (it was sealed for the shredded subject).
func eraseUser(ctx context.Context, tx *sql.Tx, e identitydom.UserErased) error {
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
	AgentID  uuid.UUID // never uuid.Nil: a key from before agents is the default agent's
	Prefix   string
	Sealed   domain.Sealed
	MintedAt time.Time
}

// Reader answers identity questions from the read model.
type Reader struct{ DB *sql.DB }

// ErrNotFound is returned when no row matches.
var ErrNotFound = errors.New("identity: not found")

// KeyOwner is who a live key authenticates: its user, the key's id, and the agent it acts as.
type KeyOwner struct {
	User    User
	KeyID   uuid.UUID
	AgentID uuid.UUID // never uuid.Nil: a key from before agents is the default agent's
}

const keyOwnerQuery = `SELECT u.user_id, u.email, u.display_name, u.created_at, k.key_id, k.agent_id
		FROM api_keys k JOIN users u ON u.user_id = k.user_id
		WHERE k.hash = $1 AND k.revoked_at IS NULL AND u.erased_at IS NULL`

// UserByKeyHash returns the owner and id of the live (not revoked) key with this hash.
func (r Reader) UserByKeyHash(ctx context.Context, hash string) (User, uuid.UUID, error) {
	o, err := r.OwnerByKeyHash(ctx, hash)
	return o.User, o.KeyID, err
}

// OwnerByKeyHash returns the owner, id and agent of the live (not revoked) key with this hash.
func (r Reader) OwnerByKeyHash(ctx context.Context, hash string) (KeyOwner, error) {
	return scanKeyOwner(r.DB.QueryRowContext(ctx, keyOwnerQuery, hash))
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

// LiveKey returns the live API key of the user's default agent.
func (r Reader) LiveKey(ctx context.Context, user uuid.UUID) (APIKey, error) {
	return r.LiveKeyFor(ctx, user, identitydom.DefaultAgentID(user))
}

// LiveKeyFor returns the live API key of one of the user's agents.
func (r Reader) LiveKeyFor(ctx context.Context, user, agent uuid.UUID) (APIKey, error) {
	q := `SELECT key_id, agent_id, prefix, sealed, minted_at FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL AND agent_id = $2`
	if agent == identitydom.DefaultAgentID(user) {
		q = `SELECT key_id, agent_id, prefix, sealed, minted_at FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL AND (agent_id = $2 OR agent_id IS NULL)`
	}
	return scanKey(user, r.DB.QueryRowContext(ctx, q, user.String(), agent.String()))
}

// LiveKeys returns every live API key of the user, one per agent at most, oldest first.
func (r Reader) LiveKeys(ctx context.Context, user uuid.UUID) ([]APIKey, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT key_id, agent_id, prefix, sealed, minted_at FROM api_keys
		WHERE user_id = $1 AND revoked_at IS NULL ORDER BY minted_at, key_id`, user.String())
	if err != nil {
		return nil, fmt.Errorf("identity: keys: %w", err)
	}
	defer rows.Close()
	var out []APIKey
	for rows.Next() {
		k, err := scanKey(user, rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

func scanKey(user uuid.UUID, row interface{ Scan(...any) error }) (APIKey, error) {
	var k APIKey
	var kid, minted string
	var sealed, agent sql.NullString
	err := row.Scan(&kid, &agent, &k.Prefix, &sealed, &minted)
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
	if k.AgentID, err = agentOf(user, agent); err != nil {
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
	stmt, err := db.PrepareContext(ctx, keyOwnerQuery)
	if err != nil {
		return nil, fmt.Errorf("identity: prepare key lookup: %w", err)
	}
	return &KeyLookup{stmt: stmt}, nil
}

// Close releases the statement.
func (l *KeyLookup) Close() error { return l.stmt.Close() }

// UserByKeyHash returns the owner and id of the live (not revoked) key with this hash.
func (l *KeyLookup) UserByKeyHash(ctx context.Context, hash string) (User, uuid.UUID, error) {
	o, err := l.OwnerByKeyHash(ctx, hash)
	return o.User, o.KeyID, err
}

// OwnerByKeyHash returns the owner, id and agent of the live (not revoked) key with this hash.
func (l *KeyLookup) OwnerByKeyHash(ctx context.Context, hash string) (KeyOwner, error) {
	return scanKeyOwner(l.stmt.QueryRowContext(ctx, hash))
}

func scanKeyOwner(row *sql.Row) (KeyOwner, error) {
	var u User
	var uid, kid, created string
	var agent sql.NullString
	err := row.Scan(&uid, &u.Email, &u.DisplayName, &created, &kid, &agent)
	if errors.Is(err, sql.ErrNoRows) {
		return KeyOwner{}, ErrNotFound
	}
	if err != nil {
		return KeyOwner{}, fmt.Errorf("identity: key lookup: %w", err)
	}
	if u.ID, err = uuid.Parse(uid); err != nil {
		return KeyOwner{}, err
	}
	if u.CreatedAt, err = dbtime.Parse(created); err != nil {
		return KeyOwner{}, err
	}
	keyID, err := uuid.Parse(kid)
	if err != nil {
		return KeyOwner{}, err
	}
	agentID, err := agentOf(u.ID, agent)
	return KeyOwner{User: u, KeyID: keyID, AgentID: agentID}, err
}

// agentOf reads an api_keys.agent_id: NULL (a row from before agents) is the user's default agent.
func agentOf(user uuid.UUID, agent sql.NullString) (uuid.UUID, error) {
	if !agent.Valid {
		return identitydom.DefaultAgentID(user), nil
	}
	return uuid.Parse(agent.String)
}
