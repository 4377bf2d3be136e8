package toolsetserve

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers/mcp"
)

// Connectors reads a connector's resources and prompts through the caller's agent's login
// (*connectors.Service), redacted against its credentials.
type Connectors interface {
	RemoteResources(ctx context.Context, caller executions.Caller, serverID string) (resources, templates json.RawMessage, err error)
	ReadRemoteResource(ctx context.Context, caller executions.Caller, serverID, uri string) (json.RawMessage, error)
	RemotePrompts(ctx context.Context, caller executions.Caller, serverID string) (json.RawMessage, error)
	GetRemotePrompt(ctx context.Context, caller executions.Caller, serverID, name string, args map[string]string) (json.RawMessage, error)
	SubscribeRemote(ctx context.Context, caller executions.Caller, serverID, uri, key string, until time.Time, deliver func(uri string)) error
	UnsubscribeRemote(ctx context.Context, caller executions.Caller, serverID, uri, key string) error
	// ForgetSubscriber drops every subscription of key (an MCP session that ended).
	ForgetSubscriber(key string)
	CompleteRemote(ctx context.Context, caller executions.Caller, serverID string, params json.RawMessage) (json.RawMessage, error)
	// BeginRun relists, in the background, the caller's agent's logins whose stored list is stale.
	BeginRun(ctx context.Context, caller executions.Caller) <-chan struct{}
}

var (
	_ mcp.ResourceServer = (*Set)(nil)
	_ mcp.Completer      = (*Set)(nil)
)

// A toolset's connectors' resources and prompts are namespaced so that two connectors cannot collide:
// a resource's URI (and a template's) is workbench://<connector id>/<its URI>, a prompt's name
// <connector id>/<its name>, and a resource's name <connector id>/<its name>. A mirror toolset serves
// one connector and keeps its URIs and names as they are.
const uriPrefix = "workbench://"

// served is what a toolset serves of its connectors: their ids, and whether it mirrors its one
// connector (no namespaces).
type servedSet struct {
	ids    []string
	mirror bool
}

// uri is a connector's URI as the toolset names it.
func (v servedSet) uri(serverID, uri string) string {
	if v.mirror {
		return uri
	}
	return namespacedURI(serverID, uri)
}

// name is a connector's resource or prompt name as the toolset names it.
func (v servedSet) name(serverID, name string) string {
	if v.mirror {
		return name
	}
	return serverID + "/" + name
}

// splitURI is uri's inverse: the connector and its own URI; ok is false for a URI the toolset does not
// serve.
func (v servedSet) splitURI(u string) (serverID, uri string, ok bool) {
	if v.mirror {
		return v.ids[0], u, u != ""
	}
	return splitURI(u)
}

// splitName is name's inverse.
func (v servedSet) splitName(n string) (serverID, name string, ok bool) {
	if v.mirror {
		return v.ids[0], n, n != ""
	}
	serverID, name, ok = strings.Cut(n, "/")
	return serverID, name, ok && serverID != "" && name != ""
}

func namespacedURI(serverID, uri string) string { return uriPrefix + serverID + "/" + uri }

// splitURI is namespacedURI's inverse; ok is false for a URI it did not make.
func splitURI(u string) (serverID, uri string, ok bool) {
	rest, ok := strings.CutPrefix(u, uriPrefix)
	if !ok {
		return "", "", false
	}
	serverID, uri, ok = strings.Cut(rest, "/")
	return serverID, uri, ok && serverID != "" && uri != ""
}

// connectorsOf resolves the toolset in ctx and answers the connectors whose resources and prompts it
// serves.
func (s *Set) connectorsOf(ctx context.Context, p mcp.Principal) (executions.Caller, servedSet, error) {
	c, err := callerOf(p)
	if err != nil {
		return c, servedSet{}, err
	}
	name, _ := ctx.Value(nameKey{}).(string)
	ts, err := s.Toolsets.Resolve(ctx, c, name)
	if domain.ErrorCode(err) == domain.CodeNotFound {
		return c, servedSet{}, &mcp.ParamsError{Message: domain.ErrorMessage(err)}
	}
	return c, servedSet{ids: ts.Connectors, mirror: ts.Mirror && len(ts.Connectors) == 1}, err
}

// served refuses a connector the toolset does not serve.
func served(ids []string, id string) error {
	for _, x := range ids {
		if x == id {
			return nil
		}
	}
	return &mcp.ParamsError{Message: "this toolset serves no resources or prompts of " + id}
}

