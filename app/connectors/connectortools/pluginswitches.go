package connectortools

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// Plugin tools' switches. A plugin tool (an integration's or a built-in's) is switched as a connector
// tool is, on the same switch streams and by the same Decide, its ServerID being
// login.PluginServerID(integration): an explicit Off at a scope binds every scope below it, a lower
// scope cannot turn it back On, and only someone who manages the binding scope lifts it. A connector
// tool's defaults are written by its login's listing; a plugin tool's default is its manifest's, the
// same what-starts-Off rule read at the platform scope (plugins.Tool.StartsOff: tools.json marks it
// mutating, or its name carries a writing verb): such a tool is Off for every agent until someone who
// manages a scope of its chain switches it On there. Any other tool no scope has switched is On.

// PluginToolLookup finds a plugin tool by name and lists them all (*plugins.Registry);
// Options.Integrations provides it.
type PluginToolLookup interface {
	Tool(name string) (*plugins.Tool, bool)
	Tools() []*plugins.Tool
}

// pluginTool is the integration of the plugin tool called name, or CodeUnprocessable.
func (s *Service) pluginTool(name string) (string, error) {
	if lookup, ok := s.Opts.Integrations.(PluginToolLookup); ok {
		if t, ok := lookup.Tool(name); ok {
			return t.Owner().Name, nil
		}
	}
	return "", domain.Errorf(domain.CodeUnprocessable, "there is no plugin tool %s", name)
}

// SetPluginSwitch turns a plugin tool On or Off at a scope the user manages (PUT
// /api/tools/switches). An On below a scope that switched the tool Off is CodeConflict, naming that
// scope; the platform's switches are the instance admin's (SetPlatformPluginSwitch).
func (s *Service) SetPluginSwitch(ctx context.Context, user uuid.UUID, owner login.Owner, tool string, on bool) error {
	return s.setPluginSwitch(ctx, user, owner, tool, on, false)
}

// AskPluginSwitch switches a plugin tool to Ask at a scope the user manages: On, and every call of
// it by an agent below waits for a person's approval.
func (s *Service) AskPluginSwitch(ctx context.Context, user uuid.UUID, owner login.Owner, tool string) error {
	return s.setPluginSwitch(ctx, user, owner, tool, true, true)
}

func (s *Service) setPluginSwitch(ctx context.Context, user uuid.UUID, owner login.Owner, tool string, on, ask bool) error {
	if owner.Scope == login.ScopePlatform {
		return domain.Errorf(domain.CodeForbidden, "the platform's switches are the instance admin's")
	}
	if err := s.Opts.Scopes.MayManage(ctx, user, owner); err != nil {
		return err
	}
	integration, err := s.pluginTool(tool)
	if err != nil {
		return err
	}
	server := login.PluginServerID(integration)
	if on {
		reason, err := s.boundOff(ctx, user, owner, server, tool)
		if err != nil {
			return err
		}
		if reason != "" {
			return domain.Errorf(domain.CodeConflict, "%s is %s; a scope below it cannot turn it On, only whoever manages that scope can", tool, reason)
		}
	}
	return s.setSwitch(ctx, user.String(), login.SwitchSet{Owner: owner, ServerID: server, Tool: tool, On: on, Ask: ask, By: user.String(), At: s.Opts.Now()})
}

// SetPlatformPluginSwitch is the instance admin's switch of a plugin tool at the platform scope (the
// caller checks that actor is one): an Off binds every organisation. With asDefault it is the admin's
// default instead (the first rule of what starts Off, before mutating and the name rules): the tool
// starts On or Off for every agent, and any scope below may switch it either way.
func (s *Service) SetPlatformPluginSwitch(ctx context.Context, actor, tool string, on, asDefault bool) error {
	integration, err := s.pluginTool(tool)
	if err != nil {
		return err
	}
	return s.setSwitch(ctx, actor, login.SwitchSet{Owner: login.Owner{Scope: login.ScopePlatform}, ServerID: login.PluginServerID(integration), Tool: tool, On: on, Default: asDefault, By: actor, At: s.Opts.Now()})
}

// OffTool is why a plugin tool is Off for an agent.
type OffTool struct {
	// Why is the reason a person reads ("switched Off by organisation Acme").
	Why string
	// ByDefault: only its start-Off rule holds it Off (no scope switched it Off, none On).
	ByDefault bool
}

