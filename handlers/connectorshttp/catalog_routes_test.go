package connectorshttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/handlers/connectorshttp"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/plugins/connector"
)

// The admin catalog and organisation server routes over HTTP on real portal sessions: every route
// refuses a non-admin (403) or a non-owner (member 403, stranger 404), another organisation's id is
// a 404, the slug rules answer 409 naming the other side, a hostile URL is a 422, and the export is
// a connector.json the loader reads.
func TestCatalogRoutes(t *testing.T) {
	const tok = "tok-catalog-routes-99"
	remote := connectorstest.NewRemote(t, tok)
	env := connectorstest.Open(t, connectorstest.Options{FS: connectorstest.ManifestFS(remote.URL(), nil)})
	sessions, err := websession.New(bytes.Repeat([]byte("k"), 32), "http://wb.test", nil)
	if err != nil {
		t.Fatal(err)
	}
	admin, member, stranger, orgB := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	env.Scopes.SetRole(connectorstest.Org, member, organization.RoleMember)
	env.Scopes.SetRole(orgB, stranger, organization.RoleOwner)
	agentB := uuid.New()
	env.Scopes.AddAgent(orgB, agentB)
	env.Scopes.Defaults[stranger] = agentB
	r := chi.NewRouter()
	connectorshttp.Mount(r, connectorshttp.Deps{Sessions: sessions, Connectors: env.Service, Admins: []string{"root@example.com"},
		Users: users{admin: "Root@Example.com", connectorstest.User: "ada@example.com", member: "mo@example.com", stranger: "sam@example.com"}})
	srv := httptest.NewServer(r)
	defer srv.Close()
	as := func(u uuid.UUID) client {
		ck, err := sessions.Cookie(u)
		if err != nil {
			t.Fatal(err)
		}
		return client{t: t, base: srv.URL, cookie: ck}
	}
	anon, root, ada, mo, sam := client{t: t, base: srv.URL}, as(admin), as(connectorstest.User), as(member), as(stranger)

	adminRoutes := []struct {
		method, path string
		body         any
	}{
		{"GET", "/api/admin/mcp/servers", nil},
		{"POST", "/api/admin/mcp/servers", map[string]any{"slug": "x", "url": "https://93.184.216.34/mcp", "auth": "none"}},
		{"PATCH", "/api/admin/mcp/servers/mcp_remote", map[string]any{"enabled": false}},
		{"PATCH", "/api/admin/mcp/servers/mcp_remote/tools/echo", map[string]any{"default": "off"}},
		{"GET", "/api/admin/mcp/servers/mcp_remote/export", nil},
	}
	for _, rt := range adminRoutes {
		if code, _, _ := anon.do(rt.method, rt.path, rt.body, true); code != 401 {
			t.Fatalf("anonymous %s %s: %d", rt.method, rt.path, code)
		}
		for name, c := range map[string]client{"an org owner": ada, "a member": mo} {
			if code, _, b := c.do(rt.method, rt.path, rt.body, true); code != 403 {
				t.Fatalf("%s at %s %s: %d %v", name, rt.method, rt.path, code, b)
			}
		}
	}
	if n := len(env.Events(t, "connector.switched")) + len(env.Events(t, "connector.added")); n != 0 {
		t.Fatalf("%d events after refusals", n)
	}

	// The instance admin.
	code, _, b := root.do("GET", "/api/admin/mcp/servers", nil, false)
	if list, _ := b["servers"].([]any); code != 200 || len(list) != 1 {
		t.Fatalf("admin list: %d %v", code, b)
	}
	if code, _, b := root.do("PATCH", "/api/admin/mcp/servers/mcp_remote", map[string]any{"description": "Edited", "limitations": "Read only"}, true); code != 200 ||
		b["server"].(map[string]any)["description"] != "Edited" {
		t.Fatalf("edit copy: %d %v", code, b)
	}
	code, _, b = root.do("PATCH", "/api/admin/mcp/servers/mcp_remote", map[string]any{"limitations": nil}, true)
	if s := b["server"].(map[string]any); code != 200 || s["limitations"] != nil || fmt.Sprint(s["overrides"]) != "map[description:Edited]" {
		t.Fatalf("clear with null: %d %v", code, b)
	}
	if code, _, b := root.do("PATCH", "/api/admin/mcp/servers/mcp_remote/tools/echo", map[string]any{"input_schema": map[string]any{"type": "nope"}}, true); code != 422 {
		t.Fatalf("a bad schema: %d %v", code, b)
	}
	if code, _, b := root.do("PATCH", "/api/admin/mcp/servers/mcp_remote/tools/create_issue", map[string]any{"description": "Open one issue.", "default": "off"}, true); code != 200 {
		t.Fatalf("tool overrides: %d %v", code, b)
	}
	req, _ := http.NewRequest("GET", srv.URL+"/api/admin/mcp/servers/mcp_remote/export", nil)
	req.AddCookie(root.cookie)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	cs, problems := connector.Load(fstest.MapFS{"remote/connector.json": {Data: raw}}, "registry", nil)
	if resp.StatusCode != 200 || len(problems) > 0 || cs[0].Manifest.Description != "Edited" || cs[0].Manifest.Tools[0].Description != "Open one issue." {
		t.Fatalf("export: %d %v %s", resp.StatusCode, problems, raw)
	}
	if code, _, _ := root.do("GET", "/api/admin/mcp/servers/mcp_nope/export", nil, false); code != 404 {
		t.Fatalf("export of an unknown id: %d", code)
	}
	for _, u := range []string{"http://93.184.216.34/mcp", "https://10.0.0.1/mcp", "https://169.254.169.254/latest/meta-data", "https://user:pw@93.184.216.34/", "gopher://93.184.216.34/"} {
		if code, _, b := root.do("POST", "/api/admin/mcp/servers", map[string]any{"slug": "hostile", "url": u, "auth": "none"}, true); code != 422 {
			t.Fatalf("hostile %s: %d %v", u, code, b)
		}
	}
	if code, _, b := root.do("POST", "/api/admin/mcp/servers", map[string]any{"slug": "remote", "url": "https://93.184.216.34/mcp", "auth": "none"}, true); code != 409 {
		t.Fatalf("a taken slug: %d %v", code, b)
	}
	code, _, b = root.do("POST", "/api/admin/mcp/servers", map[string]any{"slug": "notes", "url": "https://93.184.216.34/mcp", "display_name": "Notes", "auth": map[string]any{"kind": "oauth", "strategy": "dynamic"}}, true)
	if code != 201 || b["server"].(map[string]any)["id"] != "mcp_notes" || b["server"].(map[string]any)["local"] != true {
		t.Fatalf("add by hand: %d %v", code, b)
	}
	if code, _, b := root.do("PATCH", "/api/admin/mcp/servers/mcp_notes", map[string]any{"url": "https://10.9.9.9/mcp"}, true); code != 422 {
		t.Fatalf("a local row's url moved inward: %d %v", code, b)
	}
	if code, _, b := root.do("PATCH", "/api/admin/mcp/servers/mcp_notes", map[string]any{"description": "Team notes", "enabled": false}, true); code != 200 ||
		b["server"].(map[string]any)["description"] != "Team notes" || b["server"].(map[string]any)["enabled"] != false {
		t.Fatalf("edit a local row: %d %v", code, b)
	}

	// An organisation's own servers.
	orgPath := "/api/orgs/" + connectorstest.Org.String() + "/mcp/servers"
	wiki := map[string]any{"slug": "wiki", "url": remote.URL(), "auth": "token", "description": "Our wiki"}
	if code, _, _ := anon.do("POST", orgPath, wiki, true); code != 401 {
		t.Fatalf("anonymous org add: %d", code)
	}
	if code, _, b := mo.do("POST", orgPath, wiki, true); code != 403 {
		t.Fatalf("a member adds: %d %v", code, b)
	}
	if code, _, b := sam.do("POST", orgPath, wiki, true); code != 404 {
		t.Fatalf("a stranger adds: %d %v", code, b)
	}
	if code, _, b := ada.do("POST", "/api/orgs/not-an-id/mcp/servers", wiki, true); code != 404 {
		t.Fatalf("a bad org id: %d %v", code, b)
	}
	if code, _, b := ada.do("POST", orgPath, map[string]any{"slug": "remote", "url": remote.URL(), "auth": "none"}, true); code != 409 || !strings.Contains(fmt.Sprint(b["message"]), "platform connector") {
		t.Fatalf("a platform slug: %d %v", code, b)
	}
	if code, _, b := ada.do("POST", orgPath, map[string]any{"slug": "notes", "url": remote.URL(), "auth": "none"}, true); code != 409 || !strings.Contains(fmt.Sprint(b["message"]), "platform connector") {
		t.Fatalf("an admin-added platform slug: %d %v", code, b)
	}
	if code, _, b := ada.do("POST", orgPath, map[string]any{"slug": "x", "url": "https://10.0.0.1/", "auth": "none"}, true); code != 422 {
		t.Fatalf("a private url: %d %v", code, b)
	}
	if code, _, b := ada.do("POST", orgPath, map[string]any{"slug": "x", "url": remote.URL(), "auth": "none", "owner_org_id": "someone-else"}, true); code != 422 {
		t.Fatalf("an unknown key: %d %v", code, b)
	}
	code, _, b = ada.do("POST", orgPath, wiki, true)
	if code != 201 {
		t.Fatalf("org add: %d %v", code, b)
	}
	id := b["server"].(map[string]any)["id"].(string)
	if code, _, b := root.do("POST", "/api/admin/mcp/servers", map[string]any{"slug": "wiki", "url": "https://93.184.216.34/mcp", "auth": "none"}, true); code != 409 || !strings.Contains(fmt.Sprint(b["message"]), "organisation's own server") {
		t.Fatalf("the platform taking an organisation's slug: %d %v", code, b)
	}
	code, _, b = ada.do("GET", "/api/mcp/servers", nil, false)
	var own map[string]any
	for _, s := range b["servers"].([]any) {
		if s.(map[string]any)["id"] == id {
			own = s.(map[string]any)
		}
	}
	if code != 200 || own == nil || own["own"] != true {
		t.Fatalf("the catalog does not show the organisation's server as its own: %v", b)
	}
	if code, _, b := sam.do("GET", "/api/mcp/servers", nil, false); code != 200 || strings.Contains(fmt.Sprint(b), id) {
		t.Fatalf("another organisation sees it: %v", b)
	}
	if code, _, b := ada.do("GET", orgPath, nil, false); code != 200 || len(b["servers"].([]any)) != 1 {
		t.Fatalf("org list: %d %v", code, b)
	}
	if code, _, _ := mo.do("GET", orgPath, nil, false); code != 200 {
		t.Fatalf("a member reads: %d", code)
	}
	// Another organisation's id: at its routes, at the admin's routes, at Connect and at a switch.
	bPath := "/api/orgs/" + orgB.String() + "/mcp/servers"
	if code, _, b := sam.do("PATCH", bPath+"/"+id, map[string]any{"description": "x"}, true); code != 404 {
		t.Fatalf("another organisation edits it: %d %v", code, b)
	}
	if code, _, _ := sam.do("DELETE", bPath+"/"+id, nil, true); code != 404 {
		t.Fatalf("another organisation deletes it: %d", code)
	}
	if code, _, _ := root.do("PATCH", "/api/admin/mcp/servers/"+id, map[string]any{"enabled": false}, true); code != 404 {
		t.Fatalf("the admin route on an organisation's server: %d", code)
	}
	code, _, b = sam.do("POST", bPath, map[string]any{"slug": "docs", "url": remote.URL(), "auth": "token"}, true)
	if code != 201 {
		t.Fatalf("organisation B adds: %d %v", code, b)
	}
	bID := b["server"].(map[string]any)["id"].(string)
	if code, _, b := ada.do("POST", "/api/mcp/connections", map[string]any{"mcp_server_id": bID, "owner_scope": "agent", "owner_id": connectorstest.Agent.String(), "token": tok}, true); code != 404 {
		t.Fatalf("connect to another organisation's server: %d %v", code, b)
	}
	if code, _, b := ada.do("PUT", "/api/mcp/switches", map[string]any{"owner_scope": "agent", "owner_id": connectorstest.Agent.String(), "mcp_server_id": bID, "tool": "docs_echo", "on": true}, true); code != 404 {
		t.Fatalf("a switch on another organisation's server: %d %v", code, b)
	}
	if code, _, b := ada.do("PATCH", orgPath+"/"+bID, map[string]any{"description": "x"}, true); code != 404 {
		t.Fatalf("edit B's server under A's path: %d %v", code, b)
	}
	// Edit and delete, by the owner.
	if code, _, b := mo.do("PATCH", orgPath+"/"+id, map[string]any{"description": "x"}, true); code != 403 {
		t.Fatalf("a member edits: %d %v", code, b)
	}
	if code, _, b := ada.do("PATCH", orgPath+"/"+id, map[string]any{"display_name": "Wiki", "description": nil}, true); code != 200 ||
		b["server"].(map[string]any)["display_name"] != "Wiki" || b["server"].(map[string]any)["description"] != "" {
		t.Fatalf("org edit: %d %v", code, b)
	}
	if code, _, _ := mo.do("DELETE", orgPath+"/"+id, nil, true); code != 403 {
		t.Fatalf("a member deletes: %d", code)
	}
	if code, _, _ := ada.do("DELETE", orgPath+"/"+id, nil, false); code != 403 {
		t.Fatalf("a cross-origin delete: %d", code)
	}
	if code, _, _ := ada.do("DELETE", orgPath+"/"+id, nil, true); code != 204 {
		t.Fatalf("delete: %d", code)
	}
	if code, _, _ := ada.do("DELETE", orgPath+"/"+id, nil, true); code != 404 {
		t.Fatalf("delete twice: %d", code)
	}
}

