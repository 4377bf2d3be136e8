// Package tryhttp serves the portal's Try a tool page (issue 30, item 6): a signed-in user lists the
// tools he can reach, reads one's input schema, and runs it once with arguments a form made from
// that schema, seeing its result:
//
//	GET  /api/try/agents              {"agents":[{id,name,organization_id,organization,default}]}: the
//	                                  user's own agents, whose policy a run may be made under
//	GET  /api/try/integrations        list_integrations for the user: accounts per integration, and the
//	                                  connector logins (with their accounts) his agent's chain holds
//	GET  /api/try/tools?q=&integration=
//	                                  {"tools":[{name,description,integration,asks_approval}],
//	                                  "unavailable":[{name,integration,unavailable}]} (q may be empty: all)
//	GET  /api/try/tools/{name}        {"name","description","integration","inputSchema"}; 403 when the tool
//	                                  is switched Off for the user, 404 when there is no such tool for him
//	POST /api/try/run                 {"tool", "args"?: {…}, "account"?: "<label>", "agent"?: "<id>"} →
//	                                  {"ok", "code", "entry", "content", "structured"}
//
// Every route but the first takes the agent to act as (?agent= on a GET, "agent" in a run's body):
// one of the user's own agents (another's, or an unknown id, is 403), or none for the user's default
// agent. A run is made as that agent: its organisation's, guild's and own switches, Ask and budgets
// apply, and it reaches the connector logins of that chain. A user can never act as an agent he does
// not own, so never with a login or switch state of an organisation he does not belong to.
//
// Every route is the metatools adapter over the same use cases an agent's meta-tools reach
// (handlers/mcp/metatools' ReachableTools, ToolSchema, Integrations and PortalRun), for the
// principal metatools.PortalPrincipal: the user, acting as his default agent. A run is an
// execute_tools execution in every respect (the switches and Ask of that agent's chain, its budgets,
// only the credential of an account the user holds, redaction, the audit record), recorded with via
// "portal". Each route takes a live portal session (websession.RequireUser: 401 without one, 503 when
// the session store cannot be reached) and a run must come from the portal's origin (403 CROSS_ORIGIN).
package tryhttp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/handlers/mcp"
	"github.com/workbench/workbench/handlers/mcp/metatools"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// Tools is what the routes need of the meta-tool set (*metatools.Set).
type Tools interface {
	ReachableTools(ctx context.Context, p mcp.Principal, query, integration string, limit int) (any, error)
	ToolSchema(ctx context.Context, p mcp.Principal, name string) (any, error)
	Integrations(ctx context.Context, p mcp.Principal) (any, error)
	PortalRun(ctx context.Context, p mcp.Principal, raw json.RawMessage) (mcp.CallResult, string, error)
}

// Agents names the user's agents (projections/organizationsrm.Reader).
type Agents interface {
	AgentsOf(ctx context.Context, userID uuid.UUID) ([]organizationsrm.Agent, error)
	Organization(ctx context.Context, orgID uuid.UUID) (organizationsrm.Organization, error)
}

// Deps are what the routes need; all but Logger are required.
type Deps struct {
	Sessions websession.Portal
	Tools    Tools
	Agents   Agents
	Logger   *slog.Logger
}

// maxBody bounds a run's body (its arguments).
const maxBody = 256 << 10

// listLimit is the most tools of each kind (plugin and built-in; connector) one listing answers.
const listLimit = 200

