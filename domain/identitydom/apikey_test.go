package identitydom_test

import (
	"strings"
	"testing"

	"github.com/workbench/workbench/domain/identitydom"
)

func TestNewAPIKey(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		secret, hash, prefix := identitydom.NewAPIKey()
		if !identitydom.LooksLikeAPIKey(secret) || len(secret) != identitydom.APIKeyLen {
			t.Fatalf("NewAPIKey secret %q does not look like a key", secret)
		}
		if hash != identitydom.HashAPIKey(secret) || !identitydom.VerifyAPIKey(secret, hash) {
			t.Fatalf("NewAPIKey hash %s is not the hash of its secret", hash)
		}
		if !strings.HasPrefix(prefix, "wb_") || !strings.HasPrefix(secret, strings.TrimSuffix(prefix, "…")) || len(prefix) >= len(secret)/2 {
			t.Fatalf("prefix %q is not a short display form of %q", prefix, secret)
		}
		if seen[secret] {
			t.Fatalf("NewAPIKey repeated %q", secret)
		}
		seen[secret] = true
	}
}

func TestHashAPIKey(t *testing.T) {
	// The SHA-256 test vector of FIPS 180-2, appendix B.1.
	if got := identitydom.HashAPIKey("abc"); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("HashAPIKey(abc) = %s", got)
	}
}

func TestVerifyAPIKey(t *testing.T) {
	tests := []struct {
		name, secret, hash string
		want               bool
	}{
		{"right secret", secretA, hashA, true},
		{"other secret", secretB, hashA, false},
		{"empty secret", "", hashA, false},
		{"upper-case hash", secretA, strings.ToUpper(hashA), false},
		{"truncated hash", secretA, hashA[:63], false},
		{"empty hash", secretA, "", false},
		{"secret as hash", secretA, secretA, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := identitydom.VerifyAPIKey(tt.secret, tt.hash); got != tt.want {
				t.Fatalf("VerifyAPIKey = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLooksLikeAPIKey(t *testing.T) {
	tests := []struct {
		name, in string
		want     bool
	}{
		{"key", secretA, true},
		{"digits", "wb_" + strings.Repeat("0", 43), true},
		{"no prefix", strings.Repeat("a", 46), false},
		{"other prefix", "sk_" + strings.Repeat("a", 43), false},
		{"short", "wb_" + strings.Repeat("a", 42), false},
		{"long", "wb_" + strings.Repeat("a", 44), false},
		{"base64url character", "wb_" + strings.Repeat("a", 42) + "-", false},
		{"a JWT", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := identitydom.LooksLikeAPIKey(tt.in); got != tt.want {
				t.Fatalf("LooksLikeAPIKey(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestDisplayPrefix(t *testing.T) {
	if got := identitydom.DisplayPrefix("wb_abcdefgh"); got != "wb_abcd…" {
		t.Fatalf("DisplayPrefix = %q, want wb_abcd…", got)
	}
}
