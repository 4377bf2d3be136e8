package connectors_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"io/fs"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// The tests' names for connectorstest's pieces.
type remote = connectorstest.Remote

type echoArgs = connectorstest.EchoArgs

type contextT = context.Context

var (
	user  = connectorstest.User
	org   = connectorstest.Org
	guild = connectorstest.Guild
	agent = connectorstest.Agent
	other = connectorstest.Other
)

func newRemote(t *testing.T, tok string) *remote { return connectorstest.NewRemote(t, tok) }

func manifestFS(u string, extra map[string]string) fs.FS { return connectorstest.ManifestFS(u, extra) }

func owner(s login.Scope, id uuid.UUID) login.Owner { return login.Owner{Scope: s, ID: id} }

type world0 struct {
	pg       bool
	fs       fs.FS
	adapters map[string]connector.Adapter
	// Platform keys and caps (platformlogins_test.go).
	admins []string
	caps   func(slug string) (int, bool)
	noSync bool
}

// world is one node with the helpers the tests speak in.
type world struct {
	*connectorstest.Env
	t      *testing.T
	ctx    context.Context
	svc    *connectors.Service
	reader connectorsrm.Reader
	scopes *connectorstest.Scopes
}

func newWorld(t *testing.T, o world0) *world {
	t.Helper()
	e := connectorstest.Open(t, connectorstest.Options{Postgres: o.pg, FS: o.fs, Adapters: o.adapters,
		Admins: o.admins, MonthlyCap: o.caps, NoSyncAfterWrite: o.noSync})
	return &world{Env: e, t: t, ctx: context.Background(), svc: e.Service, reader: e.Reader, scopes: e.Scopes}
}

func (w *world) advance(d time.Duration) { w.Advance(d) }

func (w *world) connect(o login.Owner, tok string, on login.OnExisting) (connectors.ConnectResult, error) {
	return w.svc.Connect(w.ctx, user, connectors.ConnectRequest{ServerID: "mcp_remote", Owner: o, Fields: map[string]string{"token": tok}, OnExisting: on})
}

func (w *world) mustConnect(o login.Owner, tok string) connectors.ConnectResult {
	w.t.Helper()
	r, err := w.connect(o, tok, login.OnExisting{})
	if err != nil {
		w.t.Fatalf("connect at %s: %v", o.Scope, err)
	}
	return r
}

// run is execute_tools' path: one call as the agent, recorded.
func (w *world) run(agentID uuid.UUID, tool string, args string) executions.Outcome {
	w.t.Helper()
	return w.Executions.Run(w.ctx, executions.Caller{UserID: user, Via: "api_key", ClientID: "k1", AgentID: agentID}, []executions.Call{{Tool: tool, Args: json.RawMessage(args)}})[0]
}

// offered are the names of the On tools the agent sees.
func (w *world) offered(agentID uuid.UUID) []string {
	w.t.Helper()
	ts, err := w.svc.OfferedTools(w.ctx, executions.Caller{UserID: user, AgentID: agentID})
	if err != nil {
		w.t.Fatal(err)
	}
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func (w *world) events(typ string) []eventstore.Envelope { return w.Events(w.t, typ) }

func codeOf(err error) domain.Code { return domain.ErrorCode(err) }

func execCaller(agentID uuid.UUID) executions.Caller {
	return executions.Caller{UserID: user, Via: "api_key", AgentID: agentID}
}

type effective = connectorsrm.Effective
