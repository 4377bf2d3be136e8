package connector

import (
	"strings"
	"testing"
	"testing/fstest"
)

// auth.instance's load-time rules (spec connectors.md, Platform logins).
func TestAuthInstance(t *testing.T) {
	manifest := func(auth string) []byte {
		return []byte(`{"slug":"web","display_name":"Web","endpoint":{"url":"https://mcp.example.com/mcp"},"auth":` + auth + `}`)
	}
	for name, c := range map[string]struct {
		auth string
		want string // "" loads
	}{
		"own":                  {`{"kind":"token","instance":{"own":true}}`, ""},
		"integration":          {`{"kind":"token","instance":{"integration":"brave-search","field":"api_key"}}`, ""},
		"both forms":           {`{"kind":"token","instance":{"own":true,"integration":"brave-search","field":"api_key"}}`, "not both"},
		"integration no field": {`{"kind":"token","instance":{"integration":"brave-search"}}`, "needs both"},
		"empty":                {`{"kind":"token","instance":{}}`, "needs both"},
		"not token":            {`{"kind":"none","instance":{"own":true}}`, "is for auth.kind token"},
		"own false":            {`{"kind":"token","instance":{"own":false}}`, "/auth/instance/own"},
		"unknown key":          {`{"kind":"token","instance":{"own":true,"plan":"x"}}`, "plan"},
	} {
		c2, reasons := Parse("web", manifest(c.auth), nil)
		got := strings.Join(reasons, "; ")
		switch {
		case c.want == "" && (c2 == nil || got != ""):
			t.Errorf("%s: %s", name, got)
		case c.want != "" && !strings.Contains(got, c.want):
			t.Errorf("%s: reasons %q, want one naming %q", name, got, c.want)
		}
	}
	m, _ := Parse("web", manifest(`{"kind":"token","instance":{"integration":"brave-search","field":"api_key"}}`), nil)
	if m.Manifest.KeyName() != "integration:brave-search" {
		t.Errorf("key name %q", m.Manifest.KeyName())
	}
	m, _ = Parse("web", manifest(`{"kind":"token","instance":{"own":true}}`), nil)
	if m.Manifest.KeyName() != "connector:web" {
		t.Errorf("key name %q", m.Manifest.KeyName())
	}
	// {integration, field} is for a connector the box ships only.
	fsys := fstest.MapFS{"web/connector.json": {Data: manifest(`{"kind":"token","instance":{"integration":"brave-search","field":"api_key"}}`)}}
	if cs, problems := Load(fsys, "registry", nil); len(cs) != 0 || len(problems) != 1 || !strings.Contains(problems[0].Error(), "source core") {
		t.Errorf("registry connector naming an integration: %v, %v", cs, problems)
	}
	if cs, problems := Load(fsys, "core", nil); len(cs) != 1 || len(problems) != 0 {
		t.Errorf("core connector naming an integration: %v, %v", cs, problems)
	}
}
