package auditchain

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/workbench/workbench/domain"
)

// The sealing key's place in the vault: its own subject (never a user), and a purpose that binds the
// sealed blob to this use.
const (
	KeySubject = "audit:seal-key"
	KeyPurpose = "audit:seal-key:ed25519"
)

// Vault is the part of internal/vault the key needs.
type Vault interface {
	Seal(ctx context.Context, subject, purpose string, plaintext []byte) (domain.Sealed, error)
	Open(ctx context.Context, sealed domain.Sealed, purpose string) ([]byte, error)
}

// WriteGate serializes the writers of one SQLite file inside the process (eventstore/sqlite.WriteGate);
// nil on PostgreSQL.
type WriteGate interface {
	Lock(ctx context.Context) error
	Unlock()
}

// ErrNoKey says no sealing key has been created yet: the sealer has never run.
var ErrNoKey = errors.New("auditchain: no sealing key yet (the sealer creates it when `workbench serve` first runs)")

// LoadKey opens the sealing key. The public key is derived from the private one, which the vault alone
// can open, so a public key swapped in the table is noticed (ErrKeyMismatch) rather than trusted.
func LoadKey(ctx context.Context, db *sql.DB, v Vault) (ed25519.PrivateKey, error) {
	var pub []byte
	var sealedJSON string
	err := db.QueryRowContext(ctx, `SELECT public_key, private_key FROM audit_seal_keys WHERE id = 1`).Scan(&pub, &sealedJSON)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNoKey
	}
	if err != nil {
		return nil, fmt.Errorf("auditchain: read sealing key: %w", err)
	}
	var sealed domain.Sealed
	if err := json.Unmarshal([]byte(sealedJSON), &sealed); err != nil {
		return nil, fmt.Errorf("auditchain: sealing key row: %w", err)
	}
	if sealed.Subject != KeySubject {
		return nil, fmt.Errorf("auditchain: sealing key is sealed for subject %q, not %q", sealed.Subject, KeySubject)
	}
	seed, err := v.Open(ctx, sealed, KeyPurpose)
	if err != nil {
		return nil, fmt.Errorf("auditchain: open sealing key: %w", err)
	}
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("auditchain: sealing key is %d bytes, want %d", len(seed), ed25519.SeedSize)
	}
	priv := ed25519.NewKeyFromSeed(seed)
	if !priv.Public().(ed25519.PublicKey).Equal(ed25519.PublicKey(pub)) {
		return nil, ErrKeyMismatch
	}
	return priv, nil
}

// ErrKeyMismatch says the public key stored beside the sealing key is not its public key: the table was
// altered.
var ErrKeyMismatch = errors.New("auditchain: the stored public key does not belong to the sealing key (audit_seal_keys was altered)")

// LoadOrCreateKey opens the sealing key, creating it on first use: 32 random bytes sealed by the vault
// under KeySubject. Two replicas creating it at once agree on one: the row is inserted only if absent,
// and both then read the row that won.
func LoadOrCreateKey(ctx context.Context, db *sql.DB, v Vault, gate WriteGate, now time.Time) (ed25519.PrivateKey, error) {
	priv, err := LoadKey(ctx, db, v)
	if !errors.Is(err, ErrNoKey) {
		return priv, err
	}
	seed := make([]byte, ed25519.SeedSize)
	if _, err := rand.Read(seed); err != nil {
		return nil, err
	}
	sealed, err := v.Seal(ctx, KeySubject, KeyPurpose, seed)
	if err != nil {
		return nil, fmt.Errorf("auditchain: seal new sealing key: %w", err)
	}
	sealedJSON, err := json.Marshal(sealed)
	if err != nil {
		return nil, err
	}
	pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	if gate != nil {
		if err := gate.Lock(ctx); err != nil {
			return nil, err
		}
		defer gate.Unlock()
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO audit_seal_keys (id, key_id, public_key, private_key, created_at)
		VALUES (1, $1, $2, $3, $4) ON CONFLICT (id) DO NOTHING`,
		KeyID(pub), []byte(pub), string(sealedJSON), now.UTC().Format(time.RFC3339Nano)); err != nil {
		return nil, fmt.Errorf("auditchain: store sealing key: %w", err)
	}
	return LoadKey(ctx, db, v)
}

// StoredPublicKey reads the public key kept beside the sealing key, without opening the private key.
// Prefer the public key of LoadKey, or one kept outside the system: whoever can write the table can
// replace this one.
func StoredPublicKey(ctx context.Context, db *sql.DB) (ed25519.PublicKey, error) {
	var pub []byte
	err := db.QueryRowContext(ctx, `SELECT public_key FROM audit_seal_keys WHERE id = 1`).Scan(&pub)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNoKey
	}
	if err != nil {
		return nil, fmt.Errorf("auditchain: read public key: %w", err)
	}
	if len(pub) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("auditchain: stored public key is %d bytes", len(pub))
	}
	return ed25519.PublicKey(pub), nil
}