var (
	toolName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`)
	label    = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)
)

// Mount adds the routes to r.
func Mount(r chi.Router, d Deps) {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	h := &routes{d}
	r.Get("/api/try/agents", h.user(h.agents))
	r.Get("/api/try/integrations", h.user(h.integrations))
	r.Get("/api/try/tools", h.user(h.list))
	r.Get("/api/try/tools/{name}", h.user(h.schema))
	r.Post("/api/try/run", h.user(h.run))
}

type routes struct{ Deps }

func (h *routes) user(next func(w http.ResponseWriter, r *http.Request, user uuid.UUID)) http.HandlerFunc {
	return websession.RequireUser(h.Sessions, h.Logger, maxBody, next)
}

func (h *routes) fail(w http.ResponseWriter, r *http.Request, err error) {
	var pe *mcp.ParamsError
	if errors.As(err, &pe) {
		err = domain.Errorf(domain.CodeInvalid, "%s", pe.Message)
	}
	handlers.WriteError(w, r, h.Logger, err)
}

type agentView struct {
	ID             uuid.UUID `json:"id"`
	Name           string    `json:"name"`
	OrganizationID uuid.UUID `json:"organization_id"`
	Organization   string    `json:"organization"`
	Default        bool      `json:"default"`
}

func (h *routes) agents(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	list, err := h.Agents.AgentsOf(r.Context(), user)
	if err != nil {
		h.fail(w, r, &domain.Error{Code: domain.CodeUnavailable, Message: "your agents could not be read; try again in a moment", Err: err})
		return
	}
	out := make([]agentView, 0, len(list))
	names := map[uuid.UUID]string{}
	for _, a := range list {
		if _, ok := names[a.OrganizationID]; !ok {
			o, err := h.Agents.Organization(r.Context(), a.OrganizationID)
			if err != nil && !errors.Is(err, organizationsrm.ErrNotFound) {
				h.fail(w, r, &domain.Error{Code: domain.CodeUnavailable, Message: "your organisations could not be read; try again in a moment", Err: err})
				return
			}
			names[a.OrganizationID] = o.Name
		}
		out = append(out, agentView{ID: a.ID, Name: a.Name, OrganizationID: a.OrganizationID, Organization: names[a.OrganizationID], Default: a.Default})
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"agents": out})
}

// principal is the user acting as the agent raw names: "" is the default agent; anything else must
// be the id of one of the user's own agents (ok false: answered, 400 or 403).
func (h *routes) principal(w http.ResponseWriter, r *http.Request, user uuid.UUID, raw string) (mcp.Principal, bool) {
	if raw == "" {
		return metatools.PortalPrincipal(user, uuid.Nil), true
	}
	id, err := uuid.Parse(raw)
	if err != nil {
		h.fail(w, r, domain.Errorf(domain.CodeInvalid, "agent must be an agent's id"))
		return mcp.Principal{}, false
	}
	list, err := h.Agents.AgentsOf(r.Context(), user)
	if err != nil {
		h.fail(w, r, &domain.Error{Code: domain.CodeUnavailable, Message: "your agents could not be read; try again in a moment", Err: err})
		return mcp.Principal{}, false
	}
	for _, a := range list {
		if a.ID == id {
			if a.Default {
				id = uuid.Nil // as the portal session and every credential of the default agent are recorded
			}
			return metatools.PortalPrincipal(user, id), true
		}
	}
	h.fail(w, r, domain.Errorf(domain.CodeForbidden, "that agent is not one of yours; pick one of your own agents"))
	return mcp.Principal{}, false
}

func (h *routes) integrations(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	p, ok := h.principal(w, r, user, r.URL.Query().Get("agent"))
	if !ok {
		return
	}
	out, err := h.Tools.Integrations(r.Context(), p)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, out)
}

func (h *routes) list(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	q, in := strings.TrimSpace(r.URL.Query().Get("q")), r.URL.Query().Get("integration")
	if len(q) > 200 || len(in) > 64 {
		h.fail(w, r, domain.Errorf(domain.CodeInvalid, "q is at most 200 characters and integration at most 64"))
		return
	}
	p, ok := h.principal(w, r, user, r.URL.Query().Get("agent"))
	if !ok {
		return
	}
	out, err := h.Tools.ReachableTools(r.Context(), p, q, in, listLimit)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, out)
}

func (h *routes) schema(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	name := chi.URLParam(r, "name")
	if !toolName.MatchString(name) {
		h.fail(w, r, domain.Errorf(domain.CodeInvalid, "a tool name is 1 to 128 letters, digits, _, . and -"))
		return
	}
	p, ok := h.principal(w, r, user, r.URL.Query().Get("agent"))
	if !ok {
		return
	}
	out, err := h.Tools.ToolSchema(r.Context(), p, name)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, out)
}

type runRequest struct {
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args,omitempty"`
	Account string          `json:"account,omitempty"`
	Agent   string          `json:"agent,omitempty"`
}

// runResponse is one run's answer: ok and code (the execution's error code, "" on success), entry
// (its execute_tools entry: {"result": …} or {"error": …, "message"?: …}), the content blocks of its
// result that are not text (images, audio, resources), and its structuredContent.
type runResponse struct {
	OK         bool              `json:"ok"`
	Code       string            `json:"code,omitempty"`
	Entry      json.RawMessage   `json:"entry"`
	Content    []json.RawMessage `json:"content"`
	Structured json.RawMessage   `json:"structured,omitempty"`
}

func (h *routes) run(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	var req runRequest
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		h.fail(w, r, domain.Errorf(domain.CodeInvalid, `the body must be {"tool": "<name>", "args": {…}, "account": "<label>"} (at most %d bytes)`, maxBody))
		return
	}
	if _, err := dec.Token(); err != io.EOF {
		h.fail(w, r, domain.Errorf(domain.CodeInvalid, "the body must be one JSON object"))
		return
	}
	if !toolName.MatchString(req.Tool) {
		h.fail(w, r, domain.Errorf(domain.CodeInvalid, "tool must be a tool's name, 1 to 128 letters, digits, _, . and -"))
		return
	}
	if req.Account != "" && !label.MatchString(req.Account) {
		h.fail(w, r, domain.Errorf(domain.CodeInvalid, "account must be an account's label: 1 to 32 of a-z, 0-9, - and _"))
		return
	}
	args := strings.TrimSpace(string(req.Args))
	if args == "" || args == "null" {
		args = "{}"
	}
	if !strings.HasPrefix(args, "{") {
		h.fail(w, r, domain.Errorf(domain.CodeInvalid, "args must be a JSON object"))
		return
	}
	ex := map[string]any{"tool": req.Tool, "args": json.RawMessage(args)}
	if req.Account != "" {
		ex["account"] = req.Account
	}
	raw, err := json.Marshal(map[string]any{"executions": []any{ex}})
	if err != nil {
		h.fail(w, r, domain.Errorf(domain.CodeInvalid, "args must be a JSON object"))
		return
	}
	p, ok := h.principal(w, r, user, req.Agent)
	if !ok {
		return
	}
	res, code, err := h.Tools.PortalRun(r.Context(), p, raw)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var text struct {
		Results []json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal([]byte(res.Text), &text); err != nil || len(text.Results) != 1 {
		h.fail(w, r, errors.New("tryhttp: execute_tools answered "+strconv.Itoa(len(text.Results))+" results"))
		return
	}
	out := runResponse{OK: code == "", Code: code, Entry: text.Results[0], Content: res.Content, Structured: res.Structured}
	if out.Content == nil {
		out.Content = []json.RawMessage{}
	}
	handlers.WriteJSON(w, http.StatusOK, out)
}
