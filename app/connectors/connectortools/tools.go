package connectortools

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors/connectorlogins"
	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/internal/mcppeer"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// Offered is one tool an agent sees.
type Offered struct {
	connectorsrm.Effective
}

// Effective reads the tools of an agent's chain with their switches (On and Off).
func (s *Service) Effective(ctx context.Context, agentID uuid.UUID) ([]connectorsrm.Effective, error) {
	chain, err := s.Opts.Scopes.Chain(ctx, agentID)
	if err != nil {
		return nil, err
	}
	return s.Reader.Effective(ctx, chain)
}

// effectiveOf is Effective for a caller: user's agent (a default agent not yet in the read model acts
// in the user's personal organisation).
func (s *Service) effectiveOf(ctx context.Context, user, agentID uuid.UUID) ([]connectorsrm.Effective, error) {
	chain, err := s.ChainOf(ctx, user, agentID)
	if err != nil {
		return nil, err
	}
	return s.Reader.Effective(ctx, chain)
}

// StartRun is a run start (an MCP session's initialize, see BeginRun; search_tools calls it too): every
// connected login the agent uses whose stored list is older than RelistAfter lists again, and StartRun
// returns when those listings end or ctx ends. A listing already under way for a login is joined, not
// started twice. A failure keeps the stored list and logs, and the login is not tried again before
// RelistAfter has passed on this replica.
func (s *Service) StartRun(ctx context.Context, caller executions.Caller) {
	agent, err := s.AgentOf(ctx, caller)
	if err != nil {
		s.Log.WarnContext(ctx, "run start: no agent", "err", err)
		return
	}
	chain, err := s.ChainOf(ctx, caller.UserID, agent)
	if err != nil {
		return
	}
	logins, err := s.Reader.Logins(ctx, chain.Owners())
	if err != nil {
		return
	}
	var waits []<-chan struct{}
	for _, l := range logins {
		if l.Status != login.StatusConnected || s.Opts.Now().Sub(l.ListedAt) < s.Opts.RelistAfter {
			continue
		}
		if done := s.relistFlight(ctx, caller.UserID.String(), l.LoginID); done != nil {
			waits = append(waits, done)
		}
	}
	for _, done := range waits {
		select {
		case <-done:
		case <-ctx.Done():
			return
		}
	}
}

// BeginRun starts StartRun in the background, detached from ctx's cancellation and bounded by
// RunStartTimeout, and returns a channel closed when it ends: initialize answers without waiting for
// the listings beyond its own small budget.
func (s *Service) BeginRun(ctx context.Context, caller executions.Caller) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), RunStartTimeout)
		defer cancel()
		s.StartRun(ctx, caller)
	}()
	return done
}

// relistFlight joins the listing of a login under way, or starts one; nil when the login failed to
// list within RelistAfter. The listing runs detached from ctx's cancellation (others may join it),
// bounded by RunStartTimeout.
func (s *Service) relistFlight(ctx context.Context, actor string, loginID uuid.UUID) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if done, ok := s.flights[loginID]; ok {
		return done
	}
	if at, ok := s.failedAt[loginID]; ok && s.Opts.Now().Sub(at) < s.Opts.RelistAfter {
		return nil
	}
	done := make(chan struct{})
	s.flights[loginID] = done
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), RunStartTimeout)
		defer cancel()
		err := s.logins.Relist(ctx, actor, loginID)
		if err != nil {
			s.Log.WarnContext(ctx, "run start listing failed; the stored list stays", "login", loginID, "err", err)
		}
		s.mu.Lock()
		delete(s.flights, loginID)
		if err != nil {
			s.failedAt[loginID] = s.Opts.Now()
		} else {
			delete(s.failedAt, loginID)
		}
		s.mu.Unlock()
		close(done)
	}()
	return done
}

// OfferedTools are the On tools the caller's agent sees, by name.
func (s *Service) OfferedTools(ctx context.Context, caller executions.Caller) ([]connectorsrm.Effective, error) {
	agent, err := s.AgentOf(ctx, caller)
	if err != nil {
		return nil, err
	}
	all, err := s.cachedEffective(ctx, caller.UserID, agent)
	if err != nil {
		return nil, err
	}
	out := make([]connectorsrm.Effective, 0, len(all))
	for _, e := range all {
		if e.On && runnable(e) {
			out = append(out, e)
		}
	}
	return out, nil
}

