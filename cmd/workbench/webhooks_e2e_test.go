package main

// End-to-end test of organisations' webhooks: an organisation admin registers a webhook (an HTTP
// server on loopback standing in for the organisation's endpoint) and it receives, signed with the
// secret shown once, connection.needs_reauth when a provider refuses a refresh, approval.requested
// when a call waits for approval, and budget.exhausted when a call is refused RATE_LIMITED; the
// delivery log shows them delivered. A plain member cannot register one.

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/app/webhooks"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testenv"
)

// hookSink is the organisation's endpoint: it keeps every request it gets.
type hookSink struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []hookRequest
}

type hookRequest struct {
	header http.Header
	body   []byte
}

func newHookSink(t *testing.T) *hookSink {
	s := &hookSink{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.got = append(s.got, hookRequest{header: r.Header.Clone(), body: b})
		s.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// await waits (bounded) for a delivery of type typ and returns it.
func (s *hookSink) await(t *testing.T, typ string) hookRequest {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		for _, r := range s.got {
			if r.header.Get("Workbench-Event") == typ {
				s.mu.Unlock()
				return r
			}
		}
		s.mu.Unlock()
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the webhook never received %s within 30 s", typ)
	return hookRequest{}
}

func TestWebhooksEndToEnd(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := newOAuthProvider(t)
	plugDir := t.TempDir()
	writeAcmePlugin(t, plugDir, p)
	const tok = "tok-webhooks-0123"
	remote := connectorstest.NewRemote(t, tok)
	var clock time.Time
	var clockMu sync.Mutex
	srv := startE2EWith(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{
		"PLUGINS_DIR": plugDir, "CONNECTORS_DIR": writeRemoteConnector(t, remote), "WORKBENCH_DEV_ALLOW_LOOPBACK": "true",
		"ACME_CLIENT_ID": acmeClientID, "ACME_CLIENT_SECRET": acmeClientSecret,
	}, slog.LevelWarn, func(m *Main) {
		m.BudgetClock = func() time.Time { clockMu.Lock(); defer clockMu.Unlock(); return clock }
	})
	clock = time.Now().UTC()
	p.register(srv.Base + "/api/auth/plugin/acme/callback")
	e := &mcpEnv{srv: srv, provider: p, endpoint: srv.Base + "/mcp", callbackU: srv.Base + "/api/auth/plugin/acme/callback",
		ada: srv.user(t, "ada@example.com"), bob: srv.user(t, "bob@example.com")}
	ada, _ := e.connectSDK(t, e.ada.Key)
	defer ada.Close()
	// ada signs in once: her personal organisation exists, she its owner.
	if err := srv.M.Organizations.SignedIn(ctx, e.ada.ID, e.ada.Email, eventstore.Metadata{Actor: "test", Time: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	org := organization.PersonalOrganizationID(e.ada.ID)
	sink := newHookSink(t)
	portal := func(user e2eUser, method, path string, body any) (int, map[string]any) {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequestWithContext(ctx, method, srv.Base+path, strings.NewReader(string(b)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", srv.Base)
		cookie, err := srv.M.Sessions.Cookie(user.ID)
		if err != nil {
			t.Fatal(err)
		}
		req.AddCookie(cookie)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out) //nolint:errcheck // a 204 has no body
		return resp.StatusCode, out
	}
	events := []string{"connection.needs_reauth", "approval.requested", "budget.exhausted"}
	if status, body := portal(e.bob, http.MethodPost, "/api/webhooks", map[string]any{"organization_id": org.String(), "url": sink.srv.URL, "events": events}); status != http.StatusNotFound {
		t.Fatalf("bob registers a webhook on ada's organisation: %d %v, want 404", status, body)
	}
	for _, bad := range []string{"ftp://127.0.0.1/x", "http://169.254.169.254/latest", "https://user:pw@127.0.0.1/"} {
		if status, _ := portal(e.ada, http.MethodPost, "/api/webhooks", map[string]any{"organization_id": org.String(), "url": bad, "events": events}); status != http.StatusBadRequest {
			t.Fatalf("webhook URL %q: %d, want 400", bad, status)
		}
	}
	status, body := portal(e.ada, http.MethodPost, "/api/webhooks", map[string]any{"organization_id": org.String(), "url": sink.srv.URL, "events": events})
	secret, _ := body["secret"].(string)
	if status != http.StatusCreated || !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("register the webhook: %d %v", status, body)
	}
	verify := func(r hookRequest) map[string]any {
		t.Helper()
		sig := r.header.Get(webhooks.SignatureHeader)
		var ts int64
		for _, part := range strings.Split(sig, ",") {
			if v, ok := strings.CutPrefix(part, "t="); ok {
				json.Unmarshal([]byte(v), &ts) //nolint:errcheck // a missing t fails below
			}
		}
		if ts == 0 || webhooks.Sign(secret, time.Unix(ts, 0), r.body) != sig {
			t.Fatalf("a delivery's signature %q does not verify with the secret", sig)
		}
		var b map[string]any
		if err := json.Unmarshal(r.body, &b); err != nil || b["organization_id"] != org.String() {
			t.Fatalf("a delivery's body: %s", r.body)
		}
		return b
	}

	// A connection whose refresh the provider refuses: connection.needs_reauth.
	p.Set(func(s *testenv.OAuthSettings) { s.ExpiresIn = 1 })
	var started struct{ ConnectionID, Type, URL string }
	call(t, ada, "connect", map[string]any{"integration": "acme"}, &started)
	browser := e.browser(t, e.ada.ID)
	if status, b := e.redeem(t, browser, started.URL); status != http.StatusOK {
		t.Fatalf("redeem: %d %v", status, b)
	} else {
		resp, err := browser.Get(b["url"])
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		resp, err = browser.Get(resp.Header.Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if back, _ := url.Parse(resp.Header.Get("Location")); back == nil || back.Query().Get("connected") != "acme" {
			t.Fatalf("callback: %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	var waited map[string]string
	call(t, ada, "wait_for_connection", map[string]any{"connectionId": started.ConnectionID, "timeout_seconds": 30}, &waited)
	p.Set(func(s *testenv.OAuthSettings) {
		s.Token = func(r *testenv.TokenReply) {
			if r.Grant == "refresh_token" {
				r.Status, r.Body = http.StatusBadRequest, map[string]any{"error": "invalid_grant"}
			}
		}
	})
	execute(t, ada, ex("acme_profile", nil))
	srv.settledEvents(t, connection.TypeReauthorizationRequired, 1)
	got := verify(sink.await(t, "connection.needs_reauth"))
	if d, _ := got["data"].(map[string]any); d["integration"] != "acme" || d["account"] != "default" || d["user_id"] != e.ada.ID.String() {
		t.Fatalf("connection.needs_reauth: %v", got)
	}

	// A call waiting for approval: approval.requested, with the approval's page.
	agent := organization.DefaultAgentID(e.ada.ID)
	if _, err := srv.M.Connectors.Connect(ctx, e.ada.ID, connectors.ConnectRequest{ServerID: "mcp_remote", Owner: login.Owner{Scope: login.ScopeAgent, ID: agent},
		Fields: map[string]string{"token": tok}}); err != nil {
		t.Fatal(err)
	}
	if status, body := portal(e.ada, http.MethodPut, "/api/mcp/switches", map[string]any{"owner_scope": "agent", "owner_id": agent.String(), "mcp_server_id": "mcp_remote", "tool": "remote_echo", "state": "ask"}); status != http.StatusNoContent {
		t.Fatalf("Ask: %d %v", status, body)
	}
	held := execute(t, ada, ex("remote_echo", map[string]any{"text": "x"})).Results[0]
	var approvalID string
	json.Unmarshal(held["approval_id"], &approvalID) //nolint:errcheck // checked below
	got = verify(sink.await(t, "approval.requested"))
	if d, _ := got["data"].(map[string]any); approvalID == "" || d["approval_id"] != approvalID || d["url"] != srv.Base+"/approvals/"+approvalID || d["tool"] != "remote_echo" {
		t.Fatalf("approval.requested: %v (the call answered %v)", got, held)
	}

	// A spent budget: budget.exhausted.
	if status, body := portal(e.ada, http.MethodPut, "/api/mcp/switches", map[string]any{"owner_scope": "agent", "owner_id": agent.String(), "mcp_server_id": "mcp_remote", "tool": "remote_echo", "state": "on"}); status != http.StatusNoContent {
		t.Fatalf("On: %d %v", status, body)
	}
	if status, body := portal(e.ada, http.MethodPut, "/api/budgets", map[string]any{"owner_scope": "agent", "owner_id": agent.String(), "tool": "remote_echo", "per_minute": 1}); status != http.StatusNoContent {
		t.Fatalf("budget: %d %v", status, body)
	}
	execute(t, ada, ex("remote_echo", map[string]any{"text": "1"}))
	if r := execute(t, ada, ex("remote_echo", map[string]any{"text": "2"})).Results[0]; !strings.Contains(string(r["error"]), "RATE_LIMITED") {
		t.Fatalf("the second call of 1 a minute: %v", r)
	}
	got = verify(sink.await(t, "budget.exhausted"))
	if d, _ := got["data"].(map[string]any); d["tool"] != "remote_echo" {
		t.Fatalf("budget.exhausted: %v", got)
	}

	// The delivery log shows each one delivered.
	eventually(t, "the delivery log shows three deliveries delivered", 30*time.Second, func() error {
		status, body := portal(e.ada, http.MethodGet, "/api/webhooks?organization_id="+org.String(), nil)
		b, _ := json.Marshal(body)
		if status != http.StatusOK || strings.Count(string(b), `"status":"delivered"`) != 3 || strings.Contains(string(b), "whsec_") {
			return &logError{string(b)}
		}
		return nil
	})
}

type logError struct{ s string }

func (e *logError) Error() string { return e.s }
