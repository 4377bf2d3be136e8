package connectortools

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors/mcpclient"
	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// RemotePool is the part of the pool that reads a remote's resources and prompts (*mcpclient.Pool).
type RemotePool interface {
	Resources(ctx context.Context, login uuid.UUID, ep mcpclient.Endpoint) ([]*mcp.Resource, []*mcp.ResourceTemplate, error)
	ReadResource(ctx context.Context, login uuid.UUID, ep mcpclient.Endpoint, uri string) (*mcp.ReadResourceResult, error)
	Prompts(ctx context.Context, login uuid.UUID, ep mcpclient.Endpoint) ([]*mcp.Prompt, error)
	GetPrompt(ctx context.Context, login uuid.UUID, ep mcpclient.Endpoint, name string, args map[string]string) (*mcp.GetPromptResult, error)
	Complete(ctx context.Context, login uuid.UUID, ep mcpclient.Endpoint, params *mcp.CompleteParams) (*mcp.CompleteResult, error)
}

func (s *Service) remotePool() (RemotePool, error) {
	rp, ok := s.Opts.Pool.(RemotePool)
	if !ok {
		return nil, domain.Errorf(domain.CodeUnprocessable, "this server's connector pool reads no resources or prompts")
	}
	return rp, nil
}

// remote is the caller's agent's login to a remote MCP connector (its default account at the most
// specific scope holding one), with the endpoint and the redactor of its credentials.
type remoteLogin struct {
	l   connectorsrm.Login
	ep  mcpclient.Endpoint
	red redactor
}

func (s *Service) remoteLogin(ctx context.Context, caller executions.Caller, serverID string) (remoteLogin, error) {
	chain, err := s.CallerChain(ctx, caller)
	if err != nil {
		return remoteLogin{}, err
	}
	ls, err := s.Reader.Logins(ctx, chain.Owners())
	if err != nil {
		return remoteLogin{}, err
	}
	l, ok := connectorsrm.Defaults(ls)[serverID]
	if !ok {
		return remoteLogin{}, domain.Errorf(domain.CodeNotConnected, "%s has no connected login for this agent", serverID)
	}
	if l.Owner.Scope == login.ScopePlatform {
		return remoteLogin{}, domain.Errorf(domain.CodeUnprocessable, "%s's resources and prompts are not served through a platform login", serverID)
	}
	srv, err := s.cachedServer(ctx, serverID)
	if err != nil {
		return remoteLogin{}, err
	}
	m, err := s.ManifestOf(srv)
	if err != nil {
		return remoteLogin{}, err
	}
	if !srv.Enabled {
		return remoteLogin{}, domain.Errorf(domain.CodeUnprocessable, "%s is switched off in this catalog", m.DisplayName)
	}
	creds, err := s.cachedCreds(ctx, l.LoginID, l.Version, l.Credential)
	if err != nil {
		return remoteLogin{}, err
	}
	if creds, err = s.logins.Fresh(ctx, l.State, m, creds, false); err != nil {
		return remoteLogin{}, err
	}
	ep, ok := endpoint(m, creds)
	if !ok {
		return remoteLogin{}, domain.Errorf(domain.CodeUnprocessable, "%s is not a remote MCP server: it has no resources or prompts", m.DisplayName)
	}
	return remoteLogin{l: l, ep: ep, red: s.redactorFor(l.LoginID, creds)}, nil
}

// redacted is v as JSON, redacted against the login's credentials.
func (r remoteLogin) redacted(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return r.red.JSON(b), nil
}

// RemoteResources lists the resources and resource templates of the caller's agent's login to a
// remote connector, redacted against its credentials.
func (s *Service) RemoteResources(ctx context.Context, caller executions.Caller, serverID string) (resources, templates json.RawMessage, err error) {
	pool, err := s.remotePool()
	if err != nil {
		return nil, nil, err
	}
	r, err := s.remoteLogin(ctx, caller, serverID)
	if err != nil {
		return nil, nil, err
	}
	rs, ts, err := pool.Resources(ctx, r.l.LoginID, r.ep)
	if err != nil {
		return nil, nil, providerError("resources/list", err, r.red)
	}
	if rs == nil {
		rs = []*mcp.Resource{}
	}
	if ts == nil {
		ts = []*mcp.ResourceTemplate{}
	}
	if resources, err = r.redacted(rs); err != nil {
		return nil, nil, err
	}
	templates, err = r.redacted(ts)
	return resources, templates, err
}

// ReadRemoteResource reads one resource through the caller's agent's login, redacted.
func (s *Service) ReadRemoteResource(ctx context.Context, caller executions.Caller, serverID, uri string) (json.RawMessage, error) {
	pool, err := s.remotePool()
	if err != nil {
		return nil, err
	}
	r, err := s.remoteLogin(ctx, caller, serverID)
	if err != nil {
		return nil, err
	}
	res, err := pool.ReadResource(ctx, r.l.LoginID, r.ep, uri)
	if err != nil {
		return nil, providerError("resources/read", err, r.red)
	}
	return r.redacted(res)
}

