package connection_test

import (
	"testing"
	"time"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
)

func TestAccountStreamNames(t *testing.T) {
	u := userID
	legacy := "connection-" + u.String() + "-google-gmail"
	for _, label := range []string{"", connection.DefaultAccount} {
		if got := connection.StreamName(u, "google-gmail", label); got != legacy {
			t.Errorf("StreamName(%q) = %q, want the stream every connection had before accounts, %q", label, got, legacy)
		}
	}
	if got := connection.StreamName(u, "google-gmail", "work"); got != legacy+".work" {
		t.Errorf("StreamName(work) = %q", got)
	}
	// "google" with label "gmail-x" and "google-gmail" with label "x" must not share a stream.
	if connection.StreamName(u, "google", "gmail-x") == connection.StreamName(u, "google-gmail", "x") {
		t.Error("two integration/label pairs share a stream name")
	}
	if got, want := connection.RefreshLeaseStreamName(u, "github", ""), "connection_refresh-"+u.String()+"-github"; got != want {
		t.Errorf("RefreshLeaseStreamName(default) = %q, want %q", got, want)
	}
	if got, want := connection.RefreshLeaseStreamName(u, "github", "work"), "connection_refresh-"+u.String()+"-github.work"; got != want {
		t.Errorf("RefreshLeaseStreamName(work) = %q, want %q", got, want)
	}
}

func TestAccountLabels(t *testing.T) {
	for _, ok := range []string{"work", "personal", "acme-eu", "a", "x_1", "0abc", "abcdefghijklmnopqrstuvwxyz012345"} {
		if !connection.ValidAccountLabel(ok) || connection.CheckAccountLabel(ok) != nil {
			t.Errorf("%q refused", ok)
		}
	}
	for _, bad := range []string{"Work", "-work", "wo rk", "work.eu", "wörk", "abcdefghijklmnopqrstuvwxyz0123456", "a/b"} {
		if connection.ValidAccountLabel(bad) || domain.ErrorCode(connection.CheckAccountLabel(bad)) != domain.CodeInvalid {
			t.Errorf("%q accepted", bad)
		}
	}
	if connection.CheckAccountLabel("") != nil {
		t.Error("the empty label (the default) refused")
	}
}

func TestCommandsNameTheirAccount(t *testing.T) {
	work := connection.Connect{UserID: userID, Integration: gh, Account: "work", AuthMode: connection.AuthAPIKey, Credential: cred1, At: tConn}
	evs, err := connection.Decide(connection.Initial(), work)
	if err != nil || len(evs) != 1 || evs[0].(connection.Connected).Account != "work" {
		t.Fatalf("connect work: %v, %v", evs, err)
	}
	st := fold(evs)
	if st.Label() != "work" || st.Since != tConn {
		t.Fatalf("folded: label %q since %v", st.Label(), st.Since)
	}
	// The default account's events name none, as before accounts existed.
	def := work
	def.Account = connection.DefaultAccount
	evs, err = connection.Decide(connection.Initial(), def)
	if err != nil || evs[0].(connection.Connected).Account != "" {
		t.Fatalf("connect default: %+v, %v", evs, err)
	}
	// A command for another account is refused on this account's stream.
	other := work
	other.Account = "personal"
	if _, err := connection.Decide(st, other); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Errorf("connect personal on work's stream: %v, want invalid", err)
	}
	bad := work
	bad.Account = "Not A Label"
	if _, err := connection.Decide(connection.Initial(), bad); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Errorf("connect with a malformed label: %v, want invalid", err)
	}
	// Later events of the account copy its label.
	evs, err = connection.Decide(st, connection.Disconnect{At: tLater})
	if err != nil || evs[0].(connection.Disconnected).Account != "work" {
		t.Fatalf("disconnect work: %+v, %v", evs, err)
	}
	start := connection.Start{AttemptID: a2, UserID: userID, Integration: gh, Account: "work", AuthMode: connection.AuthOAuth2, At: tLater, ExpiresAt: a2Exp}
	evs, err = connection.Decide(st, start)
	if err != nil || evs[0].(connection.Started).Account != "work" {
		t.Fatalf("reconnect work: %+v, %v", evs, err)
	}
}

func TestChooseDefault(t *testing.T) {
	choose := connection.ChooseDefault{At: tLater}
	if _, err := connection.Decide(connection.Initial(), choose); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Errorf("choose on no account: %v, want not_found", err)
	}
	if _, err := connection.Decide(fold(pending), choose); domain.ErrorCode(err) != domain.CodeConflict {
		t.Errorf("choose a pending account: %v, want conflict", err)
	}
	if _, err := connection.Decide(fold(disconnected), choose); domain.ErrorCode(err) != domain.CodeConflict {
		t.Errorf("choose a disconnected account: %v, want conflict", err)
	}
	if _, err := connection.Decide(fold(connected), connection.ChooseDefault{}); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Errorf("choose without a time: %v, want invalid", err)
	}
	for name, h := range map[string][]domain.Event{"connected": connected, "needs reauth": needsReauth} {
		evs, err := connection.Decide(fold(h), choose)
		if err != nil || len(evs) != 1 {
			t.Fatalf("choose %s: %v, %v", name, evs, err)
		}
		if got := fold(append(h, evs...)).DefaultChosenAt; !got.Equal(tLater) {
			t.Errorf("choose %s: DefaultChosenAt %v", name, got)
		}
	}
	// A disconnect forgets the choice.
	chosen := append(append([]domain.Event{}, connected...), connection.DefaultChosen{UserID: userID, Integration: gh, At: tLater})
	if st := fold(append(chosen, connection.Disconnected{UserID: userID, Integration: gh, At: tLast})); !st.DefaultChosenAt.IsZero() || !st.Since.IsZero() {
		t.Errorf("after a disconnect: chosen %v since %v", st.DefaultChosenAt, st.Since)
	}
}

func TestDefaultOf(t *testing.T) {
	acc := func(label string, since, chosen time.Time, status connection.Status) connection.State {
		return connection.State{UserID: userID, Integration: gh, Account: label, CredentialStatus: status, Since: since, DefaultChosenAt: chosen}
	}
	var zero time.Time
	c, r, d := connection.StatusConnected, connection.StatusNeedsReauth, connection.StatusDisconnected
	tests := []struct {
		name     string
		accounts []connection.State
		want     int
	}{
		{"none", nil, -1},
		{"only disconnected", []connection.State{acc("", t0, zero, d)}, -1},
		{"the oldest", []connection.State{acc("work", tLater, zero, c), acc("", t0, zero, c)}, 1},
		{"the oldest needing reauth still counts", []connection.State{acc("work", tLater, zero, c), acc("", t0, zero, r)}, 1},
		{"a disconnected oldest does not", []connection.State{acc("", t0, zero, d), acc("work", tLater, zero, c)}, 1},
		{"chosen beats oldest", []connection.State{acc("", t0, zero, c), acc("work", tLater, tLast, c)}, 1},
		{"latest choice wins", []connection.State{acc("", t0, tLast, c), acc("work", tLater, tLater, c)}, 0},
		{"ties fall to the smaller label", []connection.State{acc("zeta", t0, zero, c), acc("alpha", t0, zero, c)}, 1},
	}
	for _, tt := range tests {
		if got := connection.DefaultOf(tt.accounts); got != tt.want {
			t.Errorf("%s: DefaultOf = %d, want %d", tt.name, got, tt.want)
		}
	}
}
