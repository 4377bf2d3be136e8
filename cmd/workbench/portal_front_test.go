package main

// The server the portal's browser tests talk to. It is Main, served as usual, behind a small front
// that fills in what Main does not serve yet:
//
//   - the portal itself, until Serve mounts portal.Handler as the router's NotFound fallback;
//   - the routes of the issue-4 HTTP contract that engineers (A) and (B) are still building
//     (/api/me, /api/auth/*, /api/apikey*, /api/integrations list/logo/connect, /api/mcp-clients*,
//     /auth/link/{token}), as stand-ins built on Main's real services (accounts, credentials,
//     plugins, sessions), so the data the browser sees is real.
//
// Each stand-in is used only while Main answers its probe with the router's "no API route" 404, so
// once the real route is mounted the front forwards to it and the stand-in retires by itself;
// t.Log says which pieces were stand-ins. Once every piece has landed the front is a plain reverse
// proxy and this file can go.

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identity"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/internal/accounts"
	"github.com/workbench/workbench/portal"
)

// standinClient is an MCP client as GET /api/mcp-clients lists it.
type standinClient struct {
	ClientID     string    `json:"client_id"`
	ClientName   string    `json:"client_name"`
	RedirectHost string    `json:"redirect_host"`
	Scopes       []string  `json:"scopes"`
	CreatedAt    time.Time `json:"created_at"`
	LastUsedAt   time.Time `json:"last_used_at"`
}

// portalFront is the front server: Base is its URL and the server's SERVER_PUBLIC_URL.
type portalFront struct {
	Base    string
	srv     *e2eServer
	ln      net.Listener
	standIn []string // what the front served itself, for the log

	mu      sync.Mutex
	users   map[uuid.UUID]string // email by user, for the /api/me stand-in
	links   map[string]uuid.UUID // one-time sign-in tokens of the /auth/link stand-in
	clients map[uuid.UUID][]standinClient
}

// newPortalFront reserves the front's address; start it with serve once Main runs with
// SERVER_PUBLIC_URL = Base.
func newPortalFront(t *testing.T) *portalFront {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return &portalFront{Base: "http://" + ln.Addr().String(), ln: ln,
		users: map[uuid.UUID]string{}, links: map[string]uuid.UUID{}, clients: map[uuid.UUID][]standinClient{}}
}

// mainLacks reports whether Main answers method path with the router's catch-all "no API route" 404.
func (f *portalFront) mainLacks(t *testing.T, method, path string) bool {
	t.Helper()
	req, _ := http.NewRequest(method, f.srv.Base+path, nil)
	req.Header.Set("X-Workbench-CSRF", "1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode == http.StatusNotFound && strings.Contains(string(b), "no API route")
}

// mainServesPortal reports whether Main answers a client route with the app.
func (f *portalFront) mainServesPortal(t *testing.T) bool {
	t.Helper()
	resp, err := http.Get(f.srv.Base + "/integrations")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode == http.StatusOK && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html")
}

// serve starts the front for srv.
func (f *portalFront) serve(t *testing.T, srv *e2eServer) {
	t.Helper()
	f.srv = srv
	target, _ := url.Parse(srv.Base)
	proxy := httputil.NewSingleHostReverseProxy(target)
	r := chi.NewRouter()
	type route struct {
		method, pattern, probe string
		h                      http.HandlerFunc
	}
	routes := []route{
		{"GET", "/api/me", "/api/me", f.me},
		{"POST", "/api/auth/logout", "/api/auth/logout", f.logout},
		{"GET", "/api/auth/providers", "/api/auth/providers", f.providers},
		{"GET", "/api/apikey", "/api/apikey", f.getKey},
		{"POST", "/api/apikey", "/api/apikey", f.keyAction("mint")},
		{"POST", "/api/apikey/rotate", "/api/apikey/rotate", f.keyAction("rotate")},
		{"POST", "/api/apikey/reveal", "/api/apikey/reveal", f.keyAction("reveal")},
		{"DELETE", "/api/apikey", "/api/apikey", f.keyAction("revoke")},
		{"GET", "/api/integrations", "/api/integrations", f.integrations},
		{"GET", "/api/integrations/{name}/logo", "/api/integrations/acme/logo", f.logo},
		{"POST", "/api/integrations/{name}/connect", "/api/integrations/acme/connect", f.connect},
		{"GET", "/api/mcp-clients", "/api/mcp-clients", f.listClients},
		{"DELETE", "/api/mcp-clients/{id}", "/api/mcp-clients/x", f.revokeClient},
	}
	for _, rt := range routes {
		if f.mainLacks(t, rt.method, rt.probe) {
			r.Method(rt.method, rt.pattern, rt.h)
			f.standIn = append(f.standIn, rt.method+" "+rt.pattern)
		}
	}
	if !strings.Contains(srv.logs.tail(1<<20), "/auth/link/") {
		r.Get("/auth/link/{token}", f.signIn)
		f.standIn = append(f.standIn, "GET /auth/link/{token}")
	}
	var app http.Handler
	if !f.mainServesPortal(t) {
		h, err := portal.Handler(nil)
		if err != nil {
			t.Fatal(err)
		}
		app = h
		f.standIn = append(f.standIn, "portal.Handler (not mounted in Main)")
	}
	r.HandleFunc("/*", func(w http.ResponseWriter, req *http.Request) {
		// Main's fixed routes come first, as in handlers.NewRouter.
		fixed := req.URL.Path == "/healthz" || req.URL.Path == "/readyz" || req.URL.Path == "/metrics"
		if app != nil && !fixed && (portal.IsClientRoute(req.URL.Path) || strings.HasPrefix(req.URL.Path, "/assets/")) {
			app.ServeHTTP(w, req)
			return
		}
		proxy.ServeHTTP(w, req)
	})
	hs := &httptest.Server{Listener: f.ln, Config: &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}}
	hs.Start()
	t.Cleanup(hs.Close)
	if len(f.standIn) > 0 {
		t.Logf("the front served these itself (not in Main yet): %s", strings.Join(f.standIn, "; "))
	} else {
		t.Log("Main served everything; the front only forwarded")
	}
}

