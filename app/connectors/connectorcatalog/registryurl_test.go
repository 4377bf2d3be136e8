package connectorcatalog_test

import (
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/plugins/connector"
)

// indexServer is a registry index on a loopback TLS server: /index.json answers body (settable),
// and the other paths answer the ways an index fetch goes wrong.
type indexServer struct {
	*httptest.Server
	mu      sync.Mutex
	body    string
	fetches atomic.Int32
}

func (x *indexServer) set(body string) { x.mu.Lock(); x.body = body; x.mu.Unlock() }

func newIndexServer(t *testing.T) *indexServer {
	x := &indexServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /index.json", func(w http.ResponseWriter, r *http.Request) {
		x.fetches.Add(1)
		if r.Header.Get("Accept") != "application/json" {
			http.Error(w, "want Accept: application/json", http.StatusNotAcceptable)
			return
		}
		x.mu.Lock()
		body := x.body
		x.mu.Unlock()
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		fmt.Fprint(w, body)
	})
	jsonReply := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("GET /bad.json", jsonReply(`{"connectors": [`))
	mux.HandleFunc("GET /list.json", jsonReply(`[{"slug":"notes"}]`))
	mux.HandleFunc("GET /empty.json", jsonReply(`{"verified": ["notes"]}`))
	mux.HandleFunc("GET /big.json", jsonReply(`{"connectors": [], "pad": "`+strings.Repeat("x", connectors.MaxRegistryIndexBytes)+`"}`))
	mux.HandleFunc("GET /page.html", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html>{"connectors": []}</html>`)
	})
	mux.HandleFunc("GET /broken.json", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "down", http.StatusInternalServerError) })
	mux.HandleFunc("GET /private.json", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://10.0.0.1/index.json", http.StatusFound)
	})
	mux.HandleFunc("GET /metadata.json", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://169.254.169.254/latest/meta-data", http.StatusMovedPermanently)
	})
	mux.HandleFunc("GET /moved.json", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/index.json", http.StatusFound) })
	x.Server = httptest.NewUnstartedServer(mux)
	x.Config.ErrorLog = log.New(io.Discard, "", 0) // the untrusted-certificate case fails its handshakes on purpose
	x.StartTLS()
	t.Cleanup(x.Close)
	return x
}

// roots trusts x's certificate and nothing else.
func (x *indexServer) roots() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(x.Certificate())
	return p
}

// urlService is a service on e's log and read models whose registry is the index at u.
func urlService(t *testing.T, e *connectorstest.Env, remoteURL, u string, roots *x509.CertPool, c *testenv.Clock) *connectors.Service {
	t.Helper()
	cs, problems := connector.Load(manifestFS(remoteURL, nil), "core", nil)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	s, err := connectors.New(connectors.Options{Store: e.Store, DB: e.DB, Projections: e.Runner, Vault: e.Vault, Pool: e.Pool, Scopes: e.Scopes, Connectors: cs,
		AllowLoopback: true, RegistryURL: u, RegistryRootCAs: roots, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Install(t.Context()); err != nil {
		t.Fatal(err)
	}
	return s
}

func indexBody(u string, extra ...string) string {
	cs := []string{
		fmt.Sprintf(`{"slug":"notes","display_name":"Notes","version":"1.2.0","publisher":"Acme Ltd","endpoint":{"url":%q},"auth":{"kind":"token"}}`, u),
		fmt.Sprintf(`{"slug":"weather","display_name":"Weather","endpoint":{"url":%q},"auth":{"kind":"none"}}`, u),
		fmt.Sprintf(`{"slug":"instancey","display_name":"I","endpoint":{"url":%q},"auth":{"kind":"token","instance":{"integration":"brave-search","field":"api_key"}}}`, u),
		`{"slug":"private","display_name":"P","endpoint":{"url":"https://10.1.2.3/mcp"},"auth":{"kind":"none"}}`,
		`{"display_name":"No slug"}`,
		fmt.Sprintf(`{"slug":"twice","display_name":"Twice","endpoint":{"url":%q},"auth":{"kind":"none"}}`, u),
		fmt.Sprintf(`{"slug":"twice","display_name":"Twice again","endpoint":{"url":%q},"auth":{"kind":"none"}}`, u),
	}
	return fmt.Sprintf(`{"connectors": [%s], "verified": ["notes"]}`, strings.Join(append(cs, extra...), ","))
}

// A registry index on a loopback HTTPS server: its entries are listed with the directory's checks
// (the box-integration key refused, a missing slug and a repeated slug shown as problems), installed
// as registry rows with the verified mark, and an endpoint on a private address refused at install.
// A listing and the install that follows read one fetch; after RegistryIndexTTL the index is
// fetched again.
func TestRegistryIndexURL(t *testing.T) {
	r := newRemote(t, "tok-registry-url-0123456789")
	e := connectorstest.Open(t, worldOptions{FS: manifestFS(r.URL(), nil)})
	x := newIndexServer(t)
	x.set(indexBody(r.URL()))
	c := testenv.NewClock(time.Unix(0, 0).UTC())
	c.Advance(time.Hour)
	s := urlService(t, e, r.URL(), x.URL+"/index.json", x.roots(), c)
	ctx := t.Context()

	entries, err := s.Registry(ctx)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string][]connectors.RegistryEntry{}
	var slugs []string
	for _, en := range entries {
		by[en.Slug] = append(by[en.Slug], en)
		slugs = append(slugs, en.Slug)
	}
	if got := strings.Join(slugs, ","); got != "connectors[4],instancey,notes,private,twice,twice,weather" {
		t.Fatalf("entries = %s", got)
	}
	if n := by["notes"][0]; !n.Verified || n.Installed || n.Publisher != "Acme Ltd" || n.Version != "1.2.0" || len(n.Problems) != 0 {
		t.Fatalf("notes = %+v", n)
	}
	for _, tw := range by["twice"] {
		if p := strings.Join(tw.Problems, ";"); !strings.Contains(p, `slug "twice" appears 2 times in the index`) {
			t.Fatalf("a repeated slug: %q", p)
		}
	}
	if p := strings.Join(by["connectors[4]"][0].Problems, ";"); !strings.Contains(p, `"slug"`) {
		t.Fatalf("the entry with no slug: %q", p)
	}
	if w := by["weather"][0]; w.Verified || len(w.Problems) != 0 {
		t.Fatalf("weather = %+v", w)
	}

	v, err := s.InstallFromRegistry(ctx, "admin-id", "notes")
	if err != nil {
		t.Fatal(err)
	}
	if v.ID != "mcp_notes" || v.Source != "registry" || !v.Verified || v.Publisher != "Acme Ltd" || v.Version != "1.2.0" || !v.Enabled {
		t.Fatalf("installed = %+v", v)
	}
	for _, cs := range []struct {
		slug, want string
		code       domain.Code
	}{
		{"instancey", "auth.instance names an integration", domain.CodeUnprocessable},
		{"twice", "appears 2 times", domain.CodeUnprocessable},
		{"private", "endpoint.url", domain.CodeUnprocessable},
		{"notes", `slug "notes" is already installed (source registry)`, domain.CodeConflict},
		{"nope", `no connector "nope"`, domain.CodeNotFound},
	} {
		_, err := s.InstallFromRegistry(ctx, "admin-id", cs.slug)
		if domain.ErrorCode(err) != cs.code || !strings.Contains(domain.ErrorMessage(err), cs.want) {
			t.Errorf("install %s: %v, want %s naming %q", cs.slug, err, cs.code, cs.want)
		}
	}
	if n := x.fetches.Load(); n != 1 {
		t.Fatalf("fetches within the TTL = %d, want 1", n)
	}

	// The index drops weather: still installable from the kept index until the TTL passes.
	x.set(`{"connectors": []}`)
	if w, err := s.InstallFromRegistry(ctx, "admin-id", "weather"); err != nil || w.Source != "registry" || w.Verified {
		t.Fatalf("weather from the kept index: %+v, %v", w, err)
	}
	c.Advance(connectors.RegistryIndexTTL)
	if entries, err := s.Registry(ctx); err != nil || len(entries) != 0 {
		t.Fatalf("after the TTL: %+v, %v", entries, err)
	}
	if n := x.fetches.Load(); n != 2 {
		t.Fatalf("fetches = %d, want 2", n)
	}

	// A redirect on the same registry is followed (and checked again).
	moved := urlService(t, e, r.URL(), x.URL+"/moved.json", x.roots(), c)
	x.set(indexBody(r.URL()))
	if entries, err := moved.Registry(ctx); err != nil || len(entries) != 7 || !entries[2].Installed {
		t.Fatalf("through a redirect: %+v, %v", entries, err)
	}
}

// An index that cannot be fetched or is not an index is a 502 naming the registry's host, for a
// listing and an install alike; nothing about it is kept, so the next request tries again.
func TestRegistryIndexURLRefusals(t *testing.T) {
	r := newRemote(t, "tok-registry-url-0123456789")
	e := connectorstest.Open(t, worldOptions{FS: manifestFS(r.URL(), nil)})
	x := newIndexServer(t)
	host := strings.TrimPrefix(x.URL, "https://")
	gone := httptest.NewTLSServer(http.NotFoundHandler())
	goneURL := gone.URL
	gone.Close()
	c := testenv.NewClock(time.Unix(0, 0).UTC())
	for _, cs := range []struct {
		name, u string
		roots   *x509.CertPool
		want    string
	}{
		{"malformed", x.URL + "/bad.json", x.roots(), "not a registry index"},
		{"a list", x.URL + "/list.json", x.roots(), "not a registry index"},
		{"no connectors", x.URL + "/empty.json", x.roots(), `no "connectors" list`},
		{"oversize", x.URL + "/big.json", x.roots(), fmt.Sprintf("over %d bytes", connectors.MaxRegistryIndexBytes)},
		{"not JSON", x.URL + "/page.html", x.roots(), `"text/html", not application/json`},
		{"a 500", x.URL + "/broken.json", x.roots(), "answered 500"},
		{"a redirect to a private address", x.URL + "/private.json", x.roots(), "redirected to https://10.0.0.1/index.json, which is refused"},
		{"a redirect to the metadata address", x.URL + "/metadata.json", x.roots(), "redirected to https://169.254.169.254/latest/meta-data, which is refused"},
		{"an untrusted certificate", x.URL + "/index.json", nil, "cannot be reached"},
		{"nobody answers", goneURL + "/index.json", nil, "cannot be reached"},
	} {
		t.Run(cs.name, func(t *testing.T) {
			s := urlService(t, e, r.URL(), cs.u, cs.roots, c)
			h := host
			if u, _ := url.Parse(cs.u); u != nil {
				h = u.Host
			}
			_, err := s.Registry(t.Context())
			if domain.ErrorCode(err) != domain.CodeUpstream || !strings.Contains(domain.ErrorMessage(err), "the connector registry at "+h) || !strings.Contains(domain.ErrorMessage(err), cs.want) {
				t.Fatalf("list: %v, want upstream naming %s and %q", err, h, cs.want)
			}
			if _, err := s.InstallFromRegistry(t.Context(), "admin-id", "notes"); domain.ErrorCode(err) != domain.CodeUpstream || !strings.Contains(domain.ErrorMessage(err), cs.want) {
				t.Fatalf("install: %v", err)
			}
		})
	}
	if n := x.fetches.Load(); n != 0 {
		t.Fatalf("the untrusted certificate reached the index %d times", n)
	}
}
