package connectorlogins_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/plugins/connector"
)

// Every status path of token connect (spec connectors.md, Token logins).
func TestTokenConnectStatusPaths(t *testing.T) {
	const tok = "tok-aaaaaaaa"
	at := owner(login.ScopeAgent, agent)
	oauthFolder := map[string]string{"hosted/connector.json": `{"slug":"hosted","display_name":"Hosted","endpoint":{"url":"https://mcp.example.com/mcp"},"auth":{"kind":"oauth","oauth":{"strategy":"configured"}}}`}

	t.Run("a missing field is a 422 naming it", func(t *testing.T) {
		r := newRemote(t, tok)
		w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), nil)})
		_, err := w.Svc.Connect(w.Ctx, user, connectors.ConnectRequest{ServerID: "mcp_remote", Owner: at, Fields: map[string]string{"token": "  "}})
		if codeOf(err) != domain.CodeUnprocessable || !strings.Contains(domain.ErrorMessage(err), "token") {
			t.Fatalf("err = %v", err)
		}
		if n := len(w.EventsOf(login.TypeConnected)); n != 0 {
			t.Fatalf("%d logins stored", n)
		}
	})
	t.Run("the platform owner is refused", func(t *testing.T) {
		r := newRemote(t, tok)
		w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), nil)})
		_, err := w.Connect(login.Owner{Scope: login.ScopePlatform}, tok, login.OnExisting{})
		if codeOf(err) != domain.CodeInvalid || !strings.Contains(domain.ErrorMessage(err), "platform") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a configured OAuth connector whose client is not set answers that it is not set up, before any request", func(t *testing.T) {
		r := newRemote(t, tok)
		w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), oauthFolder)})
		_, err := w.Svc.Connect(w.Ctx, user, connectors.ConnectRequest{ServerID: "mcp_hosted", Owner: at, RequestBase: "http://127.0.0.1:1"})
		if codeOf(err) != domain.CodeUnprocessable || !strings.Contains(domain.ErrorMessage(err), "connector:hosted") || !errors.Is(err, connectors.ErrOAuthNotSetUp) {
			t.Fatalf("err = %v", err)
		}
	})
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		t.Run("the provider's "+http.StatusText(status)+" is a 422 storing nothing", func(t *testing.T) {
			r := newRemote(t, tok)
			w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), nil)})
			r.Reject.Store("initialize", status)
			_, err := w.Connect(at, tok, login.OnExisting{})
			if codeOf(err) != domain.CodeUnprocessable || strings.Contains(err.Error(), tok) {
				t.Fatalf("err = %v", err)
			}
			if n := len(w.EventsOf(login.TypeConnected)); n != 0 {
				t.Fatalf("%d logins stored", n)
			}
		})
	}
	t.Run("a wrong key is a 422", func(t *testing.T) {
		r := newRemote(t, tok)
		w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), nil)})
		if _, err := w.Connect(at, "tok-wrong-wrong", login.OnExisting{}); codeOf(err) != domain.CodeUnprocessable {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("another provider failure is a 502 storing nothing", func(t *testing.T) {
		r := newRemote(t, tok)
		w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), nil)})
		r.Fail.Store(http.StatusInternalServerError)
		_, err := w.Connect(at, tok, login.OnExisting{})
		if codeOf(err) != domain.CodeUpstream {
			t.Fatalf("err = %v", err)
		}
		if n := len(w.EventsOf(login.TypeConnected)); n != 0 {
			t.Fatalf("%d logins stored", n)
		}
	})
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		t.Run("a listing refused with "+http.StatusText(status)+" removes the new login", func(t *testing.T) {
			r := newRemote(t, tok)
			w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), nil)})
			r.Reject.Store("tools/list", status)
			_, err := w.Connect(at, tok, login.OnExisting{})
			if codeOf(err) != domain.CodeUnprocessable {
				t.Fatalf("err = %v", err)
			}
			if len(w.EventsOf(login.TypeConnected)) != 1 || len(w.EventsOf(login.TypeRemoved)) != 1 {
				t.Fatal("the new login was not removed")
			}
			if ls, _ := w.Reader.Logins(w.Ctx, []login.Owner{at}); len(ls) != 0 {
				t.Fatalf("logins = %+v", ls)
			}
		})
	}

	// onExisting over a connected login.
	setup := func(t *testing.T) (*world, *remote) {
		r := newRemote(t, tok)
		r.Accept("tok-bbbbbbbb")
		w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), nil)})
		w.MustConnect(at, tok)
		return w, r
	}
	storedToken := func(t *testing.T, w *world) string {
		t.Helper()
		if err := w.Svc.SetSwitch(w.Ctx, user, at, "mcp_remote", "remote_whoami", true); err != nil {
			t.Fatal(err)
		}
		// whoami answers the caller's token, which Workbench redacts: compare by what is not redacted.
		o := w.Run(agent, "remote_whoami", `{"text":""}`)
		if o.Code != "" {
			t.Fatalf("whoami: %+v", o)
		}
		return string(o.Result)
	}
	t.Run("refuse is a 409", func(t *testing.T) {
		w, _ := setup(t)
		if _, err := w.Connect(at, "tok-bbbbbbbb", login.OnExisting{Mode: login.OnExistingRefuse}); codeOf(err) != domain.CodeConflict {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("equal credentials answer current", func(t *testing.T) {
		w, _ := setup(t)
		res, err := w.Connect(at, tok, login.OnExisting{Mode: login.OnExistingRefuse})
		if err != nil || res.Outcome != login.OutcomeCurrent || len(w.EventsOf(login.TypeConnected)) != 1 {
			t.Fatalf("res = %+v, %v", res, err)
		}
	})
	t.Run("keep leaves the stored login", func(t *testing.T) {
		w, _ := setup(t)
		res, err := w.Connect(at, "tok-bbbbbbbb", login.OnExisting{Mode: login.OnExistingKeep})
		if err != nil || res.Outcome != login.OutcomeKept || len(w.EventsOf(login.TypeConnected)) != 1 {
			t.Fatalf("res = %+v, %v", res, err)
		}
	})
	t.Run("replace stores the new credentials and the pool uses them", func(t *testing.T) {
		w, r := setup(t)
		before := storedToken(t, w)
		res, err := w.Connect(at, "tok-bbbbbbbb", login.OnExisting{Mode: login.OnExistingReplace})
		if err != nil || res.Outcome != login.OutcomeReplaced || res.Login.RotatedAt == nil {
			t.Fatalf("res = %+v, %v", res, err)
		}
		r.Revoke(tok) // the old token is revoked at the provider: only the new one works now
		after := storedToken(t, w)
		if before != after || strings.Contains(after, "tok-bbbbbbbb") {
			// Both are fully redacted against the login's own credentials.
			t.Fatalf("results not redacted: %s / %s", before, after)
		}
		if n := len(w.EventsOf(login.TypeConnected)); n != 2 {
			t.Fatalf("%d connected events", n)
		}
	})
	t.Run("replace_when_hint replaces only a login with that hint", func(t *testing.T) {
		w, _ := setup(t)
		res, err := w.Connect(at, "tok-bbbbbbbb", login.OnExisting{Mode: login.OnExistingReplaceWhenHint, Hint: "someone-else"})
		if err != nil || res.Outcome != login.OutcomeKept {
			t.Fatalf("other hint: %+v, %v", res, err)
		}
		// The endpoint's initialize gives no hint: the stored hint is "".
		res, err = w.Connect(at, "tok-bbbbbbbb", login.OnExisting{Mode: login.OnExistingReplaceWhenHint, Hint: ""})
		if err != nil || res.Outcome != login.OutcomeReplaced {
			t.Fatalf("same hint: %+v, %v", res, err)
		}
	})
	t.Run("a removed login connects again as a new one", func(t *testing.T) {
		w, _ := setup(t)
		first, _ := w.Reader.Logins(w.Ctx, []login.Owner{at})
		if err := w.Svc.Remove(w.Ctx, user, first[0].LoginID); err != nil {
			t.Fatal(err)
		}
		res := w.MustConnect(at, tok)
		if res.Outcome != login.OutcomeCreated || res.Login.ID == first[0].LoginID {
			t.Fatalf("res = %+v", res)
		}
	})
	_ = connector.AuthToken
}
