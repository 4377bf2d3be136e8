package connectors_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/postgres"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/internal/mcpclient"
	"github.com/workbench/workbench/internal/testpg"
	"github.com/workbench/workbench/internal/vault"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/projections"
	connectorsrm "github.com/workbench/workbench/projections/connectors"
)

// remote is a real MCP server (the official Go SDK's) on loopback, behind a check of the bearer token
// as a provider would make it. Its tools can change between listings.
type remote struct {
	t      *testing.T
	srv    *httptest.Server
	mcp    *mcp.Server
	tokens sync.Map // the tokens it accepts
	reject sync.Map     // JSON-RPC method -> HTTP status answered instead
	fail   atomic.Int32 // status answered to every request when set
	calls  atomic.Int64
}

type echoArgs struct {
	Text string `json:"text"`
}

func newRemote(t *testing.T, token string) *remote {
	t.Helper()
	r := &remote{t: t}
	r.tokens.Store(token, true)
	r.mcp = mcp.NewServer(&mcp.Implementation{Name: "fake-remote", Version: "1"}, nil)
	mcp.AddTool(r.mcp, &mcp.Tool{Name: "echo", Description: "Echo the text back."}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		r.calls.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + a.Text}}}, nil, nil
	})
	yes := true
	mcp.AddTool(r.mcp, &mcp.Tool{Name: "wipe_everything", Description: "Deletes all data.", Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes}}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wiped"}}}, nil, nil
	})
	mcp.AddTool(r.mcp, &mcp.Tool{Name: "create_issue", Description: "Open an issue."}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "created"}}}, nil, nil
	})
	mcp.AddTool(r.mcp, &mcp.Tool{Name: "whoami", Description: "Say which token called."}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "token is " + strings.TrimPrefix(req.Extra.Header.Get("Authorization"), "Bearer ")}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return r.mcp }, nil)
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if s := r.fail.Load(); s != 0 {
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
			if st, ok := r.reject.Load(m.Method); ok {
				http.Error(w, "refused", st.(int))
				return
			}
			req.Body = io.NopCloser(strings.NewReader(string(body)))
		}
		h.ServeHTTP(w, req)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *remote) accept(tok string) { r.tokens.Store(tok, true) }

func (r *remote) url() string { return r.srv.URL + "/mcp" }

// scopes is the hand-written stand-in of the organizations read model: agents' chains by id; every
// user may manage every owner except those in deny.
type scopes struct {
	mu     sync.Mutex
	chains map[uuid.UUID]connectors.Chain
	deny   map[login.Owner]bool
}

func (s *scopes) Chain(_ context.Context, agent uuid.UUID) (connectors.Chain, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.chains[agent]
	if !ok {
		return connectors.Chain{}, domain.Errorf(domain.CodeNotFound, "no agent %s", agent)
	}
	return c, nil
}

func (s *scopes) DefaultAgent(_ context.Context, user uuid.UUID) (uuid.UUID, error) { return user, nil }

func (s *scopes) MayManage(_ context.Context, _ uuid.UUID, o login.Owner) error {
	if s.deny[o] {
		return domain.Errorf(domain.CodeNotFound, "no %s %s", o.Scope, o.ID)
	}
	return nil
}

// world is one Workbench node: store, read models, vault, pool, the service, executions.
type world struct {
	t      *testing.T
	ctx    context.Context
	db     *sql.DB
	store  eventstore.Store
	svc    *connectors.Service
	runs   *executions.Service
	pool   *mcpclient.Pool
	scopes *scopes
	reader connectorsrm.Reader
	now    atomic.Pointer[time.Time]
}

var (
	user  = uuid.MustParse("11111111-1111-4111-8111-111111111111")
	org   = uuid.MustParse("22222222-2222-4222-8222-222222222222")
	guild = uuid.MustParse("33333333-3333-4333-8333-333333333333")
	agent = uuid.MustParse("44444444-4444-4444-8444-444444444444")
	// other is an agent of the same organization in no guild.
	other = uuid.MustParse("55555555-5555-4555-8555-555555555555")
)

func owner(s login.Scope, id uuid.UUID) login.Owner { return login.Owner{Scope: s, ID: id} }

