package plugins_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/plugins/shipped"
)

func TestAddInternal(t *testing.T) {
	noop := func(context.Context, plugins.Context, json.RawMessage) (any, error) {
		return map[string]bool{"ok": true}, nil
	}
	manifest := plugins.Manifest{Name: "jots", Version: "1", DisplayName: "Jots", Description: "d", Auth: plugins.Auth{Mode: plugins.AuthNone}}
	tool := plugins.ToolSpec{Name: "deploy_jot", Description: "d", InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","default":"x"}}}`), Handler: plugins.HandlerGo}
	cases := []struct {
		name     string
		manifest func(m plugins.Manifest) plugins.Manifest
		tool     func(s plugins.ToolSpec) plugins.ToolSpec
		handlers map[string]plugins.Handler
		want     string
	}{
		{name: "a reserved integration registers", handlers: map[string]plugins.Handler{"deploy_jot": noop}},
		{name: "a name that is not reserved", manifest: func(m plugins.Manifest) plugins.Manifest { m.Name = "mine"; return m }, handlers: map[string]plugins.Handler{"deploy_jot": noop}, want: "only a reserved name"},
		{name: "an auth mode", manifest: func(m plugins.Manifest) plugins.Manifest { m.Auth.Mode = plugins.AuthOAuth2; return m }, handlers: map[string]plugins.Handler{"deploy_jot": noop}, want: "auth mode none"},
		{name: "a missing handler", want: "no Go handler"},
		{name: "a tool name another integration has", tool: func(s plugins.ToolSpec) plugins.ToolSpec { s.Name = "utils_echo"; return s }, handlers: map[string]plugins.Handler{"utils_echo": noop}, want: "already registered by integration utils"},
		{name: "a schema that is not an object", tool: func(s plugins.ToolSpec) plugins.ToolSpec {
			s.InputSchema = json.RawMessage(`{"type":"string"}`)
			return s
		}, handlers: map[string]plugins.Handler{"deploy_jot": noop}, want: "object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reg, _ := plugins.Load(context.Background(), plugins.Options{Builtins: shipped.Plugins()})
			m, s := manifest, tool
			if tc.manifest != nil {
				m = tc.manifest(m)
			}
			if tc.tool != nil {
				s = tc.tool(s)
			}
			before := len(reg.Tools())
			err := reg.AddInternal(m, []plugins.ToolSpec{s}, tc.handlers)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("got %v, want an error containing %q", err, tc.want)
				}
				if len(reg.Tools()) != before {
					t.Error("a refused AddInternal added tools")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tl, ok := reg.Tool("deploy_jot")
			if !ok || tl.Owner().Name != "jots" {
				t.Fatal("deploy_jot is not registered under jots")
			}
			args, err := plugins.ValidateArgs(tl, json.RawMessage(`{}`))
			if err != nil || string(args) != `{"name":"x"}` {
				t.Fatalf("validate: %s %v", args, err)
			}
			out, err := reg.Execute(context.Background(), tl, plugins.NewContext(tl.Owner(), plugins.ContextOptions{UserID: "u"}), args)
			if err != nil || string(out) != `{"ok":true}` {
				t.Fatalf("execute: %s %v", out, err)
			}
			if got := reg.Search("deploy jot", "", 5); len(got) == 0 || got[0].Name != "deploy_jot" {
				t.Errorf("search: %v", got)
			}
			if err := reg.AddInternal(m, []plugins.ToolSpec{s}, tc.handlers); err == nil {
				t.Error("registered twice")
			}
		})
	}
}
