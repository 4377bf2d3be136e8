package connectorshttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/handlers/connectorshttp"
	"github.com/workbench/workbench/handlers/websession"
)

// The portal's test call waits on the remote up to the remote call limit, past the server's write
// (and read) timeout: a remote answering after that timeout still gets its answer to the portal. The
// server's timeouts are shortened here in place of the 60 seconds a deployment has.
func TestTestCallOutlivesTheWriteTimeout(t *testing.T) {
	const tok = "tok-slow-call-7171"
	const timeout = 200 * time.Millisecond
	remote := connectorstest.NewRemote(t, tok)
	mcp.AddTool(remote.MCP, &mcp.Tool{Name: "slow", Description: "Answers late."}, func(ctx context.Context, _ *mcp.CallToolRequest, _ connectorstest.EchoArgs) (*mcp.CallToolResult, any, error) {
		select {
		case <-time.After(5 * timeout):
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "late answer"}}}, nil, nil
	})
	env := connectorstest.Open(t, connectorstest.Options{FS: connectorstest.ManifestFS(remote.URL(), nil)})
	sessions, err := websession.New(bytes.Repeat([]byte("k"), 32), "http://wb.test", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	connectorshttp.Mount(r, connectorshttp.Deps{Sessions: sessions, Connectors: env.Service})
	srv := httptest.NewUnstartedServer(r)
	srv.Config.WriteTimeout, srv.Config.ReadTimeout = timeout, timeout
	srv.Start()
	defer srv.Close()
	cookie, err := sessions.Cookie(connectorstest.User)
	if err != nil {
		t.Fatal(err)
	}
	res, err := env.Service.Connect(context.Background(), connectorstest.User, connectors.ConnectRequest{ServerID: "mcp_remote",
		Owner: login.Owner{Scope: login.ScopeAgent, ID: connectorstest.Agent}, Fields: map[string]string{"token": tok}})
	if err != nil {
		t.Fatal(err)
	}
	c := client{t: t, base: srv.URL, cookie: cookie}
	code, _, b := c.do("POST", "/api/mcp/connections/"+res.Login.ID.String()+"/call", map[string]any{"tool": "remote_slow", "arguments": map[string]any{"text": ""}}, true)
	raw, _ := json.Marshal(b)
	if code != 200 || !strings.Contains(string(raw), "late answer") {
		t.Fatalf("a test call answered after the write timeout: %d %s", code, raw)
	}
}