// An organisation's OAuth server registers its client dynamically at its first Connect, and the
// callback fills its blank display name from the server's initialize reply.
func TestOrgOAuthServerFillsItsName(t *testing.T) {
	a := connectorstest.NewOAuthServer(t)
	n := newOAuthNode(t, false, a.Resource)
	orgPath := "/api/orgs/" + connectorstest.Org.String() + "/mcp/servers"
	code, _, b := n.c.do("POST", orgPath, map[string]any{"slug": "team", "url": a.Resource, "auth": "oauth"}, true)
	if code != 201 {
		t.Fatalf("add: %d %v", code, b)
	}
	id := b["server"].(map[string]any)["id"].(string)
	if b["server"].(map[string]any)["display_name"] != "team" {
		t.Fatalf("before Connect the card shows %v", b["server"])
	}
	code, _, b = n.c.do("POST", "/api/mcp/connections", map[string]any{"mcp_server_id": id, "owner_scope": "agent", "owner_id": connectorstest.Agent.String()}, true)
	if code != 201 {
		t.Fatalf("connect: %d %v", code, b)
	}
	if back := n.signIn(t, b["authorization_url"].(string)); back.Query().Get("oauth") != "connected" {
		t.Fatalf("callback: %s", back)
	}
	if n := a.Count(func(a *connectorstest.OAuthServer) int { return a.Registrations }); n != 1 {
		t.Fatalf("%d client registrations", n)
	}
	code, _, b = n.c.do("GET", orgPath, nil, false)
	if s := b["servers"].([]any)[0].(map[string]any); code != 200 || s["display_name"] != "oauth-remote" {
		t.Fatalf("after the callback: %d %v", code, b)
	}
}

