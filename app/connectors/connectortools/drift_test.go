package connectortools_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/eventstore"
)

// loudArgs is echo's input once the remote adds a member to it.
type loudArgs struct {
	Text string `json:"text"`
	Loud bool   `json:"loud,omitempty"`
}

// changeShapes has the remote change echo's input schema and create_issue's annotations, their
// descriptions unchanged.
func changeShapes(r *remote) {
	mcp.AddTool(r.MCP, &mcp.Tool{Name: "echo", Description: "Echo the text back."}, func(ctx context.Context, req *mcp.CallToolRequest, a loudArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + a.Text}}}, nil, nil
	})
	yes := true
	mcp.AddTool(r.MCP, &mcp.Tool{Name: "create_issue", Description: "Open an issue.", Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes}}, connectorstest.Text("created"))
}

// drift is each named tool's drift flag as the agent's effective set, search_tools' list
// (OfferedTools) and the login's detail show it; they must agree.
func (w *world) drift(loginID uuid.UUID, names ...string) map[string]bool {
	w.T.Helper()
	eff, err := w.Svc.Effective(w.Ctx, agent)
	if err != nil {
		w.T.Fatal(err)
	}
	offered, err := w.Svc.OfferedTools(w.Ctx, execCaller(agent))
	if err != nil {
		w.T.Fatal(err)
	}
	detail, err := w.Svc.Detail(w.Ctx, user, loginID, agent)
	if err != nil {
		w.T.Fatal(err)
	}
	out := map[string]bool{}
	for _, n := range names {
		var a, b, c *bool
		for _, e := range eff {
			if e.Name == n {
				a = &e.Drift
			}
		}
		for _, o := range offered {
			if o.Name == n {
				b = &o.Drift
			}
		}
		for _, tv := range detail.Tools {
			if tv.Name == n {
				c = &tv.Drift
			}
		}
		if a == nil || b == nil || c == nil || *a != *b || *b != *c {
			w.T.Fatalf("%s: effective %v, search_tools %v, detail %v (nil: not listed)", n, a, b, c)
		}
		out[n] = *a
	}
	return out
}

// A changed input schema or annotations of an On tool is drift like a changed description: the
// listing records it, search_tools and the login's detail flag it, and the organisation's admin
// accepts it by switching the tool On again, which records the digests listed now.
func TestSchemaDriftFlaggedAndAcceptedSQLite(t *testing.T) { testSchemaDrift(t, false) }

func TestSchemaDriftFlaggedAndAcceptedPostgres(t *testing.T) { testSchemaDrift(t, true) }

func testSchemaDrift(t *testing.T, pg bool) {
	const tok = "tok-schema-drift-1"
	r := newRemote(t, tok)
	w := newWorld(t, worldOptions{Postgres: pg, FS: manifestFS(r.URL(), nil)})
	res := w.MustConnect(owner(login.ScopeOrganization, org), tok)
	orgScope := owner(login.ScopeOrganization, org)
	for _, tool := range []string{"remote_echo", "remote_create_issue"} {
		if err := w.Svc.SetSwitch(w.Ctx, user, orgScope, "mcp_remote", tool, true); err != nil {
			t.Fatal(err)
		}
	}
	if got := w.drift(res.Login.ID, "remote_echo", "remote_create_issue"); got["remote_echo"] || got["remote_create_issue"] {
		t.Fatalf("drift before any change: %v", got)
	}

	changeShapes(r)
	w.Advance(11 * 60e9)
	w.Svc.StartRun(w.Ctx, execCaller(agent))
	listings := w.EventsOf(login.TypeToolsListed)
	var last login.ToolsListed
	json.Unmarshal(listings[len(listings)-1].Data, &last)
	if !slices.Equal(last.Diff.SchemaChanged, []string{"remote_echo"}) || !slices.Equal(last.Diff.AnnotationsChanged, []string{"remote_create_issue"}) {
		t.Fatalf("listing diff = %+v", last.Diff)
	}
	if got := w.drift(res.Login.ID, "remote_echo", "remote_create_issue"); !got["remote_echo"] || !got["remote_create_issue"] {
		t.Fatalf("drift after the schema and annotations changed: %v", got)
	}
	// The login's drift history: its newest listing names both.
	detail, err := w.Svc.Detail(w.Ctx, user, res.Login.ID, agent)
	if err != nil || len(detail.Listings) == 0 {
		t.Fatalf("detail = %+v, %v", detail, err)
	}
	if d := detail.Listings[0].Diff; !slices.Equal(d.SchemaChanged, []string{"remote_echo"}) || !slices.Equal(d.AnnotationsChanged, []string{"remote_create_issue"}) {
		t.Fatalf("newest listing in the history = %+v", d)
	}

	// The organisation's admin accepts echo's new schema; create_issue stays flagged.
	if err := w.Svc.SetSwitch(w.Ctx, user, orgScope, "mcp_remote", "remote_echo", true); err != nil {
		t.Fatal(err)
	}
	if got := w.drift(res.Login.ID, "remote_echo", "remote_create_issue"); got["remote_echo"] || !got["remote_create_issue"] {
		t.Fatalf("after accepting echo: %v", got)
	}
	// A rebuild from the log gives the same flags.
	if err := w.Runner.Rebuild(w.Ctx, "connectors"); err != nil {
		t.Fatal(err)
	}
	if got := w.drift(res.Login.ID, "remote_echo", "remote_create_issue"); got["remote_echo"] || !got["remote_create_issue"] {
		t.Fatalf("after a rebuild: %v", got)
	}
}

