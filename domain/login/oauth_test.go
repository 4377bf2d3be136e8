package login

import (
	"testing"
	"time"

	"github.com/workbench/workbench/domain"
)

func started(nonce string) OAuthStarted {
	return OAuthStarted{LoginID: id, ServerID: "mcp_remote", Owner: agent, Pending: cred, Nonce: nonce, At: at}
}

func TestOAuthCommands(t *testing.T) {
	later := at.Add(time.Minute)
	disconnected := Disconnected{LoginID: id, ServerID: "mcp_remote", Owner: agent, Reason: "invalid_grant", At: at}
	cases := []struct {
		name  string
		given []domain.Event
		cmd   Command
		code  domain.Code
		want  string // the event type decided, "" for none
		after Status
	}{
		{"a sign-in opens a pending login", nil, StartOAuth{NewLoginID: id, ServerID: "mcp_remote", Owner: agent, Pending: cred, Nonce: "n1", At: later}, "", TypeOAuthStarted, StatusPending},
		{"a sign-in over a connected login is refused", []domain.Event{connected("")}, StartOAuth{NewLoginID: id, ServerID: "mcp_remote", Owner: agent, Pending: cred, Nonce: "n1", At: later}, domain.CodeConflict, "", ""},
		{"a retry over a disconnected login stays disconnected", []domain.Event{connected(""), disconnected}, StartOAuth{ServerID: "mcp_remote", Owner: agent, Pending: cred, Nonce: "n2", At: later}, "", TypeOAuthStarted, StatusDisconnected},
		{"a callback connects", []domain.Event{started("n1")}, CompleteOAuth{LoginID: id, Nonce: "n1", Credential: cred, At: later}, "", TypeConnected, StatusConnected},
		{"a callback of an older sign-in is refused", []domain.Event{started("n1"), started("n2")}, CompleteOAuth{LoginID: id, Nonce: "n1", Credential: cred, At: later}, domain.CodeConflict, "", ""},
		{"a callback replayed after connecting is refused", []domain.Event{started("n1"), connected("")}, CompleteOAuth{LoginID: id, Nonce: "n1", Credential: cred, At: later}, domain.CodeConflict, "", ""},
		{"a denied new login is removed", []domain.Event{started("n1")}, AbandonOAuth{LoginID: id, Nonce: "n1", Reason: "denied", At: later}, "", TypeRemoved, ""},
		{"a denied retry stays disconnected", []domain.Event{connected(""), disconnected, started("n2")}, AbandonOAuth{LoginID: id, Nonce: "n2", Reason: "denied", At: later}, "", TypeDisconnected, StatusDisconnected},
		{"a refresh keeps a connected login connected", []domain.Event{connected("")}, RefreshTokens{LoginID: id, Credential: cred, At: later}, "", TypeConnected, StatusConnected},
		{"a refresh of a disconnected login is refused", []domain.Event{connected(""), disconnected}, RefreshTokens{LoginID: id, Credential: cred, At: later}, domain.CodeConflict, "", ""},
		{"invalid_grant disconnects", []domain.Event{connected("")}, Disconnect{LoginID: id, Reason: "invalid_grant", At: later}, "", TypeDisconnected, StatusDisconnected},
		{"disconnecting twice records nothing", []domain.Event{connected(""), disconnected}, Disconnect{LoginID: id, Reason: "invalid_grant", At: later}, "", "", StatusDisconnected},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := given(tc.given...)
			evs, err := Decide(s, tc.cmd)
			if domain.ErrorCode(err) != tc.code && !(tc.code == "" && err == nil) {
				t.Fatalf("err = %v, want %q", err, tc.code)
			}
			if tc.code != "" {
				return
			}
			if tc.want == "" {
				if len(evs) != 0 {
					t.Fatalf("events = %v", evs)
				}
				return
			}
			if len(evs) != 1 || evs[0].EventType() != tc.want {
				t.Fatalf("events = %v, want %s", evs, tc.want)
			}
			next := Evolve(s, evs[0])
			if next.Status != tc.after {
				t.Fatalf("status = %q, want %q", next.Status, tc.after)
			}
			if tc.want == TypeConnected && (next.OAuthNonce != "" || !next.OAuthPending.IsZero()) {
				t.Fatal("a connected login still holds its sign-in")
			}
		})
	}
}
