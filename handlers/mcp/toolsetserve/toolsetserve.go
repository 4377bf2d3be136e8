// Package toolsetserve serves a toolset (app/toolsets) as a plain MCP server at /mcp/ts/{name}: its
// tools/list is the set's tools the calling agent may use (a tool switched Off for the agent is not
// listed), with their real names (prefixed for connectors), schemas and hints, and its tools/call runs
// one of them through the same executions as execute_tools, so approvals, budgets, redaction and the
// audit apply unchanged; a tool pinned to an account in the set runs with that account.
package toolsetserve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/app/toolsets"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers/mcp"
)

type nameKey struct{}

// WithName returns a handler that serves next with the {toolset} path parameter in the request's
// context, where Set reads it.
func WithName(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := context.WithValue(r.Context(), nameKey{}, chi.URLParam(r, "toolset"))
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// Set is the ToolSet of a toolset endpoint.
type Set struct {
	Toolsets   *toolsets.Service
	Executions *executions.Service
	Connectors Connectors
}

var (
	_ mcp.ToolSet    = (*Set)(nil)
	_ mcp.ToolLister = (*Set)(nil)
	_ mcp.RunStarter = (*Set)(nil)
)

// StartRun implements mcp.RunStarter: a session's initialize relists the agent's stale connector
// tool lists, as /mcp's does.
func (s *Set) StartRun(ctx context.Context, p mcp.Principal) <-chan struct{} {
	c, err := callerOf(p)
	if err != nil || s.Connectors == nil {
		done := make(chan struct{})
		close(done)
		return done
	}
	return s.Connectors.BeginRun(ctx, c)
}

// Tools implements mcp.ToolSet: nothing fixed (ListTools answers per request).
func (*Set) Tools() []mcp.Tool { return nil }

func callerOf(p mcp.Principal) (executions.Caller, error) {
	user, err := uuid.Parse(p.UserID)
	if err != nil {
		return executions.Caller{}, fmt.Errorf("principal has no user id")
	}
	return executions.Caller{UserID: user, Via: p.Method, ClientID: p.ClientID, AgentID: p.AgentID}, nil
}

func (s *Set) tools(ctx context.Context, p mcp.Principal) (executions.Caller, []toolsets.Tool, error) {
	c, err := callerOf(p)
	if err != nil {
		return c, nil, err
	}
	name, _ := ctx.Value(nameKey{}).(string)
	ts, err := s.Toolsets.Resolve(ctx, c, name)
	if domain.ErrorCode(err) == domain.CodeNotFound {
		return c, nil, &mcp.ParamsError{Message: domain.ErrorMessage(err)}
	}
	if err != nil {
		return c, nil, err
	}
	tools, err := s.Toolsets.Tools(ctx, c, ts)
	return c, tools, err
}

// ListTools implements mcp.ToolLister.
func (s *Set) ListTools(ctx context.Context, p mcp.Principal) ([]mcp.Tool, error) {
	_, tools, err := s.tools(ctx, p)
	if err != nil {
		return nil, err
	}
	out := make([]mcp.Tool, 0, len(tools))
	for _, t := range tools {
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		mt := mcp.Tool{Name: t.Listed, Description: t.Description, InputSchema: schema, OutputSchema: t.OutputSchema}
		if t.ReadOnly != nil || t.Destructive != nil {
			mt.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: t.ReadOnly, DestructiveHint: t.Destructive}
		}
		out = append(out, mt)
	}
	return out, nil
}

// CallTool implements mcp.ToolSet: a tool the set offers the agent, run as one execution.
func (s *Set) CallTool(ctx context.Context, p mcp.Principal, name string, args json.RawMessage) (mcp.CallResult, error) {
	c, tools, err := s.tools(ctx, p)
	if err != nil {
		return mcp.CallResult{}, err
	}
	var tool *toolsets.Tool
	for i := range tools {
		if tools[i].Listed == name {
			tool = &tools[i]
			break
		}
	}
	if tool == nil {
		return mcp.CallResult{}, &mcp.ParamsError{Message: "Unknown tool: " + name}
	}
	o := s.Executions.Run(ctx, c, []executions.Call{{Tool: tool.Name, Args: args, Account: tool.Account}})[0]
	return resultOf(o), nil
}

// resultOf is an execution's outcome as a plain tool result: a remote tool's text blocks as the text
// and its other blocks and structured content as they came; a plugin tool's JSON result as the text;
// a failure as an isError result whose text is {"error": code, "message": …} (with an approval's id
// and page, or when to retry).
func resultOf(o executions.Outcome) mcp.CallResult {
	if o.Withheld || o.Code != "" && o.Result == nil {
		e := map[string]any{"error": o.Code, "message": o.Message}
		if o.Withheld || o.Code == "" {
			e["error"] = o.Message
			delete(e, "message")
		}
		if o.ApprovalID != "" {
			e["approval_id"], e["url"] = o.ApprovalID, o.ApprovalURL
		}
		if o.RetryAfter > 0 {
			e["retry_after_s"] = int(o.RetryAfter.Seconds())
		}
		b, _ := json.Marshal(e)
		return mcp.CallResult{Text: string(b), IsError: true}
	}
	res := mcp.CallResult{Text: string(o.Result), IsError: o.Code != "", Structured: o.Structured}
	var remote struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(o.Result, &remote) == nil && remote.Content != nil {
		var texts []string
		for _, b := range remote.Content {
			if b.Type == "text" {
				texts = append(texts, b.Text)
			}
		}
		res.Text = strings.Join(texts, "\n")
	}
	for _, c := range o.Content {
		if b, err := json.Marshal(c); err == nil {
			res.Content = append(res.Content, b)
		}
	}
	return res
}
