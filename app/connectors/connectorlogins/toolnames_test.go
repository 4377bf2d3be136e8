package connectorlogins_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// Remote names that sanitise to one name (a.b and a_b) both stay listed under distinct names, a
// remote name too long once prefixed is cut to 128 characters with a suffix, every name is offered and
// runs the remote tool it came from, and the names are the same at the next listing.
func TestListedToolNamesAreUniqueAndCallable(t *testing.T) {
	const tok = "tok-names-5151"
	r := newRemote(t, tok)
	long := "look" + strings.Repeat("x", 121)
	for _, name := range []string{"a.b", "a_b", long} {
		mcp.AddTool(r.MCP, &mcp.Tool{Name: name, Description: "Says its name."}, connectorstest.Text("I am "+name))
	}
	w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), nil)})
	res := w.MustConnect(owner(login.ScopeAgent, agent), tok)

	names := map[string]string{} // remote → model name
	for _, tl := range w.listedTools(t, res.Login.ID) {
		names[tl.Remote] = tl.Name
	}
	if names["a_b"] != "remote_a_b" {
		t.Fatalf("a_b is named %q, want remote_a_b (its plain name)", names["a_b"])
	}
	for _, remote := range []string{"a.b", "a_b", long} {
		n := names[remote]
		if n == "" || len(n) > 128 || !strings.HasPrefix(n, "remote_") {
			t.Fatalf("%q is named %q (all: %v)", remote, n, names)
		}
		if !slices.Contains(w.Offered(agent), n) {
			t.Fatalf("%s is not offered: %v", n, w.Offered(agent))
		}
		o := w.Run(agent, n, `{"text":"x"}`)
		if o.Code != "" || !strings.Contains(string(o.Result), "I am "+remote+`"`) {
			t.Fatalf("%s ran: %+v %s", n, o, o.Result)
		}
	}
	if names["a.b"] == names["a_b"] {
		t.Fatalf("a.b and a_b share %s", names["a.b"])
	}

	if err := w.Svc.Relist(context.Background(), "admin", res.Login.ID); err != nil {
		t.Fatal(err)
	}
	for _, tl := range w.listedTools(t, res.Login.ID) {
		if names[tl.Remote] != tl.Name {
			t.Fatalf("relisted %q as %q, before %q", tl.Remote, tl.Name, names[tl.Remote])
		}
	}
}

func (w *world) listedTools(t *testing.T, loginID uuid.UUID) []connectorsrm.Tool {
	t.Helper()
	ts, err := w.Reader.Tools(w.Ctx, loginID)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}
