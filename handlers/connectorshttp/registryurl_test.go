package connectorshttp_test

import (
	"bytes"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/handlers/connectorshttp"
	"github.com/workbench/workbench/handlers/websession"
)

// The registry routes on a registry index fetched over HTTPS (CONNECTOR_REGISTRY_URL): while the
// index answers 500, and then a document that is not an index, a listing and an install are 502
// naming the registry's host, never a 500 or a 401; once it answers, the entry is listed and a 201
// install.
func TestRegistryURLRoutes(t *testing.T) {
	remote := connectorstest.NewRemote(t, "tok-registry-url-routes")
	var mu sync.Mutex
	status, body := http.StatusInternalServerError, "down"
	index := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	defer index.Close()
	answer := func(s int, b string) { mu.Lock(); status, body = s, b; mu.Unlock() }
	roots := x509.NewCertPool()
	roots.AddCert(index.Certificate())
	env := connectorstest.Open(t, connectorstest.Options{FS: connectorstest.ManifestFS(remote.URL(), nil), Configure: func(o *connectors.Options) {
		o.RegistryURL, o.RegistryRootCAs = index.URL+"/index.json", roots
	}})
	sessions, err := websession.New(bytes.Repeat([]byte("k"), 32), "http://wb.test", nil)
	if err != nil {
		t.Fatal(err)
	}
	admin := uuid.New()
	r := chi.NewRouter()
	connectorshttp.MountRegistry(r, connectorshttp.RegistryDeps{Sessions: sessions, Connectors: env.Service,
		Users: users{admin: "root@example.com"}, Admins: []string{"root@example.com"}})
	srv := httptest.NewServer(r)
	defer srv.Close()
	ck, err := sessions.Cookie(admin)
	if err != nil {
		t.Fatal(err)
	}
	a := client{t: t, base: srv.URL, cookie: ck}
	host := strings.TrimPrefix(index.URL, "https://")

	for _, c := range []struct {
		status int
		body   string
		want   string
	}{
		{http.StatusInternalServerError, "down", "answered 500"},
		{http.StatusOK, `{"connectors": {}}`, "not a registry index"},
	} {
		answer(c.status, c.body)
		code, _, b := a.do("GET", "/api/admin/mcp/registry", nil, false)
		if msg := fmt.Sprint(b["message"]); code != 502 || !strings.Contains(msg, "the connector registry at "+host) || !strings.Contains(msg, c.want) {
			t.Fatalf("list while the index answers %d %s: %d %v", c.status, c.body, code, b)
		}
		if code, _, b := a.do("POST", "/api/admin/mcp/registry/notes/install", nil, true); code != 502 || !strings.Contains(fmt.Sprint(b["message"]), host) {
			t.Fatalf("install while the index answers %d: %d %v", c.status, code, b)
		}
	}

	answer(http.StatusOK, fmt.Sprintf(`{"connectors": [{"slug":"notes","display_name":"Notes","publisher":"Acme Ltd","endpoint":{"url":%q},"auth":{"kind":"token"}}], "verified": ["notes"]}`, remote.URL()))
	code, _, b := a.do("GET", "/api/admin/mcp/registry", nil, false)
	entries, _ := b["entries"].([]any)
	if code != 200 || len(entries) != 1 || entries[0].(map[string]any)["verified"] != true {
		t.Fatalf("list: %d %v", code, b)
	}
	code, _, b = a.do("POST", "/api/admin/mcp/registry/notes/install", nil, true)
	if s, _ := b["server"].(map[string]any); code != 201 || s["source"] != "registry" || s["verified"] != true || s["publisher"] != "Acme Ltd" {
		t.Fatalf("install: %d %v", code, b)
	}
}
