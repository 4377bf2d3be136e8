package metatools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/handlers/mcp"
	"github.com/workbench/workbench/plugins"
)

// Access and ConnectResult are the credential layer's.
type (
	Access        = connections.Access
	ConnectResult = connections.ConnectResult
)

// Credentials is what the meta-tools need of the credential layer (*connections.Service).
type Credentials interface {
	// Connected reports, per integration name, whether the user counts as connected.
	Connected(ctx context.Context, user uuid.UUID) (map[string]bool, error)
	// ConnectFrom starts a connect attempt asked for through the MCP client mcpClient (recorded in the
	// event's metadata) and returns the claim link.
	ConnectFrom(ctx context.Context, user uuid.UUID, integration, account, mcpClient string) (ConnectResult, error)
	// Accounts lists the user's accounts of every integration that has one.
	Accounts(ctx context.Context, user uuid.UUID) (map[string][]connections.AccountView, error)
	// WaitForConnection blocks until the attempt ends or timeout passes: CONNECTED, TIMEOUT or EXPIRED;
	// an unknown attempt (or another user's) is a domain.CodeNotFound error.
	WaitForConnection(ctx context.Context, user, attempt uuid.UUID, timeout time.Duration) (string, error)
}

// Options wire a Set.
type Options struct {
	Registry    *plugins.Registry
	Credentials Credentials
	// Executions runs and records execute_tools' executions (*executions.Service).
	Executions Executions
	Logger     *slog.Logger
	// CurlSessions mints curl_session tokens (*curlsessions.Service); nil: curl_session answers that
	// it is not available on this server.
	CurlSessions CurlSessions
	// Connectors, when set, adds the connector tools the caller's agent has On to search_tools,
	// get_tool_schema (and, through executions' ToolSource, to execute_tools). Nil: plugin tools only.
	Connectors ConnectorTools
	// Budgets, when set, names the tools a budget of the caller's chain covers: curl_session refuses
	// their integrations (its requests are not counted).
	Budgets interface {
		Covered(ctx context.Context, caller executions.Caller, tools []string) ([]string, error)
	}
	// PublicURL is SERVER_PUBLIC_URL. An API-key integration is connected by the user on the portal's
	// integrations page, PublicURL + "/integrations", which NOT_CONNECTED and connect hand the agent.
	PublicURL string
	// MaxResultBytes caps one execute_tools result, text and content blocks together (default
	// DefaultMaxResultBytes); what would pass it is cut, and the result says so.
	MaxResultBytes int
}

// ConnectorTools is what the meta-tools need of the connectors use case (*connectors.Service).
type ConnectorTools interface {
	// StartRun relists the logins the caller's agent uses whose stored list is stale, joining a
	// listing already under way, and returns when they end.
	StartRun(ctx context.Context, caller executions.Caller)
	// BeginRun is StartRun in the background (initialize's run start); the channel closes when it ends.
	BeginRun(ctx context.Context, caller executions.Caller) <-chan struct{}
	// Search answers the On tools matching a query, then the matching Off ones with Unavailable set.
	Search(ctx context.Context, caller executions.Caller, query, integration string, limit int) ([]connectors.OfferedTool, error)
	// Schema answers an On tool; an Off one of the caller's chain is a *domain.Error saying why.
	Schema(ctx context.Context, caller executions.Caller, name string) (connectors.OfferedTool, bool, error)
	IsConnector(ctx context.Context, id string) bool
	// PluginToolsOff names the plugin tools Off for the caller's agent, each with why.
	PluginToolsOff(ctx context.Context, caller executions.Caller) (map[string]connectors.OffTool, error)
	// PluginToolStates is PluginToolsOff, and the On plugin tools that ask for approval.
	PluginToolStates(ctx context.Context, caller executions.Caller) (map[string]connectors.OffTool, map[string]bool, error)
	// PluginToolOff is why one plugin tool is Off for the caller's agent ("" when it is On).
	PluginToolOff(ctx context.Context, caller executions.Caller, integration, tool string) (string, error)
	// AgentAccounts lists the connector accounts the caller's agent's chain holds.
	AgentAccounts(ctx context.Context, caller executions.Caller) ([]connectors.ConnectorAccounts, error)
}

