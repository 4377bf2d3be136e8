package metatools

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/workbench/workbench/handlers/mcp"
)

// ViaPortal is the Principal.Method (and so the execution record's via) of a tool run from the
// portal's Try a tool page (handlers/tryhttp).
const ViaPortal = "portal"

// PortalPrincipal is who a portal user is to the meta-tools: the user, by their portal session,
// acting as agent, one of their own agents (uuid.Nil: their default agent; the caller checks that
// the user owns agent). The switches, Ask, budgets and logins of that agent's chain (agent → guild →
// organisation) decide a run exactly as they decide a call of that agent's own API key.
func PortalPrincipal(user, agent uuid.UUID) mcp.Principal {
	return mcp.Principal{UserID: user.String(), Method: ViaPortal, AgentID: agent}
}

// ReachableTools is search_tools for the portal's Try a tool page: the tools the caller may run
// (plugin tools, built-ins and the connector tools of the logins its agent's chain holds), and those
// switched Off for it under "unavailable" with why. An empty query lists them all (search_tools needs
// one; a person picking from a list does not), up to limit of each kind.
func (s *Set) ReachableTools(ctx context.Context, p mcp.Principal, query, integration string, limit int) (any, error) {
	user, err := uuid.Parse(p.UserID)
	if err != nil {
		return nil, errNoUser
	}
	raw, err := json.Marshal(map[string]any{"query": query, "integration": integration, "limit": limit})
	if err != nil {
		return nil, err
	}
	return s.searchTools(ctx, caller(p, user), raw)
}

// ToolSchema is get_tool_schema for the portal: one tool the caller may run, with its input schema;
// an unknown tool is domain.CodeNotFound, one switched Off for the caller domain.CodeForbidden.
func (s *Set) ToolSchema(ctx context.Context, p mcp.Principal, name string) (any, error) {
	user, err := uuid.Parse(p.UserID)
	if err != nil {
		return nil, errNoUser
	}
	raw, err := json.Marshal(map[string]string{"tool": name})
	if err != nil {
		return nil, err
	}
	return s.getToolSchema(ctx, caller(p, user), raw)
}

// Integrations is list_integrations for the portal: every integration with the caller's accounts,
// and the connector logins (with their accounts) its agent's chain holds.
func (s *Set) Integrations(ctx context.Context, p mcp.Principal) (any, error) {
	user, err := uuid.Parse(p.UserID)
	if err != nil {
		return nil, errNoUser
	}
	return s.listIntegrations(ctx, caller(p, user))
}

// PortalRun is execute_tools of one execution for the portal's Try a tool page: raw is
// execute_tools' arguments ({"executions":[{"tool","args","account"}]}, exactly one execution),
// checked against its schema as an agent's are, run by the same app/executions path (switches, Ask,
// budgets, the credential of the account named, redaction, the audit record) and answered as
// execute_tools answers it. code is the execution's error code ("" on success; WITHHELD when its
// audit record could not be written), which the result's entry does not always carry.
func (s *Set) PortalRun(ctx context.Context, p mcp.Principal, raw json.RawMessage) (res mcp.CallResult, code string, err error) {
	user, err := uuid.Parse(p.UserID)
	if err != nil {
		return mcp.CallResult{}, "", errNoUser
	}
	calls, ok := decodeExecutions(raw)
	if !ok {
		args, verr := s.validators["execute_tools"].Validate(raw)
		if verr != nil {
			return mcp.CallResult{}, "", &mcp.ParamsError{Message: verr.Error()}
		}
		if calls, err = callsOf(args); err != nil {
			return mcp.CallResult{}, "", err
		}
	}
	if len(calls) != 1 {
		return mcp.CallResult{}, "", &mcp.ParamsError{Message: "the portal runs one execution at a time"}
	}
	outcomes := s.opts.Executions.Run(ctx, caller(p, user), calls)
	code = outcomes[0].Code
	if outcomes[0].Withheld {
		code = "WITHHELD"
	}
	res, err = s.resultOf(outcomes)
	return res, code, err
}