// RemotePrompts lists the prompts of the caller's agent's login to a remote connector, redacted.
func (s *Service) RemotePrompts(ctx context.Context, caller executions.Caller, serverID string) (json.RawMessage, error) {
	pool, err := s.remotePool()
	if err != nil {
		return nil, err
	}
	r, err := s.remoteLogin(ctx, caller, serverID)
	if err != nil {
		return nil, err
	}
	ps, err := pool.Prompts(ctx, r.l.LoginID, r.ep)
	if err != nil {
		return nil, providerError("prompts/list", err, r.red)
	}
	if ps == nil {
		ps = []*mcp.Prompt{}
	}
	return r.redacted(ps)
}

// GetRemotePrompt gets one prompt through the caller's agent's login, redacted.
func (s *Service) GetRemotePrompt(ctx context.Context, caller executions.Caller, serverID, name string, args map[string]string) (json.RawMessage, error) {
	pool, err := s.remotePool()
	if err != nil {
		return nil, err
	}
	r, err := s.remoteLogin(ctx, caller, serverID)
	if err != nil {
		return nil, err
	}
	res, err := pool.GetPrompt(ctx, r.l.LoginID, r.ep, name, args)
	if err != nil {
		return nil, providerError("prompts/get", err, r.red)
	}
	return r.redacted(res)
}

// CompleteRemote asks a remote connector, through the caller's agent's login, to complete an argument
// of one of its prompts or resource templates (params name them as the remote knows them), redacted.
func (s *Service) CompleteRemote(ctx context.Context, caller executions.Caller, serverID string, params json.RawMessage) (json.RawMessage, error) {
	pool, err := s.remotePool()
	if err != nil {
		return nil, err
	}
	r, err := s.remoteLogin(ctx, caller, serverID)
	if err != nil {
		return nil, err
	}
	var cp mcp.CompleteParams
	if err := json.Unmarshal(params, &cp); err != nil || cp.Ref == nil {
		return nil, domain.Errorf(domain.CodeInvalid, "completion/complete needs a ref and an argument")
	}
	res, err := pool.Complete(ctx, r.l.LoginID, r.ep, &cp)
	if err != nil {
		return nil, providerError("completion/complete", err, r.red)
	}
	return r.redacted(res)
}

// Subscriber is the part of the pool that holds resource subscriptions (*mcpclient.Pool).
type Subscriber interface {
	Subscribe(ctx context.Context, login uuid.UUID, ep mcpclient.Endpoint, uri, key string, until time.Time, deliver func(uri string)) error
	Unsubscribe(ctx context.Context, login uuid.UUID, uri, key string) error
	Forget(key string)
}

// ForgetSubscriber drops every subscription of key, at every login (an MCP session that ended).
func (s *Service) ForgetSubscriber(key string) {
	if sub, ok := s.Opts.Pool.(Subscriber); ok {
		sub.Forget(key)
	}
}

// SubscribeRemote subscribes key (an agent's MCP session, until it expires) to a resource of the
// caller's agent's login to a remote connector: deliver is told the resource's URI, redacted against
// the login's credentials, whenever the remote says it changed.
func (s *Service) SubscribeRemote(ctx context.Context, caller executions.Caller, serverID, uri, key string, until time.Time, deliver func(uri string)) error {
	sub, ok := s.Opts.Pool.(Subscriber)
	if !ok {
		return domain.Errorf(domain.CodeUnprocessable, "this server's connector pool holds no subscriptions")
	}
	r, err := s.remoteLogin(ctx, caller, serverID)
	if err != nil {
		return err
	}
	red := r.red
	if err := sub.Subscribe(ctx, r.l.LoginID, r.ep, uri, key, until, func(u string) { deliver(red.Text(u)) }); err != nil {
		return providerError("resources/subscribe", err, r.red)
	}
	return nil
}

// UnsubscribeRemote ends key's subscription to a resource of the caller's agent's login to a remote
// connector.
func (s *Service) UnsubscribeRemote(ctx context.Context, caller executions.Caller, serverID, uri, key string) error {
	sub, ok := s.Opts.Pool.(Subscriber)
	if !ok {
		return domain.Errorf(domain.CodeUnprocessable, "this server's connector pool holds no subscriptions")
	}
	r, err := s.remoteLogin(ctx, caller, serverID)
	if err != nil {
		return err
	}
	if err := sub.Unsubscribe(ctx, r.l.LoginID, uri, key); err != nil {
		return providerError("resources/unsubscribe", err, r.red)
	}
	return nil
}
