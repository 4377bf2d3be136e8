package vault

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Environment variables the master keys come from. The vault only parses their values; reading the
// environment is the caller's job (internal/config).
const (
	EnvKey         = "ENCRYPTION_KEY"
	EnvPreviousKey = "ENCRYPTION_KEY_PREVIOUS"
)

// DefaultKeyFile is the name of the generated key file in the data directory of the embedded default.
const DefaultKeyFile = "encryption.key"

// KeySize is the size of every key the vault uses: AES-256.
const KeySize = 32

// expectedForm is appended to every key parsing error so an operator knows what to supply.
const expectedForm = "want 32 random bytes encoded as base64 (44 characters, e.g. `openssl rand -base64 32`) " +
	"or as hex (64 characters, e.g. `openssl rand -hex 32`)"

// idLabel separates master key ids from any other hash of the key.
const idLabel = "workbench/vault/master-key-id/v1\x00"

// MasterKey is a key-encryption key (ENCRYPTION_KEY): it seals the per-subject data keys and nothing
// else. Its ID is recorded beside every data key it seals, so the vault knows which master opens which
// row. String, GoString and LogValue print only the id, never the key.
type MasterKey struct {
	id  string
	key []byte
}

// newMasterKey wraps 32 key bytes and derives the id: the first 8 bytes of SHA-256 over a fixed label
// and the key, in hex. The id names the key without revealing it.
func newMasterKey(key []byte) MasterKey {
	sum := sha256.Sum256(append([]byte(idLabel), key...))
	k := make([]byte, KeySize)
	copy(k, key)
	return MasterKey{id: hex.EncodeToString(sum[:8]), key: k}
}

// ID names the key, e.g. "3f2a9c0e5b7d1148".
func (k MasterKey) ID() string { return k.id }

// IsZero reports whether k holds no key.
func (k MasterKey) IsZero() bool { return len(k.key) == 0 }

// Equal reports whether k and o are the same key.
func (k MasterKey) Equal(o MasterKey) bool {
	return len(k.key) == len(o.key) && subtle.ConstantTimeCompare(k.key, o.key) == 1
}

// String prints the id only.
func (k MasterKey) String() string { return "MasterKey(" + k.id + ")" }

// GoString prints the id only, so %#v does not leak the key either.
func (k MasterKey) GoString() string { return k.String() }

// LogValue makes slog print the id only.
func (k MasterKey) LogValue() slog.Value { return slog.StringValue(k.String()) }

// Encode returns the key as padded standard base64, the form LoadOrCreateKeyFile writes. It is for
// handing a key to an operator (or a test) once; never log it.
func (k MasterKey) Encode() string { return base64.StdEncoding.EncodeToString(k.key) }

// GenerateMasterKey returns a new random master key.
func GenerateMasterKey() (MasterKey, error) {
	b := make([]byte, KeySize)
	if _, err := rand.Read(b); err != nil {
		return MasterKey{}, fmt.Errorf("vault: generate master key: %w", err)
	}
	return newMasterKey(b), nil
}

// ParseMasterKey reads the value of ENCRYPTION_KEY: 32 bytes as base64 (standard or URL alphabet,
// padded or not) or as 64 hex characters. Surrounding white space is ignored. Every error names
// ENCRYPTION_KEY and the expected form and never repeats the value.
func ParseMasterKey(value string) (MasterKey, error) {
	return parseKey(EnvKey, value)
}

// ParseMasterKeys reads ENCRYPTION_KEY (current) and ENCRYPTION_KEY_PREVIOUS (previous: a
// comma-separated list, possibly empty). Previous keys equal to the current one, or repeated, are
// dropped.
func ParseMasterKeys(current, previous string) (MasterKey, []MasterKey, error) {
	cur, err := parseKey(EnvKey, current)
	if err != nil {
		return MasterKey{}, nil, err
	}
	var prev []MasterKey
	seen := map[string]bool{cur.id: true}
	if strings.TrimSpace(previous) == "" {
		return cur, nil, nil
	}
	for i, item := range strings.Split(previous, ",") {
		k, err := parseKey(fmt.Sprintf("%s (item %d of the comma-separated list)", EnvPreviousKey, i+1), item)
		if err != nil {
			return MasterKey{}, nil, err
		}
		if seen[k.id] {
			continue
		}
		seen[k.id] = true
		prev = append(prev, k)
	}
	return cur, prev, nil
}

