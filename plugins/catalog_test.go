package plugins

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestCatalog holds the built-in catalog to its bar: at least the sixteen integrations the spec ships
// (workbench-concepts.md) besides the utilities, with at least 190 tools between them; every name unique and prefixed by its integration;
// every schema an object schema that compiled; every description present and of a length an agent can
// use; every manifest valid (Load refuses invalid ones, so a problem fails here).
func TestCatalog(t *testing.T) {
	r, problems := Load(context.Background(), Options{Builtins: shippedBuiltins(t)})
	for _, p := range problems {
		t.Errorf("built-in plugin problem: %s", p.Error())
	}
	integrations := 0
	tools := 0
	for _, in := range r.Integrations() {
		if in.Name == "utils" {
			continue
		}
		integrations++
		tools += len(in.Tools())
		if len(in.Description) < 20 || len(in.DisplayName) == 0 {
			t.Errorf("%s: display name or description missing or too short", in.Name)
		}
		if len(in.LogoSVG) == 0 {
			t.Errorf("%s: no logo", in.Name)
		}
		if in.Auth.Mode != AuthNone && in.Auth.Mode != AuthOAuth2 && in.Auth.Mode != AuthAPIKey && in.Auth.Mode != AuthCookie {
			t.Errorf("%s: auth mode %q", in.Name, in.Auth.Mode)
		}
	}
	if integrations < 16 || tools < 190 {
		t.Errorf("catalog has %d integrations with %d tools; want at least 16 and 190", integrations, tools)
	}
	t.Logf("catalog: %d integrations, %d tools (plus utils)", integrations, tools)

	name := regexp.MustCompile(`^[a-z0-9]+(_[a-z0-9]+)+$`)
	seen := map[string]bool{}
	for _, tl := range r.Tools() {
		if seen[tl.Name] {
			t.Errorf("tool %s appears twice", tl.Name)
		}
		seen[tl.Name] = true
		if !name.MatchString(tl.Name) || !strings.HasPrefix(tl.Name, ToolPrefix(tl.Integration)) {
			t.Errorf("tool %s: not lowercase snake case prefixed by %q", tl.Name, ToolPrefix(tl.Integration))
		}
		if n := len(tl.Description); n < 30 || n > 1200 {
			t.Errorf("tool %s: description of %d characters; want 30 to 1200", tl.Name, n)
		}
		var schema map[string]any
		if err := json.Unmarshal(tl.InputSchema, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("tool %s: input schema is not an object schema: %s", tl.Name, tl.InputSchema)
		}
		if tl.schema == nil {
			t.Errorf("tool %s: schema not compiled", tl.Name)
		}
	}
}
