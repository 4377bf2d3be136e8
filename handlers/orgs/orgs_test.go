package orgs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/accounts"
	"github.com/workbench/workbench/app/compliance"
	"github.com/workbench/workbench/app/organizations"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers/authn"
	"github.com/workbench/workbench/handlers/orgs"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/internal/vault"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/identityrm"
	"github.com/workbench/workbench/projections/organizationsrm"
)

type harness struct {
	t     *testing.T
	ctx   context.Context
	base  string
	db    testenv.SQLiteDB
	orgs  *organizations.Service
	acc   *accounts.Service
	keys  map[string]string    // user name → API key of the default agent
	users map[string]uuid.UUID // user name → id
	// sessions signs the portal sessions of do's "web:<name>" callers.
	sessions *websession.Manager
	vault    *vault.Vault
	runner   *projections.Runner
}

// inviteeKey keys the hash that names invited addresses in the harness's log.
var inviteeKey = bytes.Repeat([]byte("i"), 32)

func setup(t *testing.T) *harness {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	db := testenv.OpenSQLite(t)
	v := testenv.Vault(t, db.DB, db.Store)
	runner, err := projections.NewRunner(db.Store, db.DB, migrations.SQLite, &projections.Options{
		Projections: []projections.Projection{identityrm.New().WithOpener(v), organizationsrm.New().WithInviteeKey(inviteeKey)}, PollInterval: 20 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- runner.Run(rctx) }()
	t.Cleanup(func() { stop(); <-done })
	reader := &organizationsrm.Reader{DB: db.DB}
	acc := &accounts.Service{Store: db.Store, Vault: v}
	svc, err := organizations.New(organizations.Options{Store: db.Store, Reader: reader, Projections: runner, Keys: acc, Vault: v, InviteeKey: inviteeKey})
	if err != nil {
		t.Fatal(err)
	}
	acc.Agents = svc
	sessions, err := websession.New(bytes.Repeat([]byte("k"), 32), "http://wb.test", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	orgs.Mount(r, orgs.Deps{
		Auth: authn.Chain{authn.APIKeys{Reader: identityrm.Reader{DB: db.DB}}, authn.PortalSessions{Sessions: sessions, Users: identityrm.Reader{DB: db.DB}}},
		Orgs: svc, Reader: reader,
		Keys: acc, KeyReader: identityrm.Reader{DB: db.DB}, Projections: runner,
	})
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	h := &harness{t: t, ctx: ctx, base: srv.URL, db: db, orgs: svc, acc: acc, vault: v, runner: runner, keys: map[string]string{}, users: map[string]uuid.UUID{}, sessions: sessions}
	md := eventstore.Metadata{Actor: "test"}
	for _, name := range []string{"ada", "bob", "cy", "dee"} {
		u, _, _, err := acc.EnsureUser(ctx, name+"@example.com", "", md)
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.SignedIn(ctx, u.ID, u.Email, md); err != nil {
			t.Fatal(err)
		}
		k, pos, err := acc.MintKey(ctx, u.ID, md)
		if err != nil {
			t.Fatal(err)
		}
		if err := runner.WaitFor(ctx, pos); err != nil {
			t.Fatal(err)
		}
		h.keys[name], h.users[name] = k.Secret, u.ID
	}
	return h
}

// do sends a request as the named user with her API key ("" for no credential; "web:<name>" for her
// portal session) and decodes a JSON answer into out when given.
func (h *harness) do(as, method, path string, body any, out any) int {
	h.t.Helper()
	code, data := h.raw(as, method, path, body)
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			h.t.Fatalf("%s %s: %v in %s", method, path, err, data)
		}
	}
	return code
}

