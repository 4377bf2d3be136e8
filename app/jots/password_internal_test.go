package jots

import (
	"context"
	"errors"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/workbench/workbench/domain"
)

// A password check that cannot get a bcrypt slot within the wait is refused as busy without
// computing anything; once a slot is free it runs. No timing is asserted: the slot is held by the test.
func TestCheckPasswordWaitsForASlot(t *testing.T) {
	h, err := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	s := &Service{bcrypt: make(bcryptSlots, 1), bcryptWait: 10 * time.Millisecond}
	ctx := context.Background()
	if err := s.bcrypt.acquire(ctx, 0); err != nil {
		t.Fatal(err)
	}
	ok, err := s.CheckPassword(ctx, string(h), "pw")
	if ok || !errors.Is(err, ErrPasswordBusy) || domain.ErrorCode(err) != domain.CodeUnavailable {
		t.Fatalf("with every slot taken: %v %v", ok, err)
	}
	// Setting a password waits for its context instead.
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := s.hashPassword(cctx, "new"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("hash with every slot taken: %v", err)
	}
	s.bcrypt.release()
	if ok, err := s.CheckPassword(ctx, string(h), "pw"); !ok || err != nil {
		t.Fatalf("with a free slot: %v %v", ok, err)
	}
	if ok, err := s.CheckPassword(ctx, string(h), "wrong"); ok || err != nil {
		t.Fatalf("a wrong password: %v %v", ok, err)
	}
	if len(s.bcrypt) != 0 {
		t.Fatalf("%d slots still held", len(s.bcrypt))
	}
}