// needsTasks says why a tool that requires task augmentation is not offered.
const needsTasks = `needs task augmentation (its execution.taskSupport is "required"), which Workbench does not support yet`

// taskTool finds an On tool of the caller's agent that requires task augmentation.
func (s *Service) taskTool(ctx context.Context, caller executions.Caller, name string) (connectorsrm.Effective, bool, error) {
	agent, err := s.AgentOf(ctx, caller)
	if err != nil {
		return connectorsrm.Effective{}, false, err
	}
	all, err := s.cachedEffective(ctx, caller.UserID, agent)
	if err != nil {
		return connectorsrm.Effective{}, false, err
	}
	for _, e := range all {
		if e.Name == name && e.On && !runnable(e) {
			return e, true, nil
		}
	}
	return connectorsrm.Effective{}, false, nil
}

// runnable reports whether Workbench can run a listed tool: not one that requires task augmentation
// (MCP 2025-11-25; the Go SDK's client of this build has no tasks), which would always fail. A tool
// whose taskSupport is "optional" runs as a plain call.
func runnable(e connectorsrm.Effective) bool { return e.TaskSupport != "required" }

// SearchTools finds the caller's On connector tools whose name or description holds every word of
// query (all of them for an empty query), up to limit.
func (s *Service) SearchTools(ctx context.Context, caller executions.Caller, query, integration string, limit int) ([]connectorsrm.Effective, error) {
	tools, err := s.OfferedTools(ctx, caller)
	if err != nil {
		return nil, err
	}
	return matching(tools, query, integration, limit), nil
}

