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
	SetupKey    string      `json:"setup_key"`
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
		// No client set (no platform key, no UNSET_CLIENT_ID): a member is told to ask their admin
		// instead of a Connect that could only fail.
		"unset": {Name: "unset", DisplayName: "Unset", Description: "no client set", AuthMode: "oauth2", Categories: []string{}, Status: "not_connected", Fields: []fieldJSON{},
			Setup: "Ask your admin to set this up."},
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

// TestIntegrationSetByPlatformKey: an OAuth integration with no client in the environment shows an
// instance admin what to register and which platform key to set, and a member one line; once an
// admin sets the platform key integration:unset it is connectable at once, on every replica, with no
// new service (the key is read at connect time).
func TestIntegrationSetByPlatformKey(t *testing.T) {
	e := newEnv(t)
	e.admins = []string{"ada@example.com"}
	n1, n2 := e.node(), e.node()
	admin := n1.signedIn(n1.createUser("ada@example.com"))
	member := n1.signedIn(n1.createUser("fay@example.com"))

	a := admin.integrations(t, n1.srv.URL)["unset"]
	wantSetup := "Not set up on this server. Register an OAuth app with the provider, with the redirect URI " + e.publicURL +
		"/api/auth/plugin/unset/callback, then set the platform key integration:unset (Admin, Platform keys) to its client ID and client secret: " +
		"it applies at once, with no restart. (The environment's UNSET_CLIENT_ID and UNSET_CLIENT_SECRET, read at start, also work.)"
	if a.Configured || a.Setup != wantSetup || a.SetupKey != "integration:unset" {
		t.Fatalf("the admin's card: %+v", a)
	}
	if m := member.integrations(t, n1.srv.URL)["unset"]; m.Configured || m.Setup != "Ask your admin to set this up." || m.SetupKey != "" ||
		strings.Contains(m.Setup, "redirect") {
		t.Fatalf("the member's card: %+v", m)
	}
	if got := member.do(http.MethodPost, n1.srv.URL+"/api/integrations/unset/connect", "", nil); got.status != http.StatusServiceUnavailable {
		t.Fatalf("connect before the key: %d %s", got.status, got.body)
	}

	e.keys.set("integration:unset", map[string]string{"client_id": "unset-from-key", "client_secret": "s3cret"})
	for _, n := range []*node{n1, n2} {
		if m := member.integrations(t, n.srv.URL)["unset"]; !m.Configured || m.Setup != "" || m.SetupKey != "" {
			t.Fatalf("the member's card once the key is set: %+v", m)
		}
		started := member.do(http.MethodPost, n.srv.URL+"/api/integrations/unset/connect", "", nil)
		m := started.json(t)
		if started.status != http.StatusOK || m["type"] != "oauth2" {
			t.Fatalf("connect once the key is set: %d %s", started.status, started.body)
		}
		consent, _ := url.Parse(m["url"].(string))
		if consent.Query().Get("client_id") != "unset-from-key" {
			t.Fatalf("consent URL %s: want the platform key's client", consent)
		}
	}
	// The platform key wins over the environment's client.
	e.keys.set("integration:acme", map[string]string{"client_id": "acme-from-key"})
	started := member.do(http.MethodPost, n1.srv.URL+"/api/integrations/acme/connect", "", nil)
	consent, _ := url.Parse(started.json(t)["url"].(string))
	if consent.Query().Get("client_id") != "acme-from-key" {
		t.Fatalf("acme's consent URL %s: want the platform key's client", consent)
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
