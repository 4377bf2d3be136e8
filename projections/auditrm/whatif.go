package auditrm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/connectorsrm"
	"github.com/workbench/workbench/projections/organizationsrm"
	"github.com/workbench/workbench/projections/profile"
)

// What-if limits.
const (
	DefaultWhatIfDays = 30
	MaxWhatIfDays     = 366
	MaxWhatIfSwitches = 50
)

// ProposedSwitch is one tool switch a what-if tries: Tool (the name an agent calls, as executions
// record it: the connector's prefixed name) On or Off at Owner.
type ProposedSwitch struct {
	Owner login.Owner `json:"owner"`
	Tool  string      `json:"tool"`
	On    bool        `json:"on"`
}

// String is the switch in ParseSwitch's syntax.
func (p ProposedSwitch) String() string {
	state := "off"
	if p.On {
		state = "on"
	}
	return scopeString(p.Owner) + ":" + p.Tool + "=" + state
}

func scopeString(o login.Owner) string {
	switch o.Scope {
	case login.ScopePlatform:
		return "platform"
	case login.ScopeOrganization:
		return "org:" + o.ID.String()
	default:
		return string(o.Scope) + ":" + o.ID.String()
	}
}

// ParseSwitch reads "<scope>:<tool>=off" (or "=on"), where <scope> is one of
//
//	platform             the whole server
//	org:<uuid>           an organisation ("organization:<uuid>" too)
//	guild:<uuid>         a guild
//	agent:<uuid>         one agent
//
// and <tool> is the tool's name as agents call it (a connector tool's prefixed name, as the audit
// records show it). Errors are CodeInvalid and name the switch.
func ParseSwitch(s string) (ProposedSwitch, error) {
	raw := strings.TrimSpace(s)
	bad := func(why string) (ProposedSwitch, error) {
		return ProposedSwitch{}, domain.Errorf(domain.CodeInvalid,
			"switch %q: %s (want <scope>:<tool>=off|on, scope platform, org:<id>, guild:<id> or agent:<id>)", raw, why)
	}
	eq := strings.LastIndexByte(raw, '=')
	if eq < 0 {
		return bad("no =off or =on")
	}
	var p ProposedSwitch
	switch strings.ToLower(strings.TrimSpace(raw[eq+1:])) {
	case "off":
	case "on":
		p.On = true
	default:
		return bad("the state is neither off nor on")
	}
	head := raw[:eq]
	var scope, rest string
	if strings.HasPrefix(head, "platform:") {
		scope, rest = "platform", strings.TrimPrefix(head, "platform:")
	} else {
		// <kind>:<uuid>:<tool>
		parts := strings.SplitN(head, ":", 3)
		if len(parts) != 3 {
			return bad("no scope")
		}
		scope, rest = parts[0], parts[2]
		id, err := uuid.Parse(parts[1])
		if err != nil || id == uuid.Nil {
			return bad(fmt.Sprintf("%q is not an id (a UUID)", parts[1]))
		}
		p.Owner.ID = id
	}
	switch strings.ToLower(scope) {
	case "platform":
		p.Owner.Scope = login.ScopePlatform
	case "org", "organization":
		p.Owner.Scope = login.ScopeOrganization
	case "guild":
		p.Owner.Scope = login.ScopeGuild
	case "agent":
		p.Owner.Scope = login.ScopeAgent
	default:
		return bad(fmt.Sprintf("unknown scope %q", scope))
	}
	p.Tool = strings.TrimSpace(rest)
	if p.Tool == "" || len(p.Tool) > 200 || strings.ContainsAny(p.Tool, " :=\t\n") {
		return bad("no tool name")
	}
	return p, nil
}

// WhatIfScopes resolves an agent to its scopes (*organizations.Reader).
type WhatIfScopes interface {
	ChainFor(ctx context.Context, userID, agentID uuid.UUID) (organizationsrm.Chain, error)
}

// WhatIfSwitches reads the current switches and connectors (connectors.Reader).
type WhatIfSwitches interface {
	Switches(ctx context.Context, owners []login.Owner) (map[string][]connectorsrm.Switch, error)
	Server(ctx context.Context, id string) (connectorsrm.Server, error)
}

// WhatIfPlugins says whether a tool is a plugin tool and, if so, whether it starts Off for every agent
// and by which rule (plugins.Tool.StartsOff through the registry).
type WhatIfPlugins interface {
	StartsOff(tool string) (off bool, rule string, ok bool)
}

// WhatIfQuery is a proposed switch change and the window of executions it is tried on.
type WhatIfQuery struct {
	Switches []ProposedSwitch
	// Days is the window: executions whose event time is within the last Days days before Now
	// (default DefaultWhatIfDays, at most MaxWhatIfDays).
	Days int
	// Now is the window's end (default time.Now).
	Now     time.Time
	Scopes  WhatIfScopes
	Current WhatIfSwitches
	// Plugins knows the plugin tools; nil: executions of plugin tools never match.
	Plugins  WhatIfPlugins
	Opener   profile.Opener
	MaxCalls int // blocked calls listed per agent (default 100; the counts are always whole)
}

