// Package connectorstest opens what a connectors test runs on: a real MCP server (the official Go
// SDK's) on loopback as a connector's remote endpoint, and a Workbench node with the connectors use
// case, its read models, the MCP client pool and the executions service, on SQLite or PostgreSQL.
// Scopes is the hand-written stand-in of the organizations read model. Only tests and benchmarks
// import it.
package connectorstest

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/mcpclient"
	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/app/platformkeys"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/ssrf"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/internal/vault"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/plugins/shipped"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/connectorsrm"
	"github.com/workbench/workbench/projections/platform"
)

// Remote is a real MCP server on loopback behind a check of the bearer token as a provider makes
// it. It offers echo, whoami (answers the caller's token), create_issue and wipe_everything
// (destructiveHint); MCP is the SDK server, so a test can change its tools between listings.
type Remote struct {
	Srv *httptest.Server
	MCP *mcp.Server
	// Reject answers a JSON-RPC method (string) with an HTTP status (int) instead.
	Reject sync.Map
	// Fail, when set, is the status of every request.
	Fail   atomic.Int32
	Calls  atomic.Int64
	tokens sync.Map
}

// EchoArgs are the arguments of the remote's tools.
type EchoArgs struct {
	Text string `json:"text"`
}

// Text is a tool handler answering one text content.
func Text(s string) mcp.ToolHandlerFor[EchoArgs, any] {
	return func(context.Context, *mcp.CallToolRequest, EchoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}, nil, nil
	}
}

// NewRemote starts the server accepting token.
func NewRemote(t testing.TB, token string) *Remote { return NewRemoteWith(t, token, nil) }

// NewRemoteWith is NewRemote with the MCP server's options (a completion handler, say).
func NewRemoteWith(t testing.TB, token string, opts *mcp.ServerOptions) *Remote {
	t.Helper()
	r := &Remote{}
	r.tokens.Store(token, true)
	r.MCP = mcp.NewServer(&mcp.Implementation{Name: "fake-remote", Version: "1"}, opts)
	mcp.AddTool(r.MCP, &mcp.Tool{Name: "echo", Description: "Echo the text back."}, func(ctx context.Context, req *mcp.CallToolRequest, a EchoArgs) (*mcp.CallToolResult, any, error) {
		r.Calls.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + a.Text}}}, nil, nil
	})
	yes := true
	mcp.AddTool(r.MCP, &mcp.Tool{Name: "wipe_everything", Description: "Deletes all data.", Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes}}, Text("wiped"))
	mcp.AddTool(r.MCP, &mcp.Tool{Name: "create_issue", Description: "Open an issue."}, Text("created"))
	mcp.AddTool(r.MCP, &mcp.Tool{Name: "whoami", Description: "Say which token called."}, func(ctx context.Context, req *mcp.CallToolRequest, a EchoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "token is " + strings.TrimPrefix(req.Extra.Header.Get("Authorization"), "Bearer ")}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return r.MCP }, nil)
	r.Srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if s := r.Fail.Load(); s != 0 {
			http.Error(w, "down", int(s))
			return
		}
		if _, ok := r.tokens.Load(strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")); !ok {
			http.Error(w, "bad token", http.StatusUnauthorized)
			return
		}
		if req.Method == http.MethodPost {
			body, _ := io.ReadAll(req.Body)
			var m struct {
				Method string `json:"method"`
			}
			_ = json.Unmarshal(body, &m)
			if st, ok := r.Reject.Load(m.Method); ok {
				http.Error(w, "refused", st.(int))
				return
			}
			req.Body = io.NopCloser(strings.NewReader(string(body)))
		}
		h.ServeHTTP(w, req)
	}))
	t.Cleanup(r.Srv.Close)
	return r
}

// Accept makes the server accept another token; Revoke stops accepting one.
func (r *Remote) Accept(tok string) { r.tokens.Store(tok, true) }

// Revoke stops accepting a token.
func (r *Remote) Revoke(tok string) { r.tokens.Delete(tok) }

// URL is the MCP endpoint.
func (r *Remote) URL() string { return r.Srv.URL + "/mcp" }

