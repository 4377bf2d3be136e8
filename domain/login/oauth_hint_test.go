package login

import (
	"testing"
	"time"

	"github.com/workbench/workbench/domain"
)

// A callback that names the account (a GitHub App installation's) sets the hint; one that names none
// keeps the login's.
func TestCompleteOAuthAccountHint(t *testing.T) {
	later := at.Add(time.Minute)
	retry := []domain.Event{connected("old-hint"), Disconnected{LoginID: id, ServerID: "mcp_remote", Owner: agent, Reason: "removed", At: at}, started("n2")}
	cases := []struct {
		name  string
		given []domain.Event
		hint  string
		want  string
	}{
		{"a named account sets the hint", []domain.Event{started("n1")}, "octo-org", "octo-org"},
		{"no account keeps the hint", retry, "", "old-hint"},
		{"a named account replaces the hint", retry, "octo-org", "octo-org"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := given(tc.given...)
			evs, err := Decide(s, CompleteOAuth{LoginID: id, Nonce: s.OAuthNonce, Credential: cred, AccountHint: tc.hint, At: later})
			if err != nil || len(evs) != 1 {
				t.Fatalf("decide: %v %v", evs, err)
			}
			if got := Evolve(s, evs[0]).AccountHint; got != tc.want {
				t.Fatalf("hint = %q, want %q", got, tc.want)
			}
		})
	}
}
