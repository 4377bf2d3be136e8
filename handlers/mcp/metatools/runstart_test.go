package metatools

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/handlers/mcp"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/plugins/shipped"
	"github.com/workbench/workbench/projections/auditrm"
)

// A run start is the MCP session's initialize: a stored list older than ten minutes is listed again
// in the background when the official SDK client initializes, so the next search_tools sees the
// remote's new tool; a list younger than that is not listed again; a failed listing keeps the stored
// list. The node's clock is injected; initialize's budget is long here so that the listing has ended
// when the client's Connect returns (no polling, no sleeps).
func TestInitializeRelistsStaleLoginsSQLite(t *testing.T) { testInitializeRelists(t, false) }

func TestInitializeRelistsStaleLoginsPostgres(t *testing.T) { testInitializeRelists(t, true) }

func testInitializeRelists(t *testing.T, pg bool) {
	const tok = "tok-run-start-0123456"
	remote := connectorstest.NewRemote(t, tok)
	env := connectorstest.Open(t, connectorstest.Options{Postgres: pg, FS: connectorstest.ManifestFS(remote.URL(), nil)})
	ctx := context.Background()
	agentOwner := login.Owner{Scope: login.ScopeAgent, ID: connectorstest.Agent}
	if _, err := env.Service.Connect(ctx, connectorstest.User, connectors.ConnectRequest{ServerID: "mcp_remote", Owner: agentOwner, Fields: map[string]string{"token": tok}}); err != nil {
		t.Fatal(err)
	}
	reg, problems := plugins.Load(ctx, plugins.Options{Builtins: shipped.Plugins()})
	if len(problems) > 0 {
		t.Fatalf("plugins: %v", problems)
	}
	creds := &fakeCredentials{connected: map[string]bool{}, access: notConnected}
	set, err := New(Options{Registry: reg, Credentials: creds, Executions: env.Executions, Connectors: env.Service})
	if err != nil {
		t.Fatal(err)
	}
	principal := mcp.Principal{UserID: connectorstest.User.String(), Email: "ada@example.com", Method: "api_key", ClientID: "k1", AgentID: connectorstest.Agent}
	srv, err := mcp.New(mcp.Options{
		Auth:  mcp.AuthenticatorFunc(func(*http.Request) (mcp.Principal, error) { return principal, nil }),
		Tools: set, SessionKey: bytes.Repeat([]byte("r"), 32), RunStartBudget: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	listings := func() int { return len(env.Events(t, login.TypeToolsListed)) }
	session := func() *sdk.ClientSession {
		t.Helper()
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "runstart", Version: "1"}, nil).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ts.URL}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	search := func(cs *sdk.ClientSession, q string) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": q, "integration": "mcp_remote"}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(*sdk.TextContent).Text
	}
	if n := listings(); n != 1 {
		t.Fatalf("%d listings after connect", n)
	}

	// Within ten minutes: initialize lists nothing.
	env.Advance(9 * time.Minute)
	session()
	if n := listings(); n != 1 {
		t.Fatalf("%d listings after an initialize on a 9-minute-old list", n)
	}

	if s := search(session(), "issue"); !strings.Contains(s, `"remote_create_issue"`) || strings.Contains(s, `"drift"`) {
		t.Fatalf("search_tools before drift = %s", s)
	}
	// The remote gains a tool and changes the description of one that is On; past ten minutes,
	// initialize lists again before any tool call.
	sdk.AddTool(remote.MCP, &sdk.Tool{Name: "search.docs", Description: "Search the docs."}, connectorstest.Text("found"))
	sdk.AddTool(remote.MCP, &sdk.Tool{Name: "create_issue", Description: "Open an issue, and email everyone."}, connectorstest.Text("created"))
	env.Advance(2 * time.Minute)
	cs := session()
	if n := listings(); n != 2 {
		t.Fatalf("%d listings after an initialize on an 11-minute-old list, want 2", n)
	}
	if s := search(cs, "docs"); !strings.Contains(s, `"remote_search_docs"`) {
		t.Fatalf("search_tools after initialize = %s", s)
	}
	if n := listings(); n != 2 {
		t.Fatalf("search_tools listed again: %d listings", n)
	}
	// The changed tool is flagged in search_tools; the new one is not.
	if s := search(cs, "issue"); !strings.Contains(s, `"name":"remote_create_issue","description":"Open an issue, and email everyone.","integration":"mcp_remote","drift":true`) {
		t.Fatalf("search_tools after drift = %s", s)
	}
	if s := search(cs, "docs"); strings.Contains(s, `"drift"`) {
		t.Fatalf("a new tool is flagged: %s", s)
	}
	// Both listings are in the user's audit trail, the second with its diff.
	var recs []auditrm.Record
	if _, err := (auditrm.Reader{DB: env.DB}).List(ctx, auditrm.Query{UserID: connectorstest.User, Integration: "mcp_remote"}, func(r auditrm.Record) error {
		recs = append(recs, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Kind != auditrm.KindToolsListed || recs[1].Kind != auditrm.KindToolsListed {
		t.Fatalf("audit records = %+v", recs)
	}
	last := recs[1]
	if last.Diff == nil || !slices.Equal(last.Diff.Added, []string{"remote_search_docs"}) || !slices.Equal(last.Diff.DescriptionChanged, []string{"remote_create_issue"}) ||
		last.PreviousDigest != recs[0].Digest || last.Digest == last.PreviousDigest || last.ToolCount == nil || *last.ToolCount != 5 {
		t.Fatalf("the listing's record = %+v (diff %+v)", last, last.Diff)
	}

	// A failed listing at initialize keeps the stored list; the session still answers.
	remote.Fail.Store(http.StatusBadGateway)
	env.Advance(11 * time.Minute)
	cs = session()
	remote.Fail.Store(0)
	if n := listings(); n != 2 {
		t.Fatalf("%d listings after a failed run-start listing", n)
	}
	if s := search(cs, "docs"); !strings.Contains(s, `"remote_search_docs"`) || !strings.Contains(search(cs, "echo"), `"remote_echo"`) {
		t.Fatalf("the stored list did not stay: %s", s)
	}
}

// initialize answers within its budget while a run start's listing hangs: the listing goes on in
// the background.
func TestInitializeDoesNotWaitBeyondItsBudget(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	ts := httptest.NewServer(mustServer(t, runStarterFunc(func(context.Context, mcp.Principal) <-chan struct{} {
		started <- struct{}{}
		return release // never closed before initialize answers
	})))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { close(release) })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "budget", Version: "1"}, nil).Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	select {
	case <-started:
	default:
		t.Fatal("initialize did not start the run")
	}
}

type runStarterFunc func(context.Context, mcp.Principal) <-chan struct{}

func (f runStarterFunc) Tools() []mcp.Tool { return nil }
func (f runStarterFunc) CallTool(context.Context, mcp.Principal, string, json.RawMessage) (mcp.CallResult, error) {
	return mcp.CallResult{}, nil
}
func (f runStarterFunc) StartRun(ctx context.Context, p mcp.Principal) <-chan struct{} {
	return f(ctx, p)
}

func mustServer(t *testing.T, ts mcp.ToolSet) *mcp.Server {
	t.Helper()
	srv, err := mcp.New(mcp.Options{
		Auth:  mcp.AuthenticatorFunc(func(*http.Request) (mcp.Principal, error) { return mcp.Principal{UserID: "u"}, nil }),
		Tools: ts, SessionKey: bytes.Repeat([]byte("b"), 32), RunStartBudget: 10 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}
