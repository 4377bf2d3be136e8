package connectorshttp_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/handlers/connectorshttp"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/projections/identityrm"
)

// users is a hand-written stand-in of the identity read model: emails by user id.
type users map[uuid.UUID]string

func (u users) UserByID(_ context.Context, id uuid.UUID) (identityrm.User, error) {
	e, ok := u[id]
	if !ok {
		return identityrm.User{}, identityrm.ErrNotFound
	}
	return identityrm.User{ID: id, Email: e}, nil
}

// The registry routes over HTTP on real portal sessions: 401 without one, 403 for a signed-in user
// who is not an instance admin and for a cross-origin install; for the admin the list, a 201 install
// whose row GET /api/mcp/servers shows with source, verified and publisher, and 404, 409 and 422.
func TestRegistryRoutes(t *testing.T) {
	remote := connectorstest.NewRemote(t, "tok-registry-routes")
	reg := fstest.MapFS{
		"notes/connector.json": {Data: []byte(fmt.Sprintf(`{"slug":"notes","display_name":"Notes","publisher":"Acme Ltd","version":"2.0.0","endpoint":{"url":%q},"auth":{"kind":"token"}}`, remote.URL()))},
		"bad.json":             {Data: []byte(`{"slug":"bad","display_name":"Bad","auth":{"kind":"token"}}`)},
		"verified.txt":         {Data: []byte("notes\n")},
	}
	env := connectorstest.Open(t, connectorstest.Options{FS: connectorstest.ManifestFS(remote.URL(), nil), Registry: reg})
	sessions, err := websession.New(bytes.Repeat([]byte("k"), 32), "http://wb.test", nil)
	if err != nil {
		t.Fatal(err)
	}
	admin, member := uuid.New(), connectorstest.User // the member reads the catalog as connectorstest's user, whose agent is in its organisation
	r := chi.NewRouter()
	connectorshttp.Mount(r, connectorshttp.Deps{Sessions: sessions, Connectors: env.Service})
	connectorshttp.MountRegistry(r, connectorshttp.RegistryDeps{Sessions: sessions, Connectors: env.Service,
		Users: users{admin: "Root@Example.com", member: "member@example.com"}, Admins: []string{"root@example.com"}})
	srv := httptest.NewServer(r)
	defer srv.Close()
	as := func(u uuid.UUID) client {
		ck, err := sessions.Cookie(u)
		if err != nil {
			t.Fatal(err)
		}
		return client{t: t, base: srv.URL, cookie: ck}
	}
	a, m, anon := as(admin), as(member), client{t: t, base: srv.URL}

	if code, _, _ := anon.do("GET", "/api/admin/mcp/registry", nil, false); code != 401 {
		t.Fatalf("anonymous list: %d", code)
	}
	if code, _, b := m.do("GET", "/api/admin/mcp/registry", nil, false); code != 403 {
		t.Fatalf("member list: %d %v", code, b)
	}
	if code, _, _ := m.do("POST", "/api/admin/mcp/registry/notes/install", nil, true); code != 403 {
		t.Fatalf("member install: %d", code)
	}
	code, _, body := a.do("GET", "/api/admin/mcp/registry", nil, false)
	entries, _ := body["entries"].([]any)
	if code != 200 || len(entries) != 2 {
		t.Fatalf("list: %d %v", code, body)
	}
	notes := entries[1].(map[string]any)
	if notes["slug"] != "notes" || notes["verified"] != true || notes["installed"] != false || notes["publisher"] != "Acme Ltd" || notes["version"] != "2.0.0" || notes["display_name"] != "Notes" {
		t.Fatalf("notes = %v", notes)
	}
	if p := fmt.Sprint(entries[0].(map[string]any)["problems"]); !strings.Contains(p, "endpoint, an adapter") {
		t.Fatalf("bad's problems = %s", p)
	}
	if code, _, _ := a.do("POST", "/api/admin/mcp/registry/notes/install", nil, false); code != 403 {
		t.Fatalf("cross-origin install: %d", code)
	}
	code, _, body = a.do("POST", "/api/admin/mcp/registry/notes/install", nil, true)
	if s, _ := body["server"].(map[string]any); code != 201 || s["id"] != "mcp_notes" || s["source"] != "registry" || s["verified"] != true || s["publisher"] != "Acme Ltd" {
		t.Fatalf("install: %d %v", code, body)
	}
	code, _, body = m.do("GET", "/api/mcp/servers", nil, false)
	if code != 200 {
		t.Fatalf("servers: %d %v", code, body)
	}
	var row map[string]any
	for _, s := range body["servers"].([]any) {
		if s.(map[string]any)["id"] == "mcp_notes" {
			row = s.(map[string]any)
		}
	}
	if code != 200 || row == nil || row["source"] != "registry" || row["verified"] != true || row["publisher"] != "Acme Ltd" {
		t.Fatalf("catalog row: %d %v", code, row)
	}
	for _, c := range []struct {
		slug, want string
		code       int
	}{
		{"nope", `no connector "nope"`, 404},
		{"notes", `"notes" is already installed (source registry)`, 409},
		{"bad", "needs an endpoint, an adapter, or both", 422},
	} {
		code, _, b := a.do("POST", "/api/admin/mcp/registry/"+c.slug+"/install", nil, true)
		if code != c.code || !strings.Contains(fmt.Sprint(b["message"]), c.want) {
			t.Errorf("install %s: %d %v, want %d naming %q", c.slug, code, b, c.code, c.want)
		}
	}
}
