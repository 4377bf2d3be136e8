package connector

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
)

// Stater is a connector's state hook (spec connectors.md, State hooks): it runs once at every run
// start (an MCP session's initialize) for each login the agent has On, and its value is shown to
// the agent under the manifest's state.key, introduced by state.intro. Optional, like every adapter
// method: a connector without a hook contributes no state.
type Stater interface {
	State(ctx context.Context, creds map[string]string, ac Context) (json.RawMessage, error)
}

// StateSpec is the manifest's state: the key the adapter's state hook fills and the sentence that
// introduces its value to the agent.
type StateSpec struct {
	Key   string `json:"key"`
	Intro string `json:"intro"`
}

// Prompt is the manifest's prompt: Guidance is a paragraph the agent's instructions add when one of
// the connector's tools is offered to it.
type Prompt struct {
	Guidance string `json:"guidance,omitempty"`
}

// MaxStateBytes bounds one state value, serialised (spec connectors.md, Limits).
const MaxStateBytes = 32000

// ReservedStateKeys are the state keys the core itself uses or may use for what it tells the agent
// about the run (who is calling, what the session offers); a connector's value under one of them is
// dropped at run start and logged, so no connector can pose as the core.
var ReservedStateKeys = []string{
	"agent", "caller", "connections", "connectors", "guild", "instructions", "integrations", "meta_tools",
	"now", "organization", "platform", "prompt", "run", "session", "state", "system", "time", "tools",
	"user", "workbench",
}

// IsReservedStateKey reports whether key is the core's (ReservedStateKeys).
func IsReservedStateKey(key string) bool { return slices.Contains(ReservedStateKeys, key) }

var stateKeyPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// checkState is the rule the schema cannot say: a state key needs a state hook, and a state hook
// needs a state key.
func checkState(m *Manifest, adapter Adapter) []string {
	_, hook := adapter.(Stater)
	var reasons []string
	switch {
	case m.State != nil && !hook:
		reasons = append(reasons, fmt.Sprintf("state.key %q needs a state hook: the connector's adapter has no State method", m.State.Key))
	case m.State == nil && hook:
		reasons = append(reasons, "the adapter has a state hook (State) but the manifest names no state.key")
	}
	if m.State != nil && !stateKeyPattern.MatchString(m.State.Key) {
		reasons = append(reasons, fmt.Sprintf("state.key %q: want lowercase letters, digits and _ (at most 64, starting with a letter)", m.State.Key))
	}
	return reasons
}
