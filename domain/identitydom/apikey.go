package identitydom

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"math/big"
	"strings"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// The shape of a workbench API key: "wb_" then 43 base62 characters carrying 32 random bytes (62^43
// exceeds 2^256, so 43 characters always suffice; shorter encodings are padded with '0'). The prefix
// makes a leaked key recognisable to secret scanners and tells it apart from an OAuth access token;
// base62 keeps it one word when double-clicked.
const (
	APIKeyPrefix     = "wb_"
	apiKeyRandomLen  = 32
	apiKeyEncodedLen = 43
	// APIKeyLen is the length of a whole secret.
	APIKeyLen = len(APIKeyPrefix) + apiKeyEncodedLen
	// displayChars is how many characters of the secret, after "wb_", the display prefix shows.
	displayChars = 4
	// maxDisplayPrefixLen bounds what MintAPIKey accepts as a display prefix, so a whole secret can
	// never be stored there by mistake.
	maxDisplayPrefixLen = 16
)

// NewAPIKey makes a new secret from 32 bytes of crypto/rand, with the hash that authenticates it and
// its non-secret display prefix ("wb_abcd…"). The secret is shown to its owner once (and, sealed, on
// request); only the hash and prefix go into MintAPIKey or RotateAPIKey. This lives outside Decide,
// which may not draw randomness.
func NewAPIKey() (secret, hash, prefix string) {
	var b [apiKeyRandomLen]byte
	// crypto/rand.Read never returns an error (since Go 1.24 it aborts the program if the system's
	// random source fails), so there is nothing to handle here.
	_, _ = rand.Read(b[:])
	enc := new(big.Int).SetBytes(b[:]).Text(62)
	secret = APIKeyPrefix + strings.Repeat("0", apiKeyEncodedLen-len(enc)) + enc
	return secret, HashAPIKey(secret), DisplayPrefix(secret)
}

// HashAPIKey is the lowercase hex SHA-256 of a secret: what the log and the read models keep and
// what authentication compares. A fast hash is enough because the secret has 256 bits of entropy;
// a password hash would only slow every request down.
func HashAPIKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// VerifyAPIKey reports whether secret hashes to hash, comparing the hashes in constant time.
func VerifyAPIKey(secret, hash string) bool {
	return EqualHashes(HashAPIKey(secret), hash)
}

// EqualHashes compares two hashes in constant time (for equal lengths).
func EqualHashes(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// LooksLikeAPIKey reports whether s has the shape of a workbench API key. It says nothing about
// whether the key is valid; use it to route a bearer token to key or OAuth authentication.
func LooksLikeAPIKey(s string) bool {
	rest, ok := strings.CutPrefix(s, APIKeyPrefix)
	if !ok || len(rest) != apiKeyEncodedLen {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// DisplayPrefix is the short, non-secret form of a key shown in the portal: "wb_" and the first
// four characters after it, then an ellipsis.
func DisplayPrefix(secret string) string {
	rest := strings.TrimPrefix(secret, APIKeyPrefix)
	if len(rest) > displayChars {
		rest = rest[:displayChars]
	}
	return APIKeyPrefix + rest + "…"
}

// keyFields are the parts of a new key that MintAPIKey and RotateAPIKey carry.
type keyFields struct {
	KeyID  uuid.UUID
	Hash   string
	Prefix string
	Sealed domain.Sealed
}

// check validates the fields of a new key on their own (what: the command's name, for messages).
func (k keyFields) check(what string) error {
	if k.KeyID == uuid.Nil {
		return domain.Errorf(domain.CodeInvalid, "%s: no key id", what)
	}
	if !isSHA256Hex(k.Hash) {
		return domain.Errorf(domain.CodeInvalid, "%s: the key hash must be 64 lowercase hex digits (SHA-256)", what)
	}
	if !strings.HasPrefix(k.Prefix, APIKeyPrefix) || len(k.Prefix) > maxDisplayPrefixLen {
		return domain.Errorf(domain.CodeInvalid, "%s: the display prefix must start with %q and be at most %d bytes", what, APIKeyPrefix, maxDisplayPrefixLen)
	}
	return nil
}

// sealedFor checks that a sealed key belongs to user.
func (k keyFields) sealedFor(what string, user uuid.UUID) error {
	// A sealed key must be sealed under its owner's data key: shredding the user then shreds it.
	if !k.Sealed.IsZero() && k.Sealed.Subject != user.String() {
		return domain.Errorf(domain.CodeInvalid, "%s: the sealed key belongs to subject %q, not to user %s", what, k.Sealed.Subject, user)
	}
	return nil
}

// unused reports a conflict when the key id or hash was ever used by this user: ids and secrets are
// single-use, and a reused one would make a retired key authenticate again.
func (k keyFields) unused(what string, s State) error {
	for _, old := range s.Keys {
		if old.KeyID == k.KeyID {
			return domain.Errorf(domain.CodeConflict, "%s: key id %s was already used", what, k.KeyID)
		}
		if old.Hash == k.Hash {
			return domain.Errorf(domain.CodeConflict, "%s: this secret was already used by key %s; make a new one", what, old.KeyID)
		}
	}
	return nil
}

func isSHA256Hex(s string) bool {
	if len(s) != 2*sha256.Size {
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
