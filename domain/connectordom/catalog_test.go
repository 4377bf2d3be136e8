package connectordom

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/workbench/workbench/domain"
)

var at = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func fold(evs ...domain.Event) State {
	s := Initial()
	for _, e := range evs {
		s = Evolve(s, e)
	}
	return s
}

func TestDecide(t *testing.T) {
	core := Installed{ID: "mcp_core", Slug: "core", ToolPrefix: "core", Manifest: json.RawMessage(`{}`), Digest: "d1", Source: "core", At: at}
	local := Added{ID: "mcp_mine", Slug: "mine", ToolPrefix: "mine", Manifest: json.RawMessage(`{}`), Digest: "d1", By: "u", At: at}
	org := local
	org.ID, org.OwnerOrgID = "mcp_mine_1a2b", "org-1"
	cases := []struct {
		name  string
		given []domain.Event
		when  CatalogCommand
		then  []string // event types
		code  domain.Code
	}{
		{"add a local row", nil, Add{Event: local}, []string{TypeAdded}, ""},
		{"add over a live row", []domain.Event{local}, Add{Event: local}, nil, domain.CodeConflict},
		{"add over a removed row", []domain.Event{local, Removed{ID: "mcp_mine", At: at}}, Add{Event: local}, []string{TypeAdded}, ""},
		{"switch off", []domain.Event{core}, Switch{Event: Switched{ID: "mcp_core", Enabled: false, At: at}}, []string{TypeSwitched}, ""},
		{"switch on when on", []domain.Event{core}, Switch{Event: Switched{ID: "mcp_core", Enabled: true, At: at}}, nil, ""},
		{"switch no row", nil, Switch{Event: Switched{ID: "mcp_core", At: at}}, nil, domain.CodeNotFound},
		{"overrides on a core row", []domain.Event{core}, SetOverrides{Event: OverridesSet{ID: "mcp_core", Fields: map[string]json.RawMessage{"description": json.RawMessage(`"x"`)}, Overrides: json.RawMessage(`{"description":"x"}`), At: at}}, []string{TypeOverridesSet}, ""},
		{"the same overrides again", []domain.Event{core, OverridesSet{ID: "mcp_core", Overrides: json.RawMessage(`{"description":"x"}`)}}, SetOverrides{Event: OverridesSet{ID: "mcp_core", Fields: map[string]json.RawMessage{"description": json.RawMessage(`"x"`)}, Overrides: json.RawMessage(`{"description":"x"}`), At: at}}, nil, ""},
		{"overrides on a local row", []domain.Event{local}, SetOverrides{Event: OverridesSet{ID: "mcp_mine", Fields: map[string]json.RawMessage{"description": nil}, Overrides: json.RawMessage(`{"description":"x"}`), At: at}}, nil, domain.CodeConflict},
		{"tool overrides", []domain.Event{core}, SetToolOverrides{Event: ToolOverridesSet{ID: "mcp_core", Tool: "t", Override: json.RawMessage(`{"default":false}`), Overrides: json.RawMessage(`{"tools":{"t":{"default":false}}}`), At: at}}, []string{TypeToolOverridesSet}, ""},
		{"update a local row", []domain.Event{local}, Update{Event: Updated{ID: "mcp_mine", Manifest: json.RawMessage(`{"a":1}`), Digest: "d2", At: at}}, []string{TypeUpdated}, ""},
		{"update a core row", []domain.Event{core}, Update{Event: Updated{ID: "mcp_core", Manifest: json.RawMessage(`{"a":1}`), Digest: "d2", At: at}}, nil, domain.CodeConflict},
		{"remove an org row", []domain.Event{org}, Remove{Event: Removed{ID: "mcp_mine_1a2b", At: at}}, []string{TypeRemoved}, ""},
		{"remove a core row", []domain.Event{core}, Remove{Event: Removed{ID: "mcp_core", At: at}}, nil, domain.CodeConflict},
		{"remove twice", []domain.Event{org, Removed{ID: "mcp_mine_1a2b"}}, Remove{Event: Removed{ID: "mcp_mine_1a2b", At: at}}, nil, domain.CodeNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs, err := Decide(fold(c.given...), c.when)
			if c.code != "" {
				if domain.ErrorCode(err) != c.code {
					t.Fatalf("err = %v, want %s", err, c.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range evs {
				got = append(got, e.EventType())
			}
			if strings.Join(got, ",") != strings.Join(c.then, ",") {
				t.Fatalf("events %v, want %v", got, c.then)
			}
		})
	}
	// A removal carries the row's owner; a disabled row folds disabled and keeps its overrides on reinstall.
	evs, _ := Decide(fold(org), Remove{Event: Removed{ID: org.ID, At: at}})
	if evs[0].(Removed).OwnerOrgID != "org-1" {
		t.Fatalf("removed = %+v", evs[0])
	}
	s := fold(core, Switched{ID: "mcp_core", Enabled: false}, OverridesSet{ID: "mcp_core", Overrides: json.RawMessage(`{"description":"x"}`)}, Installed{ID: "mcp_core", Digest: "d2", Source: "core"})
	if !s.Disabled || string(s.Overrides) != `{"description":"x"}` {
		t.Fatalf("after a reinstall: %+v", s.Catalog)
	}
}

func TestDecideClaims(t *testing.T) {
	prefix := func(slug string) func(func(string) bool) string {
		return func(taken func(string) bool) string {
			p := strings.ReplaceAll(slug, "-", "")
			for n := 2; taken(p); n++ {
				p = strings.ReplaceAll(slug, "-", "") + string(rune('0'+n))
			}
			return p
		}
	}
	installed := []Row{{ID: "mcp_notion", Slug: "notion", ToolPrefix: "notion"}}
	s := InitialClaims()
	claim := func(id, slug, org string, max int) (SlugClaimed, error) {
		evs, err := DecideClaims(s, Claim{ID: id, Slug: slug, OwnerOrgID: org, Installed: installed, Prefix: prefix(slug), MaxPerOrg: max, At: at})
		if err != nil {
			return SlugClaimed{}, err
		}
		s = EvolveClaims(s, evs[0])
		return evs[0].(SlugClaimed), nil
	}
	if _, err := claim("mcp_notion_x", "notion", "org-1", 0); domain.ErrorCode(err) != domain.CodeConflict || !strings.Contains(err.Error(), "platform connector") {
		t.Fatalf("an org taking a platform slug: %v", err)
	}
	a, err := claim("mcp_wiki_a", "wiki", "org-1", 2)
	if err != nil || a.ToolPrefix != "wiki" {
		t.Fatalf("first org claim: %+v %v", a, err)
	}
	b, err := claim("mcp_wiki_b", "wiki", "org-2", 2)
	if err != nil || b.ToolPrefix != "wiki2" {
		t.Fatalf("another org, same slug: %+v %v (the prefix is unique on the box)", b, err)
	}
	if _, err := claim("mcp_wiki_c", "wiki", "org-1", 2); domain.ErrorCode(err) != domain.CodeConflict || !strings.Contains(err.Error(), "this organisation") {
		t.Fatalf("the same org twice: %v", err)
	}
	if _, err := claim("mcp_wiki", "wiki", "", 0); domain.ErrorCode(err) != domain.CodeConflict || !strings.Contains(err.Error(), "organisation's own server") {
		t.Fatalf("the platform taking an org's slug: %v", err)
	}
	if _, err := claim("mcp_docs_a", "docs", "org-1", 2); err != nil {
		t.Fatal(err)
	}
	if _, err := claim("mcp_more_a", "more", "org-1", 2); domain.ErrorCode(err) != domain.CodeConflict || !strings.Contains(err.Error(), "maxMcpServers") {
		t.Fatalf("past the cap: %v", err)
	}
	evs, _ := DecideClaims(s, Release{ID: "mcp_docs_a", At: at})
	s = EvolveClaims(s, evs[0])
	if _, err := claim("mcp_more_a", "more", "org-1", 2); err != nil {
		t.Fatalf("after a release: %v", err)
	}
	if evs, _ := DecideClaims(s, Release{ID: "mcp_docs_a", At: at}); len(evs) != 0 {
		t.Fatalf("a second release: %v", evs)
	}
}