// rewrite decodes a JSON array of objects, applies f to each and encodes the array again.
func rewrite(raw json.RawMessage, f func(map[string]any)) ([]map[string]any, error) {
	var items []map[string]any
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, err
	}
	for _, it := range items {
		f(it)
	}
	return items, nil
}

func (s *Set) listResources(ctx context.Context, p mcp.Principal, templates bool) (json.RawMessage, error) {
	c, set, err := s.connectorsOf(ctx, p)
	if err != nil {
		return nil, err
	}
	out := []map[string]any{}
	for _, id := range set.ids {
		rs, ts, err := s.Connectors.RemoteResources(ctx, c, id)
		if domain.ErrorCode(err) == domain.CodeNotConnected {
			continue // the agent holds no login to it: nothing of it to serve
		}
		if err != nil {
			return nil, err
		}
		raw, key := rs, "uri"
		if templates {
			raw, key = ts, "uriTemplate"
		}
		items, err := rewrite(raw, func(it map[string]any) {
			if u, ok := it[key].(string); ok {
				it[key] = set.uri(id, u)
			}
			if n, ok := it["name"].(string); ok {
				it["name"] = set.name(id, n)
			}
		})
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
	}
	field := "resources"
	if templates {
		field = "resourceTemplates"
	}
	return json.Marshal(map[string]any{field: out})
}

// ListResources implements mcp.ResourceServer.
func (s *Set) ListResources(ctx context.Context, p mcp.Principal) (json.RawMessage, error) {
	return s.listResources(ctx, p, false)
}

// ListResourceTemplates implements mcp.ResourceServer.
func (s *Set) ListResourceTemplates(ctx context.Context, p mcp.Principal) (json.RawMessage, error) {
	return s.listResources(ctx, p, true)
}

// accessed is an audited read's result, or the error a client is told.
func accessed(o executions.Outcome) (json.RawMessage, error) {
	if o.Code != "" || o.Withheld {
		return nil, &mcp.ParamsError{Message: o.Message}
	}
	return o.Result, nil
}

// ReadResource implements mcp.ResourceServer: one read, audited as an execution of its own.
func (s *Set) ReadResource(ctx context.Context, p mcp.Principal, u string) (json.RawMessage, error) {
	c, set, err := s.connectorsOf(ctx, p)
	if err != nil {
		return nil, err
	}
	id, uri, ok := set.splitURI(u)
	if !ok {
		return nil, &mcp.ParamsError{Message: "unknown resource " + u + ": this toolset's resources are named workbench://<connector>/<uri>"}
	}
	if err := served(set.ids, id); err != nil {
		return nil, err
	}
	args, _ := json.Marshal(map[string]string{"uri": uri})
	res, err := accessed(s.Executions.Access(ctx, c, id, "resources/read", args, func(ctx context.Context) (json.RawMessage, error) {
		return s.Connectors.ReadRemoteResource(ctx, c, id, uri)
	}))
	if err != nil {
		return nil, err
	}
	var r map[string]any
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, err
	}
	if contents, ok := r["contents"].([]any); ok {
		for _, x := range contents {
			if m, ok := x.(map[string]any); ok {
				if cu, ok := m["uri"].(string); ok {
					m["uri"] = set.uri(id, cu)
				}
			}
		}
	}
	return json.Marshal(r)
}

// ListPrompts implements mcp.ResourceServer.
func (s *Set) ListPrompts(ctx context.Context, p mcp.Principal) (json.RawMessage, error) {
	c, set, err := s.connectorsOf(ctx, p)
	if err != nil {
		return nil, err
	}
	out := []map[string]any{}
	for _, id := range set.ids {
		raw, err := s.Connectors.RemotePrompts(ctx, c, id)
		if domain.ErrorCode(err) == domain.CodeNotConnected {
			continue
		}
		if err != nil {
			return nil, err
		}
		items, err := rewrite(raw, func(it map[string]any) {
			if n, ok := it["name"].(string); ok {
				it["name"] = set.name(id, n)
			}
		})
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
	}
	return json.Marshal(map[string]any{"prompts": out})
}

// GetPrompt implements mcp.ResourceServer: one prompt, audited as an execution of its own.
func (s *Set) GetPrompt(ctx context.Context, p mcp.Principal, name string, args map[string]string) (json.RawMessage, error) {
	c, set, err := s.connectorsOf(ctx, p)
	if err != nil {
		return nil, err
	}
	id, remote, ok := set.splitName(name)
	if !ok {
		return nil, &mcp.ParamsError{Message: "unknown prompt " + name + ": this toolset's prompts are named <connector>/<name>"}
	}
	if err := served(set.ids, id); err != nil {
		return nil, err
	}
	asked, _ := json.Marshal(map[string]any{"name": remote, "arguments": args})
	return accessed(s.Executions.Access(ctx, c, id, "prompts/get", asked, func(ctx context.Context) (json.RawMessage, error) {
		return s.Connectors.GetRemotePrompt(ctx, c, id, remote, args)
	}))
}

