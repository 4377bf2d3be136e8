package metatools

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/handlers/mcp"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/plugins/shipped"
)

// boardAdapter's state hook answers the open cards, one of which quotes the login's token.
type boardAdapter struct{}

func (boardAdapter) Slug() string { return "board" }

func (boardAdapter) State(_ context.Context, creds map[string]string, _ connector.Context) (json.RawMessage, error) {
	return json.Marshal(map[string]any{"open_cards": 2, "note": "pasted " + creds["token"] + " by mistake"})
}

// The official SDK client's initialize result carries the server's instructions followed by the
// state the connectors' hooks filled (intro, key and redacted value) and the guidance of the
// connectors the agent is offered; an agent with no login sees the base instructions alone.
func TestInitializeInstructionsCarryStateAndGuidance(t *testing.T) {
	const tok = "tok-instructions-0123456789"
	remote := connectorstest.NewRemote(t, tok)
	fsys := connectorstest.ManifestFS(remote.URL(), nil)
	fsys["board/connector.json"] = &fstest.MapFile{Data: []byte(`{"slug":"board","display_name":"Board","endpoint":{"url":"` + remote.URL() + `"},"auth":{"kind":"token"},
		"state":{"key":"board_cards","intro":"The user's board, read when this session began."},"prompt":{"guidance":"Move a card with board_echo before you close it."}}`)}
	env := connectorstest.Open(t, connectorstest.Options{FS: fsys, Adapters: map[string]connector.Adapter{"board": boardAdapter{}}})
	ctx := context.Background()
	agentOwner := login.Owner{Scope: login.ScopeAgent, ID: connectorstest.Agent}
	for _, id := range []string{"mcp_board", "mcp_remote"} {
		if _, err := env.Service.Connect(ctx, connectorstest.User, connectors.ConnectRequest{ServerID: id, Owner: agentOwner, Fields: map[string]string{"token": tok}}); err != nil {
			t.Fatal(err)
		}
	}
	reg, problems := plugins.Load(ctx, plugins.Options{Builtins: shipped.Plugins()})
	if len(problems) > 0 {
		t.Fatalf("plugins: %v", problems)
	}
	set, err := New(Options{Registry: reg, Credentials: &fakeCredentials{connected: map[string]bool{}, access: notConnected}, Executions: env.Executions, Connectors: env.Service})
	if err != nil {
		t.Fatal(err)
	}
	initialize := func(p mcp.Principal) string {
		t.Helper()
		srv, err := mcp.New(mcp.Options{
			Auth:  mcp.AuthenticatorFunc(func(*http.Request) (mcp.Principal, error) { return p, nil }),
			Tools: set, SessionKey: bytes.Repeat([]byte("i"), 32), Instructions: "Workbench gives you meta-tools.",
		})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(srv)
		t.Cleanup(ts.Close)
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "instructions", Version: "1"}, nil).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ts.URL}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs.InitializeResult().Instructions
	}

	got := initialize(mcp.Principal{UserID: connectorstest.User.String(), Method: "api_key", ClientID: "k1", AgentID: connectorstest.Agent})
	want := "Workbench gives you meta-tools.\n\n" +
		"State at the start of this session, from the connectors you use (JSON values; {\"unavailable\": reason} when a connector could not say):\n\n" +
		"The user's board, read when this session began.\n" +
		`board_cards = {"note":"pasted [REDACTED] by mistake","open_cards":2}` + "\n\n" +
		"Guidance for the connectors whose tools you are offered:\n\n" +
		"Board (tools board_*): Move a card with board_echo before you close it."
	if got != want {
		t.Fatalf("instructions =\n%q\nwant\n%q", got, want)
	}
	if strings.Contains(got, tok) {
		t.Fatal("the token reached the instructions")
	}
	// Another agent of the organisation has no login: the base instructions only.
	if got := initialize(mcp.Principal{UserID: connectorstest.User.String(), Method: "api_key", ClientID: "k1", AgentID: connectorstest.Other}); got != "Workbench gives you meta-tools." {
		t.Fatalf("instructions without logins = %q", got)
	}
}