// matching keeps the tools of integration (any when "") whose name or description holds every word
// of query, by name, up to limit (0: all).
func matching(tools []connectorsrm.Effective, query, integration string, limit int) []connectorsrm.Effective {
	words := strings.Fields(strings.ToLower(query))
	var out []connectorsrm.Effective
	for _, t := range tools {
		if integration != "" && integration != t.ServerID {
			continue
		}
		hay := strings.ToLower(t.Name + " " + t.Description)
		match := true
		for _, w := range words {
			match = match && strings.Contains(hay, w)
		}
		if match {
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// ToolSchema is one On tool of the caller's agent by its prefixed name.
func (s *Service) ToolSchema(ctx context.Context, caller executions.Caller, name string) (connectorsrm.Effective, bool, error) {
	tools, err := s.OfferedTools(ctx, caller)
	if err != nil {
		return connectorsrm.Effective{}, false, err
	}
	for _, t := range tools {
		if t.Name == name {
			return t, true, nil
		}
	}
	return connectorsrm.Effective{}, false, nil
}

var _ executions.ToolSource = (*Service)(nil)

// FindTool implements executions.ToolSource: an On tool of the caller's agent, mapped back to its
// remote name and run through the pool or the adapter, its result and errors redacted against the
// login's credentials. An Off tool is not found (the call names it unknown). With an account label
// the tool runs with that account's login (the most specific scope of the agent's chain holding one
// of that label), its switch decided for that login; a label no scope holds is CodeNotConnected,
// naming the labels there are.
func (s *Service) FindTool(ctx context.Context, caller executions.Caller, name, account string) (executions.SourceTool, bool, error) {
	if !strings.Contains(name, "_") {
		return executions.SourceTool{}, false, nil
	}
	if account != "" {
		return s.findAccountTool(ctx, caller, name, account)
	}
	t, ok, err := s.offeredTool(ctx, caller, name)
	if err == nil && !ok {
		// An On tool Workbench cannot run is refused by name, never sent to the remote.
		if e, found, ferr := s.taskTool(ctx, caller, name); ferr != nil || found {
			return executions.SourceTool{Integration: e.ServerID, Run: func(context.Context, json.RawMessage) (executions.ToolResult, error) {
				return executions.ToolResult{}, domain.Errorf(domain.CodeUnprocessable, "%s is unavailable: it %s.", name, needsTasks)
			}}, found, ferr
		}
	}
	if err != nil || !ok {
		return executions.SourceTool{}, false, err
	}
	return s.sourceTool(caller, t), true, nil
}

// sourceTool runs an effective tool with its login.
func (s *Service) sourceTool(caller executions.Caller, t connectorsrm.Effective) executions.SourceTool {
	return executions.SourceTool{Integration: t.ServerID, Account: connectorlogins.EventLabel(t.Login.Label()), Ask: t.Ask, Run: func(ctx context.Context, args json.RawMessage) (executions.ToolResult, error) {
		c, err := s.call(connectorlogins.WithCaller(ctx, caller), t.Login, t.Remote, args)
		if err != nil {
			return executions.ToolResult{}, err
		}
		return c.toolResult(), nil
	}}
}

// findAccountTool is FindTool for a call that names an account.
func (s *Service) findAccountTool(ctx context.Context, caller executions.Caller, name, account string) (executions.SourceTool, bool, error) {
	serverID, err := s.serverOfTool(ctx, name)
	if err != nil || serverID == "" {
		return executions.SourceTool{}, false, err
	}
	agent, err := s.AgentOf(ctx, caller)
	if err != nil {
		return executions.SourceTool{}, false, err
	}
	chain, err := s.ChainOf(ctx, caller.UserID, agent)
	if err != nil {
		return executions.SourceTool{}, false, err
	}
	all, err := s.Reader.EffectiveAccount(ctx, chain, serverID, connection.NormalAccount(account))
	if err != nil {
		return executions.SourceTool{}, false, err
	}
	for _, e := range all {
		if e.Name != name || !e.On {
			continue
		}
		if !runnable(e) {
			return executions.SourceTool{Integration: serverID, Run: func(context.Context, json.RawMessage) (executions.ToolResult, error) {
				return executions.ToolResult{}, domain.Errorf(domain.CodeUnprocessable, "%s is unavailable: it %s.", name, needsTasks)
			}}, true, nil
		}
		return s.sourceTool(caller, e), true, nil
	}
	labels, err := s.accountLabels(ctx, chain, serverID)
	if err != nil {
		return executions.SourceTool{}, false, err
	}
	if len(labels) == 0 {
		return executions.SourceTool{}, false, nil // no login at all: the tool is unknown to this agent
	}
	if !slices.Contains(labels, connection.NormalAccount(account)) {
		return executions.SourceTool{Integration: serverID, Account: connectorlogins.EventLabel(account)}, true, domain.Errorf(domain.CodeNotConnected,
			"%s has no connected account %q for this agent; its accounts: %s. Name one of them as account, or leave account out for the default",
			serverID, connection.NormalAccount(account), strings.Join(labels, ", "))
	}
	return executions.SourceTool{}, false, nil // the account's login lists no such On tool
}

// serverOfTool is the connector whose tool prefix names the tool ("" when none does); the longest
// prefix wins.
func (s *Service) serverOfTool(ctx context.Context, name string) (string, error) {
	prefixes, err := s.Reader.Prefixes(ctx)
	if err != nil {
		return "", err
	}
	best, id := "", ""
	for p, sid := range prefixes {
		if strings.HasPrefix(name, p+"_") && len(p) > len(best) {
			best, id = p, sid
		}
	}
	return id, nil
}

// accountLabels lists the labels of the connected logins of a connector along the chain, sorted.
func (s *Service) accountLabels(ctx context.Context, chain Chain, serverID string) ([]string, error) {
	ls, err := s.Reader.Logins(ctx, chain.Owners())
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range ls {
		if l.ServerID == serverID && l.Status == login.StatusConnected && !slices.Contains(out, l.Label()) {
			out = append(out, l.Label())
		}
	}
	slices.Sort(out)
	return out, nil
}

// called is what one call answered, redacted: an adapter's JSON result, or the remote's MCP result.
type called struct {
	json json.RawMessage
	res  *mcp.CallToolResult
}

// callWith runs one tool with creds: the adapter's call, else the endpoint's tools/call.
func (s *Service) callWith(ctx context.Context, l connectorsrm.Login, m *connector.Manifest, creds Creds, remote string, args json.RawMessage) (called, error) {
	c := s.BySlug[m.Slug]
	ep, hasEndpoint := endpoint(m, creds)
	switch {
	case c != nil && isCaller(c.Adapter):
		out, err := c.Adapter.(connector.Caller).Call(ctx, remote, args, creds, s.AdapterContext(l.LoginID, m, creds, l.Settings))
		return called{json: out}, err
	case hasEndpoint:
		res, err := s.Opts.Pool.Call(ctx, l.LoginID, ep, remote, args)
		if err == nil && res == nil {
			res = &mcp.CallToolResult{}
		}
		return called{res: res}, err
	}
	return called{}, domain.Errorf(domain.CodeUnprocessable, "%s has no way to call %s", m.DisplayName, remote)
}

// call runs one tool of a login by its remote name; its result is redacted against the login's
// credentials (content.go).
func (s *Service) call(ctx context.Context, l connectorsrm.Login, remote string, args json.RawMessage) (called, error) {
	srv, err := s.cachedServer(ctx, l.ServerID)
	if err != nil {
		return called{}, err
	}
	m, err := s.ManifestOf(srv)
	if err != nil {
		return called{}, err
	}
	if !srv.Enabled {
		return called{}, domain.Errorf(domain.CodeUnprocessable, "%s is switched off in this catalog", m.DisplayName)
	}
	creds, err := s.cachedCreds(ctx, l.LoginID, l.Version, l.Credential)
	if err != nil {
		return called{}, err
	}
	// A platform login calls with the platform key, counted against the cap (platformlogins.go).
	plat, err := s.logins.PlatformCall(ctx, l, srv, m)
	if err != nil {
		return called{}, err
	}
	if plat != nil {
		creds = plat.Creds
	}
	// An OAuth login's tokens are refreshed before any adapter code or remote call.
	if creds, err = s.logins.Fresh(ctx, l.State, m, creds, false); err != nil {
		return called{}, err
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	out, err := s.callWith(s.redactingPeer(ctx, l, creds, plat), l, m, creds, remote, args)
	if err != nil && isOAuth(m) && rejected(err) {
		// A 401 gets one refresh and one retry.
		if creds, err = s.logins.Fresh(ctx, l.State, m, creds, true); err != nil {
			return called{}, err
		}
		out, err = s.callWith(s.redactingPeer(ctx, l, creds, plat), l, m, creds, remote, args)
	}
	red := s.redactorFor(l.LoginID, creds)
	if plat != nil {
		red = plat.Red
	}
	if err != nil {
		return called{}, providerError(remote, err, red)
	}
	if out.res != nil {
		out.res = red.Result(out.res)
	} else {
		out.json = red.JSON(out.json)
	}
	return out, nil
}

// redactingPeer returns ctx whose progress messages and relayed requests to the agent's client are
// redacted against the credentials the call uses (mcppeer), as its result is.
func (s *Service) redactingPeer(ctx context.Context, l connectorsrm.Login, creds Creds, plat *connectorlogins.PlatformUse) context.Context {
	red := s.redactorFor(l.LoginID, creds)
	if plat != nil {
		red = plat.Red
	}
	return mcppeer.WithRedaction(ctx, mcppeer.Redaction{Text: red.Text, JSON: red.JSON})
}

func isCaller(a connector.Adapter) bool { _, ok := a.(connector.Caller); return ok }

// TestCall is the Test of a connected login (POST /api/mcp/connections/{id}/call): one tool by its
// listed (prefixed or remote) name, redacted against the login's credentials and byte-capped. A tool
// a scope above the login's owner switched Off is refused (CodeForbidden, naming that scope).
func (s *Service) TestCall(ctx context.Context, user, loginID uuid.UUID, tool string, args json.RawMessage) (json.RawMessage, bool, error) {
	l, err := s.ManagedLogin(ctx, user, loginID)
	if err != nil {
		return nil, false, err
	}
	if l.Status != login.StatusConnected {
		return nil, false, domain.Errorf(domain.CodeConflict, "the login is %s; test needs a connected login", l.Status)
	}
	tools, err := s.Reader.Tools(ctx, loginID)
	if err != nil {
		return nil, false, err
	}
	remote, name := "", ""
	for _, t := range tools {
		if t.Name == tool || t.Remote == tool {
			remote, name = t.Remote, t.Name
		}
	}
	if remote == "" {
		return nil, false, domain.Errorf(domain.CodeNotFound, "login %s lists no tool %s", loginID, tool)
	}
	// A scope above the login's that switched the tool Off binds the test call too.
	reason, err := s.boundOff(ctx, user, l.Owner, l.ServerID, name)
	if err != nil {
		return nil, false, err
	}
	if reason != "" {
		return nil, false, domain.Errorf(domain.CodeForbidden, "%s is %s", name, reason)
	}
	c, err := s.call(ctx, l, remote, args)
	if err != nil {
		return nil, false, err
	}
	out := c.json
	if c.res != nil {
		if c.res.IsError {
			return nil, false, domain.Errorf(domain.CodeUpstream, "%s", errorText(c.res))
		}
		if out, err = json.Marshal(c.res); err != nil {
			return nil, false, err
		}
	}
	if len(out) > MaxTestResultBytes {
		b, _ := json.Marshal(map[string]any{"truncated": true, "bytes": len(out), "head": string(out[:MaxTestResultBytes])})
		return b, true, nil
	}
	return out, false, nil
}

// OfferedTool is a connector tool as the meta-tools show it.
type OfferedTool struct {
	Name        string
	Description string
	// Integration is the connector's server id (mcp_<slug>).
	Integration string
	InputSchema json.RawMessage
	// Drift: the description, input schema or annotations changed since the switch that decides the
	// tool turned it On.
	Drift bool
	// Unavailable is set on a tool of the caller's chain that is Off, and says why ("switched Off by
	// organisation Acme"); such a tool has no schema and does not run.
	Unavailable string
	// Ask: each call waits for a person's approval.
	Ask bool
}

func offeredOf(e connectorsrm.Effective) OfferedTool {
	return OfferedTool{Name: e.Name, Description: e.Description, Integration: e.ServerID, InputSchema: e.InputSchema, Drift: e.Drift, Ask: e.Ask}
}

// Search is search_tools' part for connectors: the caller's On tools matching query (see
// SearchTools), then the Off ones of the caller's chain that match, each with Unavailable set (up to
// limit of each).
func (s *Service) Search(ctx context.Context, caller executions.Caller, query, integration string, limit int) ([]OfferedTool, error) {
	agent, err := s.AgentOf(ctx, caller)
	if err != nil {
		return nil, err
	}
	all, err := s.cachedEffective(ctx, caller.UserID, agent)
	if err != nil {
		return nil, err
	}
	var on, off, tasks []connectorsrm.Effective
	for _, e := range all {
		switch {
		case e.On && !runnable(e):
			tasks = append(tasks, e)
		case e.On:
			on = append(on, e)
		default:
			off = append(off, e)
		}
	}
	out := []OfferedTool{}
	for _, e := range matching(on, query, integration, limit) {
		out = append(out, offeredOf(e))
	}
	why := map[connectorsrm.Decision]string{}
	for _, e := range matching(off, query, integration, limit) {
		key := connectorsrm.Decision{From: e.From, Rule: e.Rule}
		if _, ok := why[key]; !ok {
			why[key] = s.whyOff(ctx, key)
		}
		out = append(out, OfferedTool{Name: e.Name, Integration: e.ServerID, Unavailable: why[key]})
	}
	for _, e := range matching(tasks, query, integration, limit) {
		out = append(out, OfferedTool{Name: e.Name, Integration: e.ServerID, Unavailable: needsTasks})
	}
	return out, nil
}

// Schema is get_tool_schema's part for connectors: one On tool of the caller's by name. A tool of
// the caller's chain that is Off is CodeForbidden, saying why.
func (s *Service) Schema(ctx context.Context, caller executions.Caller, name string) (OfferedTool, bool, error) {
	agent, err := s.AgentOf(ctx, caller)
	if err != nil {
		return OfferedTool{}, false, err
	}
	all, err := s.cachedEffective(ctx, caller.UserID, agent)
	if err != nil {
		return OfferedTool{}, false, err
	}
	var off *connectorsrm.Effective
	for i, e := range all {
		if e.Name != name {
			continue
		}
		if e.On && !runnable(e) {
			return OfferedTool{}, false, domain.Errorf(domain.CodeForbidden, "%s is unavailable: it %s.", name, needsTasks)
		}
		if e.On {
			return offeredOf(e), true, nil
		}
		if off == nil {
			off = &all[i]
		}
	}
	if off != nil {
		return OfferedTool{}, false, domain.Errorf(domain.CodeForbidden, "%s is unavailable: %s.", name, s.whyOff(ctx, off.Decision))
	}
	return OfferedTool{}, false, nil
}

// IsConnector reports whether id names a connector of the catalog (search_tools' integration filter).
func (s *Service) IsConnector(ctx context.Context, id string) bool {
	_, err := s.Reader.Server(ctx, id)
	return err == nil
}
