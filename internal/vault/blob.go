package vault

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/binary"
	"fmt"
)

// Layout of every blob the vault writes (sealed secrets and sealed data keys alike):
//
//	IV (16 bytes) | GCM tag (16 bytes) | ciphertext (as long as the plaintext)
//
// AES-256 in Galois/Counter Mode (NIST SP 800-38D) with a random 128-bit IV. GCM accepts IVs other than
// 96 bits by hashing them into the initial counter block (SP 800-38D §7.1, step 2); Go's cipher.Seal
// returns ciphertext||tag, which sealBlob rearranges into the stored order.
const (
	ivSize   = 16
	tagSize  = 16
	overhead = ivSize + tagSize
)

// Associated-data labels: every kind of blob has its own, so a blob of one kind never opens as another.
const (
	labelSecret  = "workbench/vault/secret/v1"
	labelDataKey = "workbench/vault/data-key/v1"
)

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("vault: aes: %w", err)
	}
	aead, err := cipher.NewGCMWithNonceSize(block, ivSize)
	if err != nil {
		return nil, fmt.Errorf("vault: gcm: %w", err)
	}
	return aead, nil
}

// sealBlob encrypts plaintext under key, authenticating ad as well, and returns IV | tag | ciphertext.
func sealBlob(key, plaintext, ad []byte) ([]byte, error) {
	aead, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	out := make([]byte, overhead, overhead+len(plaintext)+tagSize)
	if _, err := rand.Read(out[:ivSize]); err != nil {
		return nil, fmt.Errorf("vault: random iv: %w", err)
	}
	// Seal appends ciphertext||tag after the 32 reserved bytes; move the tag into its slot.
	sealed := aead.Seal(out, out[:ivSize], plaintext, ad)
	ctLen := len(plaintext)
	copy(sealed[ivSize:overhead], sealed[overhead+ctLen:])
	return sealed[:overhead+ctLen], nil
}

// openBlob reverses sealBlob. Any change to the blob or to ad makes it fail with ErrTampered.
func openBlob(key, blob, ad []byte) ([]byte, error) {
	if len(blob) < overhead {
		return nil, fmt.Errorf("%w: blob is %d bytes, shorter than IV and tag (%d)", ErrTampered, len(blob), overhead)
	}
	aead, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	iv, tag, ct := blob[:ivSize], blob[ivSize:overhead], blob[overhead:]
	buf := make([]byte, 0, len(ct)+tagSize)
	buf = append(append(buf, ct...), tag...)
	plain, err := aead.Open(buf[:0], iv, buf, ad)
	if err != nil {
		return nil, ErrTampered
	}
	return plain, nil
}

// associatedData builds an unambiguous byte string from a label and fields: the label, then each field
// as a 4-byte big-endian length and its bytes. Lengths keep ("ab","c") and ("a","bc") apart.
func associatedData(label string, fields ...[]byte) []byte {
	n := len(label)
	for _, f := range fields {
		n += 4 + len(f)
	}
	out := make([]byte, 0, n)
	out = append(out, label...)
	for _, f := range fields {
		out = binary.BigEndian.AppendUint32(out, uint32(len(f)))
		out = append(out, f...)
	}
	return out
}

func versionBytes(v int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

// secretAD binds a sealed secret to its subject, the version of the subject's data key and the purpose
// the caller gave.
func secretAD(subject string, version int, purpose string) []byte {
	return associatedData(labelSecret, []byte(subject), versionBytes(version), []byte(purpose))
}

// dataKeyAD binds a sealed data key to its subject, its version and the master key that sealed it.
func dataKeyAD(subject string, version int, masterID string) []byte {
	return associatedData(labelDataKey, []byte(subject), versionBytes(version), []byte(masterID))
}
