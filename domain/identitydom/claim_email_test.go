package identitydom_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
)

func TestDecideEmailClaim(t *testing.T) {
	// A claim carries no address: the stream's name is its hash. Claims recorded before that carried it
	// (oldClaim), and fold the same.
	claimed := identitydom.EmailClaimed{UserID: userID, ClaimedAt: t0}
	oldClaim := identitydom.EmailClaimed{Email: "alice@example.com", UserID: userID, ClaimedAt: t0}
	tests := []struct {
		name    string
		history []domain.Event
		cmd     identitydom.ClaimEmail
		want    []domain.Event
		code    domain.Code
		owner   uuid.UUID // for a conflict: the owner the *EmailClaimedError names
	}{
		{
			name: "claim: a free address, normalised",
			cmd:  identitydom.ClaimEmail{Email: " ALICE@example.com", UserID: userID, At: t0},
			want: []domain.Event{claimed},
		},
		{
			name:    "claim: again by the same user records nothing",
			history: []domain.Event{claimed},
			cmd:     identitydom.ClaimEmail{Email: "alice@example.com", UserID: userID, At: t1},
		},
		{
			name:    "claim: taken by another user, recorded with the address",
			history: []domain.Event{oldClaim},
			cmd:     identitydom.ClaimEmail{Email: "Alice@Example.com", UserID: otherID, At: t1},
			code:    domain.CodeConflict,
			owner:   userID,
		},
		{
			name:    "claim: taken by another user",
			history: []domain.Event{claimed},
			cmd:     identitydom.ClaimEmail{Email: "Alice@Example.com", UserID: otherID, At: t1},
			code:    domain.CodeConflict,
			owner:   userID,
		},
		{name: "claim: malformed address", cmd: identitydom.ClaimEmail{Email: "alice@", UserID: userID, At: t0}, code: domain.CodeInvalid},
		{name: "claim: no user id", cmd: identitydom.ClaimEmail{Email: "alice@example.com", At: t0}, code: domain.CodeInvalid},
		{name: "claim: no time", cmd: identitydom.ClaimEmail{Email: "alice@example.com", UserID: userID}, code: domain.CodeInvalid},
		{name: "claim: malformed beats taken", history: []domain.Event{claimed}, cmd: identitydom.ClaimEmail{Email: "x", UserID: otherID, At: t1}, code: domain.CodeInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := identitydom.InitialEmailClaim()
			for _, ev := range tt.history {
				s = identitydom.EvolveEmailClaim(s, ev)
			}
			got, err := identitydom.DecideEmailClaim(s, tt.cmd)
			if tt.code != "" {
				if domain.ErrorCode(err) != tt.code || got != nil {
					t.Fatalf("DecideEmailClaim = %v, %v; want no events and code %s", got, err, tt.code)
				}
				var taken *identitydom.EmailClaimedError
				if got := errors.As(err, &taken); got != (tt.owner != uuid.Nil) {
					t.Fatalf("errors.As(*EmailClaimedError) = %v for %v", got, err)
				}
				if taken != nil && taken.UserID != tt.owner {
					t.Errorf("claimed by %s, want %s", taken.UserID, tt.owner)
				}
				return
			}
			if err != nil {
				t.Fatalf("DecideEmailClaim: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEvolveEmailClaimFirstWins(t *testing.T) {
	s := identitydom.InitialEmailClaim()
	if s.Claimed() {
		t.Fatal("the initial claim is claimed")
	}
	s = identitydom.EvolveEmailClaim(s, identitydom.EmailClaimed{Email: "a@example.com", UserID: userID, ClaimedAt: t0})
	s = identitydom.EvolveEmailClaim(s, identitydom.EmailClaimed{Email: "a@example.com", UserID: otherID, ClaimedAt: t1})
	s = identitydom.EvolveEmailClaim(s, created) // an event of another aggregate changes nothing
	want := identitydom.EmailClaim{Email: "a@example.com", UserID: userID, ClaimedAt: t0}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Fatalf("claim (-want +got):\n%s", diff)
	}
}

func TestEmailStreamName(t *testing.T) {
	a := identitydom.EmailStreamName("alice@example.com")
	for _, spelling := range []string{"Alice@Example.com", "  alice@example.com\t", "ALICE@EXAMPLE.COM"} {
		if got := identitydom.EmailStreamName(spelling); got != a {
			t.Errorf("EmailStreamName(%q) = %s, want %s", spelling, got, a)
		}
	}
	if b := identitydom.EmailStreamName("bob@example.com"); b == a {
		t.Error("two addresses share a stream")
	}
	// sha256("alice@example.com"), computed independently with sha256sum.
	const want = "user-email-ff8d9819fc0e12bf0d24892e45987e249a28dce836a85cad60e28eaaa8c6d976"
	if a != want {
		t.Errorf("EmailStreamName = %s, want %s", a, want)
	}
	if got := identitydom.StreamName(userID); got != "user-"+userID.String() {
		t.Errorf("StreamName = %s", got)
	}
}

func TestNormalizeEmail(t *testing.T) {
	tests := []struct {
		name, in, want string // want "": invalid
	}{
		{"plain", "alice@example.com", "alice@example.com"},
		{"upper case and spaces", "  Alice.Smith@Example.CO.UK \n", "alice.smith@example.co.uk"},
		{"plus tag kept", "alice+work@example.com", "alice+work@example.com"},
		{"empty", "", ""},
		{"blank", "   ", ""},
		{"no at", "alice.example.com", ""},
		{"no local part", "@example.com", ""},
		{"no domain", "alice@", ""},
		{"domain without a dot", "alice@localhost", ""},
		{"domain ending in a dot", "alice@example.", ""},
		{"two ats", "alice@bob@example.com", ""},
		{"display name", "Alice <alice@example.com>", ""},
		{"angle brackets", "<alice@example.com>", ""},
		{"space inside", "ali ce@example.com", ""},
		{"too long", strings.Repeat("a", 250) + "@example.com", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := identitydom.NormalizeEmail(tt.in)
			if tt.want == "" {
				if domain.ErrorCode(err) != domain.CodeInvalid {
					t.Fatalf("NormalizeEmail(%q) = %q, %v; want CodeInvalid", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("NormalizeEmail(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}
