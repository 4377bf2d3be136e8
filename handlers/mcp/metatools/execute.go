package metatools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/handlers/mcp"
	"github.com/workbench/workbench/plugins"
)

// Executions is the execute_tools use case (*executions.Service): it runs the calls and records
// each, withholding an outcome whose record could not be appended.
type Executions interface {
	Run(ctx context.Context, caller executions.Caller, calls []executions.Call) []executions.Outcome
}

type executionArgs struct {
	Executions []struct {
		Tool string          `json:"tool"`
		Args json.RawMessage `json:"args"`
	} `json:"executions"`
}

// executeTools runs the executions; an image a tool answers (plugins.Image) is taken out of its
// result and returned apart, to be sent as MCP image content.
func (s *Set) executeTools(ctx context.Context, p mcp.Principal, user uuid.UUID, raw json.RawMessage) (any, []mcp.Image, error) {
	var a executionArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, nil, err
	}
	calls := make([]executions.Call, len(a.Executions))
	for i, ex := range a.Executions {
		calls[i] = executions.Call{Tool: ex.Tool, Args: ex.Args}
	}
	outcomes := s.opts.Executions.Run(ctx, executions.Caller{UserID: user, Via: p.Method, ClientID: p.ClientID}, calls)
	results := make([]any, len(outcomes))
	var images []mcp.Image
	for i, o := range outcomes {
		if o.Code == "" && !o.Withheld {
			if rest, im, ok := plugins.ExtractImage(o.Result); ok {
				o.Result = rest
				images = append(images, mcp.Image{MIMEType: im.MIMEType, Data: im.Data})
			}
		}
		results[i] = s.entry(o)
	}
	return map[string]any{"results": results}, images, nil
}

// entry is one execution's result entry: {"result": …}, or {"error": …} (NOT_CONNECTED with what to
// do next).
func (s *Set) entry(o executions.Outcome) any {
	switch {
	case o.Withheld:
		return map[string]any{"error": o.Message}
	case o.Code == executions.CodeNotConnected && inPortal(o.Integration):
		in := o.Integration
		return map[string]any{"error": "NOT_CONNECTED", "integration": in.Name, "portal_url": s.portalURL(), "message": s.portalNote(in)}
	case o.Code == executions.CodeNotConnected:
		in := o.Integration
		return map[string]any{
			"error":       "NOT_CONNECTED",
			"integration": in.Name,
			"message": fmt.Sprintf("%s is not connected for this user. Call connect({\"integration\":%q}), give the user the URL it returns, "+
				"then call wait_for_connection with its connectionId and retry.", in.Name, in.Name),
		}
	case o.Code != "":
		return map[string]any{"error": o.Message}
	}
	return map[string]any{"result": o.Result}
}
