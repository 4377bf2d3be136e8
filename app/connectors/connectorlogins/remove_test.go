package connectorlogins_test

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/internal/vault"
)

// Removing a login deletes the bindings that point at it, as events: the default switches of its
// connector at the login owner's scope (toolswitch.cleared); a switch someone set at that scope, and
// a switch another scope holds, stay. Its tools are gone from search_tools' and execute_tools' paths,
// and its vault subject is shredded: the sealed credential in the log opens to ErrShredded. A new
// login of the same owner gets its defaults afresh, under the switches that stayed.
func TestRemoveDeletesBindingsAndShredsSQLite(t *testing.T) { testRemove(t, false) }

func TestRemoveDeletesBindingsAndShredsPostgres(t *testing.T) { testRemove(t, true) }

func testRemove(t *testing.T, pg bool) {
	const tok = "tok-remove-secret-987"
	r := newRemote(t, tok)
	w := newWorld(t, worldOptions{Postgres: pg, FS: manifestFS(r.URL(), nil)})
	agentOwner := owner(login.ScopeAgent, agent)
	res := w.MustConnect(agentOwner, tok)
	if err := w.Svc.SetSwitch(w.Ctx, user, agentOwner, "mcp_remote", "remote_whoami", true); err != nil {
		t.Fatal(err)
	}
	if err := w.Svc.SetSwitch(w.Ctx, user, owner(login.ScopeGuild, guild), "mcp_remote", "remote_create_issue", false); err != nil {
		t.Fatal(err)
	}
	if got := w.Offered(agent); !slices.Equal(got, []string{"remote_echo", "remote_whoami"}) {
		t.Fatalf("offered before removal = %v", got)
	}
	switches := func(o login.Owner) int {
		t.Helper()
		var n int
		if err := w.DB.QueryRow(`SELECT COUNT(*) FROM mcp_tool_switches WHERE scope = $1 AND scope_id = $2 AND server_id = 'mcp_remote'`,
			string(o.Scope), o.ID.String()).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := switches(agentOwner); n != 4 {
		t.Fatalf("%d agent switches before removal, want 4", n)
	}

	if err := w.Svc.Remove(w.Ctx, user, res.Login.ID); err != nil {
		t.Fatal(err)
	}
	if n := switches(agentOwner); n != 1 {
		t.Fatalf("%d switches of the removed login's scope remain, want the one set (whoami On)", n)
	}
	if n := switches(owner(login.ScopeGuild, guild)); n != 1 {
		t.Fatalf("the guild's own switch went too: %d", n)
	}
	if n := len(w.EventsOf(login.TypeSwitchesCleared)); n != 1 {
		t.Fatalf("%d toolswitch.cleared events", n)
	}
	if got := w.Offered(agent); len(got) != 0 {
		t.Fatalf("offered after removal = %v", got)
	}
	found, err := w.Svc.Search(w.Ctx, execCaller(agent), "", "", 0)
	if err != nil || len(found) != 0 {
		t.Fatalf("search after removal = %v, %v", found, err)
	}
	if o := w.Run(agent, "remote_echo", `{"text":"x"}`); o.Code != "UNKNOWN_TOOL" {
		t.Fatalf("a removed login's tool ran: %+v", o)
	}
	// The sealed credential, as the log holds it, is unreadable.
	var connected login.Connected
	if err := json.Unmarshal(w.EventsOf(login.TypeConnected)[0].Data, &connected); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Vault.Open(w.Ctx, connected.Credential, "mcp-login-credentials"); !errors.Is(err, vault.ErrShredded) {
		t.Fatalf("open after removal: %v, want ErrShredded", err)
	}
	if _, err := w.Reader.Login(w.Ctx, res.Login.ID); err == nil {
		t.Fatalf("the login is still read: %v", err)
	}

	// A new login of the same owner: a new subject, its defaults written afresh.
	res2 := w.MustConnect(agentOwner, tok)
	if res2.Login.ID == res.Login.ID {
		t.Fatal("the new login reuses the removed one's id")
	}
	if got := w.Offered(agent); !slices.Equal(got, []string{"remote_echo", "remote_whoami"}) {
		t.Fatalf("offered after a new login = %v", got)
	}
	if o := w.Run(agent, "remote_echo", `{"text":"again"}`); o.Code != "" {
		t.Fatalf("the new login's tool: %+v", o)
	}
}
