package connections_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/plugins"
)

// Atlassian's quirk: after consent the callback asks accessible-resources, with the fresh token, for
// the cloud id, stores it with the credential, and Access hands it to the runtime, which fills
// {credential.cloud_id} in the base URL. The value outlives a refresh.
func TestPostConsentCloudID(t *testing.T) {
	opts := envOptions{
		acmeBase: func(p *provider) string { return p.srv.URL + "/ex/acme/{credential.cloud_id}" },
		acmeOAuth: func(p *provider) string {
			return fmt.Sprintf(`,"post_consent":{"url":%q,"extra":{"cloud_id":"/0/id"}}`, p.srv.URL+"/resources")
		},
	}
	t.Run("the cloud id is stored and fills the base URL, also after a refresh", func(t *testing.T) {
		e := newEnvWith(t, "basic", opts)
		e.provider.set(func(p *provider) {
			p.resources = `[{"id":"1324a887-45db-1bf4-1e99-ef0ff456d421","name":"Site name","url":"https://your-domain.atlassian.net"},{"id":"other"}]`
		})
		n := e.node(true)
		user := uuid.New()
		connectExpiring(t, e, n, user)
		if e.provider.resourceCalls() != 1 {
			t.Fatalf("%d post-consent calls, want 1", e.provider.resourceCalls())
		}
		acme, _ := e.catalog.Integration("acme")
		for round := range 2 { // the first round refreshes (the token expires within the window)
			acc, err := n.svc.Access(e.ctx, user, acme, "")
			if err != nil {
				t.Fatal(err)
			}
			if acc.Credential["cloud_id"] != "1324a887-45db-1bf4-1e99-ef0ff456d421" {
				t.Fatalf("round %d: Credential %v", round, acc.Credential)
			}
			if _, err := acc.GetToken(e.ctx); err != nil {
				t.Fatal(err)
			}
			rc := plugins.NewContext(acme, plugins.ContextOptions{Injector: acc.Injector, GetToken: acc.GetToken, Credential: acc.Credential})
			base, err := rc.BaseURL()
			if err != nil || base.String() != e.provider.srv.URL+"/ex/acme/1324a887-45db-1bf4-1e99-ef0ff456d421" {
				t.Fatalf("round %d: base %v: %v", round, base, err)
			}
		}
		if e.provider.refreshes() != 1 {
			t.Fatalf("%d refreshes, want 1", e.provider.refreshes())
		}
		assertNotStored(t, n, "1324a887-45db-1bf4-1e99-ef0ff456d421")
	})
	t.Run("no site: the connect fails and nothing is stored", func(t *testing.T) {
		e := newEnvWith(t, "basic", opts)
		e.provider.set(func(p *provider) { p.resources = `[]` })
		n := e.node(true)
		user := uuid.New()
		res, err := n.svc.Connect(e.ctx, user, "acme", "")
		if err != nil {
			t.Fatal(err)
		}
		c := n.browser(user)
		status, body := n.redeem(c, res.URL)
		if status != http.StatusOK {
			t.Fatalf("redeem: %d %v", status, body)
		}
		back := n.consent(c, body["url"])
		if back.Query().Get("connected") != "" || back.Query().Get("connect_error") != "exchange_failed" {
			t.Fatalf("callback redirected to %s, want an error", back)
		}
		acme, _ := e.catalog.Integration("acme")
		if _, err := n.svc.Access(e.ctx, user, acme, ""); domain.ErrorCode(err) != domain.CodeNotConnected {
			t.Fatalf("Access after a failed lookup: %v", err)
		}
		w, err := n.svc.WaitForConnection(e.ctx, user, res.ConnectionID, 50*time.Millisecond)
		if err != nil || w == "CONNECTED" {
			t.Fatalf("wait: %q %v", w, err)
		}
	})
}

// The runtime fills {credential.<key>} only from the values it is given, path-escaped, and refuses
// a missing value as NOT_CONNECTED naming the reconnect.
func TestCredentialPlaceholders(t *testing.T) {
	e := newEnvWith(t, "basic", envOptions{
		acmeBase: func(p *provider) string { return p.srv.URL + "/ex/{credential.cloud_id}" },
		acmeOAuth: func(p *provider) string {
			return fmt.Sprintf(`,"post_consent":{"url":%q,"extra":{"cloud_id":"/0/id"}}`, p.srv.URL+"/resources")
		},
	})
	acme, _ := e.catalog.Integration("acme")
	tests := []struct {
		name     string
		cred     map[string]string
		want     string
		wantCode domain.Code
	}{
		{name: "filled", cred: map[string]string{"cloud_id": "abc"}, want: e.provider.srv.URL + "/ex/abc"},
		{name: "escaped", cred: map[string]string{"cloud_id": "a/../b"}, want: e.provider.srv.URL + "/ex/a%2F..%2Fb"},
		{name: "missing", cred: nil, wantCode: domain.CodeNotConnected},
		{name: "dot-dot", cred: map[string]string{"cloud_id": ".."}, wantCode: domain.CodeNotConnected},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base, err := plugins.NewContext(acme, plugins.ContextOptions{Credential: tc.cred}).BaseURL()
			if tc.wantCode != "" {
				if domain.ErrorCode(err) != tc.wantCode || !strings.Contains(domain.ErrorMessage(err), "connect('acme')") {
					t.Fatalf("got %v %v", base, err)
				}
				return
			}
			if err != nil || base.String() != tc.want {
				t.Fatalf("got %v %v, want %s", base, err, tc.want)
			}
		})
	}
}
