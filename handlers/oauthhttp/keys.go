package oauthhttp

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
)

// keys are the server's secrets, all derived from the one signing key Main hands over (itself derived
// from the vault's master key, so every replica sharing ENCRYPTION_KEY derives the same keys and
// rotating the master key invalidates every token issued before).
type keys struct {
	// signer signs access tokens (ES256, RFC 7518 section 3.4).
	signer *ecdsa.PrivateKey
	// kid names signer's public key in the JWT header.
	kid string
	// hmacSecret keys fosite's HMAC strategy for authorization codes and refresh tokens.
	hmacSecret []byte
	// csrf keys the consent form's anti-forgery tokens.
	csrf []byte
}

func derive(seed []byte, label string) []byte {
	mac := hmac.New(sha256.New, seed)
	mac.Write([]byte("workbench/oauth/v1\x00" + label))
	return mac.Sum(nil)
}

func newKeys(seed []byte) (*keys, error) {
	if len(seed) < 32 {
		return nil, errors.New("oauth: the signing key must be at least 32 bytes")
	}
	var signer *ecdsa.PrivateKey
	// A 32-byte HMAC output is a valid P-256 scalar unless it is zero or not below the group order,
	// which happens with probability about 2^-32; the counter steps past such a value.
	for i := 0; signer == nil; i++ {
		if i == 16 {
			return nil, errors.New("oauth: could not derive a P-256 key")
		}
		k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), derive(seed, fmt.Sprintf("access-token-es256/%d", i)))
		if err == nil {
			signer = k
		}
	}
	der, err := x509.MarshalPKIXPublicKey(&signer.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("oauth: encode public key: %w", err)
	}
	sum := sha256.Sum256(der)
	return &keys{
		signer:     signer,
		kid:        base64.RawURLEncoding.EncodeToString(sum[:12]),
		hmacSecret: derive(seed, "fosite-hmac"),
		csrf:       derive(seed, "consent-csrf"),
	}, nil
}
