package connectortools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain/login"
)

// BenchmarkConnectorCallPath runs one connector tool through execute_tools' path (executions.Run:
// find the agent's tool, the pooled session's tools/call on a loopback SDK server, the audit append)
// one call at a time. Its allocations per call (-benchmem) are the stable figure on a shared machine;
// they include the remote server's, which is the same before and after a change of the path.
func BenchmarkConnectorCallPath(b *testing.B) {
	const tok = "tok-bench-123456"
	r := connectorstest.NewRemote(b, tok)
	e := connectorstest.Open(b, worldOptions{FS: connectorstest.ManifestFS(r.URL(), nil)})
	ctx := context.Background()
	if _, err := e.Service.Connect(ctx, user, connectors.ConnectRequest{ServerID: "mcp_remote", Owner: login.Owner{Scope: login.ScopeAgent, ID: agent}, Fields: map[string]string{"token": tok}}); err != nil {
		b.Fatal(err)
	}
	caller := executions.Caller{UserID: user, Via: "api_key", ClientID: "k1", AgentID: agent}
	calls := []executions.Call{{Tool: "remote_echo", Args: json.RawMessage(`{"text":"benchmark message of a typical short tool argument"}`)}}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if o := e.Executions.Run(ctx, caller, calls)[0]; o.Code != "" || !strings.Contains(string(o.Result), "echo: benchmark") {
			b.Fatalf("run = %+v", o)
		}
	}
}
