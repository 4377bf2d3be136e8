package connectorlogins_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
)

// A connector added by hand with no display name, signing in with a configured OAuth client that is
// not set up, names itself by its slug in the 422, not by an empty name.
func TestNotSetUpNamesTheConnector(t *testing.T) {
	r := newRemote(t, "tok-unused-8181")
	w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), nil)})
	e, err := w.Svc.AddServer(w.Ctx, "admin", connectors.AddRequest{Slug: "nameless", URL: r.URL(), Auth: connectors.AuthSpec{Kind: "oauth", Strategy: "configured"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Svc.Connect(w.Ctx, user, connectors.ConnectRequest{ServerID: e.ID, Owner: owner(login.ScopeAgent, agent), RequestBase: "http://127.0.0.1:1"})
	msg := domain.ErrorMessage(err)
	if codeOf(err) != domain.CodeUnprocessable || !errors.Is(err, connectors.ErrOAuthNotSetUp) || !strings.Contains(msg, "the OAuth client of nameless is not set up") {
		t.Fatalf("err = %v (message %q)", err, msg)
	}
}