// Another organisation's server and login ids answer exactly as ids that do not exist: the same
// status and the same body, the id aside (issue 24, item 8). Nothing about the other side (its
// name, its organisation) comes back.
func TestOtherOrganisationsIDsAnswerAsUnknown(t *testing.T) {
	const tok = "tok-cross-org-oracle-7"
	remote := connectorstest.NewRemote(t, tok)
	env := connectorstest.Open(t, connectorstest.Options{FS: connectorstest.ManifestFS(remote.URL(), nil)})
	sessions, err := websession.New(bytes.Repeat([]byte("k"), 32), "http://wb.test", nil)
	if err != nil {
		t.Fatal(err)
	}
	stranger, orgB, agentB := uuid.New(), uuid.New(), uuid.New()
	env.Scopes.SetRole(orgB, stranger, organization.RoleOwner)
	env.Scopes.AddAgent(orgB, agentB)
	env.Scopes.Defaults[stranger] = agentB
	r := chi.NewRouter()
	connectorshttp.Mount(r, connectorshttp.Deps{Sessions: sessions, Connectors: env.Service})
	srv := httptest.NewServer(r)
	defer srv.Close()
	as := func(u uuid.UUID) client {
		ck, err := sessions.Cookie(u)
		if err != nil {
			t.Fatal(err)
		}
		return client{t: t, base: srv.URL, cookie: ck}
	}
	ada, sam, anon := as(connectorstest.User), as(stranger), client{t: t, base: srv.URL}

	// Organisation B adds its own server and connects a login at its organisation scope.
	code, _, b := sam.do("POST", "/api/orgs/"+orgB.String()+"/mcp/servers", map[string]any{"slug": "fake", "url": remote.URL(), "auth": "token"}, true)
	if code != 201 {
		t.Fatalf("organisation B adds: %d %v", code, b)
	}
	bServer := b["server"].(map[string]any)["id"].(string)
	code, _, b = sam.do("POST", "/api/mcp/connections", map[string]any{"mcp_server_id": "mcp_remote", "owner_scope": "organization", "owner_id": orgB.String(), "token": tok}, true)
	if code != 201 {
		t.Fatalf("organisation B connects: %d %v", code, b)
	}
	bLogin := b["connection"].(map[string]any)["id"].(string)
	// From here on Ada manages nothing of organisation B's.
	env.Scopes.Deny[login.Owner{Scope: login.ScopeOrganization, ID: orgB}] = true
	env.Scopes.Deny[login.Owner{Scope: login.ScopeAgent, ID: agentB}] = true

	raw := func(c client, method, path string, body any) (int, string) {
		t.Helper()
		var rd io.Reader
		if body != nil {
			j, _ := json.Marshal(body)
			rd = bytes.NewReader(j)
		}
		req, _ := http.NewRequest(method, srv.URL+path, rd)
		if c.cookie != nil {
			req.AddCookie(c.cookie)
		}
		req.Header.Set(websession.CSRFHeader, "1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(data)
	}
	unknownServer, unknownLogin, unknownAgent := "mcp_nope", uuid.NewString(), uuid.NewString()
	myLogin := ""
	code, _, b = ada.do("POST", "/api/mcp/connections", map[string]any{"mcp_server_id": "mcp_remote", "owner_scope": "agent", "owner_id": connectorstest.Agent.String(), "token": tok}, true)
	if code != 201 {
		t.Fatalf("ada connects: %d %v", code, b)
	}
	myLogin = b["connection"].(map[string]any)["id"].(string)
	cases := []struct {
		name         string
		c            client
		method, path string // %s is the id
		body         any
		other, none  string
	}{
		{"lookup with credentials", ada, "POST", "/api/mcp/servers/%s/lookup", map[string]any{"property": "x", "q": "", "credentials": map[string]string{"token": tok}}, bServer, unknownServer},
		{"logo", anon, "GET", "/api/mcp/servers/%s/logo", nil, bServer, unknownServer},
		{"edit under one's own organisation", ada, "PATCH", "/api/orgs/" + connectorstest.Org.String() + "/mcp/servers/%s", map[string]any{"description": "x"}, bServer, unknownServer},
		{"delete under one's own organisation", ada, "DELETE", "/api/orgs/" + connectorstest.Org.String() + "/mcp/servers/%s", nil, bServer, unknownServer},
		{"login detail", ada, "GET", "/api/mcp/connections/%s", nil, bLogin, unknownLogin},
		{"login removal", ada, "DELETE", "/api/mcp/connections/%s", nil, bLogin, unknownLogin},
		{"login test call", ada, "POST", "/api/mcp/connections/%s/call", map[string]any{"tool": "echo", "arguments": map[string]any{}}, bLogin, unknownLogin},
		{"login relist", ada, "POST", "/api/mcp/connections/%s/list", nil, bLogin, unknownLogin},
		{"login lookup", ada, "GET", "/api/mcp/connections/%s/lookup?property=x", nil, bLogin, unknownLogin},
		{"login settings", ada, "PUT", "/api/mcp/connections/%s/settings", map[string]any{"settings": map[string]any{}}, bLogin, unknownLogin},
		{"detail through another organisation's agent", ada, "GET", "/api/mcp/connections/" + myLogin + "?agent_id=%s", nil, agentB.String(), unknownAgent},
	}
	for _, tc := range cases {
		gotCode, got := raw(tc.c, tc.method, fmt.Sprintf(tc.path, tc.other), tc.body)
		wantCode, want := raw(tc.c, tc.method, fmt.Sprintf(tc.path, tc.none), tc.body)
		got, want = strings.ReplaceAll(got, tc.other, "ID"), strings.ReplaceAll(want, tc.none, "ID")
		if gotCode != wantCode || got != want || gotCode != 404 {
			t.Errorf("%s: another organisation's id answers %d %s; an unknown one %d %s", tc.name, gotCode, got, wantCode, want)
		}
	}
	// Organisation B's login is untouched.
	if _, err := env.Reader.Login(context.Background(), uuid.MustParse(bLogin)); err != nil {
		t.Fatalf("organisation B's login: %v", err)
	}
}
