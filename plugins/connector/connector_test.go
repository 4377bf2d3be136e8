package connector

import (
	"encoding/json"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

func ptr(b bool) *bool { return &b }

// The five rules of what starts Off, in order (spec connectors.md, What starts Off).
func TestStartsOffRulesInOrder(t *testing.T) {
	m := &Manifest{
		Tools:  []ManifestTool{{Name: "send_report", Mutating: true}, {Name: "read_report"}, {Name: "delete_draft"}, {Name: "wipe", Mutating: false}},
		Policy: Policy{DefaultOff: []string{"admin_*", "*_secrets"}},
	}
	cases := []struct {
		name  string
		tool  Tool
		admin *bool
		on    bool
		rule  string
	}{
		{"1. the admin default wins over mutating", Tool{Name: "send_report"}, ptr(true), true, RuleAdminDefault},
		{"1. the admin default Off wins over everything", Tool{Name: "read_report"}, ptr(false), false, RuleAdminDefault},
		{"2. mutating in the manifest", Tool{Name: "send_report"}, nil, false, RuleMutating},
		{"3. a policy pattern, * any run", Tool{Name: "admin_users_list"}, nil, false, RulePolicy},
		{"3. a policy pattern at the end", Tool{Name: "list_secrets"}, nil, false, RulePolicy},
		{"3. a policy pattern even on a named tool", Tool{Name: "admin_x"}, nil, false, RulePolicy},
		{"4. a listed tool's destructiveHint", Tool{Name: "purge_cache", DestructiveHint: ptr(true)}, nil, false, RuleDestructive},
		{"4. a listed tool's writing verb", Tool{Name: "createIssue"}, nil, false, RuleWritingVerb},
		{"4. a writing verb between dots", Tool{Name: "issues.update"}, nil, false, RuleWritingVerb},
		{"4. readOnlyHint never turns a writing verb On", Tool{Name: "send_mail", ReadOnlyHint: ptr(true)}, nil, false, RuleWritingVerb},
		{"4. does not apply to a tool the manifest names", Tool{Name: "delete_draft", DestructiveHint: ptr(true)}, nil, true, RuleOn},
		{"4. a false destructiveHint decides nothing", Tool{Name: "get_page", DestructiveHint: ptr(false)}, nil, true, RuleOn},
		{"5. an absent hint decides nothing: On", Tool{Name: "search_pages"}, nil, true, RuleOn},
		{"5. a verb inside a word is no verb", Tool{Name: "get_settings_updates_count"}, nil, true, RuleOn},
		{"5. a named read tool is On", Tool{Name: "read_report"}, nil, true, RuleOn},
	}
	for _, c := range cases {
		on, rule := StartsOff(m, c.tool, c.admin)
		if on != c.on || rule != c.rule {
			t.Errorf("%s: on=%v rule=%s, want on=%v rule=%s", c.name, on, rule, c.on, c.rule)
		}
	}
}

func TestToolPrefixAndSanitising(t *testing.T) {
	taken := map[string]bool{"github": true, "github2": true}
	if p := ToolPrefix("GitHub", func(p string) bool { return taken[p] }); p != "github3" {
		t.Errorf("prefix = %q", p)
	}
	if p := ToolPrefix("my-great_server.v2", func(string) bool { return false }); p != "mygreatserverv2" {
		t.Errorf("prefix = %q", p)
	}
	long := strings.Repeat("a", 40)
	if p := ToolPrefix(long, func(p string) bool { return p == long[:32] }); p != long[:31]+"2" {
		t.Errorf("long prefix = %q", p)
	}
	for in, want := range map[string]string{"search.docs": "search_docs", "_x y/z_": "x_y_z", "ünïcode-ok": "n_code-ok", "__": ""} {
		if got := SanitiseToolName(in); got != want {
			t.Errorf("SanitiseToolName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLoadReportsEveryProblem(t *testing.T) {
	fs := fstest.MapFS{
		"good/connector.json":   {Data: []byte(`{"slug":"good","display_name":"Good","endpoint":{"url":"https://x.example/mcp"},"auth":{"kind":"token"}}`)},
		"wrong/connector.json":  {Data: []byte(`{"slug":"other","display_name":"Wrong","endpoint":{"url":"https://x.example/mcp"},"auth":{"kind":"token"}}`)},
		"bad/connector.json":    {Data: []byte(`{"slug":"bad","display_name":"","auth":{"kind":"magic"},"extra":1}`)},
		"nocode/connector.json": {Data: []byte(`{"slug":"nocode","display_name":"No code","auth":{"kind":"none"},"tools":[{"name":"x","description":"x"}]}`)},
		"settings/connector.json": {Data: []byte(`{"slug":"settings","display_name":"S","endpoint":{"url":"https://x.example/mcp"},"auth":{"kind":"token"},
			"settings_schema":{"type":"object","properties":{"a":{"type":"string","format":"email"}}}}`)},
		"notjson/connector.json": {Data: []byte(`{`)},
	}
	cs, problems := Load(fs, "core", nil)
	if len(cs) != 1 || cs[0].ID() != "mcp_good" {
		t.Fatalf("loaded %v", cs)
	}
	text := ""
	for _, p := range problems {
		text += p.Error() + "\n"
	}
	for _, want := range []string{`wrong: slug "other" is not its folder's name "wrong"`, "bad: ", "/display_name", "/auth/kind", "nocode: ", "needs an endpoint, an adapter", "settings: settings_schema: #/properties/a: keyword \"format\"", "notjson: connector.json is not JSON"} {
		if !strings.Contains(text, want) {
			t.Errorf("problems lack %q:\n%s", want, text)
		}
	}
}

// LoadAll reads several trees as one: each tree's connectors load, sorted by slug across them, and an
// adapter whose slug no tree holds is one Problem, not one per tree.
func TestLoadAllReadsTreesAsOne(t *testing.T) {
	tree := func(slug string) fstest.MapFS {
		return fstest.MapFS{slug + "/connector.json": {Data: []byte(`{"slug":"` + slug + `","display_name":"X","endpoint":{"url":"https://x.example/mcp"},"auth":{"kind":"token"}}`)}}
	}
	cs, problems := LoadAll([]fs.FS{tree("zeta"), tree("alpha")}, "core", map[string]Adapter{"orphan": nil})
	if len(cs) != 2 || cs[0].ID() != "mcp_alpha" || cs[1].ID() != "mcp_zeta" {
		t.Fatalf("loaded %v, want alpha then zeta", cs)
	}
	if len(problems) != 1 || problems[0].Folder != "orphan" {
		t.Fatalf("problems %v, want the orphan adapter once", problems)
	}
}

func TestSettingsSubset(t *testing.T) {
	s, err := ParseSettingsSchema(json.RawMessage(`{"type":"object","additionalProperties":false,"required":["project"],
		"properties":{"project":{"type":"string","minLength":2,"maxLength":8,"pattern":"^[a-z]+$","x-lookup":true},
		"repos":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string","enum":["a","b"]}},"n":{"type":"integer"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for doc, want := range map[string]string{
		`{"project":"abc"}`:                      "",
		`{}`:                                     "", // a missing required setting waits: Missing names it
		`{"project":"a"}`:                        "settings.project: must be at least 2 characters",
		`{"project":"abcdefghij"}`:               "settings.project: must be at most 8 characters",
		`{"project":"AB"}`:                       "settings.project: must match",
		`{"project":"ab","x":1}`:                 "settings: x is not an allowed property",
		`{"project":"ab","repos":[]}`:            "settings.repos: must have at least 1 items",
		`{"project":"ab","repos":["a","b","a"]}`: "settings.repos: must have at most 2 items",
		`{"project":"ab","repos":["c"]}`:         "settings.repos[0]: must be one of",
		`{"project":"ab","n":1.5}`:               "settings.n: must be an integer",
		`[]`:                                     "settings: must be an object",
	} {
		err := s.Validate(json.RawMessage(doc))
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}
	if m := s.Missing(json.RawMessage(`{}`)); len(m) != 1 || m[0] != "project" {
		t.Errorf("missing = %v", m)
	}
	if !s.LookupProperty("project") || s.LookupProperty("repos") {
		t.Error("x-lookup not read")
	}
	if _, err := ParseSettingsSchema(json.RawMessage(`{"type":"object","oneOf":[]}`)); err == nil {
		t.Error("a keyword outside the subset was accepted")
	}
}

func TestOverridesApply(t *testing.T) {
	m := &Manifest{DisplayName: "A", Description: "d", Tools: []ManifestTool{{Name: "x", Description: "old"}}}
	name, desc, off := "B", "new", false
	o := &Overrides{DisplayName: &name, Tools: map[string]ToolOverride{"x": {Description: &desc, Default: &off}}}
	got := o.Apply(m)
	if got.DisplayName != "B" || got.Description != "d" || got.Tools[0].Description != "new" || m.Tools[0].Description != "old" {
		t.Fatalf("apply = %+v (manifest %+v)", got, m)
	}
	if d := o.AdminDefault("x"); d == nil || *d {
		t.Fatal("admin default lost")
	}
	var none *Overrides
	if none.Apply(m) != m || none.AdminDefault("x") != nil {
		t.Fatal("nil overrides changed something")
	}
}
