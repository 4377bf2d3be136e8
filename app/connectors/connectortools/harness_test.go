package connectortools_test

import (
	"io/fs"
	"testing"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// The tests' names for connectorstest's pieces (the same short names in every connector use case's
// tests; the node and its helpers are connectorstest.World).
type remote = connectorstest.Remote

type echoArgs = connectorstest.EchoArgs

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

// worldOptions are a world's settings.
type worldOptions = connectorstest.Options

// world is one node (connectorstest.World), for this package's tests to hang helpers on.
type world struct{ *connectorstest.World }

func newWorld(t *testing.T, o worldOptions) *world {
	t.Helper()
	return &world{connectorstest.NewWorld(t, o)}
}

func codeOf(err error) domain.Code { return domain.ErrorCode(err) }

func execCaller(agentID uuid.UUID) executions.Caller {
	return executions.Caller{UserID: user, Via: "api_key", AgentID: agentID}
}

type effective = connectorsrm.Effective
