package connectorstest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/eventstore"
)

// World is one node with the helpers the connector tests speak in (each use-case package's tests
// wrap it in a world of their own, to hang their own helpers on).
type World struct {
	*Env
	T   *testing.T
	Ctx context.Context
	Svc *connectors.Service
}

// NewWorld opens a node (Open) for t.
func NewWorld(t *testing.T, o Options) *World {
	t.Helper()
	e := Open(t, o)
	return &World{Env: e, T: t, Ctx: context.Background(), Svc: e.Service}
}

// Connect connects the remote test server (mcp_remote) at o with a token.
func (w *World) Connect(o login.Owner, tok string, on login.OnExisting) (connectors.ConnectResult, error) {
	return w.Svc.Connect(w.Ctx, User, connectors.ConnectRequest{ServerID: "mcp_remote", Owner: o, Fields: map[string]string{"token": tok}, OnExisting: on})
}

// MustConnect is Connect, failing the test on an error.
func (w *World) MustConnect(o login.Owner, tok string) connectors.ConnectResult {
	w.T.Helper()
	r, err := w.Connect(o, tok, login.OnExisting{})
	if err != nil {
		w.T.Fatalf("connect at %s: %v", o.Scope, err)
	}
	return r
}

// Run is execute_tools' path: one call as the agent, recorded.
func (w *World) Run(agentID uuid.UUID, tool string, args string) executions.Outcome {
	w.T.Helper()
	return w.Executions.Run(w.Ctx, executions.Caller{UserID: User, Via: "api_key", ClientID: "k1", AgentID: agentID}, []executions.Call{{Tool: tool, Args: json.RawMessage(args)}})[0]
}

// Offered are the names of the On tools the agent sees.
func (w *World) Offered(agentID uuid.UUID) []string {
	w.T.Helper()
	ts, err := w.Svc.OfferedTools(w.Ctx, executions.Caller{UserID: User, AgentID: agentID})
	if err != nil {
		w.T.Fatal(err)
	}
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

// EventsOf are the stored events of one type, in order.
func (w *World) EventsOf(typ string) []eventstore.Envelope { return w.Events(w.T, typ) }