// Set is the meta-tool set; it implements mcp.ToolSet.
type Set struct {
	opts       Options
	log        *slog.Logger
	tools      []mcp.Tool
	validators map[string]*plugins.Validator
}

var _ mcp.ToolSet = (*Set)(nil)

// New builds the set.
func New(opts Options) (*Set, error) {
	if opts.Registry == nil || opts.Credentials == nil || opts.Executions == nil {
		return nil, errors.New("metatools: Registry, Credentials and Executions are required")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Set{opts: opts, log: log, validators: map[string]*plugins.Validator{}}
	readOnly, destructive := true, true
	for _, mt := range metaTools {
		schema := rawSchema(mt.schema)
		v, err := plugins.NewValidator(mt.name, schema)
		if err != nil {
			return nil, err
		}
		s.validators[mt.name] = v
		t := mcp.Tool{Name: mt.name, Description: mt.description, InputSchema: schema}
		switch mt.name {
		case "search_tools", "get_tool_schema", "whoami", "list_integrations", "wait_for_connection":
			t.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: &readOnly}
		case "curl_session", "execute_tools":
			t.Annotations = &mcp.ToolAnnotations{DestructiveHint: &destructive}
		}
		s.tools = append(s.tools, t)
	}
	return s, nil
}

var _ mcp.RunStarter = (*Set)(nil)

// StartRun implements mcp.RunStarter: a session's initialize relists, in the background, the connector
// logins of the caller's agent whose stored list is older than ten minutes.
func (s *Set) StartRun(ctx context.Context, p mcp.Principal) <-chan struct{} {
	user, err := uuid.Parse(p.UserID)
	if s.opts.Connectors == nil || err != nil {
		done := make(chan struct{})
		close(done)
		return done
	}
	return s.opts.Connectors.BeginRun(ctx, caller(p, user))
}

// Tools implements mcp.ToolSet.
func (s *Set) Tools() []mcp.Tool { return s.tools }

