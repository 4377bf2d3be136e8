package main

// Three replicas as processes: the binary built once (compatBinary), three `workbench serve` on three
// loopback ports over one PostgreSQL database (internal/testenv) with NATS as the bus
// (WORKBENCH_TEST_NATS_URL). Skipped without PostgreSQL or NATS; under CI=true their absence fails.

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/app/jots/jotstest"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/internal/config"
	"github.com/workbench/workbench/internal/testenv"
)

// replica is one `workbench serve` process.
type replica struct {
	name string
	base string
	port int    // 0 until it first starts (then kept across restarts)
	dir  string // its working directory (and so its ./data), kept across restarts
	cmd  *exec.Cmd
	logs *syncBuffer
	done chan struct{} // closed when the process has exited; err is then its exit
	err  error
}

// cluster is a database, a bus prefix and the replicas serving them, plus an in-process Main on the
// same database (not serving) that created the schema and mints users, keys and portal cookies.
type cluster struct {
	t        *testing.T
	bin      string
	env      map[string]string
	public   string
	replicas []*replica
	admin    *Main
}

// freePort reserves nothing: it asks the kernel for a free loopback port and releases it at once.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// newCluster prepares n replicas' settings (the first one's URL is every replica's SERVER_PUBLIC_URL,
// as behind one load balancer) and migrates the database; extra is added to every replica's env.
func newCluster(t *testing.T, n int, extra map[string]string) *cluster {
	t.Helper()
	natsURL := natsURLOrSkip(t)
	var dbURL string
	if u, ok := extra["DATABASE_URL"]; ok {
		dbURL = u // a private cluster the test stops and starts
	} else {
		// Several replicas hold tens of connections to the shared PostgreSQL server between them
		// (max_connections 100): one such cluster at a time on the machine, each replica's pool small.
		testenv.Exclusive(t, "postgres-replicas")
		dbURL = testenv.PostgresURL(t)
	}
	bin := compatBinary(t)
	// The first replica's port is every replica's public URL; the others get theirs when they start
	// (a port picked long before its use may be taken by then).
	firstPort := freePort(t)
	public := fmt.Sprintf("http://127.0.0.1:%d", firstPort)
	env := map[string]string{
		"DATABASE_URL": dbURL, "ENCRYPTION_KEY": testEncryptionKey, "SERVER_PUBLIC_URL": public,
		"BUS_URL": natsURL, "BUS_NATS_PREFIX": natsPrefix(t, natsURL), "HOST": "127.0.0.1",
		"MAX_CONNS_PER_CLIENT": "0", "LOG_LEVEL": "info", "DATABASE_MAX_CONNS": "4",
	}
	for k, v := range extra {
		env[k] = v
	}
	cfg, err := config.FromEnv(envFunc(env))
	if err != nil {
		t.Fatal(err)
	}
	admin := NewMain(cfg, slog.New(slog.DiscardHandler))
	admin.Getenv = envFunc(env)
	if err := admin.Open(context.Background()); err != nil {
		admin.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	c := &cluster{t: t, bin: bin, env: env, public: public, admin: admin}
	for i := range n {
		r := &replica{name: string(rune('A' + i))}
		if i == 0 {
			r.port = firstPort
		}
		c.replicas = append(c.replicas, r)
	}
	return c
}

// start starts every replica and waits until each answers /readyz.
func (c *cluster) start() {
	c.t.Helper()
	for _, r := range c.replicas {
		c.startReady(r)
	}
}

func (c *cluster) startReplica(r *replica) {
	c.t.Helper()
	if r.port == 0 {
		r.port = freePort(c.t)
	}
	r.base = fmt.Sprintf("http://127.0.0.1:%d", r.port)
	env := []string{fmt.Sprintf("PORT=%d", r.port)}
	for k, v := range c.env {
		env = append(env, k+"="+v)
	}
	r.logs = &syncBuffer{}
	if r.dir == "" {
		r.dir = c.t.TempDir()
	}
	r.cmd = exec.Command(c.bin, "serve")
	r.cmd.Dir, r.cmd.Env = r.dir, env
	r.cmd.Stdout, r.cmd.Stderr = r.logs, r.logs
	if err := r.cmd.Start(); err != nil {
		c.t.Fatalf("start replica %s: %v", r.name, err)
	}
	done := make(chan struct{})
	r.done = done
	go func(cmd *exec.Cmd) { r.err = cmd.Wait(); close(done) }(r.cmd)
	c.t.Cleanup(func() {
		c.stop(r)
		if c.t.Failed() {
			c.t.Logf("replica %s log (tail):\n%s", r.name, r.logs.tail(6<<10))
		}
	})
}

// startReady starts r and waits until it is ready. A replica other than the first whose port was
// taken in the meantime (by anything on the machine) is started again on another port.
func (c *cluster) startReady(r *replica) {
	c.t.Helper()
	for attempt := 1; ; attempt++ {
		c.startReplica(r)
		if c.ready(r) {
			return
		}
		if r != c.replicas[0] && attempt < 3 && strings.Contains(r.logs.tail(4<<10), "address already in use") {
			r.port = 0
			continue
		}
		c.t.Fatalf("replica %s exited before it was ready: %v\n%s", r.name, r.err, r.logs.tail(8<<10))
	}
}

// stop sends SIGTERM and waits for the drain (bounded), then kills.
func (c *cluster) stop(r *replica) {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	select {
	case <-r.done:
		return
	default:
	}
	r.cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck
	select {
	case <-r.done:
	case <-time.After(40 * time.Second):
		r.cmd.Process.Kill() //nolint:errcheck
		<-r.done
	}
}

func (c *cluster) waitReady(r *replica) {
	c.t.Helper()
	if !c.ready(r) {
		c.t.Fatalf("replica %s exited before it was ready: %v\n%s", r.name, r.err, r.logs.tail(8<<10))
	}
}

// ready polls /readyz until it answers 200 (true) or the process exits (false); it fails the test
// when neither happens within a minute.
func (c *cluster) ready(r *replica) bool {
	c.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(r.base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return true
			}
		}
		select {
		case <-r.done:
			return false
		default:
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("replica %s never became ready: %v\n%s", r.name, err, r.logs.tail(8<<10))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// user creates a user with an API key through the admin Main (the log); replicas started afterwards
// know it once ready, replicas already running once their read model has caught up.
func (c *cluster) user(email string) e2eUser {
	c.t.Helper()
	ctx := context.Background()
	md := eventstore.Metadata{Actor: "test", Time: time.Now().UTC()}
	u, _, _, err := c.admin.Accounts.EnsureUser(ctx, email, "", md)
	if err != nil {
		c.t.Fatal(err)
	}
	md.OnBehalfOf = u.ID.String()
	key, _, err := c.admin.Accounts.MintOrRotate(ctx, u.ID, md)
	if err != nil {
		c.t.Fatal(err)
	}
	return e2eUser{ID: u.ID, Email: u.Email, Key: key.Secret, KeyID: key.ID}
}

// browser is a portal user agent signed in as u (a cookie any replica accepts: same key, same public URL).
func (c *cluster) browser(u e2eUser) *http.Client {
	c.t.Helper()
	sessions, err := websession.New(c.admin.deriveKey("portal-session"), c.public, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	cookie, err := sessions.Cookie(u.ID)
	if err != nil {
		c.t.Fatal(err)
	}
	return &http.Client{
		Transport:     alwaysCookie{cookie: cookie},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// alwaysCookie sends the portal cookie with every request (the consent page needs it as well as the
// portal API).
type alwaysCookie struct{ cookie *http.Cookie }

func (a alwaysCookie) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.AddCookie(a.cookie)
	return http.DefaultTransport.RoundTrip(r)
}

func (c *cluster) mcp(i int) *mcpEnv {
	return &mcpEnv{endpoint: c.replicas[i].base + "/mcp"}
}

// eventually polls check (bounded) until it returns nil.
func eventually(t *testing.T, what string, within time.Duration, check func() error) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still %v after %s", what, err, within)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func TestThreeReplicas(t *testing.T) {
	t.Parallel()
	p := newOAuthProvider(t)
	plugDir := t.TempDir()
	writeAcmePlugin(t, plugDir, p)
	// A connector whose endpoint is a real MCP server (the Go SDK's) on loopback.
	const remoteToken = "tok-replicas-remote-0123"
	remote := connectorstest.NewRemote(t, remoteToken)
	connDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(connDir, "remote"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(connDir, "remote", "connector.json"), []byte(fmt.Sprintf(
		`{"slug":"remote","display_name":"Remote","endpoint":{"url":%q},"auth":{"kind":"token"}}`, remote.URL())), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newCluster(t, 3, map[string]string{
		"PLUGINS_DIR": plugDir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true", "CONNECTORS_DIR": connDir,
		"ACME_CLIENT_ID": acmeClientID, "ACME_CLIENT_SECRET": acmeClientSecret,
	})
	p.register(c.public + "/api/auth/plugin/acme/callback")
	ada := c.user("ada@example.com")
	c.start()

	sessions := make([]*sdk.ClientSession, 3)
	for i := range sessions {
		sessions[i], _ = c.mcp(i).connectSDK(t, ada.Key)
		defer sessions[i].Close()
	}

	t.Run("connect on A, wait on B, callback on C", func(t *testing.T) {
		id, link := connectStart(t, sessions[0])
		waited := make(chan string, 1)
		go func() { waited <- waitForConnection(sessions[1], id, 60*time.Second) }()
		connectBrowse(t, c.browser(ada), c.replicas[0].base, c.replicas[2].base, link)
		select {
		case got := <-waited:
			if got != `{"status":"CONNECTED"}` {
				t.Fatalf("wait_for_connection on B = %s", got)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("wait_for_connection on B did not return after the callback on C")
		}
	})

	t.Run("200 calls with an expired token over three replicas refresh once", func(t *testing.T) {
		if p.firstGrant().IsZero() {
			t.Skip("not connected")
		}
		// The code exchange's token lives acmeFirstExpiresIn seconds; from the refresh window on,
		// every call must refresh first. Wait for the provider's clock to get there.
		time.Sleep(time.Until(p.firstGrant().Add(acmeFirstExpiresIn*time.Second - acmeRefreshWindow + 500*time.Millisecond)))
		before := p.refreshes()
		const calls = 200
		errs := make(chan error, calls)
		var wg sync.WaitGroup
		for i := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
				defer cancel()
				res, err := sessions[i%3].CallTool(ctx, &sdk.CallToolParams{Name: "execute_tools",
					Arguments: map[string]any{"executions": []any{ex("acme_profile", nil)}}})
				if err != nil {
					errs <- err
					return
				}
				text := res.Content[0].(*sdk.TextContent).Text
				if res.IsError || !strings.Contains(text, `{\"login\":\"ada-at-acme\",\"plan\":\"pro\"}`) && !strings.Contains(text, `"result":{"login":"ada-at-acme","plan":"pro"}`) {
					errs <- fmt.Errorf("call %d on %s: %s", i, c.replicas[i%3].name, text)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if n := p.refreshes() - before; n != 1 {
			t.Fatalf("%d provider refreshes for %d concurrent calls over three replicas, want 1", n, calls)
		}
	})

	t.Run("an MCP session ended on A is refused on B and C", func(t *testing.T) {
		cs, rt := c.mcp(0).connectSDK(t, ada.Key)
		sid := cs.ID()
		if err := cs.Close(); err != nil {
			t.Fatal(err)
		}
		if got := rt.deleteStatuses(); len(got) != 1 || got[0] != http.StatusNoContent {
			t.Fatalf("DELETE on A answered %v", got)
		}
		for _, i := range []int{1, 2} {
			eventually(t, "ping on "+c.replicas[i].name+" with the ended session", 10*time.Second, func() error {
				status, body := c.mcp(i).rawPost(t, ada.Key, sid, "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
				if status != http.StatusNotFound {
					return fmt.Errorf("%d %s", status, body)
				}
				return nil
			})
		}
	})

	t.Run("a jot deployed through A is served by B and C", func(t *testing.T) {
		res := execute(t, sessions[0], ex("deploy_jot", map[string]any{"name": "shared-notes"}))
		var deployed struct {
			UploadURL string `json:"upload_url"`
		}
		if err := json.Unmarshal(res.Results[0]["result"], &deployed); err != nil || deployed.UploadURL == "" {
			t.Fatalf("deploy_jot: %v (%v)", res.Results[0], err)
		}
		req, _ := http.NewRequest(http.MethodPut, deployed.UploadURL, bytes.NewReader(jotstest.Archive(t, jotstest.File{Path: "index.html", Body: "<p>from A</p>"})))
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("upload through A: %v %v", resp, err)
		}
		resp.Body.Close()
		for _, i := range []int{1, 2} {
			eventually(t, "the jot on "+c.replicas[i].name, 10*time.Second, func() error {
				resp, err := http.Get(c.replicas[i].base + "/j/shared-notes/")
				if err != nil {
					return err
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "from A") {
					return fmt.Errorf("%d %.200s", resp.StatusCode, b)
				}
				return nil
			})
		}
	})

	t.Run("a connector login made on A is usable on C", func(t *testing.T) {
		// A token login at the API key's agent, connected through A's portal API.
		body, _ := json.Marshal(map[string]string{"mcp_server_id": "mcp_remote", "owner_scope": "agent",
			"owner_id": organization.DefaultAgentID(ada.ID).String(), "token": remoteToken})
		req, _ := http.NewRequest(http.MethodPost, c.replicas[0].base+"/api/mcp/connections", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", c.public)
		resp, err := c.browser(ada).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
			t.Fatalf("connect through A: %d %s", resp.StatusCode, b)
		}
		if bytes.Contains(b, []byte(remoteToken)) {
			t.Fatalf("the connect answer holds the credential: %s", b)
		}
		// The tool, run through execute_tools on C once C's read model holds the login.
		before := remote.Calls.Load()
		eventually(t, "remote_echo through execute_tools on C", 15*time.Second, func() error {
			res := execute(t, sessions[2], ex("remote_echo", map[string]any{"text": "from C"}))
			if r := string(res.Results[0]["result"]); !strings.Contains(r, "echo: from C") {
				return fmt.Errorf("%s", res.Results[0])
			}
			return nil
		})
		if remote.Calls.Load() == before {
			t.Fatal("the remote server was not called")
		}
	})

	t.Run("an OAuth code issued by A is redeemed on B at once", func(t *testing.T) {
		// Registration and consent on A; the code goes straight to B, whose read model has not been
		// told of it yet: B catches up with the log before it answers.
		for round := range 5 {
			clientID, code, verifier, redirect := oauthCodeOn(t, c.replicas[0].base, c.public, c.browser(ada))
			form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect}, "client_id": {clientID}, "code_verifier": {verifier}}
			resp, err := http.PostForm(c.replicas[1].base+"/oauth/token", form)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var tok struct {
				AccessToken  string `json:"access_token"`
				RefreshToken string `json:"refresh_token"`
			}
			if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &tok) != nil || tok.RefreshToken == "" {
				t.Fatalf("round %d: the code from A redeemed on B: %d %s", round, resp.StatusCode, b)
			}
			// The refresh token issued by B is rotated on C at once, and the access token works on A.
			resp, err = http.PostForm(c.replicas[2].base+"/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}, "client_id": {clientID}})
			if err != nil {
				t.Fatal(err)
			}
			b, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("round %d: B's refresh token rotated on C: %d %s", round, resp.StatusCode, b)
			}
			status, body := c.mcp(0).rawPost(t, tok.AccessToken, "", "", initializeBody)
			if status != http.StatusOK {
				t.Fatalf("round %d: B's access token on A: %d %s", round, status, body)
			}
		}
	})
}

var consentCSRF = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// oauthCodeOn registers an MCP client on base and consents there as the browser's user: the client,
// the code, the PKCE verifier and the redirect URI.
func oauthCodeOn(t *testing.T, base, public string, browser *http.Client) (clientID, code, verifier, redirect string) {
	t.Helper()
	redirect = "http://127.0.0.1:43119/callback"
	reg, _ := json.Marshal(map[string]any{"client_name": "Replica Client", "redirect_uris": []string{redirect}})
	resp, err := http.Post(base+"/oauth/register", "application/json", bytes.NewReader(reg))
	if err != nil {
		t.Fatal(err)
	}
	var client struct {
		ClientID string `json:"client_id"`
	}
	err = json.NewDecoder(resp.Body).Decode(&client)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || err != nil {
		t.Fatalf("register: %d %v", resp.StatusCode, err)
	}
	raw := make([]byte, 32)
	rand.Read(raw)
	verifier = base64.RawURLEncoding.EncodeToString(raw)
	sum := sha256.Sum256([]byte(verifier))
	params := url.Values{"response_type": {"code"}, "client_id": {client.ClientID}, "redirect_uri": {redirect},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}, "scope": {"mcp"}, "state": {"s"}}
	resp, err = browser.Get(base + "/oauth/authorize?" + params.Encode())
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := consentCSRF.FindSubmatch(page)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("consent page: %d %.300s", resp.StatusCode, page)
	}
	form := url.Values{"csrf_token": {string(m[1])}, "decision": {"allow"}}
	for k, v := range params {
		form[k] = v
	}
	req, _ := http.NewRequest(http.MethodPost, base+"/oauth/authorize", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", public)
	resp, err = browser.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || err != nil || loc.Query().Get("code") == "" {
		t.Fatalf("consent: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	return client.ClientID, loc.Query().Get("code"), verifier, redirect
}
