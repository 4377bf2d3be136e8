package login

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

func TestLoginStreamPerAccount(t *testing.T) {
	base := "login-mcp_remote-agent-44444444-4444-4444-8444-444444444444"
	for label, want := range map[string]string{"": base, "default": base, "work": base + ".work", "acme-eu_2": base + ".acme-eu_2"} {
		if got := StreamName("mcp_remote", agent, label); got != want {
			t.Errorf("StreamName(%q) = %q, want %q", label, got, want)
		}
	}
	// An owner id holds no dot, so the suffix cannot be mistaken for part of another owner's name.
	if strings.Contains(agent.ID.String(), ".") {
		t.Fatal("an owner id holds a dot")
	}
	s := given(Connected{LoginID: id, ServerID: "mcp_remote", Owner: agent, Account: "work", Credential: cred, Status: StatusConnected, At: at})
	if s.Stream() != base+".work" || s.Label() != "work" {
		t.Fatalf("a work login folds to stream %q label %q", s.Stream(), s.Label())
	}
	if d := given(connected("ada")); d.Stream() != base || d.Label() != "default" {
		t.Fatalf("a login without a label folds to stream %q label %q", d.Stream(), d.Label())
	}
}

func TestConnectAccount(t *testing.T) {
	cmd := Connect{NewLoginID: id, ServerID: "mcp_remote", Owner: agent, Credential: cred, At: at}
	for _, c := range []struct {
		label, event string
	}{{"", ""}, {"default", ""}, {"work", "work"}} {
		cmd.Account = c.label
		evs, err := Decide(Initial(), cmd)
		if err != nil {
			t.Fatalf("connect %q: %v", c.label, err)
		}
		if got := evs[0].(Connected).Account; got != c.event {
			t.Errorf("connect %q: the event names account %q, want %q", c.label, got, c.event)
		}
		// The default account's event reads as every event written before labels existed.
		b, _ := json.Marshal(evs[0])
		if c.event == "" && strings.Contains(string(b), `"account"`) {
			t.Errorf("the default account's event names an account: %s", b)
		}
	}
	for _, bad := range []string{"Work", "a.b", "-x", strings.Repeat("a", 33), "with space"} {
		cmd.Account = bad
		if _, err := Decide(Initial(), cmd); domain.ErrorCode(err) != domain.CodeInvalid {
			t.Errorf("label %q: got %v, want invalid", bad, err)
		}
	}
	// A command for another account than the stream's is refused (a caller that named the wrong stream).
	work := given(Connected{LoginID: id, ServerID: "mcp_remote", Owner: agent, Account: "work", Credential: cred, Status: StatusDisconnected, At: at})
	cmd.Account = "personal"
	if _, err := Decide(work, cmd); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Errorf("connect personal over the work stream: %v, want invalid", err)
	}
	start := StartOAuth{NewLoginID: id, ServerID: "mcp_remote", Owner: agent, Account: "personal", Pending: cred, Nonce: "n", At: at}
	if _, err := Decide(work, start); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Errorf("sign in personal over the work stream: %v, want invalid", err)
	}
	start.Account = "work"
	evs, err := Decide(work, start)
	if err != nil || evs[0].(OAuthStarted).Account != "work" {
		t.Fatalf("sign in work again: %v %+v", err, evs)
	}
	// The callback's Connected keeps the account the sign-in started for.
	s := given(Connected{LoginID: id, ServerID: "mcp_remote", Owner: agent, Account: "work", Credential: cred, Status: StatusDisconnected, At: at}, evs[0])
	evs, err = Decide(s, CompleteOAuth{LoginID: id, Nonce: "n", Credential: cred, At: at.Add(time.Minute)})
	if err != nil || evs[0].(Connected).Account != "work" {
		t.Fatalf("complete the work sign-in: %v %+v", err, evs)
	}
}

func TestLoginDefaultOf(t *testing.T) {
	mk := func(label string, created time.Time, status Status) State {
		return given(Connected{LoginID: uuid.New(), ServerID: "mcp_remote", Owner: agent, Account: eventAccount(label), Credential: cred, Status: status, At: created})
	}
	work := mk("work", at.Add(time.Hour), StatusConnected)
	personal := mk("personal", at, StatusConnected)
	if i := DefaultOf([]State{work, personal}); i != 1 {
		t.Fatalf("without a choice the oldest login is the default, got %d", i)
	}
	same := mk("alpha", at, StatusConnected)
	if i := DefaultOf([]State{personal, same}); i != 1 {
		t.Fatalf("equal times go to the smaller label, got %d", i)
	}
	evs, err := Decide(work, ChooseDefault{LoginID: work.LoginID, At: at.Add(2 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if e := evs[0].(DefaultChosen); e.Account != "work" || e.LoginID != work.LoginID {
		t.Fatalf("the choice names %+v", e)
	}
	work = Evolve(work, evs[0])
	if i := DefaultOf([]State{work, personal}); i != 0 {
		t.Fatalf("the chosen login is the default, got %d", i)
	}
	// A later choice wins; a disconnected login is never the default.
	evs, _ = Decide(personal, ChooseDefault{LoginID: personal.LoginID, At: at.Add(3 * time.Hour)})
	personal = Evolve(personal, evs[0])
	if i := DefaultOf([]State{work, personal}); i != 1 {
		t.Fatalf("the latest choice wins, got %d", i)
	}
	gone := mk("gone", at.Add(-time.Hour), StatusDisconnected)
	if i := DefaultOf([]State{gone, work}); i != 1 {
		t.Fatalf("a disconnected login is not the default, got %d", i)
	}
	if i := DefaultOf([]State{gone}); i != -1 {
		t.Fatalf("no connected login: got %d", i)
	}
	if _, err := Decide(gone, ChooseDefault{LoginID: gone.LoginID, At: at}); domain.ErrorCode(err) != domain.CodeConflict {
		t.Fatalf("choosing a disconnected login: %v, want conflict", err)
	}
	if _, err := Decide(Initial(), ChooseDefault{LoginID: id, At: at}); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("choosing no login: %v, want not found", err)
	}
}
