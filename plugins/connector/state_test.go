package connector

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

type hookOnly struct{}

func (hookOnly) Slug() string { return "x" }
func (hookOnly) State(context.Context, map[string]string, Context) (json.RawMessage, error) {
	return json.RawMessage(`{}`), nil
}

type noHook struct{}

func (noHook) Slug() string { return "x" }

// A state key needs a state hook and a hook needs a key; the key's shape and the intro are checked.
func TestStateKeyAndHookGoTogether(t *testing.T) {
	base := `{"slug":"x","display_name":"X","endpoint":{"url":"https://x.example/mcp"},"auth":{"kind":"none"}%s}`
	cases := []struct {
		name, extra string
		adapter     Adapter
		want        string // a reason's part; empty: loads
	}{
		{"key and hook", `,"state":{"key":"x_state","intro":"X now."},"prompt":{"guidance":"Use x."}`, hookOnly{}, ""},
		{"key without hook", `,"state":{"key":"x_state","intro":"X now."}`, noHook{}, `state.key "x_state" needs a state hook`},
		{"key without adapter", `,"state":{"key":"x_state","intro":"X now."}`, nil, `needs a state hook`},
		{"hook without key", ``, hookOnly{}, "names no state.key"},
		{"bad key", `,"state":{"key":"X-State","intro":"X now."}`, hookOnly{}, "want lowercase letters"},
		{"no intro", `,"state":{"key":"x_state"}`, hookOnly{}, "intro"},
		{"unknown prompt member", `,"prompt":{"guidance":"g","tone":"loud"}`, nil, "tone"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, reasons := Parse("x", []byte(strings.Replace(base, "%s", c.extra, 1)), c.adapter)
			joined := strings.Join(reasons, "; ")
			if c.want == "" && len(reasons) > 0 || c.want != "" && !strings.Contains(joined, c.want) {
				t.Fatalf("reasons = %q, want %q", joined, c.want)
			}
		})
	}
	if !IsReservedStateKey("agent") || IsReservedStateKey("x_state") {
		t.Fatal("reserved keys")
	}
}