// parseKey decodes one key; name says where the value came from (an environment variable or a file)
// and appears in every error.
func parseKey(name, value string) (MasterKey, error) {
	v := strings.TrimSpace(value)
	if v == "" {
		return MasterKey{}, fmt.Errorf("%s is not set or empty: %s", name, expectedForm)
	}
	if len(v) == 2*KeySize {
		// 64 characters: hex. (As base64 they would be 48 bytes, never a key.)
		b, err := hex.DecodeString(v)
		if err != nil {
			return MasterKey{}, fmt.Errorf("%s is 64 characters but not valid hex: %s", name, expectedForm)
		}
		return checkKeyBytes(name, b)
	}
	decoded := -1
	for _, enc := range []*base64.Encoding{
		base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding,
	} {
		if b, err := enc.Strict().DecodeString(v); err == nil {
			if len(b) == KeySize {
				return checkKeyBytes(name, b)
			}
			decoded = len(b)
		}
	}
	switch {
	case isHex(v):
		// Hex of the wrong length (which may also happen to be base64 of the wrong length).
		return MasterKey{}, fmt.Errorf("%s is %d hex characters, not %d: %s", name, len(v), 2*KeySize, expectedForm)
	case decoded >= 0:
		return MasterKey{}, fmt.Errorf("%s decodes to %d bytes, not %d: %s", name, decoded, KeySize, expectedForm)
	default:
		return MasterKey{}, fmt.Errorf("%s is neither base64 nor hex (%d characters): %s", name, len(v), expectedForm)
	}
}

func checkKeyBytes(name string, b []byte) (MasterKey, error) {
	if len(b) != KeySize {
		return MasterKey{}, fmt.Errorf("%s decodes to %d bytes, not %d: %s", name, len(b), KeySize, expectedForm)
	}
	zero := true
	for _, c := range b {
		if c != 0 {
			zero = false
			break
		}
	}
	if zero {
		return MasterKey{}, fmt.Errorf("%s is all zero bytes, which is no key: %s", name, expectedForm)
	}
	return newMasterKey(b), nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// LoadOrCreateKeyFile reads the master key kept in path, or, when path does not exist, generates one and
// writes it there as base64 with mode 0600 (creating the directory with mode 0700). created reports that
// a new key was generated: the caller must warn loudly, because losing that file loses every secret
// sealed under it. This is for the embedded default (`make run` with no ENCRYPTION_KEY); production sets
// ENCRYPTION_KEY. An existing file that the group or others may read or write is refused.
func LoadOrCreateKeyFile(path string) (key MasterKey, created bool, err error) {
	if path == "" {
		return MasterKey{}, false, errors.New("vault: key file: empty path")
	}
	k, err := readKeyFile(path)
	if err == nil {
		return k, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return MasterKey{}, false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return MasterKey{}, false, fmt.Errorf("vault: key file: create directory: %w", err)
	}
	k, err = GenerateMasterKey()
	if err != nil {
		return MasterKey{}, false, err
	}
	// O_EXCL: when two processes start at once, one writes and the other reads what it wrote.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		k, err := readKeyFile(path)
		return k, false, err
	}
	if err != nil {
		return MasterKey{}, false, fmt.Errorf("vault: key file: create %s: %w", path, err)
	}
	_, werr := f.WriteString(k.Encode() + "\n")
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path) //nolint:errcheck // best effort: leave no half-written key behind
		return MasterKey{}, false, fmt.Errorf("vault: key file: write %s: %w", path, werr)
	}
	syncDir(filepath.Dir(path))
	return k, true, nil
}

func readKeyFile(path string) (MasterKey, error) {
	info, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return MasterKey{}, err
		}
		return MasterKey{}, fmt.Errorf("vault: key file: %w", err)
	}
	if !info.Mode().IsRegular() {
		return MasterKey{}, fmt.Errorf("vault: key file %s is not a regular file", path)
	}
	if perm := info.Mode().Perm(); runtime.GOOS != "windows" && perm&0o077 != 0 {
		return MasterKey{}, fmt.Errorf("vault: key file %s has mode %04o, so other users may read it; "+
			"it must be readable by its owner only: run `chmod 600 %s` (and rotate the key if others could read it)",
			path, perm, path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return MasterKey{}, fmt.Errorf("vault: key file: %w", err)
	}
	return parseKey("key file "+path, string(b))
}

// syncDir flushes a directory entry so a newly created file survives a crash. Errors are ignored:
// some file systems do not support it, and the file itself is already synced.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync() //nolint:errcheck
	d.Close()
}
