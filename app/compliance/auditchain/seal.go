package auditchain

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/workbench/workbench/eventstore"
)

// sealLabel starts the signed message of every seal.
const sealLabel = "workbench-audit-seal-v1"

// Seal is a signed checkpoint of the chain head: after Seq events, the last at Position, the chain hash
// was Head. Anyone holding the public key can check it; anchored outside the system (`workbench audit
// seal-head`), it also proves the log was at least that long.
type Seal struct {
	Seq       int64               `json:"seq"`
	Position  eventstore.Position `json:"position"`
	Head      Hash                `json:"-"`
	SealedAt  time.Time           `json:"sealed_at"`
	KeyID     string              `json:"key_id"`
	Signature []byte              `json:"-"`
}

// Message is what the key signs:
//
//	str(label) | i64 seq | u64 position.commit | u64 position.prepare | head (32 bytes)
//	| str(sealed_at, RFC 3339 with nanoseconds, UTC) | str(key id)
func (s Seal) Message() []byte {
	b := appendStr(nil, sealLabel)
	b = binary.BigEndian.AppendUint64(b, uint64(s.Seq))
	b = binary.BigEndian.AppendUint64(b, s.Position.Commit)
	b = binary.BigEndian.AppendUint64(b, s.Position.Prepare)
	b = append(b, s.Head[:]...)
	b = appendStr(b, s.SealedAt.UTC().Format(time.RFC3339Nano))
	b = appendStr(b, s.KeyID)
	return b
}

// Verify reports whether s carries a valid signature by pub, and that pub is the key s names.
func (s Seal) Verify(pub ed25519.PublicKey) bool {
	return len(pub) == ed25519.PublicKeySize && KeyID(pub) == s.KeyID && ed25519.Verify(pub, s.Message(), s.Signature)
}

// sign fills in the signature by priv.
func (s *Seal) sign(priv ed25519.PrivateKey) {
	s.Signature = ed25519.Sign(priv, s.Message())
}

// KeyID names a public key: hex of the first 8 bytes of SHA-256 over it.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:8])
}

// sealJSON is a seal as `workbench audit seal-head` prints it.
type sealJSON struct {
	Seq       int64  `json:"seq"`
	Position  string `json:"position"`
	Head      string `json:"head"`
	SealedAt  string `json:"sealed_at"`
	KeyID     string `json:"key_id"`
	Signature string `json:"signature"`
}

// MarshalJSON writes the seal with hex head and signature and the position as "commit/prepare".
func (s Seal) MarshalJSON() ([]byte, error) {
	return json.Marshal(sealJSON{
		Seq: s.Seq, Position: s.Position.String(), Head: hex.EncodeToString(s.Head[:]),
		SealedAt: s.SealedAt.UTC().Format(time.RFC3339Nano), KeyID: s.KeyID, Signature: hex.EncodeToString(s.Signature),
	})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *Seal) UnmarshalJSON(b []byte) error {
	var j sealJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	pos, err := eventstore.ParsePosition(j.Position)
	if err != nil {
		return err
	}
	head, err := hex.DecodeString(j.Head)
	if err != nil || len(head) != HashSize {
		return fmt.Errorf("auditchain: seal head %q is not %d hex bytes", j.Head, HashSize)
	}
	sig, err := hex.DecodeString(j.Signature)
	if err != nil {
		return fmt.Errorf("auditchain: seal signature is not hex")
	}
	at, err := time.Parse(time.RFC3339Nano, j.SealedAt)
	if err != nil {
		return fmt.Errorf("auditchain: seal time: %w", err)
	}
	*s = Seal{Seq: j.Seq, Position: pos, SealedAt: at.UTC(), KeyID: j.KeyID, Signature: sig}
	copy(s.Head[:], head)
	return nil
}
