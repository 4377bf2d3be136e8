package signindom_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/signindom"
)

var (
	t0   = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	hash = strings.Repeat("ab", 32)
	user = uuid.MustParse("11111111-2222-3333-4444-555555555555")
)

func issue() signindom.IssueLink {
	return signindom.IssueLink{LinkHash: hash, UserID: user, Email: "a@example.com", Purpose: "startup", At: t0, ExpiresAt: t0.Add(signindom.LinkTTL)}
}

func fold(events ...domain.Event) signindom.Link {
	l := signindom.Initial()
	for _, e := range events {
		l = signindom.Evolve(l, e)
	}
	return l
}

func TestDecide(t *testing.T) {
	issued := signindom.LinkIssued{LinkHash: hash, UserID: user, Email: "a@example.com", IssuedAt: t0, ExpiresAt: t0.Add(signindom.LinkTTL)}
	redeemed := signindom.LinkRedeemed{LinkHash: hash, UserID: user, RedeemedAt: t0.Add(time.Minute)}
	tests := []struct {
		name    string
		past    []domain.Event
		cmd     signindom.Command
		code    domain.Code // "" means accepted
		cause   error
		newType string
	}{
		{"issue a fresh link", nil, issue(), "", nil, signindom.TypeLinkIssued},
		{"issue twice", []domain.Event{issued}, issue(), domain.CodeConflict, nil, ""},
		{"issue with a short hash", nil, func() signindom.Command { c := issue(); c.LinkHash = "abc"; return c }(), domain.CodeInvalid, nil, ""},
		{"issue with an upper-case hash", nil, func() signindom.Command { c := issue(); c.LinkHash = strings.ToUpper(hash); return c }(), domain.CodeInvalid, nil, ""},
		{"issue for no user", nil, func() signindom.Command { c := issue(); c.UserID = uuid.Nil; return c }(), domain.CodeInvalid, nil, ""},
		{"issue without time", nil, func() signindom.Command { c := issue(); c.At = time.Time{}; return c }(), domain.CodeInvalid, nil, ""},
		{"issue already expired", nil, func() signindom.Command { c := issue(); c.ExpiresAt = t0; return c }(), domain.CodeInvalid, nil, ""},
		{"redeem in time", []domain.Event{issued}, signindom.RedeemLink{At: t0.Add(time.Minute)}, "", nil, signindom.TypeLinkRedeemed},
		{"redeem a second before expiry", []domain.Event{issued}, signindom.RedeemLink{At: t0.Add(signindom.LinkTTL - time.Second)}, "", nil, signindom.TypeLinkRedeemed},
		{"redeem at expiry", []domain.Event{issued}, signindom.RedeemLink{At: t0.Add(signindom.LinkTTL)}, domain.CodeConflict, signindom.ErrLinkExpired, ""},
		{"redeem twice", []domain.Event{issued, redeemed}, signindom.RedeemLink{At: t0.Add(2 * time.Minute)}, domain.CodeConflict, signindom.ErrLinkUsed, ""},
		{"redeem an unknown link", nil, signindom.RedeemLink{At: t0}, domain.CodeNotFound, signindom.ErrUnknownLink, ""},
		{"redeem without time", []domain.Event{issued}, signindom.RedeemLink{}, domain.CodeInvalid, nil, ""},
		{"no command", nil, nil, domain.CodeInvalid, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events, err := signindom.Decide(fold(tt.past...), tt.cmd)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if len(events) != 1 || events[0].EventType() != tt.newType {
					t.Fatalf("events = %#v, want one %s", events, tt.newType)
				}
				return
			}
			if got := domain.ErrorCode(err); got != tt.code {
				t.Fatalf("code = %s (%v), want %s", got, err, tt.code)
			}
			if tt.cause != nil && !errors.Is(err, tt.cause) {
				t.Fatalf("cause: %v is not %v", err, tt.cause)
			}
			if len(events) != 0 {
				t.Fatalf("a refusal produced events %#v", events)
			}
		})
	}
}

func TestEvolve(t *testing.T) {
	l := fold(signindom.LinkIssued{LinkHash: hash, UserID: user, Email: "a@example.com", IssuedAt: t0, ExpiresAt: t0.Add(signindom.LinkTTL)})
	if !l.Issued() || l.Redeemed || l.UserID != user || !l.ExpiresAt.Equal(t0.Add(signindom.LinkTTL)) {
		t.Fatalf("after issue: %+v", l)
	}
	l = signindom.Evolve(l, signindom.LinkRedeemed{LinkHash: hash, UserID: user, RedeemedAt: t0.Add(time.Minute)})
	if !l.Redeemed || !l.RedeemedAt.Equal(t0.Add(time.Minute)) || l.UserID != user {
		t.Fatalf("after redeem: %+v", l)
	}
}