// PluginToolsOff answers which plugin tools are Off for the caller's agent, each with why; a tool it
// does not name is On. It reads the switches of the agent's chain through the tool-call cache: a
// switch set on this replica binds at once, one set on another within DefaultCacheTTL.
func (s *Service) PluginToolsOff(ctx context.Context, caller executions.Caller) (map[string]OffTool, error) {
	off, _, err := s.PluginToolStates(ctx, caller)
	return off, err
}

// PluginToolStates is PluginToolsOff, and the On plugin tools that ask for a person's approval (Ask).
func (s *Service) PluginToolStates(ctx context.Context, caller executions.Caller) (map[string]OffTool, map[string]bool, error) {
	lookup, ok := s.Opts.Integrations.(PluginToolLookup)
	if !ok {
		return map[string]OffTool{}, map[string]bool{}, nil
	}
	pc, err := s.cachedPluginSwitches(ctx, caller)
	if err != nil {
		return nil, nil, err
	}
	all := pc.switches
	off, ask := map[string]OffTool{}, map[string]bool{}
	why := s.reasons()
	for _, t := range lookup.Tools() {
		switches := all[pluginKey(t)]
		switch d := pluginDecision(t, switches, pc.asks); {
		case !d.On:
			off[t.Name] = OffTool{Why: why(ctx, d), ByDefault: len(switches) == 0}
		case d.Ask:
			ask[t.Name] = true
		}
	}
	return off, ask, nil
}

// PluginToolOff is why one plugin tool is Off for the caller ("" when it is On): the check an
// execution of a plugin tool makes before it reads a credential.
func (s *Service) PluginToolOff(ctx context.Context, caller executions.Caller, integration, tool string) (string, error) {
	lookup, ok := s.Opts.Integrations.(PluginToolLookup)
	if !ok {
		return "", nil
	}
	t, ok := lookup.Tool(tool)
	if !ok || t.Owner().Name != integration {
		return "", nil
	}
	pc, err := s.cachedPluginSwitches(ctx, caller)
	if err != nil {
		return "", err
	}
	return s.whyOff(ctx, pluginDecision(t, pc.switches[pluginKey(t)], pc.asks)), nil
}

// PluginToolGate implements executions.PluginSwitches: why one plugin tool is Off for the caller
// ("" when it is On), and whether each of its calls waits for a person's approval (Ask).
func (s *Service) PluginToolGate(ctx context.Context, caller executions.Caller, integration, tool string) (string, bool, error) {
	lookup, ok := s.Opts.Integrations.(PluginToolLookup)
	if !ok {
		return "", false, nil
	}
	t, ok := lookup.Tool(tool)
	if !ok || t.Owner().Name != integration {
		return "", false, nil
	}
	pc, err := s.cachedPluginSwitches(ctx, caller)
	if err != nil {
		return "", false, err
	}
	d := pluginDecision(t, pc.switches[pluginKey(t)], pc.asks)
	return s.whyOff(ctx, d), d.On && d.Ask, nil
}

// pluginKey is a plugin tool's key in the switches the reader answers.
func pluginKey(t *plugins.Tool) string { return login.PluginServerID(t.Owner().Name) + "\x00" + t.Name }

// cachedPluginSwitches are the plugin tools' switches along the caller's chain, keyed by server id and
// tool (pluginKey), reused for
// DefaultCacheTTL (every write of this replica clears them).
func (s *Service) cachedPluginSwitches(ctx context.Context, caller executions.Caller) (pluginChain, error) {
	key := pluginCaller{user: caller.UserID, agent: caller.AgentID}
	h := s.hot
	h.mu.Lock()
	e, ok := h.plugins[key]
	gen := h.gen
	h.mu.Unlock()
	if ok && fresh(e.at, h.ttl) {
		return e.v, nil
	}
	at := time.Now()
	chain, err := s.CallerChain(ctx, caller)
	if err != nil {
		return pluginChain{}, err
	}
	byServer, err := s.Reader.PluginSwitches(ctx, chain.Owners())
	if err != nil {
		return pluginChain{}, err
	}
	asks, err := s.Reader.PrefersAsk(ctx, chain.OrganizationID)
	if err != nil {
		return pluginChain{}, err
	}
	pc := pluginChain{switches: byServer, asks: asks}
	h.mu.Lock()
	if h.gen == gen {
		h.plugins[key] = hotEntry[pluginChain]{v: pc, at: at}
	}
	h.mu.Unlock()
	return pc, nil
}