// manifestFS builds connector folders: "remote" (token, endpoint u) and any extra.
func manifestFS(u string, extra map[string]string) fstest.MapFS {
	fs := fstest.MapFS{
		"remote/connector.json": {Data: []byte(fmt.Sprintf(`{"slug":"remote","display_name":"Remote","endpoint":{"url":%q},
			"auth":{"kind":"token"},"tools":[{"name":"create_issue","description":"Open an issue.","mutating":false}],
			"policy":{"default_off":["whoami"]}}`, u))},
		"remote/logo.svg": {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)},
	}
	for k, v := range extra {
		fs[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return fs
}

type world0 struct {
	pg       bool
	fs       fstest.MapFS
	adapters map[string]connector.Adapter
	resolver *mapResolver
}

func newWorld(t *testing.T, o world0) *world {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var db *sql.DB
	var store eventstore.Store
	var err error
	dialect := migrations.SQLite
	if o.pg {
		u := testpg.New(t)
		if db, err = sql.Open("pgx", u); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dialect = migrations.Postgres
		if _, err := migrations.Apply(ctx, db, dialect, nil); err != nil {
			t.Fatal(err)
		}
		pool, err := pgxpool.New(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		if store, err = postgres.New(ctx, pool, nil); err != nil {
			t.Fatal(err)
		}
	} else {
		if db, err = sqlite.OpenDB(ctx, filepath.Join(t.TempDir(), "wb.db")); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if _, err := migrations.Apply(ctx, db, dialect, nil); err != nil {
			t.Fatal(err)
		}
		if store, err = sqlite.New(db, nil); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { store.Close() })
	key, err := vault.GenerateMasterKey()
	if err != nil {
		t.Fatal(err)
	}
	v, err := vault.New(db, store, key, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	runner, err := projections.NewRunner(store, db, dialect, &projections.Options{Projections: []projections.Projection{connectorsrm.New()}, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = runner.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	cs, problems := connector.Load(o.fs, "core", o.adapters)
	if len(problems) > 0 {
		t.Fatalf("connectors: %v", problems)
	}
	w := &world{t: t, ctx: context.Background(), db: db, store: store, reader: connectorsrm.Reader{DB: db}}
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	w.now.Store(&now)
	w.scopes = &scopes{chains: map[uuid.UUID]connectors.Chain{
		agent: {OrganizationID: org, GuildID: guild, AgentID: agent},
		other: {OrganizationID: org, AgentID: other},
	}, deny: map[login.Owner]bool{}}
	var res mcpclient.Options
	res.AllowLoopback = true
	if o.resolver != nil {
		res.Resolver = o.resolver
	}
	w.pool = mcpclient.New(res)
	t.Cleanup(w.pool.Close)
	opts := connectors.Options{Store: store, DB: db, Projections: runner, Vault: v, Pool: w.pool, Scopes: w.scopes, Connectors: cs,
		AllowLoopback: true, Now: func() time.Time { return *w.now.Load() }, Reserved: func(p string) bool { return p == "github" }}
	if o.resolver != nil {
		opts.Resolver = o.resolver
	}
	if w.svc, err = connectors.New(opts); err != nil {
		t.Fatal(err)
	}
	if err := w.svc.Install(w.ctx); err != nil {
		t.Fatal(err)
	}
	reg, problems2 := plugins.Load(ctx, plugins.Options{})
	if len(problems2) > 0 {
		t.Fatalf("plugins: %v", problems2)
	}
	if w.runs, err = executions.New(executions.Options{Registry: reg, Credentials: noCreds{}, Store: store, Sources: []executions.ToolSource{w.svc}}); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *world) advance(d time.Duration) {
	n := w.now.Load().Add(d)
	w.now.Store(&n)
}

type noCreds struct{}

func (noCreds) Access(context.Context, uuid.UUID, *plugins.Integration) (c connections.Access, err error) {
	return c, domain.Errorf(domain.CodeNotConnected, "not connected")
}

// connect runs a token connect of the "remote" connector.
func (w *world) connect(o login.Owner, tok string, on login.OnExisting) (connectors.ConnectResult, error) {
	return w.svc.Connect(w.ctx, user, connectors.ConnectRequest{ServerID: "mcp_remote", Owner: o, Fields: map[string]string{"token": tok}, OnExisting: on})
}

func (w *world) mustConnect(o login.Owner, tok string) connectors.ConnectResult {
	w.t.Helper()
	r, err := w.connect(o, tok, login.OnExisting{})
	if err != nil {
		w.t.Fatalf("connect at %s: %v", o.Scope, err)
	}
	return r
}

// run is execute_tools' path: one call as the agent, recorded.
func (w *world) run(agentID uuid.UUID, tool string, args string) executions.Outcome {
	w.t.Helper()
	return w.runs.Run(w.ctx, executions.Caller{UserID: user, Via: "api_key", ClientID: "k1", AgentID: agentID}, []executions.Call{{Tool: tool, Args: json.RawMessage(args)}})[0]
}

// offered are the names of the On tools the agent sees.
func (w *world) offered(agentID uuid.UUID) []string {
	w.t.Helper()
	ts, err := w.svc.OfferedTools(w.ctx, executions.Caller{UserID: user, AgentID: agentID})
	if err != nil {
		w.t.Fatal(err)
	}
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

// events are the stored events of one type, in order.
func (w *world) events(typ string) []eventstore.Envelope {
	w.t.Helper()
	all, err := w.store.ReadAll(w.ctx, eventstore.Start, 10000)
	if err != nil {
		w.t.Fatal(err)
	}
	var out []eventstore.Envelope
	for _, e := range all {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

func codeOf(err error) domain.Code { return domain.ErrorCode(err) }

// mapResolver answers names from a table; a name's answer may change between lookups (answers are
// consumed in order, the last one repeating).
type mapResolver struct {
	mu      sync.Mutex
	answers map[string][]netip.Addr
	asked   map[string]int
}

func (r *mapResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.asked == nil {
		r.asked = map[string]int{}
	}
	as, ok := r.answers[host]
	if !ok || len(as) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	i := r.asked[host]
	r.asked[host]++
	if i >= len(as) {
		i = len(as) - 1
	}
	return []netip.Addr{as[i]}, nil
}

type contextT = context.Context

func execCaller(agentID uuid.UUID) executions.Caller {
	return executions.Caller{UserID: user, Via: "api_key", AgentID: agentID}
}