// Validate checks the switches and the window and fills the defaults; its errors are CodeInvalid.
func (q *WhatIfQuery) Validate() error {
	if len(q.Switches) == 0 {
		return domain.Errorf(domain.CodeInvalid, "name at least one switch: <scope>:<tool>=off")
	}
	if len(q.Switches) > MaxWhatIfSwitches {
		return domain.Errorf(domain.CodeInvalid, "at most %d switches", MaxWhatIfSwitches)
	}
	if q.Days == 0 {
		q.Days = DefaultWhatIfDays
	}
	if q.Days < 1 || q.Days > MaxWhatIfDays {
		return domain.Errorf(domain.CodeInvalid, "days must be between 1 and %d", MaxWhatIfDays)
	}
	if q.Now.IsZero() {
		q.Now = time.Now()
	}
	if q.MaxCalls <= 0 {
		q.MaxCalls = 100
	}
	return nil
}

// WhatIfTotals are a what-if's totals.
type WhatIfTotals struct {
	// Executions are the tool executions in the window; Matched those of a tool a proposed switch names
	// whose agent's chain holds the switch's scope.
	Executions int64 `json:"executions"`
	Matched    int64 `json:"matched"`
	// Blocked are the matched calls the current switches allow and the proposed ones would not.
	Blocked int64 `json:"blocked"`
	// AlreadyOff are matched calls the current switches block already (switched off since they ran).
	AlreadyOff int64 `json:"already_off"`
	// UnknownAgents are matched-tool calls whose agent the organisations read model no longer has.
	UnknownAgents int64 `json:"unknown_agents"`
	Agents        int64 `json:"agents"`
}

// AgentWhatIf is what one agent would have lost.
type AgentWhatIf struct {
	AgentID uuid.UUID `json:"agent_id"`
	UserID  uuid.UUID `json:"user_id"`
	Email   string    `json:"email,omitempty"`
	Blocked int64     `json:"blocked"`
	// ByTool counts the blocked calls per tool.
	ByTool map[string]int64 `json:"by_tool"`
	// Calls are the blocked calls' records in log order (the first MaxCalls).
	Calls []Record `json:"calls"`
}

// WhatIfReport is a what-if's answer.
type WhatIfReport struct {
	Switches []string      `json:"switches"`
	Since    time.Time     `json:"since"`
	Until    time.Time     `json:"until"`
	Totals   WhatIfTotals  `json:"totals"`
	Agents   []AgentWhatIf `json:"agents"`
	Scanned  int64         `json:"events_scanned"`
}