// pluginChain is what a caller's chain holds for plugin tools: the switches by pluginKey, and whether
// its organisation has tools that start Off ask instead.
type pluginChain struct {
	switches map[string][]connectorsrm.Switch
	asks     bool
}

// pluginDecision is plugin tool t's switch along a chain, switches being the chain's: the instance
// admin's default, else its start-Off rule, is a default at the platform scope, then Decide decides; a
// tool with neither is On.
func pluginDecision(t *plugins.Tool, switches []connectorsrm.Switch, asks bool) connectorsrm.Decision {
	if off, rule := t.StartsOff(); off && !hasAdminDefault(switches) {
		switches = append(slices.Clip(switches), connectorsrm.Switch{Owner: login.Owner{Scope: login.ScopePlatform}, Tool: t.Name, On: false, Rule: rule})
	}
	if len(switches) == 0 {
		return connectorsrm.Decision{On: true}
	}
	d := connectorsrm.Decide(switches, connectorsrm.Tool{}, "")
	if asks {
		d = connectorsrm.StartsAsk(d) // the organisation chose Ask for what starts Off
	}
	return d
}

// hasAdminDefault reports whether the platform holds the instance admin's default among switches.
func hasAdminDefault(switches []connectorsrm.Switch) bool {
	for _, sw := range switches {
		if sw.Owner.Scope == login.ScopePlatform && sw.Rule == connectorsrm.RuleAdminDefault {
			return true
		}
	}
	return false
}

// reasons is whyOff for one answer that may give many: a scope's name is read once, not per tool.
func (s *Service) reasons() func(context.Context, connectorsrm.Decision) string {
	seen := map[connectorsrm.Decision]string{}
	return func(ctx context.Context, d connectorsrm.Decision) string {
		why, ok := seen[d]
		if !ok {
			why = s.whyOff(ctx, d)
			seen[d] = why
		}
		return why
	}
}

// CallerChain is the caller's agent's chain: the agent the credential names, or the user's default agent.
func (s *Service) CallerChain(ctx context.Context, caller executions.Caller) (Chain, error) {
	agent, err := s.AgentOf(ctx, caller)
	if err != nil {
		return Chain{}, err
	}
	return s.ChainOf(ctx, caller.UserID, agent)
}

// PluginSwitchView is one plugin tool as a scope sees it (GET /api/tools/switches).
type PluginSwitchView struct {
	Name        string `json:"name"`
	Integration string `json:"integration"`
	Description string `json:"description"`
	// Switch is this scope's own explicit switch; nil when it holds none. State says it in words:
	// on, off or ask ("" when none).
	Switch *bool  `json:"switch"`
	State  string `json:"state,omitempty"`
	// Ask: On, and each call waits for a person's approval (an Ask at this scope or above).
	Ask bool `json:"ask"`
	// On is the tool's switch resolved along the chain down to this scope.
	On bool `json:"on"`
	// Unavailable says why it is Off here ("switched Off by organisation Acme").
	Unavailable string `json:"unavailable,omitempty"`
	// Bound: a scope above switched it Off, so this scope cannot turn it On.
	Bound bool `json:"bound"`
	// StartsOff is the rule that has the tool Off until someone switches it On (admin_default,
	// mutating, policy_default_off, writing_verb); empty when it starts On.
	StartsOff string `json:"starts_off,omitempty"`
	// Default is the instance admin's default for the tool (PUT with "default": true at the
	// platform); nil when none is set, and then the start-Off rules decide.
	Default *bool `json:"default,omitempty"`
}

