package connectorsrm

import (
	"testing"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/login"
)

// Ask is the third state of a switch: Off > Ask > On along the chain, an explicit Off anywhere above
// still binds, and a default never asks.
func TestDecideAsk(t *testing.T) {
	org := login.Owner{Scope: login.ScopeOrganization, ID: uuid.New()}
	agent := login.Owner{Scope: login.ScopeAgent, ID: uuid.New()}
	on := func(o login.Owner) Switch { return Switch{Owner: o, Tool: "x", On: true, Rule: RuleSet} }
	off := func(o login.Owner) Switch { return Switch{Owner: o, Tool: "x", Rule: RuleSet} }
	ask := func(o login.Owner) Switch { return Switch{Owner: o, Tool: "x", On: true, Ask: true, Rule: RuleSet} }
	for _, c := range []struct {
		name     string
		switches []Switch
		on, ask  bool
	}{
		{"On", []Switch{on(org)}, true, false},
		{"the organisation asks", []Switch{ask(org)}, true, true},
		{"an agent's On cannot loosen its organisation's Ask", []Switch{ask(org), on(agent)}, true, true},
		{"an agent may tighten its organisation's Ask to Off", []Switch{ask(org), off(agent)}, false, false},
		{"an agent's Ask tightens its organisation's On", []Switch{on(org), ask(agent)}, true, true},
		{"an organisation's Off binds an agent's Ask", []Switch{off(org), ask(agent)}, false, false},
		{"an Ask lifts a default Off at the login's scope, as an On does", []Switch{{Owner: agent, Tool: "x", Rule: "mutating"}, ask(org)}, true, true},
		{"a default never asks", []Switch{{Owner: org, Tool: "x", On: true, Ask: true, Rule: "default_on"}}, true, false},
	} {
		d := Decide(c.switches, Tool{}, login.ScopeAgent)
		if d.On != c.on || d.Ask != c.ask {
			t.Errorf("%s: On %v Ask %v, want On %v Ask %v", c.name, d.On, d.Ask, c.on, c.ask)
		}
	}
}