// signInLink returns a one-time sign-in URL for the user with email: the one Main printed in its
// log when it has the real route, else one of the stand-in's.
func (f *portalFront) signInLink(t *testing.T, email string) (link string, user uuid.UUID) {
	t.Helper()
	if !slices.Contains(f.standIn, "GET /auth/link/{token}") {
		logs := f.srv.logs.tail(1 << 20)
		i := strings.Index(logs, "/auth/link/")
		end := i + len("/auth/link/")
		for end < len(logs) && strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~", logs[end]) >= 0 {
			end++
		}
		return f.Base + logs[i:end], uuid.Nil
	}
	u := f.ensureUser(t, email)
	token := uuid.NewString()
	f.mu.Lock()
	f.links[token] = u
	f.mu.Unlock()
	return f.Base + "/auth/link/" + token, u
}

func (f *portalFront) ensureUser(t *testing.T, email string) uuid.UUID {
	t.Helper()
	u, _, pos, err := f.srv.M.Accounts.EnsureUser(context.Background(), email, "", domain.Metadata{Actor: "test", Time: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	f.srv.waitFor(t, pos)
	f.mu.Lock()
	f.users[u.ID] = u.Email
	f.mu.Unlock()
	return u.ID
}

func (f *portalFront) signIn(w http.ResponseWriter, r *http.Request) {
	token := chi.URLParam(r, "token")
	f.mu.Lock()
	u, ok := f.links[token]
	delete(f.links, token) // single use
	f.mu.Unlock()
	if !ok {
		http.Error(w, "this sign-in link is not valid or was used", http.StatusGone)
		return
	}
	if err := f.srv.M.Sessions.Issue(w, u); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	http.Redirect(w, r, "/", http.StatusFound)
}

// user answers 401 (and false) when r is not signed in.
func (f *portalFront) user(w http.ResponseWriter, r *http.Request) (uuid.UUID, bool) {
	u, ok := f.srv.M.Sessions.User(r)
	if !ok {
		handlers.WriteError(w, r, nil, domain.Errorf(domain.CodeUnauthenticated, "sign in to the workbench portal first"))
		return uuid.Nil, false
	}
	if r.Method != http.MethodGet && !f.srv.M.Sessions.SameOrigin(r) {
		handlers.WriteJSON(w, http.StatusForbidden, handlers.ErrorBody{Error: "CROSS_ORIGIN", Message: "cross-origin request"})
		return uuid.Nil, false
	}
	return u, true
}

func (f *portalFront) me(w http.ResponseWriter, r *http.Request) {
	u, ok := f.user(w, r)
	if !ok {
		return
	}
	f.mu.Lock()
	email := f.users[u]
	f.mu.Unlock()
	handlers.WriteJSON(w, http.StatusOK, map[string]string{"id": u.String(), "email": email, "display_name": ""})
}

func (f *portalFront) logout(w http.ResponseWriter, r *http.Request) {
	f.srv.M.Sessions.Clear(w)
	w.WriteHeader(http.StatusNoContent)
}

func (f *portalFront) providers(w http.ResponseWriter, r *http.Request) {
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"providers": []any{}})
}

var identityAgg = eventstore.Aggregate[identity.State, identity.Command, domain.Event]{
	Initial: identity.Initial, Evolve: identity.Evolve, Decide: identity.Decide,
	Codec: eventstore.NewJSONCodec(identity.Events()...),
}

func (f *portalFront) getKey(w http.ResponseWriter, r *http.Request) {
	u, ok := f.user(w, r)
	if !ok {
		return
	}
	st, _, err := eventstore.LoadState(r.Context(), f.srv.M.Store, identity.StreamName(u), identityAgg)
	if err != nil {
		handlers.WriteError(w, r, nil, err)
		return
	}
	k, ok := st.LiveKey()
	if !ok {
		handlers.WriteError(w, r, nil, domain.Errorf(domain.CodeNotFound, "you have no API key"))
		return
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"prefix": k.Prefix, "minted_at": k.MintedAt})
}

