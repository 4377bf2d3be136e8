package connectorshttp_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/app/organizations"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers/connectorshttp"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// A changed input schema of an On tool over HTTP: the organisation's login is relisted, its view
// flags the tool and its listing history names the change; a plain member cannot accept it, the
// organisation's owner does, by switching the tool On again.
func TestSchemaDriftRoutes(t *testing.T) {
	const tok = "tok-org-drift-77777"
	remote := connectorstest.NewRemote(t, tok)
	env := connectorstest.Open(t, connectorstest.Options{FS: connectorstest.ManifestFS(remote.URL(), nil),
		Projections: []projections.Projection{organizationsrm.New()},
		Configure: func(o *connectors.Options) {
			o.Scopes = connectors.OrganizationScopes{Reader: &organizationsrm.Reader{DB: o.DB}}
		}})
	ctx := context.Background()
	orgs, err := organizations.New(organizations.Options{Store: env.Store, Reader: &organizationsrm.Reader{DB: env.DB}, Projections: env.Runner})
	if err != nil {
		t.Fatal(err)
	}
	md := eventstore.Metadata{Actor: "test"}
	ada, bob, acme := acmeWithMember(t, orgs)
	adaAgent, err := orgs.CreateAgent(ctx, ada, acme, "ada-bot", uuid.Nil, md)
	if err != nil {
		t.Fatal(err)
	}
	sessions, err := websession.New(bytes.Repeat([]byte("k"), 32), "http://wb.test", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	connectorshttp.Mount(r, connectorshttp.Deps{Sessions: sessions, Connectors: env.Service, Users: users{ada: "ada@example.com", bob: "bob@example.com"}})
	srv := httptest.NewServer(r)
	defer srv.Close()
	as := func(u uuid.UUID) client {
		ck, err := sessions.Cookie(u)
		if err != nil {
			t.Fatal(err)
		}
		return client{t: t, base: srv.URL, cookie: ck}
	}
	adaC, bobC := as(ada), as(bob)
	echoOn := map[string]any{"owner_scope": "organization", "owner_id": acme.String(), "mcp_server_id": "mcp_remote", "tool": "remote_echo", "on": true}

	code, _, b := adaC.do("POST", "/api/mcp/connections", map[string]any{"mcp_server_id": "mcp_remote", "owner_scope": "organization", "owner_id": acme.String(), "token": tok}, true)
	if code != 201 {
		t.Fatalf("the owner connects Acme: %d %v", code, b)
	}
	id := b["connection"].(map[string]any)["id"].(string)
	if code, _, b := adaC.do("PUT", "/api/mcp/switches", echoOn, true); code != 204 {
		t.Fatalf("the owner's On: %d %v", code, b)
	}
	drift := func() bool {
		t.Helper()
		code, _, b := adaC.do("GET", "/api/mcp/connections/"+id+"?agent_id="+adaAgent.String(), nil, false)
		if code != 200 {
			t.Fatalf("the login view: %d %v", code, b)
		}
		tv := toolView(t, b, "remote_echo")
		if tv["on"] != true || tv["from"] != "organization" {
			t.Fatalf("echo along ada's agent: %v", tv)
		}
		d, _ := tv["drift"].(bool)
		return d
	}
	if drift() {
		t.Fatal("drift before any change")
	}

	// The remote adds a member to echo's input; its description stays.
	sdk.AddTool(remote.MCP, &sdk.Tool{Name: "echo", Description: "Echo the text back."}, func(ctx context.Context, req *sdk.CallToolRequest, a struct {
		Text string `json:"text"`
		Loud bool   `json:"loud,omitempty"`
	}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: a.Text}}}, nil, nil
	})
	if code, _, b := adaC.do("POST", "/api/mcp/connections/"+id+"/list", nil, true); code != 200 {
		t.Fatalf("relist: %d %v", code, b)
	}
	if !drift() {
		t.Fatal("a changed input schema of an On tool is not flagged")
	}
	_, _, b = adaC.do("GET", "/api/mcp/connections/"+id, nil, false)
	listings, _ := b["listings"].([]any)
	if len(listings) < 2 {
		t.Fatalf("listings = %v", b["listings"])
	}
	diff, _ := listings[0].(map[string]any)["Diff"].(map[string]any)
	changed, _ := diff["schema_changed"].([]any)
	if !slices.Equal(changed, []any{"remote_echo"}) {
		t.Fatalf("the newest listing = %v", listings[0])
	}

	// A plain member cannot accept it at the organisation; the owner does.
	if code, _, b := bobC.do("PUT", "/api/mcp/switches", echoOn, true); code != 404 {
		t.Fatalf("a member's accept: %d %v", code, b)
	}
	if !drift() {
		t.Fatal("a member's refused accept cleared the drift")
	}
	if code, _, b := adaC.do("PUT", "/api/mcp/switches", echoOn, true); code != 204 {
		t.Fatalf("the owner's accept: %d %v", code, b)
	}
	if drift() {
		t.Fatal("the owner accepted the new schema and the tool is still flagged")
	}
}