// ManifestFS is a folder "remote" (a token connector on endpoint u, create_issue named, whoami Off
// by policy) plus extra files.
func ManifestFS(u string, extra map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{
		"remote/connector.json": {Data: []byte(fmt.Sprintf(`{"slug":"remote","display_name":"Remote","description":"A remote MCP server in the tests.","endpoint":{"url":%q},
			"auth":{"kind":"token"},"tools":[{"name":"create_issue","description":"Open an issue.","mutating":false}],
			"policy":{"default_off":["whoami"]}}`, u))},
		"remote/logo.svg": {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"/>`)},
	}
	for k, v := range extra {
		fsys[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return fsys
}

// The fixed ids of the tests: one user; an organization with a guild; Agent in the guild and
// Other in no guild.
var (
	User  = uuid.MustParse("11111111-1111-4111-8111-111111111111")
	Org   = uuid.MustParse("22222222-2222-4222-8222-222222222222")
	Guild = uuid.MustParse("33333333-3333-4333-8333-333333333333")
	Agent = uuid.MustParse("44444444-4444-4444-8444-444444444444")
	Other = uuid.MustParse("55555555-5555-4555-8555-555555555555")
)

// Scopes is the stand-in of the organizations read model: agents' chains by id; the user may manage
// every owner but those in Deny; a user's default agent is in Defaults, else the user's own id.
type Scopes struct {
	mu       sync.Mutex
	Chains   map[uuid.UUID]connectors.Chain
	Deny     map[login.Owner]bool
	Defaults map[uuid.UUID]uuid.UUID
	// Roles are the users' roles by organisation (orgroles.go); nil: the user is Org's owner.
	Roles map[uuid.UUID]map[uuid.UUID]organization.Role
	// Names are the scopes' names by id (connectors.ScopeNamer); a scope not named reads by its id.
	Names map[uuid.UUID]string
}

var _ connectors.ScopeNamer = (*Scopes)(nil)

// ScopeName implements connectors.ScopeNamer from Names.
func (s *Scopes) ScopeName(_ context.Context, o login.Owner) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Names[o.ID], nil
}

// Chain implements connectors.Scopes.
func (s *Scopes) Chain(_ context.Context, agent uuid.UUID) (connectors.Chain, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.Chains[agent]
	if !ok {
		return connectors.Chain{}, domain.Errorf(domain.CodeNotFound, "no agent %s", agent)
	}
	return c, nil
}

// DefaultAgent implements connectors.Scopes.
func (s *Scopes) DefaultAgent(_ context.Context, user uuid.UUID) (uuid.UUID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.Defaults[user]; ok {
		return a, nil
	}
	return user, nil
}

// MayManage implements connectors.Scopes.
func (s *Scopes) MayManage(_ context.Context, _ uuid.UUID, o login.Owner) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Deny[o] {
		return domain.Errorf(domain.CodeNotFound, "no %s %s", o.Scope, o.ID)
	}
	return nil
}

// Options choose the node.
type Options struct {
	Postgres bool
	FS       fs.FS
	Adapters map[string]connector.Adapter
	Resolver ssrf.Resolver
	// Now starts the clock (default 2026-12-01 09:00 UTC); Env.Advance moves it.
	Now time.Time
	// Configure, when set, changes the service's options before it is made (platform keys, an
	// integration lookup, GitHub's URLs).
	Configure func(*connectors.Options)
	// Admins are the instance admins' emails of Env.Keys (the platform keys).
	Admins []string
	// MonthlyCap caps platform-login calls by connector slug (nil: none).
	MonthlyCap func(slug string) (int, bool)
	// NoSyncAfterWrite leaves the platform login sync out of a key write (a test drives it itself).
	NoSyncAfterWrite bool
	// StateBudget is the service's state-hook budget (zero: the default); Logger its logger.
	StateBudget time.Duration
	Logger      *slog.Logger
	// Registry is the connector registry (nil: none).
	Registry fs.FS
	// Projections are read models run beside the connectors' (the organisations', for a test that
	// sets connectors.OrganizationScopes through Configure).
	Projections []projections.Projection
}

// Env is one Workbench node.
type Env struct {
	DB         *sql.DB
	Store      eventstore.Store
	Runner     *projections.Runner
	Service    *connectors.Service
	Executions *executions.Service
	Pool       *mcpclient.Pool
	Scopes     *Scopes
	Reader     connectorsrm.Reader
	Vault      *vault.Vault
	// Keys are the platform keys (app/platformkeys), the service's PlatformKeys.
	Keys     *platformkeys.Service
	Registry *plugins.Registry
	clock    *testenv.Clock
}

// Open opens a node: migrated database, event store, vault, the connectors projection running, the
// audit read model, the pool (loopback allowed, as WORKBENCH_DEV_ALLOW_LOOPBACK), the service with the folders of o.FS
// installed, and executions with the service as a tool source.
func Open(t testing.TB, o Options) *Env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	backend := testenv.SQLite
	if o.Postgres {
		backend = testenv.Postgres
	}
	node := testenv.Open(t, backend)
	db, store, v, dialect := node.DB, node.Store, node.Vault, node.Dialect
	runner, err := projections.NewRunner(store, db, dialect, &projections.Options{Projections: append([]projections.Projection{connectorsrm.New(), auditrm.New(), platform.NewKeys(), platform.NewCalls()}, o.Projections...), PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = runner.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	cs, problems := connector.Load(o.FS, "core", o.Adapters)
	if len(problems) > 0 {
		t.Fatalf("connectors: %v", problems)
	}
	e := &Env{DB: db, Store: store, Runner: runner, Reader: connectorsrm.Reader{DB: db}, Vault: v}
	e.clock = node.Clock
	if o.Now.IsZero() {
		e.clock.Set(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	} else {
		e.clock.Set(o.Now)
	}
	e.Scopes = &Scopes{Chains: map[uuid.UUID]connectors.Chain{
		Agent: {OrganizationID: Org, GuildID: Guild, AgentID: Agent},
		Other: {OrganizationID: Org, AgentID: Other},
	}, Deny: map[login.Owner]bool{}, Defaults: map[uuid.UUID]uuid.UUID{User: Agent}}
	e.Pool = mcpclient.New(mcpclient.Options{AllowLoopback: true, Resolver: o.Resolver})
	t.Cleanup(e.Pool.Close)
	reg, problems2 := plugins.Load(ctx, plugins.Options{Builtins: shipped.Plugins()})
	if len(problems2) > 0 {
		t.Fatalf("plugins: %v", problems2)
	}
	e.Registry = reg
	clock := e.clock.Now
	if e.Keys, err = platformkeys.New(platformkeys.Options{Store: store, Reader: platform.Reader{DB: db}, Projections: runner, Vault: v,
		Integrations: reg, Catalog: e.Reader, Admins: o.Admins, Now: clock, AfterWrite: func(ctx context.Context) error {
			if o.NoSyncAfterWrite {
				return nil
			}
			return e.Service.SyncPlatformLogins(ctx)
		}}); err != nil {
		t.Fatal(err)
	}
	if err := runner.AfterApply(platform.KeysName, e.Keys.Forget); err != nil {
		t.Fatal(err)
	}
	so := connectors.Options{Store: store, DB: db, Projections: runner, Vault: v, Pool: e.Pool, Scopes: e.Scopes, Connectors: cs,
		AllowLoopback: true, Resolver: o.Resolver, Now: clock, Reserved: func(p string) bool { return p == "github" },
		PlatformKeys: e.Keys, MonthlyCap: o.MonthlyCap,
		StateBudget: o.StateBudget, Logger: o.Logger, Registry: o.Registry}
	if o.Configure != nil {
		o.Configure(&so)
	}
	if e.Service, err = connectors.New(so); err != nil {
		t.Fatal(err)
	}
	if err := e.Service.Install(ctx); err != nil {
		t.Fatal(err)
	}
	if e.Executions, err = executions.New(executions.Options{Registry: reg, Credentials: NoCredentials{}, Store: store, Sources: []executions.ToolSource{e.Service}}); err != nil {
		t.Fatal(err)
	}
	return e
}

// Now is the node's clock.
func (e *Env) Now() time.Time { return e.clock.Now() }

// Advance moves the node's clock.
func (e *Env) Advance(d time.Duration) { e.clock.Advance(d) }

// NoCredentials answers every plugin integration as not connected (connector tests run no plugin).
type NoCredentials struct{}

// Access implements executions.Credentials.
func (NoCredentials) Access(_ context.Context, _ uuid.UUID, in *plugins.Integration, _ string) (connections.Access, error) {
	if in.Auth.Mode == plugins.AuthNone {
		return connections.Access{}, nil // as the credential layer: an integration that needs none
	}
	return connections.Access{}, domain.Errorf(domain.CodeNotConnected, "not connected")
}

// Events are the stored events of one type, in order.
func (e *Env) Events(t testing.TB, typ string) []eventstore.Envelope {
	t.Helper()
	all, err := e.Store.ReadAll(context.Background(), eventstore.Start, 100000)
	if err != nil {
		t.Fatal(err)
	}
	var out []eventstore.Envelope
	for _, ev := range all {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// Resolver answers names from a table; a name's answers are used in turn, the last repeating, so a
// test can change the answer between a check and a dial.
type Resolver struct {
	mu      sync.Mutex
	Answers map[string][]netip.Addr
	asked   map[string]int
}

// LookupNetIP implements ssrf.Resolver.
func (r *Resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.asked == nil {
		r.asked = map[string]int{}
	}
	as := r.Answers[host]
	if len(as) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	i := min(r.asked[host], len(as)-1)
	r.asked[host]++
	return []netip.Addr{as[i]}, nil
}
