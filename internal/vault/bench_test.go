package vault_test

import (
	"context"
	"testing"
)

// BenchmarkSeal and BenchmarkOpen measure the hot path with the subject's data key cached: one AES-GCM
// operation on a 256-byte secret (a typical OAuth token set), no database round trip.
func BenchmarkSeal(b *testing.B) {
	ctx := context.Background()
	db, store := openSQLite(b)
	v := newVault(b, db, store, mustKey(b), nil, nil)
	secret := make([]byte, 256)
	b.SetBytes(int64(len(secret)))
	for b.Loop() {
		if _, err := v.Seal(ctx, "alice", purpose, secret); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpen(b *testing.B) {
	ctx := context.Background()
	db, store := openSQLite(b)
	v := newVault(b, db, store, mustKey(b), nil, nil)
	secret := make([]byte, 256)
	s, err := v.Seal(ctx, "alice", purpose, secret)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(secret)))
	for b.Loop() {
		if _, err := v.Open(ctx, s, purpose); err != nil {
			b.Fatal(err)
		}
	}
}
