package portalhttp_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type integrationJSON struct {
	Name        string      `json:"name"`
	DisplayName string      `json:"display_name"`
	Description string      `json:"description"`
	AuthMode    string      `json:"auth_mode"`
	Categories  []string    `json:"categories"`
	LogoURL     string      `json:"logo_url"`
	Connected   bool        `json:"connected"`
	Status      string      `json:"status"`
	AccountHint string      `json:"account_hint"`
	Fields      []fieldJSON `json:"fields"`
	Configured  bool        `json:"configured"`
	Setup       string      `json:"setup"`
}

type fieldJSON struct {
	Name        string `json:"name"`
	Label       string `json:"label"`
	Secret      bool   `json:"secret"`
	Optional    bool   `json:"optional"`
	Placeholder string `json:"placeholder"`
}

func (b *browser) integrations(t *testing.T, base string) map[string]integrationJSON {
	t.Helper()
	got := b.get(base + "/api/integrations")
	if got.status != http.StatusOK {
		t.Fatalf("integrations: %d %s", got.status, got.body)
	}
	var body struct {
		Integrations []integrationJSON `json:"integrations"`
	}
	if err := json.Unmarshal(got.body, &body); err != nil {
		t.Fatal(err)
	}
	out := map[string]integrationJSON{}
	for _, in := range body.Integrations {
		out[in.Name] = in
	}
	return out
}

func TestIntegrations(t *testing.T) {
	e := newEnv(t)
	n := e.node()
	user := n.createUser("fay@example.com")
	b := n.signedIn(user)

	want := map[string]integrationJSON{
		"acme": {Name: "acme", DisplayName: "Acme", Description: "Acme's API", AuthMode: "oauth2", Categories: []string{"dev"},
			LogoURL: "/api/integrations/acme/logo", Status: "not_connected", Fields: []fieldJSON{}, Configured: true},
		"keyed": {Name: "keyed", DisplayName: "Keyed", Description: "needs a key", AuthMode: "apikey", Categories: []string{}, Status: "not_connected",
			Fields: []fieldJSON{{Name: "api_key", Label: "API key", Secret: true, Placeholder: "kx_..."}, {Name: "region", Label: "Region", Optional: true}}, Configured: true},
		"free": {Name: "free", DisplayName: "Free", Description: "no auth", AuthMode: "none", Categories: []string{}, Connected: true, Status: "connected", Fields: []fieldJSON{}, Configured: true},
		// No UNSET_CLIENT_ID: the operator's instruction instead of a Connect that could only fail.
		"unset": {Name: "unset", DisplayName: "Unset", Description: "no client set", AuthMode: "oauth2", Categories: []string{}, Status: "not_connected", Fields: []fieldJSON{},
			Setup: "Not set up on this server. The operator registers an OAuth app with the provider, with the redirect URI " + e.publicURL +
				"/api/auth/plugin/unset/callback, then sets UNSET_CLIENT_ID (and UNSET_CLIENT_SECRET, unless the app is a public PKCE client) and restarts Workbench."},
	}
	if diff := cmp.Diff(want, b.integrations(t, n.srv.URL)); diff != "" {
		t.Fatalf("catalog before connecting (-want +got):\n%s", diff)
	}

	// An API key through the apikey route: connected at once.
	if got := b.do(http.MethodPost, n.srv.URL+"/api/integrations/keyed/apikey", `{"fields":{"api_key":"kx_1"}}`, nil); got.status/100 != 2 {
		t.Fatalf("store the key: %d %s", got.status, got.body)
	}
	// An OAuth connect from the portal: the provider's consent URL with PKCE, and a pending attempt.
	started := b.do(http.MethodPost, n.srv.URL+"/api/integrations/acme/connect", "", nil)
	m := started.json(t)
	consent, _ := url.Parse(m["url"].(string))
	q := consent.Query()
	if started.status != http.StatusOK || m["type"] != "oauth2" || !strings.HasPrefix(m["url"].(string), e.oauth.URL+"/authorize?") ||
		q.Get("client_id") != "acme-client" || q.Get("code_challenge_method") != "S256" || q.Get("state") == "" ||
		q.Get("redirect_uri") != e.publicURL+"/api/auth/plugin/acme/callback" {
		t.Fatalf("connect: %d %s", started.status, started.body)
	}
	got := b.integrations(t, n.srv.URL)
	if k := got["keyed"]; !k.Connected || k.Status != "connected" {
		t.Errorf("keyed after its key: %+v", k)
	}
	if a := got["acme"]; a.Connected || a.Status != "pending" {
		t.Errorf("acme during the handshake: %+v", a)
	}

	if got := b.do(http.MethodDelete, n.srv.URL+"/api/integrations/keyed", "", nil); got.status/100 != 2 {
		t.Fatalf("disconnect: %d %s", got.status, got.body)
	}
	if k := b.integrations(t, n.srv.URL)["keyed"]; k.Connected || k.Status != "disconnected" {
		t.Errorf("keyed after disconnecting: %+v", k)
	}

	// Another user sees none of it.
	other := n.signedIn(n.createUser("gus@example.com")).integrations(t, n.srv.URL)
	if other["keyed"].Connected || other["acme"].Status != "not_connected" {
		t.Errorf("another user's catalog: %+v", other)
	}

	refusals := []struct {
		name, path string
		status     int
		message    string
	}{
		{"an API-key integration", "/api/integrations/keyed/connect", http.StatusBadRequest, "portal"},
		{"an integration that needs none", "/api/integrations/free/connect", http.StatusBadRequest, "always connected"},
		{"an unknown integration", "/api/integrations/nope/connect", http.StatusNotFound, "nope"},
		{"an OAuth integration whose client is not set", "/api/integrations/unset/connect", http.StatusServiceUnavailable, "UNSET_CLIENT_ID"},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			got := b.do(http.MethodPost, n.srv.URL+tt.path, "", nil)
			if m := got.json(t); got.status != tt.status || !strings.Contains(m["message"].(string), tt.message) {
				t.Fatalf("%d %s", got.status, got.body)
			}
		})
	}
}

func TestLogo(t *testing.T) {
	e := newEnv(t)
	n := e.node()
	got := newBrowser(t).get(n.srv.URL + "/api/integrations/acme/logo")
	if got.status != http.StatusOK || !strings.HasPrefix(string(got.body), "<svg") {
		t.Fatalf("logo: %d %s", got.status, got.body)
	}
	for k, v := range map[string]string{
		"Content-Type":            "image/svg+xml",
		"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
		"X-Content-Type-Options":  "nosniff",
	} {
		if got.header.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, got.header.Get(k), v)
		}
	}
	for _, name := range []string{"keyed", "nope"} {
		if got := newBrowser(t).get(n.srv.URL + "/api/integrations/" + name + "/logo"); got.status != http.StatusNotFound {
			t.Errorf("logo of %s: %d", name, got.status)
		}
	}
}
