package connection_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
)

func TestStatus(t *testing.T) {
	tests := []struct {
		name    string
		history []domain.Event
		want    connection.Status
		attempt connection.AttemptOutcome
	}{
		{"none", none, connection.StatusNone, ""},
		{"pending", pending, connection.StatusPending, connection.AttemptPending},
		{"attempt expired", attemptExpired, connection.StatusNone, connection.AttemptExpired},
		{"superseded", superseded, connection.StatusPending, connection.AttemptPending},
		{"connected", connected, connection.StatusConnected, connection.AttemptConnected},
		{"connected directly", connectedDirect, connection.StatusConnected, ""},
		{"refreshed", refreshedOnce, connection.StatusConnected, connection.AttemptConnected},
		{"reconnecting", reconnecting, connection.StatusConnected, connection.AttemptPending},
		{"needs reauth", needsReauth, connection.StatusNeedsReauth, connection.AttemptConnected},
		{"needs reauth and pending", needsReauthPending, connection.StatusPending, connection.AttemptPending},
		{"disconnected", disconnected, connection.StatusDisconnected, connection.AttemptConnected},
		{"disconnected and pending", disconnectedPending, connection.StatusPending, connection.AttemptPending},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fold(tt.history)
			if got := s.Status(); got != tt.want {
				t.Errorf("Status = %s, want %s", got, tt.want)
			}
			if s.Attempt.Outcome != tt.attempt {
				t.Errorf("attempt outcome = %q, want %q", s.Attempt.Outcome, tt.attempt)
			}
		})
	}
}

func TestFoldedState(t *testing.T) {
	want := connection.State{
		UserID: userID, Integration: gh, CredentialStatus: connection.StatusConnected,
		AuthMode: connection.AuthOAuth2, Credential: cred2, ExpiresAt: ref2Exp,
		Scopes: []string{"repo"}, AccountHint: "octocat", ConnectedAt: tConn, Since: tConn, RefreshedAt: tRef, Generation: 2,
		Attempt: connection.Attempt{ID: a2, AuthMode: connection.AuthOAuth2, StartedAt: tLater, ExpiresAt: a2Exp, Outcome: connection.AttemptPending},
	}
	if diff := cmp.Diff(want, fold(slices.Concat(refreshedOnce, []domain.Event{startedA2}))); diff != "" {
		t.Errorf("refreshed and reconnecting (-want +got):\n%s", diff)
	}
	gone := fold(disconnected)
	if !gone.Credential.IsZero() || !gone.ExpiresAt.IsZero() || gone.Scopes != nil || gone.AccountHint != "" || gone.Reason != "user request" {
		t.Errorf("disconnected keeps credential details: %+v", gone)
	}
	reauth := fold(needsReauth)
	if !reauth.Credential.IsZero() || reauth.AccountHint != "octocat" || reauth.Reason != "invalid_grant" {
		t.Errorf("needs reauth: %+v; want no credential, the account hint and the reason kept", reauth)
	}
	back := fold(slices.Concat(needsReauthPending, []domain.Event{connection.Connected{AttemptID: a2, UserID: userID, Integration: gh, AuthMode: connection.AuthOAuth2, Credential: cred3, ConnectedAt: tLast}}))
	if back.Reason != "" || back.Generation != 2 || back.RefreshedAt != (time.Time{}) || back.Attempt.Outcome != connection.AttemptConnected || back.Attempt.EndedAt != tLast {
		t.Errorf("reconnected: %+v", back)
	}
	if fold(nil).Exists() || fold(nil).Status() != connection.StatusNone {
		t.Error("the initial state exists")
	}
	if got := connection.Evolve(connection.State{}, nil); got.Status() != connection.StatusNone {
		t.Errorf("Evolve(zero, nil) status = %s", got.Status())
	}
}

func TestNeedsRefresh(t *testing.T) {
	in := func(d time.Duration) []domain.Event {
		return []domain.Event{startedA1, connection.Connected{AttemptID: a1, UserID: userID, Integration: gh, AuthMode: connection.AuthOAuth2, Credential: cred1, ExpiresAt: tConn.Add(d), ConnectedAt: tConn}}
	}
	tests := []struct {
		name    string
		history []domain.Event
		want    bool
	}{
		{"expires in an hour", in(time.Hour), false},
		{"expires in 31 seconds", in(31 * time.Second), false},
		{"expires in exactly 30 seconds", in(30 * time.Second), true},
		{"expires in 29 seconds", in(29 * time.Second), true},
		{"expired a minute ago", in(-time.Minute), true},
		{"never expires", connectedDirect, false},
		{"needs reauth", append(in(time.Second), reauthNeeded), false},
		{"disconnected", append(in(time.Second), disconnected1), false},
		{"pending", pending, false},
		{"none", none, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fold(tt.history).NeedsRefresh(tConn, connection.RefreshWindow); got != tt.want {
				t.Fatalf("NeedsRefresh = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestUsable(t *testing.T) {
	cookies := connection.Connected{UserID: userID, Integration: gh, AuthMode: connection.AuthCookie, Credential: cred1, ExpiresAt: credExp, ConnectedAt: tConn}
	tests := []struct {
		name    string
		history []domain.Event
		now     time.Time
		want    bool
	}{
		{"oauth token valid", connected, tConn, true},
		{"oauth token expired: refreshed on use", connected, credExp.Add(time.Hour), true},
		{"api key", connectedDirect, credExp.Add(time.Hour), true},
		{"cookies unexpired", []domain.Event{cookies}, credExp.Add(-time.Second), true},
		{"cookies expired", []domain.Event{cookies}, credExp, false},
		{"needs reauth", needsReauth, tConn, false},
		{"pending", pending, tConn, false},
		{"disconnected", disconnected, tConn, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fold(tt.history).Usable(tt.now); got != tt.want {
				t.Fatalf("Usable = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestStreamName(t *testing.T) {
	if got, want := connection.StreamName(userID, "google-gmail", ""), "connection-11111111-1111-4111-8111-111111111111-google-gmail"; got != want {
		t.Fatalf("StreamName = %s, want %s", got, want)
	}
	for name, want := range map[string]bool{"github": true, "google-gmail": true, "atlassian-jira": true, "x_y": true, "1password": true, "": false, "GitHub": false, "-x": false, "a b": false, "é": false} {
		if got := connection.ValidIntegrationName(name); got != want {
			t.Errorf("ValidIntegrationName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestAttempt(t *testing.T) {
	a := fold(pending).Attempt
	if !a.Pending() || a.ExpiredBy(a1Exp.Add(-time.Nanosecond)) || !a.ExpiredBy(a1Exp) {
		t.Fatalf("attempt %+v: pending until, and expired from, %v", a, a1Exp)
	}
	if (connection.Attempt{}).Pending() {
		t.Error("the zero attempt is pending")
	}
	if fold(attemptExpired).Attempt.ExpiredBy(tLater) {
		t.Error("an ended attempt reports ExpiredBy")
	}
}
