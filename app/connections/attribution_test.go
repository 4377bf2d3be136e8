package connections_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/projections/auditrm"
)

// TestConnectNamesItsMCPClient: a connect asked for over MCP names the client in its
// connection.started event's metadata, so the audit's asof says which client created the connection
// and the client's blast radius counts it; a portal connect names none.
func TestConnectNamesItsMCPClient(t *testing.T) {
	e := newEnv(t, "basic")
	n := e.node(true)
	ada, bob := uuid.New(), uuid.New()
	const client = "mcp-client-attribution"
	if _, err := n.svc.ConnectFrom(e.ctx, ada, "acme", "", client); err != nil {
		t.Fatal(err)
	}
	if _, err := n.svc.Connect(e.ctx, bob, "acme", ""); err != nil {
		t.Fatal(err)
	}
	for user, want := range map[uuid.UUID]string{ada: client, bob: ""} {
		evs, err := n.store.Load(e.ctx, connection.StreamName(user, "acme", ""), 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) == 0 || evs[0].Type != connection.TypeStarted || evs[0].Metadata.MCPClient != want {
			t.Fatalf("%s's connection.started: %+v, want MCP client %q", user, evs, want)
		}
	}
	res, err := auditrm.AsOf(e.ctx, n.store, auditrm.AsOfQuery{At: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	via := map[uuid.UUID]string{}
	for _, h := range res.Holdings {
		via[h.UserID] = h.CreatedVia
	}
	if len(via) != 2 || via[ada] != client || via[bob] != "" {
		t.Fatalf("asof created_via = %v", via)
	}
	rep, err := auditrm.BlastRadius(e.ctx, n.store, auditrm.BlastQuery{Kind: auditrm.CredentialOAuthClient, ID: client})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Totals.ConnectsStarted != 1 || rep.Totals.Users != 1 {
		t.Fatalf("blast radius totals %+v, want one connection started by one user", rep.Totals)
	}
}
