package platformkey

import (
	"testing"
	"time"

	"github.com/workbench/workbench/domain"
)

var t0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func TestParseNames(t *testing.T) {
	for name, want := range map[string][2]string{
		"integration:brave-search": {KindIntegration, "brave-search"},
		"connector:brave":          {KindConnector, "brave"},
		"github_app":               {KindGitHubApp, ""},
	} {
		k, s, err := Parse(name)
		if err != nil || k != want[0] || s != want[1] {
			t.Errorf("Parse(%q) = %q, %q, %v; want %v", name, k, s, err, want)
		}
	}
	for _, bad := range []string{"", "brave", "integration:", "connector:Brave", "plugin:x", "github_app:x", "connector:a/b"} {
		if _, _, err := Parse(bad); domain.ErrorCode(err) != domain.CodeUnprocessable {
			t.Errorf("Parse(%q) = %v, want CodeUnprocessable", bad, err)
		}
	}
}

func TestSetThenRemove(t *testing.T) {
	sealed := domain.Sealed{Subject: "platform-key:x", KeyVersion: 1, Blob: []byte("0123456789abcdef0123456789abcdef!")}
	// Given no key, when it is set, then Set carries the sorted field names and the sealed value.
	evs, err := Decide(Initial(), SetKey{Name: "connector:brave", Fields: []string{"b", "a"}, Sealed: sealed, By: "admin", At: t0})
	if err != nil || len(evs) != 1 {
		t.Fatalf("set: %v, %v", evs, err)
	}
	set := evs[0].(Set)
	if set.Fields[0] != "a" || set.Fields[1] != "b" {
		t.Errorf("fields %v, want sorted", set.Fields)
	}
	s := Evolve(Initial(), set)
	if !s.IsSet {
		t.Fatal("not set after Set")
	}
	// When it is removed, then Removed; removing again is not found.
	evs, err = Decide(s, RemoveKey{Name: "connector:brave", By: "admin", At: t0})
	if err != nil || len(evs) != 1 {
		t.Fatalf("remove: %v, %v", evs, err)
	}
	s = Evolve(s, evs[0])
	if _, err := Decide(s, RemoveKey{Name: "connector:brave", By: "admin", At: t0}); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Errorf("second remove: %v, want CodeNotFound", err)
	}
}

func TestSetRefusesIncompleteCommands(t *testing.T) {
	sealed := domain.Sealed{Subject: "s", Blob: []byte("x")}
	for name, c := range map[string]SetKey{
		"bad name":  {Name: "nope", Fields: []string{"a"}, Sealed: sealed, By: "a", At: t0},
		"no fields": {Name: "github_app", Sealed: sealed, By: "a", At: t0},
		"twice":     {Name: "github_app", Fields: []string{"a", "a"}, Sealed: sealed, By: "a", At: t0},
		"no sealed": {Name: "github_app", Fields: []string{"a"}, By: "a", At: t0},
		"no author": {Name: "github_app", Fields: []string{"a"}, Sealed: sealed, At: t0},
	} {
		if _, err := Decide(Initial(), c); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
