package jots

import (
	"context"
	"errors"
	"runtime"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/workbench/workbench/domain"
)

// maxPasswordBytes is bcrypt's input limit: it ignores anything after 72 bytes, so longer passwords are
// refused rather than silently truncated.
const maxPasswordBytes = 72

// DefaultBcryptWait is how long a password check waits for a free bcrypt slot before it is refused as
// busy.
const DefaultBcryptWait = 250 * time.Millisecond

// DefaultBcryptSlots is how many bcrypt computations may run at once by default: half the CPUs the Go
// runtime uses, at least one, so that password work can never take every CPU from the rest of the
// server.
func DefaultBcryptSlots() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// ErrPasswordBusy is the cause of the CodeUnavailable error CheckPassword returns when every bcrypt
// slot stayed taken for the whole wait.
var ErrPasswordBusy = errors.New("jots: too many password checks at once")

// bcryptSlots is a counting semaphore over bcrypt work.
type bcryptSlots chan struct{}

// acquire takes a slot, waiting at most wait (no limit but ctx's when wait is 0).
func (s bcryptSlots) acquire(ctx context.Context, wait time.Duration) error {
	select {
	case s <- struct{}{}:
		return nil
	default:
	}
	var timeout <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case s <- struct{}{}:
		return nil
	case <-timeout:
		return &domain.Error{Code: domain.CodeUnavailable, Message: "too many password checks are running; try again in a moment", Err: ErrPasswordBusy}
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s bcryptSlots) release() { <-s }

func (s *Service) hashPassword(ctx context.Context, pw string) (string, error) {
	switch {
	case pw == "":
		return "", domain.Errorf(domain.CodeInvalid, "password: must not be empty")
	case len(pw) > maxPasswordBytes:
		return "", domain.Errorf(domain.CodeInvalid, "password: at most %d bytes", maxPasswordBytes)
	}
	// Setting a password is an authenticated tool call: it waits for a slot as long as its context
	// allows rather than failing.
	if err := s.bcrypt.acquire(ctx, 0); err != nil {
		return "", err
	}
	defer s.bcrypt.release()
	h, err := bcrypt.GenerateFromPassword([]byte(pw), s.bcryptCost)
	if err != nil {
		return "", err
	}
	return string(h), nil
}

// CheckPassword reports whether pw is the password whose bcrypt hash is hash, running the comparison
// in one of the service's bcrypt slots. When no slot frees up within the wait (Options.BcryptWait) it
// answers a CodeUnavailable error caused by ErrPasswordBusy, without computing anything: a flood of
// guesses then costs the server at most its slots' worth of CPU.
func (s *Service) CheckPassword(ctx context.Context, hash, pw string) (bool, error) {
	if hash == "" || len(pw) > maxPasswordBytes {
		return false, nil
	}
	if err := s.bcrypt.acquire(ctx, s.bcryptWait); err != nil {
		return false, err
	}
	defer s.bcrypt.release()
	return CheckPassword(hash, pw), nil
}

// CheckPassword reports whether pw is the password whose bcrypt hash is hash. It takes bcrypt's
// constant time for any candidate of the right hash, and no slot: servers call Service.CheckPassword.
func CheckPassword(hash, pw string) bool {
	if hash == "" || len(pw) > maxPasswordBytes {
		return false
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(pw)) == nil
}