// Complete implements mcp.Completer: a completion of an argument of one of the set's connectors'
// prompts (ref/prompt, its namespaced name) or resource templates (ref/resource, its namespaced URI),
// asked of that connector with the names it knows.
func (s *Set) Complete(ctx context.Context, p mcp.Principal, raw json.RawMessage) (json.RawMessage, error) {
	var params map[string]any
	if err := json.Unmarshal(raw, &params); err != nil {
		return nil, &mcp.ParamsError{Message: "Invalid params: " + err.Error()}
	}
	ref, _ := params["ref"].(map[string]any)
	if ref == nil {
		return nil, &mcp.ParamsError{Message: "Invalid params: completion/complete needs a ref"}
	}
	c, set, err := s.connectorsOf(ctx, p)
	if err != nil {
		return nil, err
	}
	var id string
	switch ref["type"] {
	case "ref/prompt":
		name, _ := ref["name"].(string)
		var remote string
		var ok bool
		if id, remote, ok = set.splitName(name); !ok {
			return nil, &mcp.ParamsError{Message: "unknown prompt " + name}
		}
		ref["name"] = remote
	case "ref/resource":
		u, _ := ref["uri"].(string)
		var uri string
		var ok bool
		if id, uri, ok = set.splitURI(u); !ok {
			return nil, &mcp.ParamsError{Message: "unknown resource template " + u}
		}
		ref["uri"] = uri
	default:
		return nil, &mcp.ParamsError{Message: "Invalid params: ref.type is ref/prompt or ref/resource"}
	}
	if err := served(set.ids, id); err != nil {
		return nil, err
	}
	asked, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	res, err := s.Connectors.CompleteRemote(ctx, c, id, asked)
	if domain.ErrorCode(err) != "" && domain.ErrorCode(err) != domain.CodeInternal {
		return nil, &mcp.ParamsError{Message: domain.ErrorMessage(err)}
	}
	return res, err
}

var _ mcp.Subscriber = (*Set)(nil)

// Subscribe implements mcp.Subscriber: the subscription is held at the connector through the agent's
// login, and each update is told by the toolset's name of the resource.
func (s *Set) Subscribe(ctx context.Context, p mcp.Principal, sessionID, u string, until time.Time, deliver func(uri string)) error {
	c, set, err := s.connectorsOf(ctx, p)
	if err != nil {
		return err
	}
	id, uri, ok := set.splitURI(u)
	if !ok {
		return &mcp.ParamsError{Message: "unknown resource " + u + ": this toolset's resources are named workbench://<connector>/<uri>"}
	}
	if err := served(set.ids, id); err != nil {
		return err
	}
	err = s.Connectors.SubscribeRemote(ctx, c, id, uri, subscriptionKey(p, sessionID), until, func(changed string) { deliver(set.uri(id, changed)) })
	return paramsOr(err)
}

// Unsubscribe implements mcp.Subscriber.
func (s *Set) Unsubscribe(ctx context.Context, p mcp.Principal, sessionID, u string) error {
	c, set, err := s.connectorsOf(ctx, p)
	if err != nil {
		return err
	}
	id, uri, ok := set.splitURI(u)
	if !ok {
		return &mcp.ParamsError{Message: "unknown resource " + u}
	}
	if err := served(set.ids, id); err != nil {
		return err
	}
	return paramsOr(s.Connectors.UnsubscribeRemote(ctx, c, id, uri, subscriptionKey(p, sessionID)))
}

// EndSession implements mcp.Subscriber.
func (s *Set) EndSession(p mcp.Principal, sessionID string) {
	s.Connectors.ForgetSubscriber(subscriptionKey(p, sessionID))
}

// subscriptionKey names one MCP session's subscriptions at the pool: the session, and the agent it
// belongs to.
func subscriptionKey(p mcp.Principal, sessionID string) string {
	return p.AgentID.String() + "/" + sessionID
}

// paramsOr turns a refusal the client can act on (not connected, not a remote, refused by the remote)
// into -32602 with its message; an internal error stays one.
func paramsOr(err error) error {
	if err == nil || domain.ErrorCode(err) == "" || domain.ErrorCode(err) == domain.CodeInternal {
		return err
	}
	return &mcp.ParamsError{Message: domain.ErrorMessage(err)}
}
