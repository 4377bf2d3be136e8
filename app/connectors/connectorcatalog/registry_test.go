package connectorcatalog_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connectordom"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/plugins/connector"
)

// RegistryFS is a registry: notes (a folder, verified), weather (a file), broken (slug and schema
// problems), remote (the slug of a core connector) and instancey (names a box integration's key).
func registryFS(u string) fstest.MapFS {
	return fstest.MapFS{
		"notes/connector.json": {Data: []byte(fmt.Sprintf(`{"slug":"notes","display_name":"Notes","description":"Team notes.","version":"1.2.0","publisher":"Acme Ltd",
			"endpoint":{"url":%q},"auth":{"kind":"token"}}`, u))},
		"weather.json":   {Data: []byte(fmt.Sprintf(`{"slug":"weather","display_name":"Weather","endpoint":{"url":%q},"auth":{"kind":"none"}}`, u))},
		"broken.json":    {Data: []byte(`{"slug":"brokenish","display_name":"Broken","auth":{"kind":"token"},"colour":"red"}`)},
		"remote.json":    {Data: []byte(fmt.Sprintf(`{"slug":"remote","display_name":"Another remote","endpoint":{"url":%q},"auth":{"kind":"none"}}`, u))},
		"instancey.json": {Data: []byte(fmt.Sprintf(`{"slug":"instancey","display_name":"I","endpoint":{"url":%q},"auth":{"kind":"token","instance":{"integration":"brave-search","field":"api_key"}}}`, u))},
		"verified.txt":   {Data: []byte("# vouched for\nnotes\n")},
		"README.md":      {Data: []byte("not an entry")},
	}
}

// The registry lists its entries with their problems and whether each is installed; an install
// records a registry row (verified, publisher, version) that connects like any other; the refusals
// are 404 for an unknown slug, 409 naming the existing connector, and 422 naming the manifest's
// problems; and the row outlives a restart that has no registry at all, because it is an event.
func TestRegistryInstallSQLite(t *testing.T) { testRegistryInstall(t, false) }

func TestRegistryInstallPostgres(t *testing.T) { testRegistryInstall(t, true) }

func testRegistryInstall(t *testing.T, pg bool) {
	const tok = "tok-registry-0123456789"
	r := newRemote(t, tok)
	e := connectorstest.Open(t, worldOptions{Postgres: pg, FS: manifestFS(r.URL(), nil), Registry: registryFS(r.URL())})
	ctx := t.Context()
	entries, err := e.Service.Registry(ctx)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]connectors.RegistryEntry{}
	var slugs []string
	for _, x := range entries {
		by[x.Slug] = x
		slugs = append(slugs, x.Slug)
	}
	if strings.Join(slugs, ",") != "broken,instancey,notes,remote,weather" {
		t.Fatalf("entries = %v", slugs)
	}
	if n := by["notes"]; !n.Verified || n.Installed || n.Publisher != "Acme Ltd" || n.Version != "1.2.0" || n.DisplayName != "Notes" || len(n.Problems) != 0 {
		t.Fatalf("notes = %+v", n)
	}
	if w := by["weather"]; w.Verified || w.Installed || len(w.Problems) != 0 {
		t.Fatalf("weather = %+v", w)
	}
	if rm := by["remote"]; !rm.Installed || rm.InstalledSource != "core" {
		t.Fatalf("remote = %+v", rm)
	}
	if p := strings.Join(by["broken"].Problems, "; "); !strings.Contains(p, "colour") {
		t.Fatalf("broken's problems = %q", p)
	}

	v, err := e.Service.InstallFromRegistry(ctx, "admin@example.com", "notes")
	if err != nil {
		t.Fatal(err)
	}
	if v.ID != "mcp_notes" || v.Source != "registry" || !v.Verified || v.Publisher != "Acme Ltd" || v.Version != "1.2.0" || !v.Enabled || v.ToolPrefix != "notes" {
		t.Fatalf("installed = %+v", v)
	}
	if evs := e.Events(t, connectordom.TypeInstalled); len(evs) != 2 || evs[1].Metadata.Actor != "admin@example.com" || !strings.Contains(string(evs[1].Data), `"source":"registry"`) {
		t.Fatalf("installed events = %d", len(evs))
	}
	w, err := e.Service.InstallFromRegistry(ctx, "admin@example.com", "weather")
	if err != nil || w.Verified || w.Source != "registry" {
		t.Fatalf("weather = %+v, %v", w, err)
	}
	for _, c := range []struct {
		slug, want string
		code       domain.Code
	}{
		{"nope", `no connector "nope"`, domain.CodeNotFound},
		{"notes", `slug "notes" is already installed (source registry)`, domain.CodeConflict},
		{"remote", `slug "remote" is already installed (source core)`, domain.CodeConflict},
		{"broken", `colour`, domain.CodeUnprocessable},
		{"instancey", `auth.instance names an integration`, domain.CodeUnprocessable},
	} {
		_, err := e.Service.InstallFromRegistry(ctx, "admin@example.com", c.slug)
		if domain.ErrorCode(err) != c.code || !strings.Contains(domain.ErrorMessage(err), c.want) {
			t.Errorf("install %s: %v, want %s naming %q", c.slug, err, c.code, c.want)
		}
	}
	if entries, _ := e.Service.Registry(ctx); !entries[2].Installed || entries[2].InstalledSource != "registry" {
		t.Fatalf("notes after install = %+v", entries[2])
	}

	// A restart: a new service on the same log and read models, its folders installed again, and no
	// registry configured. The row stays, and a token login connects and lists through it.
	cs, problems := connector.Load(manifestFS(r.URL(), nil), "core", nil)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	again, err := connectors.New(connectors.Options{Store: e.Store, DB: e.DB, Projections: e.Runner, Vault: e.Vault, Pool: e.Pool, Scopes: e.Scopes, Connectors: cs, AllowLoopback: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := again.Install(ctx); err != nil {
		t.Fatal(err)
	}
	v, err = again.Server(ctx, "mcp_notes")
	if err != nil || v.Source != "registry" || !v.Verified || v.Publisher != "Acme Ltd" {
		t.Fatalf("after the restart: %+v, %v", v, err)
	}
	if entries, err := again.Registry(ctx); err != nil || len(entries) != 0 {
		t.Fatalf("no registry: %v, %v", entries, err)
	}
	res, err := again.Connect(ctx, user, connectors.ConnectRequest{ServerID: "mcp_notes", Owner: owner(login.ScopeAgent, agent), Fields: map[string]string{"token": tok}})
	if err != nil || res.Login.Status != login.StatusConnected {
		t.Fatalf("connect to the registry connector: %+v, %v", res.Login, err)
	}
}
