package login

import "testing"

func TestPluginServerID(t *testing.T) {
	if got := PluginServerID("github"); got != "plugin:github" {
		t.Fatalf("PluginServerID(github) = %q", got)
	}
	for id, want := range map[string]string{"plugin:github": "github", "plugin:": "", "mcp_github": "", "github": ""} {
		name, ok := PluginIntegration(id)
		if name != want || ok != (want != "") {
			t.Errorf("PluginIntegration(%q) = %q, %v; want %q", id, name, ok, want)
		}
	}
}
