package vault

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
)

// DerivedKey returns a 32-byte key for label, derived from data key version 1 of subject (created
// on first use, by whichever replica gets there first). Unlike a key derived from the master key, it
// stays the same across a master-key rotation, which reseals data keys without changing them: use it
// for keyed hashes that are written into the log and must be computed again later (the hash that
// names an invited address). Shredding subject changes it for good.
func (v *Vault) DerivedKey(ctx context.Context, subject, label string) ([]byte, error) {
	key, err := v.derivedKey(ctx, subject, label)
	v.failed("derive", err)
	return key, err
}

func (v *Vault) derivedKey(ctx context.Context, subject, label string) ([]byte, error) {
	if err := checkSubject(subject); err != nil {
		return nil, err
	}
	if label == "" {
		return nil, errors.New("vault: derive: empty label")
	}
	sk, err := v.subject(ctx, subject)
	if errors.Is(err, errNoKeys) {
		if err := v.createFirstKey(ctx, subject); err != nil {
			return nil, fmt.Errorf("vault: derive for %q: %w", subject, err)
		}
		sk, err = v.subject(ctx, subject)
		if errors.Is(err, errNoKeys) {
			err = v.whyNoKeys(ctx, subject)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("vault: derive for %q: %w", subject, err)
	}
	key, ok := sk.keys[1]
	if !ok {
		return nil, fmt.Errorf("vault: derive for %q: %w", subject, sk.errs[1])
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("workbench/vault-derived/v1\x00" + label))
	return mac.Sum(nil), nil
}