// CallTool implements mcp.ToolSet.
func (s *Set) CallTool(ctx context.Context, p mcp.Principal, name string, raw json.RawMessage) (mcp.CallResult, error) {
	if name == "execute_tools" {
		// The hot path: decoded and checked in one pass, its result encoded once.
		if calls, ok := decodeExecutions(raw); ok {
			user, err := uuid.Parse(p.UserID)
			if err != nil {
				return mcp.CallResult{}, fmt.Errorf("%w: %w", errNoUser, err)
			}
			return s.executeTools(ctx, p, user, calls)
		}
	}
	v, ok := s.validators[name]
	if !ok {
		return mcp.CallResult{}, &mcp.ParamsError{Message: fmt.Sprintf("Unknown tool: %s. This server offers the meta-tools %s; integration tools are run through execute_tools.", name, s.names())}
	}
	args, err := v.Validate(raw)
	if err != nil {
		return mcp.CallResult{}, &mcp.ParamsError{Message: err.Error()}
	}
	user, err := uuid.Parse(p.UserID)
	if err != nil {
		return mcp.CallResult{}, fmt.Errorf("%w: %w", errNoUser, err)
	}
	var out any
	// A meta-tool that fails on its own answers a failed value: a result with isError set.
	switch name {
	case "search_tools":
		out, err = s.searchTools(ctx, caller(p, user), args)
	case "get_tool_schema":
		out, err = s.getToolSchema(ctx, caller(p, user), args)
	case "execute_tools":
		// Arguments decodeExecutions did not take but the schema accepts.
		calls, err := callsOf(args)
		if err != nil {
			return mcp.CallResult{}, err
		}
		return s.executeTools(ctx, p, user, calls)
	case "whoami":
		out = map[string]string{"id": p.UserID, "email": p.Email}
	case "list_integrations":
		out, err = s.listIntegrations(ctx, caller(p, user))
	case "connect", "get_auth_url":
		out, err = s.connect(ctx, p.ClientID, user, args, name == "get_auth_url")
	case "wait_for_connection":
		out, err = s.waitForConnection(ctx, user, args)
	case "curl_session":
		out, err = s.curlSession(ctx, p, user, args)
	}
	if err != nil {
		var de *domain.Error
		if errors.As(err, &de) && de.Code != domain.CodeInternal {
			// A refusal the agent can act on is a tool result with isError, not a protocol failure.
			out, err = failed{"error": de.Message}, nil
		} else {
			return mcp.CallResult{}, err
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return mcp.CallResult{}, err
	}
	_, isError := out.(failed)
	return mcp.CallResult{Text: string(b), IsError: isError}, nil
}

// failed is the answer of a meta-tool that could not do its own work ({"error": message, …}); it
// goes out with isError set, so a client that reads isError tells the model. execute_tools never
// answers one: its per-execution errors are entries of a successful result.
type failed map[string]any

// portalURL is where the user connects an integration that is connected in the portal.
func (s *Set) portalURL() string { return strings.TrimRight(s.opts.PublicURL, "/") + "/integrations" }

// inPortal reports whether an integration can be connected only by the user in the portal: API-key
// integrations, whose key the agent must never see.
func inPortal(in *plugins.Integration) bool { return in.Auth.Mode == plugins.AuthAPIKey }

// portalNote tells the agent how the user connects in in the portal.
func (s *Set) portalNote(in *plugins.Integration) string {
	name := in.DisplayName
	if name == "" {
		name = in.Name
	}
	return fmt.Sprintf("%s is connected with an API key, which the user enters in the Workbench portal; the agent cannot connect it. "+
		"Give the user this link: %s and ask them to press Connect on the %s card and save the key. "+
		"Then retry (list_integrations shows connected: true once it is done).", in.Name, s.portalURL(), name)
}

// reconnectHint is how an account of in labelled label is connected again.
func (s *Set) reconnectHint(in *plugins.Integration, label string) string {
	if inPortal(in) {
		return fmt.Sprintf("The user replaces the key of account %q on the %s card: %s", label, in.Name, s.portalURL())
	}
	if label == connection.DefaultAccount {
		return fmt.Sprintf(`connect({"integration":%q})`, in.Name)
	}
	return fmt.Sprintf(`connect({"integration":%q,"account":%q})`, in.Name, label)
}

func (s *Set) names() string {
	n := make([]string, len(s.tools))
	for i, t := range s.tools {
		n[i] = t.Name
	}
	return strings.Join(n, ", ")
}

type toolSummary struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Integration string `json:"integration"`
	// Drift flags a connector tool whose description, input schema or annotations changed since it
	// was switched On.
	Drift bool `json:"drift,omitempty"`
	// AsksApproval: each call waits for a person's approval (the tool is switched to Ask).
	AsksApproval bool `json:"asks_approval,omitempty"`
}

// offTool is a connector tool of the caller's chain that matched a search but is switched Off, with
// why ("switched Off by organisation Acme").
type offTool struct {
	Name        string `json:"name"`
	Integration string `json:"integration"`
	Unavailable string `json:"unavailable"`
}

// caller is who the principal is to the executions and connectors use cases.
func caller(p mcp.Principal, user uuid.UUID) executions.Caller {
	return executions.Caller{UserID: user, Via: p.Method, ClientID: p.ClientID, AgentID: p.AgentID}
}