func (f *portalFront) keyAction(action string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u, ok := f.user(w, r)
		if !ok {
			return
		}
		ctx := r.Context()
		md := domain.Metadata{Actor: u.String(), OnBehalfOf: u.String(), Time: time.Now().UTC()}
		accts := f.srv.M.Accounts
		var pos eventstore.Position
		var secret, prefix string
		var err error
		switch action {
		case "mint", "rotate":
			mint := accts.MintKey
			if action == "rotate" {
				mint = accts.RotateKey
			}
			var key accounts.Key
			key, pos, err = mint(ctx, u, md)
			secret, prefix = key.Secret, key.Prefix
		case "reveal":
			key, e := accts.RevealKey(ctx, u)
			secret, prefix, err = key.Secret, key.Prefix, e
		case "revoke":
			pos, err = accts.RevokeKey(ctx, u, md)
		}
		if err != nil {
			handlers.WriteError(w, r, nil, err)
			return
		}
		// Read your writes: the key works, or stops working, at /mcp before the answer.
		if err := f.srv.M.Runner.WaitFor(ctx, pos); err != nil {
			handlers.WriteError(w, r, nil, err)
			return
		}
		switch action {
		case "revoke":
			w.WriteHeader(http.StatusNoContent)
		case "mint":
			handlers.WriteJSON(w, http.StatusCreated, map[string]string{"key": secret, "prefix": prefix})
		default:
			handlers.WriteJSON(w, http.StatusOK, map[string]string{"key": secret, "prefix": prefix})
		}
	}
}

type standinField struct {
	Name        string `json:"name"`
	Label       string `json:"label"`
	Secret      bool   `json:"secret"`
	Optional    bool   `json:"optional"`
	Placeholder string `json:"placeholder"`
}

func (f *portalFront) integrations(w http.ResponseWriter, r *http.Request) {
	u, ok := f.user(w, r)
	if !ok {
		return
	}
	connected, err := f.srv.M.Credentials.Connected(r.Context(), u)
	if err != nil {
		handlers.WriteError(w, r, nil, err)
		return
	}
	out := []map[string]any{}
	for _, in := range f.srv.M.Plugins.Integrations() {
		if strings.HasPrefix(in.Name, "workbench") {
			continue
		}
		logo := in.Logo
		if len(in.LogoSVG) > 0 {
			logo = "/api/integrations/" + in.Name + "/logo"
		}
		fields := []standinField{}
		if in.Auth.APIKey != nil {
			for _, fl := range in.Auth.APIKey.Fields {
				fields = append(fields, standinField(fl))
			}
		}
		status := "not_connected"
		if connected[in.Name] {
			status = "connected"
		}
		out = append(out, map[string]any{"name": in.Name, "display_name": in.DisplayName, "description": in.Description,
			"auth_mode": in.Auth.Mode, "categories": in.Categories, "logo_url": logo, "connected": connected[in.Name],
			"status": status, "account_hint": "", "fields": fields})
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"integrations": out})
}

func (f *portalFront) logo(w http.ResponseWriter, r *http.Request) {
	in, ok := f.srv.M.Plugins.Integration(chi.URLParam(r, "name"))
	if !ok || len(in.LogoSVG) == 0 {
		handlers.WriteError(w, r, nil, domain.Errorf(domain.CodeNotFound, "no logo"))
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write(in.LogoSVG) //nolint:errcheck
}

// connect is the portal-initiated connect: start an attempt and redeem its claim at once for the
// signed-in user.
func (f *portalFront) connect(w http.ResponseWriter, r *http.Request) {
	u, ok := f.user(w, r)
	if !ok {
		return
	}
	creds := f.srv.M.Credentials
	res, err := creds.Connect(r.Context(), u, chi.URLParam(r, "name"))
	if err != nil {
		handlers.WriteError(w, r, nil, err)
		return
	}
	token := res.URL[strings.LastIndex(res.URL, "/connect/")+len("/connect/"):]
	red, err := creds.Redeem(r.Context(), u, token)
	if err != nil {
		handlers.WriteError(w, r, nil, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]string{"type": red.Type, "url": red.URL})
}

func (f *portalFront) seedClient(user uuid.UUID, c standinClient) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.clients[user] = append(f.clients[user], c)
}

func (f *portalFront) listClients(w http.ResponseWriter, r *http.Request) {
	u, ok := f.user(w, r)
	if !ok {
		return
	}
	f.mu.Lock()
	list := append([]standinClient{}, f.clients[u]...)
	f.mu.Unlock()
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"clients": list})
}

func (f *portalFront) revokeClient(w http.ResponseWriter, r *http.Request) {
	u, ok := f.user(w, r)
	if !ok {
		return
	}
	id := chi.URLParam(r, "id")
	f.mu.Lock()
	n := len(f.clients[u])
	f.clients[u] = slices.DeleteFunc(f.clients[u], func(c standinClient) bool { return c.ClientID == id })
	gone := n != len(f.clients[u])
	f.mu.Unlock()
	if !gone {
		handlers.WriteError(w, r, nil, domain.Errorf(domain.CodeNotFound, "no such client %q", id))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