// raw is do without decoding: the status and the body as sent.
func (h *harness) raw(as, method, path string, body any) (int, []byte) {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewBufferString(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(h.ctx, method, h.base+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	if name, ok := strings.CutPrefix(as, "web:"); ok {
		ck, err := h.sessions.Cookie(h.users[name])
		if err != nil {
			h.t.Fatal(err)
		}
		req.AddCookie(ck)
		req.Header.Set(websession.CSRFHeader, "1")
	} else if as != "" {
		req.Header.Set("Authorization", "Bearer "+h.keys[as])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

type pendingJSON struct {
	ID               uuid.UUID `json:"id"`
	OrganizationID   uuid.UUID `json:"organization_id"`
	OrganizationName string    `json:"organization_name"`
	Role             string    `json:"role"`
}

// pending lists the named user's pending invitations through the route.
func (h *harness) pending(name string) []pendingJSON {
	h.t.Helper()
	var out struct{ Invitations []pendingJSON }
	if code := h.do("web:"+name, "GET", "/api/orgs/invitations", nil, &out); code != 200 {
		h.t.Fatalf("%s's invitations: %d", name, code)
	}
	return out.Invitations
}

// join makes the named user a member of org: she accepts her pending invitation in the portal.
func (h *harness) join(name string, org uuid.UUID) {
	h.t.Helper()
	for _, inv := range h.pending(name) {
		if inv.OrganizationID == org {
			var m orgJSON
			if code := h.do("web:"+name, "POST", "/api/orgs/invitations/"+inv.ID.String()+"/accept", nil, &m); code != 200 || m.ID != org {
				h.t.Fatalf("%s accepts the invitation to %s: %d %+v", name, org, code, m)
			}
			return
		}
	}
	h.t.Fatalf("%s has no invitation to %s", name, org)
}

type orgJSON struct {
	ID       uuid.UUID `json:"id"`
	Name     string    `json:"name"`
	Personal bool      `json:"personal"`
	Role     string    `json:"role"`
}

type agentJSON struct {
	ID      uuid.UUID  `json:"id"`
	Name    string     `json:"name"`
	GuildID *uuid.UUID `json:"guild_id"`
	Default bool       `json:"default"`
	APIKey  *struct {
		Prefix string `json:"prefix"`
	} `json:"api_key"`
}

func TestRoutes(t *testing.T) {
	h := setup(t)
	ada, bob, cy, dee := h.users["ada"], h.users["bob"], h.users["cy"], h.users["dee"]

	if code := h.do("", "GET", "/api/orgs", nil, nil); code != 401 {
		t.Fatalf("no credential: %d, want 401", code)
	}
	var list struct{ Organizations []orgJSON }
	if code := h.do("ada", "GET", "/api/orgs", nil, &list); code != 200 || len(list.Organizations) != 1 || !list.Organizations[0].Personal || list.Organizations[0].Role != "owner" {
		t.Fatalf("ada's organisations: %d %+v", code, list)
	}

	// Ada makes Acme with Bob an admin and Cy a member; Dee is an outsider with her own organisation.
	var acme orgJSON
	if code := h.do("ada", "POST", "/api/orgs", map[string]string{"name": "Acme"}, &acme); code != 201 || acme.Role != "owner" {
		t.Fatalf("create: %d %+v", code, acme)
	}
	base := "/api/orgs/" + acme.ID.String()
	var invited struct{ Status, Email string }
	if code := h.do("ada", "POST", base+"/members", map[string]string{"email": "bob@example.com", "role": "admin"}, &invited); code != 201 || invited.Status != "invited" {
		t.Fatalf("invite bob: %d %+v", code, invited)
	}
	h.join("bob", acme.ID)
	if code := h.do("bob", "POST", base+"/members", map[string]string{"email": "cy@example.com"}, &invited); code != 201 || invited.Status != "invited" {
		t.Fatalf("bob invites cy: %d %+v", code, invited)
	}
	h.join("cy", acme.ID)
	if code := h.do("bob", "POST", base+"/members", map[string]string{"email": "NEW@example.com"}, &invited); code != 201 || invited.Status != "invited" || invited.Email != "new@example.com" {
		t.Fatalf("invite a new address: %d %+v", code, invited)
	}
	var deeOrg orgJSON
	if code := h.do("dee", "POST", "/api/orgs", map[string]string{"name": "Dee's"}, &deeOrg); code != 201 {
		t.Fatalf("dee's organisation: %d", code)
	}
	var guild struct{ ID uuid.UUID }
	if code := h.do("bob", "POST", base+"/guilds", map[string]string{"name": "Research"}, &guild); code != 201 {
		t.Fatalf("create guild: %d", code)
	}
	var deeGuild struct{ ID uuid.UUID }
	if code := h.do("dee", "POST", "/api/orgs/"+deeOrg.ID.String()+"/guilds", map[string]string{"name": "Hidden"}, &deeGuild); code != 201 {
		t.Fatalf("dee's guild: %d", code)
	}
	var deeAgent agentJSON
	if code := h.do("dee", "POST", "/api/orgs/"+deeOrg.ID.String()+"/agents", map[string]string{"name": "spy"}, &deeAgent); code != 201 {
		t.Fatalf("dee's agent: %d", code)
	}
	if code := h.do("", "PUT", base+"/guilds/"+guild.ID.String()+"/members/"+cy.String(), nil, nil); code != 401 {
		t.Fatalf("unauthenticated write: %d", code)
	}
	if code := h.do("ada", "PUT", base+"/guilds/"+guild.ID.String()+"/members/"+cy.String(), nil, nil); code != 204 {
		t.Fatalf("add cy to the guild: %d", code)
	}

	// Refusals, each with the status of handlers/errors.go's table.
	refusals := []struct {
		name, as, method, path string
		body                   any
		want                   int
	}{
		{"an outsider reads the organisation", "dee", "GET", base, nil, 404},
		{"an outsider renames it", "dee", "PATCH", base, map[string]string{"name": "x"}, 404},
		{"an outsider invites", "dee", "POST", base + "/members", map[string]string{"email": "x@example.com"}, 404},
		{"an outsider makes an agent there", "dee", "POST", base + "/agents", map[string]string{"name": "x"}, 404},
		{"a malformed organisation id", "ada", "GET", "/api/orgs/not-a-uuid", nil, 404},
		{"an organisation that does not exist", "ada", "GET", "/api/orgs/" + uuid.NewString(), nil, 404},
		{"another organisation's guild through this one", "ada", "GET", base + "/guilds/" + deeGuild.ID.String(), nil, 404},
		{"another organisation's agent through this one", "ada", "PATCH", base + "/agents/" + deeAgent.ID.String(), map[string]string{"name": "x"}, 404},
		{"another organisation's agent's key", "ada", "POST", base + "/agents/" + deeAgent.ID.String() + "/apikey", nil, 404},
		{"a member invites", "cy", "POST", base + "/members", map[string]string{"email": "x@example.com"}, 403},
		{"a member changes a role", "cy", "PATCH", base + "/members/" + cy.String(), map[string]string{"role": "admin"}, 403},
		{"a member makes a guild", "cy", "POST", base + "/guilds", map[string]string{"name": "Mine"}, 403},
		{"a member renames the organisation", "cy", "PATCH", base, map[string]string{"name": "x"}, 403},
		{"a member removes another", "cy", "DELETE", base + "/members/" + bob.String(), nil, 403},
		{"an admin makes an owner", "bob", "PATCH", base + "/members/" + cy.String(), map[string]string{"role": "owner"}, 403},
		{"an admin removes the owner", "bob", "DELETE", base + "/members/" + ada.String(), nil, 403},
		{"the last owner leaves", "ada", "DELETE", base + "/members/" + ada.String(), nil, 409},
		{"a guild name taken", "ada", "POST", base + "/guilds", map[string]string{"name": "research"}, 409},
		{"a member of the address again", "ada", "POST", base + "/members", map[string]string{"email": "cy@example.com"}, 409},
		{"an unknown role", "ada", "POST", base + "/members", map[string]string{"email": "x@example.com", "role": "boss"}, 400},
		{"not an address", "ada", "POST", base + "/members", map[string]string{"email": "nobody"}, 400},
		{"not JSON", "ada", "POST", base + "/guilds", "{", 400},
		{"an unknown field", "ada", "POST", base + "/guilds", map[string]string{"name": "x", "colour": "red"}, 400},
		{"an empty name", "ada", "POST", "/api/orgs", map[string]string{"name": "  "}, 400},
		{"an agent without a name", "cy", "POST", base + "/agents", map[string]string{}, 400},
		{"an agent in a guild the owner is not in", "bob", "POST", "/api/orgs/" + deeOrg.ID.String() + "/agents", map[string]string{"name": "x"}, 404},
		{"a non-member joins a guild", "ada", "PUT", base + "/guilds/" + guild.ID.String() + "/members/" + dee.String(), nil, 404},
		{"the default agent is deleted", "ada", "DELETE", "/api/orgs/" + organization.PersonalOrganizationID(ada).String() + "/agents/" + organization.DefaultAgentID(ada).String(), nil, 409},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			var e struct{ Error, Message string }
			if code := h.do(tt.as, tt.method, tt.path, tt.body, &e); code != tt.want || e.Error == "" || e.Message == "" {
				t.Fatalf("%s %s: %d %+v, want %d with an error body", tt.method, tt.path, code, e, tt.want)
			}
		})
	}

	// An invitation is withdrawn by its address, escaped as a browser sends it; a second time it is gone.
	if code := h.do("bob", "DELETE", base+"/invitations/new%40example.com", nil, nil); code != 204 {
		t.Fatalf("withdraw the invitation: %d", code)
	}
	if code := h.do("bob", "DELETE", base+"/invitations/new@example.com", nil, nil); code != 404 {
		t.Fatalf("withdraw it again: %d, want 404", code)
	}
	if code := h.do("bob", "POST", base+"/members", map[string]string{"email": "new@example.com"}, &invited); code != 201 || invited.Status != "invited" {
		t.Fatalf("invite the address again: %d %+v", code, invited)
	}

	// Cy's agent in the guild, with its own key: the key authenticates as that agent.
	var crawler agentJSON
	if code := h.do("cy", "POST", base+"/agents", map[string]string{"name": "crawler", "guild_id": guild.ID.String()}, &crawler); code != 201 || crawler.GuildID == nil || *crawler.GuildID != guild.ID || crawler.APIKey != nil {
		t.Fatalf("create agent: %d %+v", code, crawler)
	}
	agentPath := base + "/agents/" + crawler.ID.String()
	if code := h.do("ada", "POST", agentPath+"/apikey", nil, nil); code != 403 {
		t.Fatalf("the owner of the organisation mints cy's agent's key: %d, want 403", code)
	}
	var key struct{ Key, Prefix string }
	if code := h.do("cy", "POST", agentPath+"/apikey", nil, &key); code != 201 || key.Key == "" {
		t.Fatalf("mint the agent's key: %d", code)
	}
	req := httptest.NewRequest("GET", "/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+key.Key)
	p, err := authn.APIKeys{Reader: identityrm.Reader{DB: h.db.DB}}.Authenticate(req)
	if err != nil || p.AgentID != crawler.ID || p.UserID != cy.String() {
		t.Fatalf("the agent's key authenticates as %+v, %v; want agent %s", p, err, crawler.ID)
	}
	chain, err := h.orgs.Reader().Chain(h.ctx, p.AgentID)
	if err != nil || chain != (organizationsrm.Chain{OrganizationID: acme.ID, GuildID: guild.ID, AgentID: crawler.ID}) {
		t.Fatalf("chain: %+v %v", chain, err)
	}
	// Cy's default key still acts as her default agent.
	req.Header.Set("Authorization", "Bearer "+h.keys["cy"])
	if p, err := (authn.APIKeys{Reader: identityrm.Reader{DB: h.db.DB}}).Authenticate(req); err != nil || p.AgentID != organization.DefaultAgentID(cy) {
		t.Fatalf("cy's first key: %+v %v", p, err)
	}

	// The organisation page lists the agent with its key's prefix; invitations only to managers.
	var page struct {
		Members     []struct{ Email, Role string }
		Invitations []struct{ Email string }
		Guilds      []struct{ Name string }
		Agents      []agentJSON
	}
	if code := h.do("bob", "GET", base, nil, &page); code != 200 || len(page.Members) != 3 || len(page.Invitations) != 1 || len(page.Guilds) != 1 || len(page.Agents) != 1 ||
		page.Agents[0].APIKey == nil || page.Agents[0].APIKey.Prefix != key.Prefix {
		t.Fatalf("organisation page for an admin: %d %+v", code, page)
	}
	if code := h.do("cy", "GET", base, nil, &page); code != 200 || len(page.Invitations) != 0 {
		t.Fatalf("organisation page for a member: %d %+v", code, page)
	}

	// Deleting the guild keeps the agent, in no guild; removing Cy deletes it and its key stops.
	if code := h.do("bob", "DELETE", base+"/guilds/"+guild.ID.String(), nil, nil); code != 204 {
		t.Fatalf("delete guild: %d", code)
	}
	if code := h.do("cy", "PATCH", agentPath, map[string]string{"name": "spider"}, &crawler); code != 200 || crawler.Name != "spider" || crawler.GuildID != nil {
		t.Fatalf("rename after the guild went: %d %+v", code, crawler)
	}
	if code := h.do("bob", "DELETE", base+"/members/"+cy.String(), nil, nil); code != 204 {
		t.Fatalf("remove cy: %d", code)
	}
	if code := h.do("cy", "GET", base, nil, nil); code != 404 {
		t.Fatalf("a removed member reads the organisation: %d, want 404", code)
	}
	req.Header.Set("Authorization", "Bearer "+key.Key)
	if _, err := (authn.APIKeys{Reader: identityrm.Reader{DB: h.db.DB}}).Authenticate(req); err == nil {
		t.Fatal("the deleted agent's key still authenticates after the removal was answered")
	}
}

// A database that cannot be reached is 503 with Retry-After, never 401 or 404.
func TestStorageFailureIsUnavailable(t *testing.T) {
	h := setup(t)
	h.db.DB.Close()
	for _, path := range []string{"/api/orgs", "/api/orgs/" + organization.PersonalOrganizationID(h.users["ada"]).String()} {
		req, _ := http.NewRequestWithContext(h.ctx, "GET", h.base+path, nil)
		req.Header.Set("Authorization", "Bearer "+h.keys["ada"])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
			t.Errorf("GET %s with the database closed: %d (Retry-After %q), want 503", path, resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
}

// An owner or admin cannot move a member's agent into a guild the member is not in: the move is
// refused as the member's own creation there is, with the same status and message.
func TestMoveAgentHeldToOwnersGuilds(t *testing.T) {
	h := setup(t)
	ada, cy := h.users["ada"], h.users["cy"]
	var acme orgJSON
	if code := h.do("ada", "POST", "/api/orgs", map[string]string{"name": "Acme"}, &acme); code != 201 {
		t.Fatalf("create: %d", code)
	}
	base := "/api/orgs/" + acme.ID.String()
	if _, err := h.orgs.Invite(h.ctx, ada, acme.ID, "cy@example.com", organization.RoleMember, eventstore.Metadata{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	h.join("cy", acme.ID)
	var guild struct{ ID uuid.UUID }
	if code := h.do("ada", "POST", base+"/guilds", map[string]string{"name": "Secret"}, &guild); code != 201 {
		t.Fatalf("create guild: %d", code)
	}
	var created struct{ Error, Message string }
	code := h.do("cy", "POST", base+"/agents", map[string]string{"name": "bot", "guild_id": guild.ID.String()}, &created)
	if code != 403 {
		t.Fatalf("cy creates an agent in a guild she is not in: %d %+v, want 403", code, created)
	}
	var agent agentJSON
	if code := h.do("cy", "POST", base+"/agents", map[string]string{"name": "bot"}, &agent); code != 201 {
		t.Fatalf("cy's agent: %d", code)
	}
	var moved struct{ Error, Message string }
	code = h.do("ada", "PATCH", base+"/agents/"+agent.ID.String(), map[string]string{"guild_id": guild.ID.String()}, &moved)
	if code != 403 || moved.Error != created.Error || strings.TrimPrefix(moved.Message, "move agent") != strings.TrimPrefix(created.Message, "create agent") {
		t.Fatalf("the owner moves cy's agent into a guild cy is not in: %d %+v, want 403 %+v", code, moved, created)
	}
	// Once cy is in the guild, the move is allowed.
	if code := h.do("ada", "PUT", base+"/guilds/"+guild.ID.String()+"/members/"+cy.String(), nil, nil); code != 204 {
		t.Fatalf("add cy to the guild: %d", code)
	}
	if code := h.do("ada", "PATCH", base+"/agents/"+agent.ID.String(), map[string]string{"guild_id": guild.ID.String()}, &agent); code != 200 || agent.GuildID == nil || *agent.GuildID != guild.ID {
		t.Fatalf("move into cy's guild: %d %+v", code, agent)
	}
}

// Invitations (issue 24, item 7): an invitation answers the same whether the address has an account
// or not, and says nothing about it; nobody is a member before accepting; the invitee, and only the
// invitee, accepts or declines in the portal, also when her account was made after the invitation.
func TestInvitationsWaitForTheInviteesAnswer(t *testing.T) {
	h := setup(t)
	var acme orgJSON
	if code := h.do("ada", "POST", "/api/orgs", map[string]string{"name": "Acme"}, &acme); code != 201 {
		t.Fatalf("create: %d", code)
	}
	base := "/api/orgs/" + acme.ID.String()

	// An address with an account and one without: the same answer, the address aside.
	codeBob, bodyBob := h.raw("ada", "POST", base+"/members", map[string]string{"email": "bob@example.com"})
	codeZed, bodyZed := h.raw("ada", "POST", base+"/members", map[string]string{"email": "zed@example.com"})
	if codeBob != 201 || codeBob != codeZed || strings.ReplaceAll(string(bodyBob), "bob@", "x@") != strings.ReplaceAll(string(bodyZed), "zed@", "x@") ||
		strings.Contains(string(bodyBob), h.users["bob"].String()) || strings.Contains(string(bodyBob), "user_id") {
		t.Fatalf("invitations differ by account: %d %s / %d %s", codeBob, bodyBob, codeZed, bodyZed)
	}
	for _, email := range []string{"cy@example.com", "dee@example.com"} {
		if code := h.do("ada", "POST", base+"/members", map[string]string{"email": email, "role": "admin"}, nil); code != 201 {
			t.Fatalf("invite %s: %d", email, code)
		}
	}
	// Nobody joined: the invitees do not see the organisation; the admin sees four pending.
	for _, name := range []string{"bob", "cy", "dee"} {
		if code := h.do(name, "GET", base, nil, nil); code != 404 {
			t.Fatalf("%s reads the organisation before accepting: %d, want 404", name, code)
		}
	}
	var page struct {
		Members     []struct{ Email string }
		Invitations []struct {
			ID    uuid.UUID
			Email string
		}
	}
	if code := h.do("ada", "GET", base, nil, &page); code != 200 || len(page.Members) != 1 || len(page.Invitations) != 4 {
		t.Fatalf("the admin's page: %d %+v", code, page)
	}
	bobs := h.pending("bob")
	if len(bobs) != 1 || bobs[0].OrganizationID != acme.ID || bobs[0].OrganizationName != "Acme" || bobs[0].Role != "member" {
		t.Fatalf("bob's invitations: %+v", bobs)
	}
	accept := "/api/orgs/invitations/" + bobs[0].ID.String() + "/accept"

	// Only bob, and only in the portal: his API key (what his agents hold) is refused, and another
	// user is told exactly what an unknown id tells.
	if code := h.do("bob", "POST", accept, nil, nil); code != 403 {
		t.Fatalf("accept with an API key: %d, want 403", code)
	}
	unknown := uuid.NewString()
	for _, verb := range []string{"accept", "decline"} {
		codeOther, other := h.raw("web:cy", "POST", "/api/orgs/invitations/"+bobs[0].ID.String()+"/"+verb, nil)
		codeNone, none := h.raw("web:cy", "POST", "/api/orgs/invitations/"+unknown+"/"+verb, nil)
		if codeOther != 404 || codeOther != codeNone || strings.ReplaceAll(string(other), bobs[0].ID.String(), "ID") != strings.ReplaceAll(string(none), unknown, "ID") {
			t.Fatalf("cy %ss bob's invitation: %d %s; an unknown one: %d %s", verb, codeOther, other, codeNone, none)
		}
	}
	var joined orgJSON
	if code := h.do("web:bob", "POST", accept, nil, &joined); code != 200 || joined.ID != acme.ID || joined.Role != "member" {
		t.Fatalf("bob accepts: %d %+v", code, joined)
	}
	if code := h.do("bob", "GET", base, nil, nil); code != 200 {
		t.Fatalf("bob reads the organisation after accepting: %d", code)
	}
	if code := h.do("web:bob", "POST", accept, nil, nil); code != 404 {
		t.Fatalf("accept twice: %d, want 404", code)
	}

	// Dee declines: no membership, the invitation is gone, and it cannot be accepted afterwards.
	dees := h.pending("dee")
	if len(dees) != 1 {
		t.Fatalf("dee's invitations: %+v", dees)
	}
	if code := h.do("web:dee", "POST", "/api/orgs/invitations/"+dees[0].ID.String()+"/decline", nil, nil); code != 204 {
		t.Fatalf("dee declines: %d", code)
	}
	if code := h.do("web:dee", "POST", "/api/orgs/invitations/"+dees[0].ID.String()+"/accept", nil, nil); code != 404 {
		t.Fatalf("accept after declining: %d, want 404", code)
	}
	if code := h.do("dee", "GET", base, nil, nil); code != 404 || len(h.pending("dee")) != 0 {
		t.Fatalf("dee after declining: %d", code)
	}

	// Zed's account is made after the invitation: once signed in, she sees it and accepts it.
	md := eventstore.Metadata{Actor: "test"}
	zed, _, _, err := h.acc.EnsureUser(h.ctx, "zed@example.com", "", md)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.orgs.SignedIn(h.ctx, zed.ID, zed.Email, md); err != nil {
		t.Fatal(err)
	}
	h.users["zed"] = zed.ID
	h.waitUser(zed.ID)
	h.join("zed", acme.ID)
	if code := h.do("ada", "GET", base, nil, &page); code != 200 || len(page.Members) != 3 || len(page.Invitations) != 1 || page.Invitations[0].Email != "cy@example.com" {
		t.Fatalf("the admin's page at the end: %d %+v", code, page)
	}
}

// waitUser waits until the identity read model has the user, whom a portal session names.
func (h *harness) waitUser(id uuid.UUID) {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := (identityrm.Reader{DB: h.db.DB}).UserByID(h.ctx, id); err == nil {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("the identity read model never listed user %s", id)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A log written before invitations had to be accepted reads as it did: a member added at once and an
// invitee who signed in are members; a pending invitation stays pending, now for its invitee to accept.
func TestOldMembershipEventsKeepTheirMeaning(t *testing.T) {
	h := setup(t)
	ada, bob, dee := h.users["ada"], h.users["bob"], h.users["dee"]
	org := uuid.New()
	at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	old := []struct {
		typ  string
		data any
	}{
		{organization.TypeOrganizationCreated, map[string]any{"organization_id": org, "name": "Legacy", "created_by": ada, "created_at": at}},
		{organization.TypeMemberAdded, map[string]any{"organization_id": org, "user_id": ada, "email": "ada@example.com", "role": "owner", "added_by": ada, "at": at}},
		{organization.TypeMemberAdded, map[string]any{"organization_id": org, "user_id": bob, "email": "bob@example.com", "role": "admin", "added_by": ada, "at": at}},
		{organization.TypeMemberInvited, map[string]any{"organization_id": org, "email": "dee@example.com", "role": "member", "invited_by": ada, "at": at}},
		{organization.TypeMemberAdded, map[string]any{"organization_id": org, "user_id": dee, "email": "dee@example.com", "role": "member", "added_by": ada, "invited": true, "at": at}},
		{organization.TypeMemberInvited, map[string]any{"organization_id": org, "email": "cy@example.com", "role": "member", "invited_by": ada, "at": at}},
	}
	var evs []eventstore.EventData
	for _, o := range old {
		b, err := json.Marshal(o.data)
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, eventstore.EventData{ID: uuid.New(), Type: o.typ, SchemaVersion: 1, Data: b, Metadata: eventstore.Metadata{Actor: "test", Time: at}})
	}
	if _, err := h.db.Store.Append(h.ctx, organization.StreamName(org), eventstore.NoStream, evs...); err != nil {
		t.Fatal(err)
	}
	base := "/api/orgs/" + org.String()
	var page struct {
		Members     []struct{ Email, Role string }
		Invitations []struct{ Email string }
	}
	deadline := time.Now().Add(10 * time.Second)
	for h.do("ada", "GET", base, nil, &page) != 200 {
		if time.Now().After(deadline) {
			t.Fatal("the read model never showed the legacy organisation")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(page.Members) != 3 || page.Members[0].Email != "ada@example.com" || page.Members[1].Role != "admin" || page.Members[2].Email != "dee@example.com" ||
		len(page.Invitations) != 1 || page.Invitations[0].Email != "cy@example.com" {
		t.Fatalf("the legacy organisation: %+v", page)
	}
	for _, name := range []string{"bob", "dee"} {
		if code := h.do(name, "GET", base, nil, nil); code != 200 {
			t.Fatalf("%s, a member in the old log: %d", name, code)
		}
	}
	if st, err := h.orgs.State(h.ctx, org); err != nil || len(st.Members) != 3 || len(st.Invitations) != 1 {
		t.Fatalf("the folded state: %+v %v", st, err)
	}
	h.join("cy", org)
	if code := h.do("cy", "GET", base, nil, nil); code != 200 {
		t.Fatalf("cy after accepting the old invitation: %d", code)
	}
}

// A body over the routes' cap is 413 with the JSON error, not 400.
func TestOversizedBodyIs413(t *testing.T) {
	h := setup(t)
	var out map[string]any
	code := h.do("ada", "POST", "/api/orgs", map[string]string{"name": strings.Repeat("a", 16<<10)}, &out)
	if code != http.StatusRequestEntityTooLarge || out["error"] != "invalid" {
		t.Fatalf("oversized body: %d %v", code, out)
	}
}

// Erasing a user leaves her address readable in no event of the log: not in the invitations of it
// (pending, accepted, declined, revoked), not in her membership; the admin's page shows a pending
// invitation of it as erased, and the address can be invited again.
func TestErasedInviteeLeavesNoAddressInTheLog(t *testing.T) {
	h := setup(t)
	md := eventstore.Metadata{Actor: "test"}
	var orgsByName = map[string]uuid.UUID{}
	for _, name := range []string{"Acme", "Beta", "Gamma", "Delta"} {
		var o orgJSON
		if code := h.do("ada", "POST", "/api/orgs", map[string]string{"name": name}, &o); code != 201 {
			t.Fatalf("create %s: %d", name, code)
		}
		orgsByName[name] = o.ID
		if code := h.do("ada", "POST", "/api/orgs/"+o.ID.String()+"/members", map[string]string{"email": "Zoe@Example.com"}, nil); code != 201 {
			t.Fatalf("invite zoe to %s: %d", name, code)
		}
	}
	gamma := "/api/orgs/" + orgsByName["Gamma"].String()
	var page struct {
		Invitations []struct {
			ID     uuid.UUID
			Email  string
			Erased bool
		}
	}
	if code := h.do("ada", "GET", gamma, nil, &page); code != 200 || len(page.Invitations) != 1 || page.Invitations[0].Email != "zoe@example.com" || page.Invitations[0].Erased {
		t.Fatalf("the admin's page lists the invitation by its address: %d %+v", code, page)
	}
	if code := h.do("ada", "DELETE", gamma+"/invitations/zoe@example.com", nil, nil); code != 204 {
		t.Fatalf("revoke zoe's invitation to Gamma: %d", code)
	}
	// Zoe signs up after the invitations: she accepts Acme's, declines Beta's; Delta's stays pending.
	zoe, _, _, err := h.acc.EnsureUser(h.ctx, "zoe@example.com", "", md)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.orgs.SignedIn(h.ctx, zoe.ID, zoe.Email, md); err != nil {
		t.Fatal(err)
	}
	h.users["zoe"] = zoe.ID
	h.waitUser(zoe.ID)
	if got := h.pending("zoe"); len(got) != 3 {
		t.Fatalf("zoe's pending invitations: %+v, want Acme, Beta and Delta", got)
	}
	h.join("zoe", orgsByName["Acme"])
	for _, inv := range h.pending("zoe") {
		if inv.OrganizationID == orgsByName["Beta"] {
			if code := h.do("web:zoe", "POST", "/api/orgs/invitations/"+inv.ID.String()+"/decline", nil, nil); code != 204 {
				t.Fatalf("zoe declines Beta: %d", code)
			}
		}
	}
	if got := h.pending("zoe"); len(got) != 1 || got[0].OrganizationID != orgsByName["Delta"] {
		t.Fatalf("zoe's pending invitations: %+v, want Delta's", got)
	}
	if code := h.do("web:zoe", "GET", "/api/orgs/"+orgsByName["Acme"].String(), nil, nil); code != 200 {
		t.Fatalf("zoe reads Acme after accepting: %d", code)
	}

	eraser := &compliance.Eraser{Store: h.db.Store, Vault: h.vault, PseudonymKey: bytes.Repeat([]byte("p"), 32), InviteeKey: inviteeKey}
	erased, err := eraser.EraseUser(h.ctx, "zoe@example.com", md)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.runner.WaitFor(h.ctx, erased.Position); err != nil {
		t.Fatal(err)
	}
	for pos := eventstore.Start; ; {
		envs, err := h.db.Store.ReadAll(h.ctx, pos, 500)
		if err != nil {
			t.Fatal(err)
		}
		if len(envs) == 0 {
			break
		}
		for _, env := range envs {
			for _, addr := range []string{"zoe@example.com", "Zoe@Example.com", "zoe@"} {
				if bytes.Contains(bytes.ToLower(env.Data), []byte(strings.ToLower(addr))) {
					t.Errorf("%s at %v holds %q after the erasure: %s", env.Type, env.Position, addr, env.Data)
				}
			}
		}
		pos = envs[len(envs)-1].Position
	}
	delta := "/api/orgs/" + orgsByName["Delta"].String()
	if code := h.do("ada", "GET", delta, nil, &page); code != 200 || len(page.Invitations) != 1 || !page.Invitations[0].Erased ||
		!strings.HasPrefix(page.Invitations[0].Email, "erased-") {
		t.Fatalf("Delta's pending invitation after the erasure: %d %+v, want it shown as erased", code, page)
	}
	// The admin withdraws it by its id (its address is gone); a plain member cannot.
	if code := h.do("ada", "DELETE", delta+"/invitations/"+page.Invitations[0].ID.String(), nil, nil); code != 204 {
		t.Fatalf("withdraw the erased address's invitation by id: %d", code)
	}
	if code := h.do("ada", "GET", delta, nil, &page); code != 200 || len(page.Invitations) != 0 {
		t.Fatalf("Delta's invitations after the withdrawal: %d %+v", code, page)
	}
	if code := h.do("ada", "DELETE", delta+"/invitations/"+uuid.NewString(), nil, nil); code != 404 {
		t.Fatalf("withdraw an unknown invitation id: %d, want 404", code)
	}
	// The erased address can be invited again, with the answer any address gets.
	if code := h.do("ada", "POST", "/api/orgs/"+orgsByName["Gamma"].String()+"/members", map[string]string{"email": "zoe@example.com"}, nil); code != 201 {
		t.Fatalf("invite the erased address again: %d", code)
	}
}

// An invitation an older log holds in clear stays pending after the erasure of another address, and
// leaves the read model when the user of its address is erased (the log keeps it as it was).
func TestOldInvitationOfAnErasedAddressLeavesTheReadModel(t *testing.T) {
	h := setup(t)
	ada := h.users["ada"]
	org := uuid.New()
	at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	var evs []eventstore.EventData
	for _, o := range []struct {
		typ  string
		data any
	}{
		{organization.TypeOrganizationCreated, map[string]any{"organization_id": org, "name": "Legacy", "created_by": ada, "created_at": at}},
		{organization.TypeMemberAdded, map[string]any{"organization_id": org, "user_id": ada, "email": "ada@example.com", "role": "owner", "added_by": ada, "at": at}},
		{organization.TypeMemberInvited, map[string]any{"organization_id": org, "email": "cy@example.com", "role": "member", "invited_by": ada, "at": at}},
		{organization.TypeMemberInvited, map[string]any{"organization_id": org, "email": "dee@example.com", "role": "admin", "invited_by": ada, "at": at}},
	} {
		b, err := json.Marshal(o.data)
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, eventstore.EventData{ID: uuid.New(), Type: o.typ, SchemaVersion: 1, Data: b, Metadata: eventstore.Metadata{Actor: "test", Time: at}})
	}
	if _, err := h.db.Store.Append(h.ctx, organization.StreamName(org), eventstore.NoStream, evs...); err != nil {
		t.Fatal(err)
	}
	base := "/api/orgs/" + org.String()
	var page struct {
		Invitations []struct{ Email string }
	}
	deadline := time.Now().Add(10 * time.Second)
	for h.do("ada", "GET", base, nil, &page) != 200 || len(page.Invitations) != 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the read model never showed the legacy invitations: %+v", page)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := h.pending("dee"); len(got) != 1 || got[0].OrganizationID != org || got[0].Role != "admin" {
		t.Fatalf("dee's pending invitation from the old log: %+v", got)
	}
	md := eventstore.Metadata{Actor: "test"}
	eraser := &compliance.Eraser{Store: h.db.Store, Vault: h.vault, PseudonymKey: bytes.Repeat([]byte("p"), 32), InviteeKey: inviteeKey}
	erased, err := eraser.EraseUser(h.ctx, "dee@example.com", md)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.runner.WaitFor(h.ctx, erased.Position); err != nil {
		t.Fatal(err)
	}
	if code := h.do("ada", "GET", base, nil, &page); code != 200 || len(page.Invitations) != 1 || page.Invitations[0].Email != "cy@example.com" {
		t.Fatalf("the legacy invitations after dee's erasure: %d %+v, want cy's alone", code, page)
	}
	h.join("cy", org)
	if code := h.do("cy", "GET", base, nil, nil); code != 200 {
		t.Fatalf("cy after accepting the old invitation: %d", code)
	}
}