func (s *Set) searchTools(ctx context.Context, c executions.Caller, raw json.RawMessage) (any, error) {
	var a struct {
		Query       string `json:"query"`
		Integration string `json:"integration"`
		Limit       int    `json:"limit"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, err
	}
	connectorOnly := false
	if a.Integration != "" {
		if _, ok := s.opts.Registry.Integration(a.Integration); !ok {
			if s.opts.Connectors == nil || !s.opts.Connectors.IsConnector(ctx, a.Integration) {
				return nil, domain.Errorf(domain.CodeNotFound, "Unknown integration: %s. list_integrations names them all.", a.Integration)
			}
			connectorOnly = true
		}
	}
	out := []toolSummary{}
	var unavailable []offTool
	if !connectorOnly {
		var off map[string]connectors.OffTool
		var asks map[string]bool
		if s.opts.Connectors != nil {
			var err error
			if off, asks, err = s.opts.Connectors.PluginToolStates(ctx, c); err != nil {
				return nil, err
			}
		}
		// A tool switched Off for the agent is never offered: it is named under unavailable, with why,
		// and the search reaches as far past it as it would have without it.
		want := a.Limit
		if want <= 0 {
			want = plugins.DefaultSearchLimit
		}
		for _, t := range s.opts.Registry.Search(a.Query, a.Integration, want+len(off)) {
			if o, isOff := off[t.Name]; isOff {
				unavailable = append(unavailable, offTool{Name: t.Name, Integration: t.Integration, Unavailable: o.Why})
				continue
			}
			if len(out) < want {
				out = append(out, toolSummary{Name: t.Name, Description: t.Description, Integration: t.Integration, AsksApproval: asks[t.Name]})
			}
		}
	}
	if s.opts.Connectors != nil && (a.Integration == "" || connectorOnly) && (a.Limit <= 0 || len(out) < a.Limit) {
		// initialize started the run's listings (StartRun) and answered within a small budget; the
		// search joins a listing still under way so that it sees the fresh list, and lists what is
		// still stale (a session whose initialize went to another replica, or a client that sends
		// tool calls on a session it did not initialize here). A fresh list costs one read.
		s.opts.Connectors.StartRun(ctx, c)
		limit := 0
		if a.Limit > 0 {
			limit = a.Limit - len(out)
		}
		found, err := s.opts.Connectors.Search(ctx, c, a.Query, a.Integration, limit)
		if err != nil {
			return nil, err
		}
		for _, t := range found {
			if t.Unavailable != "" {
				unavailable = append(unavailable, offTool{Name: t.Name, Integration: t.Integration, Unavailable: t.Unavailable})
				continue
			}
			out = append(out, toolSummary{Name: t.Name, Description: t.Description, Integration: t.Integration, Drift: t.Drift, AsksApproval: t.Ask})
		}
	}
	if len(unavailable) > 0 {
		return map[string]any{"tools": out, "unavailable": unavailable}, nil
	}
	return map[string]any{"tools": out}, nil
}

func (s *Set) getToolSchema(ctx context.Context, c executions.Caller, raw json.RawMessage) (any, error) {
	var a struct {
		Tool string `json:"tool"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, err
	}
	t, ok := s.opts.Registry.Tool(a.Tool)
	if !ok && s.opts.Connectors != nil {
		ct, found, err := s.opts.Connectors.Schema(ctx, c, a.Tool)
		if err != nil {
			return nil, err
		}
		if found {
			return map[string]any{"name": ct.Name, "description": ct.Description, "integration": ct.Integration, "inputSchema": ct.InputSchema}, nil
		}
	}
	if !ok {
		return nil, domain.Errorf(domain.CodeNotFound, "Unknown tool: %s. Use search_tools to find tool names.", a.Tool)
	}
	if s.opts.Connectors != nil {
		why, err := s.opts.Connectors.PluginToolOff(ctx, c, t.Integration, t.Name)
		if err != nil {
			return nil, err
		}
		if why != "" {
			return nil, domain.Errorf(domain.CodeForbidden, "%s is unavailable: %s.", t.Name, why)
		}
	}
	return map[string]any{"name": t.Name, "description": t.Description, "integration": t.Integration, "inputSchema": t.InputSchema}, nil
}

type integrationSummary struct {
	Name        string   `json:"name"`
	DisplayName string   `json:"display_name"`
	Description string   `json:"description"`
	AuthMode    string   `json:"auth_mode"`
	Categories  []string `json:"categories"`
	Connected   bool     `json:"connected"`
	// Accounts are the user's accounts of the integration, when there is any.
	Accounts []accountSummary `json:"accounts,omitempty"`
}

