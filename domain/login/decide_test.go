package login

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

var (
	at    = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	agent = Owner{Scope: ScopeAgent, ID: uuid.MustParse("44444444-4444-4444-8444-444444444444")}
	cred  = domain.Sealed{Subject: "mcp-login:x", KeyVersion: 1, Blob: []byte("sealed")}
	id    = uuid.MustParse("01000000-0000-7000-8000-000000000001")
)

func given(events ...domain.Event) State {
	s := Initial()
	for _, e := range events {
		s = Evolve(s, e)
	}
	return s
}

func connected(hint string) Connected {
	return Connected{LoginID: id, ServerID: "mcp_remote", Owner: agent, Credential: cred, AccountHint: hint, Status: StatusConnected, At: at}
}

func TestConnectOnExisting(t *testing.T) {
	base := Connect{NewLoginID: uuid.New(), ServerID: "mcp_remote", Owner: agent, Credential: cred, At: at.Add(time.Hour)}
	cases := []struct {
		name    string
		given   []domain.Event
		mutate  func(*Connect)
		outcome Outcome
		code    domain.Code
	}{
		{"a new login", nil, func(*Connect) {}, OutcomeCreated, ""},
		{"refuse over a connected login", []domain.Event{connected("ada")}, func(c *Connect) { c.OnExisting.Mode = OnExistingRefuse }, "", domain.CodeConflict},
		{"no mode is refuse", []domain.Event{connected("ada")}, func(*Connect) {}, "", domain.CodeConflict},
		{"equal credentials are current whatever the mode", []domain.Event{connected("ada")}, func(c *Connect) { c.SameCredentials = true }, OutcomeCurrent, ""},
		{"keep", []domain.Event{connected("ada")}, func(c *Connect) { c.OnExisting.Mode = OnExistingKeep }, OutcomeKept, ""},
		{"replace", []domain.Event{connected("ada")}, func(c *Connect) { c.OnExisting.Mode = OnExistingReplace }, OutcomeReplaced, ""},
		{"replace_when_hint with that hint", []domain.Event{connected("ada")}, func(c *Connect) { c.OnExisting = OnExisting{Mode: OnExistingReplaceWhenHint, Hint: "ada"} }, OutcomeReplaced, ""},
		{"replace_when_hint with another", []domain.Event{connected("ada")}, func(c *Connect) { c.OnExisting = OnExisting{Mode: OnExistingReplaceWhenHint, Hint: "bob"} }, OutcomeKept, ""},
		{"a pending login is retried", []domain.Event{func() Connected { c := connected(""); c.Status = StatusPending; return c }()}, func(*Connect) {}, OutcomeRetried, ""},
		{"a disconnected login is reconnected", []domain.Event{func() Connected { c := connected(""); c.Status = StatusDisconnected; return c }()}, func(*Connect) {}, OutcomeReconnected, ""},
		{"a removed login connects anew", []domain.Event{connected("ada"), Removed{LoginID: id, At: at}}, func(*Connect) {}, OutcomeCreated, ""},
		{"the platform is refused", nil, func(c *Connect) { c.Owner = Owner{Scope: ScopePlatform} }, "", domain.CodeInvalid},
		{"an unknown mode", []domain.Event{connected("ada")}, func(c *Connect) { c.OnExisting.Mode = "merge" }, "", domain.CodeInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := base
			c.mutate(&cmd)
			s := given(c.given...)
			evs, err := Decide(s, cmd)
			if c.code != "" {
				if domain.ErrorCode(err) != c.code {
					t.Fatalf("err = %v, want %s", err, c.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			out, _ := cmd.Resolve(s)
			if out != c.outcome {
				t.Fatalf("outcome = %s, want %s", out, c.outcome)
			}
			wantEvents := c.outcome != OutcomeKept && c.outcome != OutcomeCurrent
			if (len(evs) == 1) != wantEvents {
				t.Fatalf("events = %v", evs)
			}
			if wantEvents {
				ev := evs[0].(Connected)
				if ev.Replaced != (c.outcome == OutcomeReplaced) {
					t.Fatalf("replaced = %v", ev.Replaced)
				}
				if s.Exists() && ev.LoginID != s.LoginID || !s.Exists() && ev.LoginID != cmd.NewLoginID {
					t.Fatalf("login id %s", ev.LoginID)
				}
			}
		})
	}
}

func TestListingDigestDiffAndDefaults(t *testing.T) {
	on := func(Tool) (bool, string) { return true, "default_on" }
	s := given(connected(""))
	first := []Tool{{Name: "r_a", Remote: "a", Description: "A"}, {Name: "r_b", Remote: "b", Description: "B"}}
	evs, err := Decide(s, RecordListing{LoginID: id, Tools: first, StartsOn: on, At: at})
	if err != nil {
		t.Fatal(err)
	}
	l1 := evs[0].(ToolsListed)
	if !slices.Equal(l1.Diff.Added, []string{"r_a", "r_b"}) || len(l1.Defaults) != 2 || l1.Previous != "" {
		t.Fatalf("first listing = %+v", l1)
	}
	s = Evolve(s, l1)
	second := []Tool{{Name: "r_a", Remote: "a", Description: "A, now sending mail"}, {Name: "r_c", Remote: "c", Description: "C", InputSchema: json.RawMessage(`{}`)}}
	evs, _ = Decide(s, RecordListing{LoginID: id, Tools: second, StartsOn: on, At: at})
	l2 := evs[0].(ToolsListed)
	if !slices.Equal(l2.Diff.Added, []string{"r_c"}) || !slices.Equal(l2.Diff.Removed, []string{"r_b"}) ||
		!slices.Equal(l2.Diff.DescriptionChanged, []string{"r_a"}) || l2.Previous != l1.Digest || l2.Digest == l1.Digest {
		t.Fatalf("second listing = %+v", l2)
	}
	// A later listing writes defaults only for tools this owner never had.
	if len(l2.Defaults) != 1 || l2.Defaults[0].Tool != "r_c" {
		t.Fatalf("defaults = %+v", l2.Defaults)
	}
	// The same list again: the same digest, an empty diff.
	s = Evolve(s, l2)
	evs, _ = Decide(s, RecordListing{LoginID: id, Tools: second, StartsOn: on, At: at})
	if l3 := evs[0].(ToolsListed); !l3.Diff.Empty() || l3.Digest != l2.Digest {
		t.Fatalf("third listing = %+v", l3)
	}
	if _, err := Decide(s, RecordListing{LoginID: id, Tools: []Tool{{Name: "x"}, {Name: "x"}}, StartsOn: on, At: at}); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Fatalf("a repeated name: %v", err)
	}
}

func TestSettingsAndRemove(t *testing.T) {
	pending := connected("")
	pending.Status, pending.NeedsSettings = StatusPending, []string{"project_id"}
	s := given(pending)
	evs, err := Decide(s, SaveSettings{LoginID: id, Settings: json.RawMessage(`{"project_id":"1"}`), AccountHint: "ada", At: at})
	if err != nil || evs[0].(SettingsSaved).Status != StatusConnected {
		t.Fatalf("complete settings: %v %v", evs, err)
	}
	evs, _ = Decide(s, SaveSettings{LoginID: id, Settings: json.RawMessage(`{}`), NeedsSettings: []string{"project_id"}, At: at})
	if evs[0].(SettingsSaved).Status != StatusPending {
		t.Fatal("incomplete settings connected the login")
	}
	if _, err := Decide(Initial(), SaveSettings{LoginID: id, Settings: json.RawMessage(`{}`), At: at}); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("settings of no login: %v", err)
	}
	if _, err := Decide(Initial(), Remove{LoginID: id, At: at}); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("remove no login: %v", err)
	}
	if _, err := DecideSwitch(SwitchState{}, SetSwitch{Event: SwitchSet{Owner: Owner{Scope: "galaxy", ID: uuid.New()}, ServerID: "s", Tool: "t", At: at}}); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Fatalf("a switch at no scope: %v", err)
	}
	// The admin's default is for a plugin tool at the platform only.
	def := SwitchSet{Owner: Owner{Scope: ScopePlatform}, ServerID: PluginServerID("github"), Tool: "github_list_repos", Default: true, At: at}
	if evs, err := DecideSwitch(SwitchState{}, SetSwitch{Event: def}); err != nil || len(evs) != 1 || !evs[0].(SwitchSet).Default {
		t.Fatalf("the admin's default: %v %v", evs, err)
	}
	org := def
	org.Owner = Owner{Scope: ScopeOrganization, ID: uuid.New()}
	conn := def
	conn.ServerID = "mcp_remote"
	for name, sw := range map[string]SwitchSet{"below the platform": org, "of a connector tool": conn} {
		if _, err := DecideSwitch(SwitchState{}, SetSwitch{Event: sw}); domain.ErrorCode(err) != domain.CodeInvalid {
			t.Errorf("a default %s: %v, want invalid", name, err)
		}
	}
}