// PluginSwitchViews lists every plugin tool with its switches at owner, a scope the user manages (the
// platform's are the instance admin's: the caller checks that).
func (s *Service) PluginSwitchViews(ctx context.Context, user uuid.UUID, owner login.Owner) ([]PluginSwitchView, error) {
	if owner.Scope != login.ScopePlatform {
		if err := s.Opts.Scopes.MayManage(ctx, user, owner); err != nil {
			return nil, err
		}
	}
	lookup, ok := s.Opts.Integrations.(PluginToolLookup)
	if !ok {
		return []PluginSwitchView{}, nil
	}
	chain, err := s.ownerChain(ctx, user, owner)
	if err != nil {
		return nil, err
	}
	all, err := s.Reader.PluginSwitches(ctx, chain.Owners())
	if err != nil {
		return nil, err
	}
	asks, err := s.Reader.PrefersAsk(ctx, chain.OrganizationID)
	if err != nil {
		return nil, err
	}
	out := []PluginSwitchView{}
	why := s.reasons()
	for _, t := range lookup.Tools() {
		switches := all[pluginKey(t)]
		v := PluginSwitchView{Name: t.Name, Integration: t.Owner().Name, Description: t.Description}
		_, v.StartsOff = t.StartsOff()
		for _, sw := range switches {
			switch {
			case sw.Owner == owner && sw.Explicit():
				v.Switch = &sw.On
				v.State = map[bool]string{true: "on", false: "off"}[sw.On]
				if sw.Ask {
					v.State = "ask"
				}
			case sw.Owner.Scope == login.ScopePlatform && sw.Rule == connectorsrm.RuleAdminDefault:
				v.Default = &sw.On
				if v.StartsOff = ""; !sw.On {
					v.StartsOff = connectorsrm.RuleAdminDefault
				}
			}
		}
		if d := pluginDecision(t, switches, asks); d.On {
			v.On, v.Ask = true, d.Ask
		} else {
			v.Unavailable = why(ctx, d)
		}
		_, v.Bound = boundAbove(switches, owner)
		out = append(out, v)
	}
	return out, nil
}

// AllowForAgent switches a tool On at one agent's scope: a person's "always allow for this agent" on
// an approval (app/approvals). integration is a connector's server id or a plugin integration's name;
// agent uuid.Nil is the user's default agent. The user must manage the agent, and a scope above that
// holds the tool Off refuses it, as any switch; an Ask above still asks.
func (s *Service) AllowForAgent(ctx context.Context, user, agent uuid.UUID, integration, tool string) error {
	if agent == uuid.Nil {
		var err error
		if agent, err = s.Opts.Scopes.DefaultAgent(ctx, user); err != nil {
			return err
		}
	}
	owner := login.Owner{Scope: login.ScopeAgent, ID: agent}
	if s.IsConnector(ctx, integration) {
		return s.SetSwitch(ctx, user, owner, integration, tool, true)
	}
	return s.SetPluginSwitch(ctx, user, owner, tool, true)
}

// SetStartPreference is an organisation's choice of what tools that start Off by their rule
// (mutating, destructive, a writing verb, a manifest's default_off) are for its agents: login.StartsOff
// or login.StartsAsk (On, each call waiting for a person's approval). Plugin and connector tools alike;
// explicit switches and the instance admin's defaults are untouched. The user must manage the
// organisation.
func (s *Service) SetStartPreference(ctx context.Context, user, org uuid.UUID, startsAs string) error {
	owner := login.Owner{Scope: login.ScopeOrganization, ID: org}
	if err := s.Opts.Scopes.MayManage(ctx, user, owner); err != nil {
		return err
	}
	ev := login.StartPreferenceSet{Owner: owner, MutatingStartsAs: startsAs, By: user.String(), At: s.Opts.Now()}
	res, err := eventstore.Execute(ctx, s.Opts.Store, login.SwitchStreamName(owner), switchAggregate, login.SwitchCommand(login.SetStartPreference{Event: ev}), s.MD(user.String()))
	if err != nil {
		return err
	}
	return s.Wait(ctx, res.Position, len(res.Events))
}

// StartPreference is an organisation's choice (login.StartsOff when it made none). The user must
// manage the organisation.
func (s *Service) StartPreference(ctx context.Context, user, org uuid.UUID) (string, error) {
	if err := s.Opts.Scopes.MayManage(ctx, user, login.Owner{Scope: login.ScopeOrganization, ID: org}); err != nil {
		return "", err
	}
	asks, err := s.Reader.PrefersAsk(ctx, org)
	if asks {
		return login.StartsAsk, err
	}
	return login.StartsOff, err
}