// A switch set before switches kept a schema digest (a toolswitch.set with only description_sha)
// accepted the schema listed when it was set: a later listing of the same tools is no drift, one
// that changes the schema is, both on the read model as it ran and on one rebuilt from the log.
func TestOldSwitchWithoutSchemaDigestSQLite(t *testing.T) { testOldSwitch(t, false) }

func TestOldSwitchWithoutSchemaDigestPostgres(t *testing.T) { testOldSwitch(t, true) }

func testOldSwitch(t *testing.T, pg bool) {
	const tok = "tok-schema-drift-2"
	r := newRemote(t, tok)
	w := newWorld(t, worldOptions{Postgres: pg, FS: manifestFS(r.URL(), nil)})
	orgScope := owner(login.ScopeOrganization, org)
	res := w.MustConnect(orgScope, tok)
	// An old event: On, with the description digest only.
	old, _ := json.Marshal(map[string]any{"owner": orgScope, "server_id": "mcp_remote", "tool": "remote_echo", "on": true,
		"description_sha": login.DescriptionSHA("Echo the text back."), "by": user.String(), "at": w.Now()})
	pos, err := w.Store.Append(w.Ctx, login.SwitchStreamName(orgScope), eventstore.Any,
		eventstore.EventData{ID: uuid.New(), Type: login.TypeSwitchSet, SchemaVersion: 1, Data: old, Metadata: eventstore.Metadata{Actor: user.String()}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Runner.WaitFor(w.Ctx, pos); err != nil {
		t.Fatal(err)
	}
	// A read model upgraded in place: the switch's schema digest is empty.
	if _, err := w.DB.Exec(`UPDATE mcp_tool_switches SET schema_sha = ''`); err != nil {
		t.Fatal(err)
	}
	relist := func() {
		t.Helper()
		w.Advance(11 * 60e9)
		w.Svc.StartRun(w.Ctx, execCaller(agent))
	}
	relist()
	if got := w.drift(res.Login.ID, "remote_echo"); got["remote_echo"] {
		t.Fatal("an unchanged listing after an old switch shows drift")
	}
	if err := w.Runner.Rebuild(w.Ctx, "connectors"); err != nil {
		t.Fatal(err)
	}
	if got := w.drift(res.Login.ID, "remote_echo"); got["remote_echo"] {
		t.Fatal("an unchanged listing after an old switch shows drift after a rebuild")
	}
	changeShapes(r)
	relist()
	if got := w.drift(res.Login.ID, "remote_echo"); !got["remote_echo"] {
		t.Fatal("a schema change after an old switch is not drift")
	}
	if err := w.Runner.Rebuild(w.Ctx, "connectors"); err != nil {
		t.Fatal(err)
	}
	if got := w.drift(res.Login.ID, "remote_echo"); !got["remote_echo"] {
		t.Fatal("a schema change after an old switch is not drift after a rebuild")
	}
}
