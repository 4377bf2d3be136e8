package metatools

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/curlsessions"
	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/handlers/mcp"
)

// CurlSessions is what curl_session needs of the curl session use case (*curlsessions.Service).
type CurlSessions interface {
	// Mint issues a token for every named integration or, if any cannot be proxied for the user,
	// none (a *curlsessions.RefusedError naming each).
	Mint(ctx context.Context, req curlsessions.MintRequest) (curlsessions.Session, error)
}

// curlSession answers the token, where to send it and until when; a refusal is a result naming
// every integration that failed and why.
func (s *Set) curlSession(ctx context.Context, p mcp.Principal, user uuid.UUID, raw json.RawMessage) (any, error) {
	if s.opts.CurlSessions == nil {
		return failed{"error": "curl_session is not available on this server: use execute_tools with the integration's tools (search_tools lists them)."}, nil
	}
	var a struct {
		Integrations []string `json:"integrations"`
		Account      string   `json:"account"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, err
	}
	// A curl session reaches the whole of an integration's API, what its tools do included: an
	// integration with a tool a scope switched Off for the agent, or to Ask (its calls wait for a
	// person, which raw requests would skip), is refused, and nothing is minted. A tool Off only by its
	// start-Off default does not refuse it (docs/policy.md, Plugin tools).
	var off map[string]connectors.OffTool
	var asks map[string]bool
	if s.opts.Connectors != nil {
		var err error
		if off, asks, err = s.opts.Connectors.PluginToolStates(ctx, caller(p, user)); err != nil {
			return nil, err
		}
	}
	problems := append(switchedOff(s, a.Integrations, off), asking(s, a.Integrations, asks)...)
	if s.opts.Budgets != nil {
		more, err := s.budgeted(ctx, caller(p, user), a.Integrations)
		if err != nil {
			return nil, err
		}
		problems = append(problems, more...)
	}
	if len(problems) > 0 {
		refused := &curlsessions.RefusedError{Problems: problems}
		return failed{"error": refused.Error(), "refused": refused.Problems}, nil
	}
	sess, err := s.opts.CurlSessions.Mint(ctx, curlsessions.MintRequest{UserID: user, Via: p.Method, ClientID: p.ClientID, Integrations: a.Integrations, Account: a.Account})
	var refused *curlsessions.RefusedError
	if errors.As(err, &refused) {
		problems := slices.Clone(refused.Problems)
		for i, pr := range problems {
			if in, ok := s.opts.Registry.Integration(pr.Integration); ok && pr.Reason == "NOT_CONNECTED" && inPortal(in) {
				problems[i].Message = s.portalNote(in)
			}
		}
		refused = &curlsessions.RefusedError{Problems: problems}
		return failed{"error": refused.Error(), "refused": refused.Problems}, nil
	}
	if err != nil {
		return nil, err
	}
	example := sess.Integrations[0].BaseURL + "<path>"
	return map[string]any{
		"token":              sess.Token,
		"expires_at":         sess.ExpiresAt.UTC().Format(time.RFC3339),
		"expires_in_seconds": int64(time.Until(sess.ExpiresAt).Seconds()),
		"header":             "Authorization: Bearer " + sess.Token,
		"integrations":       sess.Integrations,
		"usage": "Send each request to an integration's base_url + the provider API path (and query), with the header " +
			"\"Authorization: Bearer <token>\"; e.g. curl -H \"Authorization: Bearer $TOKEN\" " + example + ". The proxy removes that " +
			"header and injects the user's own credential for the provider. Methods: GET, HEAD, POST, PUT, PATCH, DELETE. " +
			"Redirects come back to you unfollowed. The token works only for the integrations listed, until expires_at.",
	}, nil
}

// budgeted names each of integrations with a tool that a budget of the caller's chain covers: a curl
// session's requests are not counted against budgets, so none is minted for it.
func (s *Set) budgeted(ctx context.Context, c executions.Caller, integrations []string) ([]curlsessions.Problem, error) {
	var problems []curlsessions.Problem
	for _, in := range integrations {
		i, ok := s.opts.Registry.Integration(in)
		if !ok {
			continue
		}
		var names []string
		for _, t := range i.Tools() {
			names = append(names, t.Name)
		}
		covered, err := s.opts.Budgets.Covered(ctx, c, names)
		if err != nil {
			return nil, err
		}
		if len(covered) > 0 {
			slices.Sort(covered)
			problems = append(problems, curlsessions.Problem{Integration: in, Reason: "BUDGETED",
				Message: in + " has tools under a rate limit or budget for this agent: " + strings.Join(covered, ", ") + ". A curl session's requests are not counted, so none is minted; use execute_tools."})
		}
	}
	return problems, nil
}

// asking names each of integrations that has a tool switched to Ask for the agent (asks, from
// PluginToolStates).
func asking(s *Set, integrations []string, asks map[string]bool) []curlsessions.Problem {
	byIntegration := map[string][]string{}
	for tool := range asks {
		if t, ok := s.opts.Registry.Tool(tool); ok {
			byIntegration[t.Owner().Name] = append(byIntegration[t.Owner().Name], tool)
		}
	}
	var problems []curlsessions.Problem
	for _, in := range integrations {
		tools := byIntegration[in]
		if len(tools) == 0 {
			continue
		}
		slices.Sort(tools)
		problems = append(problems, curlsessions.Problem{Integration: in, Reason: "TOOLS_ASK",
			Message: in + " has tools that need a person's approval for this agent: " + strings.Join(tools, ", ") + ". A curl session would reach what they do without it, so none is minted; use execute_tools."})
	}
	return problems
}

// switchedOff names each of integrations that has a tool switched Off for the agent (off, from
// PluginToolStates), with the tools and why.
func switchedOff(s *Set, integrations []string, off map[string]connectors.OffTool) []curlsessions.Problem {
	byIntegration := map[string][]string{}
	for tool, o := range off {
		if o.ByDefault {
			continue
		}
		if t, ok := s.opts.Registry.Tool(tool); ok {
			in := t.Owner().Name
			byIntegration[in] = append(byIntegration[in], tool+" ("+o.Why+")")
		}
	}
	var problems []curlsessions.Problem
	for _, in := range integrations {
		tools := byIntegration[in]
		if len(tools) == 0 {
			continue
		}
		slices.Sort(tools)
		problems = append(problems, curlsessions.Problem{Integration: in, Reason: "TOOLS_OFF",
			Message: in + " has tools switched Off for this agent: " + strings.Join(tools, ", ") + ". A curl session would reach what they do, so none is minted; use execute_tools with its other tools."})
	}
	return problems
}