// accountSummary is one account as list_integrations shows it to an agent.
type accountSummary struct {
	Label   string `json:"label"`
	Hint    string `json:"hint,omitempty"`
	Status  string `json:"status"`
	Default bool   `json:"default"`
	// Reconnect says how to connect an account that needs re-authorization or has expired again:
	// the connect call for OAuth and cookie integrations, the portal for an API key.
	Reconnect string `json:"reconnect,omitempty"`
}

func (s *Set) listIntegrations(ctx context.Context, c executions.Caller) (any, error) {
	user := c.UserID
	connected, err := s.opts.Credentials.Connected(ctx, user)
	if err != nil {
		return nil, err
	}
	accounts, err := s.opts.Credentials.Accounts(ctx, user)
	if err != nil {
		return nil, err
	}
	ins := s.opts.Registry.Integrations()
	out := make([]integrationSummary, 0, len(ins))
	for _, in := range ins {
		cats := in.Categories
		if cats == nil {
			cats = []string{}
		}
		sum := integrationSummary{
			Name: in.Name, DisplayName: in.DisplayName, Description: in.Description, AuthMode: string(in.Auth.Mode),
			Categories: cats, Connected: in.Auth.Mode == plugins.AuthNone || connected[in.Name],
		}
		for _, a := range accounts[in.Name] {
			as := accountSummary{Label: a.Label, Hint: a.Hint, Status: a.Status, Default: a.Default}
			if a.Status == "needs_reauth" || a.Status == "expired" {
				as.Reconnect = s.reconnectHint(in, a.Label)
			}
			sum.Accounts = append(sum.Accounts, as)
		}
		out = append(out, sum)
	}
	res := map[string]any{"integrations": out}
	if s.opts.Connectors != nil {
		// The remote MCP servers' accounts the agent's organisation, guild and agent hold: a connector
		// tool's execution names one by label (connecting one is done in the portal).
		cs, err := s.opts.Connectors.AgentAccounts(ctx, c)
		if err != nil {
			return nil, err
		}
		if len(cs) > 0 {
			res["connectors"] = cs
		}
	}
	return res, nil
}

func (s *Set) connect(ctx context.Context, client string, user uuid.UUID, raw json.RawMessage, deprecated bool) (any, error) {
	var a struct {
		Integration string `json:"integration"`
		Account     string `json:"account"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, err
	}
	if in, ok := s.opts.Registry.Integration(a.Integration); ok && inPortal(in) {
		// Nothing for the agent to start: the answer is where the user goes.
		note := s.portalNote(in)
		if a.Account != "" {
			note += fmt.Sprintf(" To add it as the account %q, the user types that label in the card's Account field.", a.Account)
		}
		return map[string]any{"type": string(in.Auth.Mode), "integration": in.Name, "url": s.portalURL(), "instructions": note}, nil
	}
	res, err := s.opts.Credentials.ConnectFrom(ctx, user, a.Integration, a.Account, client)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"connectionId": res.ConnectionID.String(), "type": res.Type, "url": res.URL}
	if deprecated {
		out["deprecated"] = "get_auth_url is deprecated: call connect instead"
	}
	return out, nil
}

func (s *Set) waitForConnection(ctx context.Context, user uuid.UUID, raw json.RawMessage) (any, error) {
	var a struct {
		ConnectionID string `json:"connectionId"`
		Timeout      int    `json:"timeout_seconds"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, err
	}
	id, err := uuid.Parse(a.ConnectionID)
	if err != nil {
		return failed{"error": "Unknown connectionId"}, nil
	}
	status, err := s.opts.Credentials.WaitForConnection(ctx, user, id, time.Duration(a.Timeout)*time.Second)
	if domain.ErrorCode(err) == domain.CodeNotFound {
		return failed{"error": "Unknown connectionId"}, nil
	}
	if err != nil {
		return nil, err
	}
	return map[string]string{"status": status}, nil
}
