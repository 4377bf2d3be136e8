package vault

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"testing"
)

// TestBlobLayout checks the stored layout against AES-GCM computed independently: IV (16) | tag (16) |
// ciphertext, where GCM with that 16-byte IV yields ciphertext||tag over the same plaintext and AD.
func TestBlobLayout(t *testing.T) {
	key := make([]byte, KeySize)
	rand.Read(key)
	ad := secretAD("alice", 1, "p")
	for _, n := range []int{0, 1, 15, 16, 17, 1000} {
		plain := bytes.Repeat([]byte{0x5a}, n)
		blob, err := sealBlob(key, plain, ad)
		if err != nil {
			t.Fatal(err)
		}
		if len(blob) != ivSize+tagSize+n {
			t.Fatalf("%d-byte plaintext: blob is %d bytes, want %d", n, len(blob), ivSize+tagSize+n)
		}
		block, _ := aes.NewCipher(key)
		gcm, _ := cipher.NewGCMWithNonceSize(block, 16)
		want := gcm.Seal(nil, blob[:16], plain, ad) // ciphertext || tag
		if !bytes.Equal(blob[32:], want[:n]) {
			t.Fatalf("%d-byte plaintext: ciphertext is not at offset 32", n)
		}
		if !bytes.Equal(blob[16:32], want[n:]) {
			t.Fatalf("%d-byte plaintext: tag is not at offset 16", n)
		}
		got, err := openBlob(key, blob, ad)
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("%d-byte plaintext: open: %v", n, err)
		}
	}
}

// TestAssociatedDataIsUnambiguous: fields that concatenate to the same bytes still bind differently.
func TestAssociatedDataIsUnambiguous(t *testing.T) {
	pairs := [][2][]byte{
		{secretAD("ab", 1, "c"), secretAD("a", 1, "bc")},
		{secretAD("a", 1, "b"), secretAD("a", 2, "b")},
		{dataKeyAD("a", 1, "m"), secretAD("a", 1, "m")},
	}
	for i, p := range pairs {
		if bytes.Equal(p[0], p[1]) {
			t.Errorf("pair %d: same associated data", i)
		}
	}
	key := make([]byte, KeySize)
	blob, err := sealBlob(key, []byte("x"), pairs[0][0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openBlob(key, blob, pairs[0][1]); !errors.Is(err, ErrTampered) {
		t.Fatalf("opened under shifted fields: %v", err)
	}
}