// WhatIf replays the recorded tool executions of the last Days days (execution.tool_executed events,
// by event time, from the log itself) against the current switches with the proposed ones laid over
// them, and lists per agent the calls that would have been blocked. A switch decides as at run time
// (connectors.Decide) along the agent's chain (platform → organisation → guild → agent, the
// organisations read model as it is now): an explicit Off binds every scope below it, else the most
// specific explicit On, else the most specific default decides, and a connector tool no scope switches
// is Off. A plugin tool (known to q.Plugins) decides as at run time too: its start-Off rule is a
// default Off at the platform, and a plugin tool with no switch and no such rule is On. An execution
// that names no agent (older records, and the default agent's) is the user's default agent's.
func WhatIf(ctx context.Context, store eventstore.Store, q WhatIfQuery) (WhatIfReport, error) {
	if err := q.Validate(); err != nil {
		return WhatIfReport{}, err
	}
	if q.Scopes == nil || q.Current == nil {
		return WhatIfReport{}, errors.New("audit what-if: Scopes and Current are required")
	}
	until := q.Now.UTC()
	since := until.Add(-time.Duration(q.Days) * 24 * time.Hour)
	rep := WhatIfReport{Since: since, Until: until, Agents: []AgentWhatIf{}}
	byTool := map[string][]ProposedSwitch{}
	for _, p := range q.Switches {
		rep.Switches = append(rep.Switches, p.String())
		byTool[p.Tool] = append(byTool[p.Tool], p)
	}
	chains := map[uuid.UUID]*organizationsrm.Chain{} // nil: unknown agent
	isConnector := map[string]bool{}
	current := map[string][]connectorsrm.Switch{} // chain owners + server + tool → switches
	agents := map[uuid.UUID]*AgentWhatIf{}
	err := replayEnvelopes(ctx, store, q.Opener, func(eventstore.Envelope) { rep.Scanned++ }, func(r Record) error {
		if r.Kind != KindToolExecuted || r.Time.Before(since) || r.Time.After(until) {
			return nil
		}
		rep.Totals.Executions++
		proposed := byTool[r.Tool]
		if len(proposed) == 0 {
			return nil
		}
		connector, seen := isConnector[r.Integration]
		if !seen {
			_, err := q.Current.Server(ctx, r.Integration)
			if err != nil && domain.ErrorCode(err) != domain.CodeNotFound {
				return err
			}
			connector = err == nil
			isConnector[r.Integration] = connector
		}
		server := r.Integration
		var plugin *login.Owner // the platform, where a plugin tool's start-Off rule is a default
		var startRule string
		if !connector {
			if q.Plugins == nil {
				return nil
			}
			off, rule, ok := q.Plugins.StartsOff(r.Tool)
			if !ok {
				return nil
			}
			server = login.PluginServerID(r.Integration)
			plugin = &login.Owner{Scope: login.ScopePlatform}
			if off {
				startRule = rule
			}
		}
		agent := r.AgentID
		if agent == uuid.Nil {
			agent = identitydom.DefaultAgentID(r.UserID)
		}
		chain, known := chains[agent]
		if !known {
			c, err := q.Scopes.ChainFor(ctx, r.UserID, agent)
			switch {
			case errors.Is(err, organizationsrm.ErrNotFound):
			case err != nil:
				return err
			default:
				chain = &c
			}
			chains[agent] = chain
		}
		if chain == nil {
			rep.Totals.UnknownAgents++
			return nil
		}
		owners := connectorsrm.Chain(*chain).Owners()
		var mine []ProposedSwitch
		for _, p := range proposed {
			if slices.Contains(owners, p.Owner) {
				mine = append(mine, p)
			}
		}
		if len(mine) == 0 {
			return nil
		}
		rep.Totals.Matched++
		key := fmt.Sprint(*chain) + "\x00" + server + "\x00" + r.Tool
		now, ok := current[key]
		if !ok {
			all, err := q.Current.Switches(ctx, owners)
			if err != nil {
				return err
			}
			now = all[server+"\x00"+r.Tool]
			if now == nil {
				now = []connectorsrm.Switch{}
			}
			if startRule != "" && !slices.ContainsFunc(now, func(sw connectorsrm.Switch) bool {
				return sw.Owner == *plugin && sw.Rule == connectorsrm.RuleAdminDefault // the admin's default comes first
			}) {
				now = append(now, connectorsrm.Switch{Owner: *plugin, ServerID: server, Tool: r.Tool, On: false, Rule: startRule})
			}
			current[key] = now
		}
		before := decide(owners, now, nil, plugin != nil)
		after := decide(owners, now, mine, plugin != nil)
		switch {
		case !before:
			rep.Totals.AlreadyOff++
		case !after:
			rep.Totals.Blocked++
			a := agents[agent]
			if a == nil {
				a = &AgentWhatIf{AgentID: agent, UserID: r.UserID, Email: r.Email, ByTool: map[string]int64{}, Calls: []Record{}}
				agents[agent] = a
			}
			a.Blocked++
			a.ByTool[r.Tool]++
			if len(a.Calls) < q.MaxCalls {
				a.Calls = append(a.Calls, r)
			}
		}
		return nil
	})
	if err != nil {
		return WhatIfReport{}, fmt.Errorf("audit what-if: %w", err)
	}
	for _, a := range agents {
		rep.Agents = append(rep.Agents, *a)
	}
	slices.SortFunc(rep.Agents, func(a, b AgentWhatIf) int {
		if a.Blocked != b.Blocked {
			return int(b.Blocked - a.Blocked)
		}
		return strings.Compare(a.AgentID.String(), b.AgentID.String())
	})
	rep.Totals.Agents = int64(len(rep.Agents))
	return rep, nil
}

// decide is a tool's switch along owners as at run time (connectors.Decide), a proposed switch (an
// explicit one) replacing the current one at its owner, the last proposed at an owner winning. A
// plugin tool without any switch is On (app/connectors' pluginDecision). A current switch that is a
// default (a start-Off rule) stays beside an explicit one proposed at the same owner, as at run time
// an explicit switch and the default coexist.
func decide(owners []login.Owner, current []connectorsrm.Switch, proposed []ProposedSwitch, plugin bool) bool {
	type slot struct {
		owner    login.Owner
		explicit bool
	}
	at := map[slot]connectorsrm.Switch{}
	for _, s := range current {
		if slices.Contains(owners, s.Owner) {
			at[slot{s.Owner, s.Rule == connectorsrm.RuleSet}] = s
		}
	}
	for _, p := range proposed {
		if slices.Contains(owners, p.Owner) {
			at[slot{p.Owner, true}] = connectorsrm.Switch{Owner: p.Owner, Tool: p.Tool, On: p.On, Rule: connectorsrm.RuleSet}
		}
	}
	sw := make([]connectorsrm.Switch, 0, len(at))
	for _, s := range at {
		sw = append(sw, s)
	}
	if plugin && len(sw) == 0 {
		return true
	}
	return connectorsrm.Decide(sw, connectorsrm.Tool{}, "").On
}
