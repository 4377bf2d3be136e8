package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/internal/testenv"
)

// The compatibility tests run real MCP clients, pinned in testdata/clients/package-lock.json (with the
// Node.js they run on, from npm's node package), against the built binary served exactly as the README
// says: the official TypeScript SDK's client (sdk-client.mjs), mcp-remote (the stdio bridge of desktop
// clients, mcp-remote-client.mjs) with a bearer header and with its own OAuth flow, the official
// conformance suite's server scenarios, the MCP Inspector's CLI mode, and the official Go SDK's client.
// Each lists exactly the nine meta-tools and runs execute_tools; every protocol revision negotiates.

// compatVersion is linked into the binary under test; serverInfo.version must carry it.
const compatVersion = "v0.0.0-compat"

// serverScenarios is every server scenario of the pinned conformance suite and, for those that do not
// apply to /mcp, why: /mcp serves the nine meta-tools and no resources, prompts or completions, so a
// scenario that calls one of the reference server's test tools by its name (test_image_content, …) or
// reads its resources or prompts asks for what the gateway does not have at that endpoint. What those
// scenarios check of a remote tool (content blocks, isError, progress, elicitation, sampling) crosses
// execute_tools and is checked against a remote written with the TypeScript SDK instead
// (TestRemoteContentThroughExecuteTools, TestInteractiveRemoteThroughExecuteTools), and every scenario
// passes through a toolset serving a reference server whole (TestConformanceThroughAToolset). The test fails when
// the suite lists a scenario that is not here, so a new version of the suite is looked at, not ignored.
// logging-set-level applies when the server declares the logging capability.
var serverScenarios = map[string]string{
	"server-initialize":             "",
	"ping":                          "",
	"tools-list":                    "",
	"dns-rebinding-protection":      "",
	"server-sse-polling":            "",
	"server-sse-multiple-streams":   "",
	"logging-set-level":             "",
	"completion-complete":           "completes an argument of the reference server's prompt test_prompt_with_arguments; /mcp offers no prompts and no completions",
	"tools-call-simple-text":        "calls the reference server's tool test_simple_text",
	"tools-call-image":              "calls the reference server's tool test_image_content (image blocks through execute_tools: TestRemoteContentThroughExecuteTools)",
	"tools-call-audio":              "calls the reference server's tool test_audio_content (audio blocks: TestRemoteContentThroughExecuteTools)",
	"tools-call-embedded-resource":  "calls the reference server's tool test_embedded_resource (resource blocks: TestRemoteContentThroughExecuteTools)",
	"tools-call-mixed-content":      "calls the reference server's tool test_multiple_content_types",
	"tools-call-with-logging":       "calls the reference server's tool test_tool_with_logging",
	"tools-call-error":              "calls the reference server's tool test_error_handling (Workbench's own isError results are checked by the TypeScript SDK client)",
	"tools-call-with-progress":      "calls the reference server's tool test_tool_with_progress (remote progress through execute_tools: TestInteractiveRemoteThroughExecuteTools)",
	"tools-call-sampling":           "calls the reference server's tool test_sampling (a remote's sampling relayed to the agent's client: TestInteractiveRemoteThroughExecuteTools)",
	"tools-call-elicitation":        "calls the reference server's tool test_elicitation (a remote's elicitation relayed: TestInteractiveRemoteThroughExecuteTools)",
	"json-schema-2020-12":           "looks for the reference server's tool json_schema_2020_12_tool",
	"elicitation-sep1034-defaults":  "calls the reference server's tool test_elicitation_sep1034_defaults",
	"elicitation-sep1330-enums":     "calls the reference server's tool test_elicitation_sep1330_enums",
	"resources-list":                "needs resources; /mcp offers none",
	"resources-read-text":           "reads the reference server's resource test://static-text",
	"resources-read-binary":         "reads the reference server's resource test://static-binary",
	"resources-templates-read":      "reads the reference server's resource template test://template/{id}/data",
	"resources-subscribe":           "subscribes to the reference server's resource test://watched-resource",
	"resources-unsubscribe":         "subscribes to the reference server's resource test://watched-resource",
	"prompts-list":                  "needs prompts; /mcp offers none",
	"prompts-get-simple":            "gets the reference server's prompt test_simple_prompt",
	"prompts-get-with-args":         "gets the reference server's prompt test_prompt_with_arguments",
	"prompts-get-embedded-resource": "gets the reference server's prompt test_prompt_with_embedded_resource",
	"prompts-get-with-image":        "gets the reference server's prompt test_prompt_with_image",
}

var metaTools = []string{"search_tools", "get_tool_schema", "execute_tools", "whoami", "list_integrations",
	"connect", "wait_for_connection", "get_auth_url", "curl_session"}

// TestClientsSQLite serves as the README's local setup does: HOST=127.0.0.1 and SERVER_PUBLIC_URL
// unset (so http://localhost:PORT), while every client is given http://127.0.0.1:PORT/mcp, as the
// README's examples are: the two are one server to a user, OAuth included. The clients are split over
// two tests, each with its own server, so that neither runs long: the SDKs and the conformance suite
// here, mcp-remote and the Inspector in TestClientsSQLiteProxies.
func TestClientsSQLite(t *testing.T) {
	t.Parallel()
	runSDKClients(t, func() string { return "" }, "localhost")
}

func TestClientsSQLiteProxies(t *testing.T) {
	t.Parallel()
	runProxyClients(t, func() string { return "" }, "localhost")
}

// TestClientsPostgres serves with SERVER_PUBLIC_URL=http://127.0.0.1:PORT, and runs the TypeScript SDK
// client once more at http://localhost:PORT/mcp (the other way round).
func TestClientsPostgres(t *testing.T) {
	t.Parallel()
	runSDKClients(t, func() string { return testenv.PostgresURL(t) }, "127.0.0.1")
}

func TestClientsPostgresProxies(t *testing.T) {
	t.Parallel()
	runProxyClients(t, func() string { return testenv.PostgresURL(t) }, "127.0.0.1")
}

// clientServer serves one instance for the client tests; postgresURL gives its PostgreSQL database, or
// "" for SQLite; publicHost is the host of its public URL (serveBinary). It returns the clients'
// folder, the server and an API key of compat@example.com.
func clientServer(t *testing.T, postgresURL func() string, publicHost string) (string, *servedBinary, string) {
	clients := clientsDir(t)
	bin := compatBinary(t)
	srv := serveBinary(t, bin, postgresURL(), publicHost)
	return clients, srv, srv.apiKey(t, "compat@example.com")
}

// runSDKClients runs the TypeScript SDK (at the public URL's other host too, where they differ), the
// README's snippet, the Go SDK, every protocol version and the conformance suite against one server.
func runSDKClients(t *testing.T, postgresURL func() string, publicHost string) {
	clients, srv, key := clientServer(t, postgresURL, publicHost)
	var caps map[string]any
	t.Run("typescript-sdk", func(t *testing.T) { caps = runSDKClient(t, clients, srv, srv.Base, srv.signInLink(t), key) })
	if alias := "http://localhost:" + srv.port; alias != srv.Public {
		t.Run("typescript-sdk-at-localhost", func(t *testing.T) {
			runSDKClient(t, clients, srv, alias, srv.newSignInLink(t, "compat@example.com"), key)
		})
	}
	t.Run("readme-typescript-snippet", func(t *testing.T) { runREADMESnippet(t, clients, srv, key) })
	t.Run("go-sdk", func(t *testing.T) { runGoSDK(t, srv, key) })
	t.Run("protocol-versions", func(t *testing.T) { runProtocolVersions(t, srv, key) })
	t.Run("conformance", func(t *testing.T) {
		_, logging := caps["logging"]
		runConformance(t, clients, srv.Base+"/mcp", key, serverScenarios, logging)
	})
}

// runProxyClients runs mcp-remote (with a bearer key, then through OAuth) and the Inspector's CLI
// against one server.
func runProxyClients(t *testing.T, postgresURL func() string, publicHost string) {
	clients, srv, key := clientServer(t, postgresURL, publicHost)
	t.Run("mcp-remote-bearer", func(t *testing.T) {
		runChecks(t, "mcp-remote", clients, []string{"WORKBENCH_MCP_URL=" + srv.Base + "/mcp", "WORKBENCH_API_KEY=" + key}, "mcp-remote-client.mjs", "bearer")
	})
	t.Run("mcp-remote-oauth", func(t *testing.T) {
		runChecks(t, "mcp-remote", clients, []string{"WORKBENCH_MCP_URL=" + srv.Base + "/mcp",
			"WORKBENCH_SIGNIN_LINK=" + srv.newSignInLink(t, "compat@example.com")}, "mcp-remote-client.mjs", "oauth")
	})
	t.Run("inspector-cli", func(t *testing.T) { runInspector(t, clients, srv, key) })
}

// clientsDir is testdata/clients with its node_modules installed by `npm ci` from the lock file, once
// per lock file: a marker in node_modules records the lock's hash. Without Node and npm the test is
// skipped, except under CI=true where it fails (.ci/run installs them).
func clientsDir(t *testing.T) string {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf(format+" in CI (.ci/run installs Node and npm)", args...)
		}
		t.Skipf(format+"; skipping the client compatibility tests", args...)
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing("%s is not installed", tool)
		}
	}
	out, err := exec.Command("node", "--version").Output()
	if err != nil {
		missing("node --version: %v", err)
	}
	major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(strings.TrimSpace(string(out)), "v"), ".", 2)[0])
	if major < 20 {
		missing("Node %s is older than 20", strings.TrimSpace(string(out)))
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "clients"))
	if err != nil {
		t.Fatal(err)
	}
	// Parallel tests share one install: the first caller runs npm ci and sets pinnedNode, the others
	// wait for it inside Do and only read them afterwards.
	npmOnce.Do(func() {
		if npmErr = npmCI(dir); npmErr != nil {
			return
		}
		pinnedNode = filepath.Join(dir, "node_modules", ".bin", "node")
		if out, err := exec.Command(pinnedNode, "--version").CombinedOutput(); err != nil {
			npmErr = fmt.Errorf("the pinned Node.js (npm package node) does not run: %v\n%s", err, out)
		}
	})
	if npmErr != nil {
		t.Fatal(npmErr)
	}
	return dir
}

var (
	npmOnce sync.Once
	npmErr  error
	// pinnedNode is the Node.js of the lock file (npm's node package), which every client runs on: the
	// conformance suite needs Node.js 22, and a machine's own Node.js may be older.
	pinnedNode string
)

func npmCI(dir string) error {
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return err
	}
	sum := sha256.Sum256(lock)
	want := hex.EncodeToString(sum[:])
	marker := filepath.Join(dir, "node_modules", ".workbench-lock-sha256")
	if got, err := os.ReadFile(marker); err == nil && strings.TrimSpace(string(got)) == want {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm ci in %s: %v\n%s", dir, err, out)
	}
	return os.WriteFile(marker, []byte(want+"\n"), 0o644)
}

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// compatBinary builds the workbench binary once per test process, with compatVersion linked in.
func compatBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "workbench-compat-"); binErr != nil {
			return
		}
		goTool, err := exec.LookPath("go")
		if err != nil {
			binErr = fmt.Errorf("the go command is not on PATH to build the binary under test: %w", err)
			return
		}
		cmd := exec.Command(goTool, "build", "-ldflags", "-X main.version="+compatVersion, "-o", filepath.Join(binDir, "workbench"), ".")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, "workbench")
}

// removeCompatBinary is called by TestMain once every test has run.
func removeCompatBinary() {
	if binDir != "" {
		os.RemoveAll(binDir)
	}
}

// servedBinary is `workbench serve` in a child process, started as the README says: PORT,
// SERVER_PUBLIC_URL (or HOST=127.0.0.1 and the default public URL) and DATABASE_URL (plus
// ENCRYPTION_KEY on PostgreSQL), in its own working directory.
type servedBinary struct {
	Base   string // http://127.0.0.1:PORT: what the clients are given
	Public string // SERVER_PUBLIC_URL: Base, or http://localhost:PORT
	port   string
	bin    string
	dir    string
	env    []string
	logs   *syncBuffer
}

// serveBinary starts the binary on a free port. With publicHost "localhost" it sets HOST=127.0.0.1 and
// leaves SERVER_PUBLIC_URL unset (its default is http://localhost:PORT); otherwise SERVER_PUBLIC_URL is
// http://127.0.0.1:PORT.
func serveBinary(t *testing.T, bin, postgresURL, publicHost string) *servedBinary {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	s := &servedBinary{Base: fmt.Sprintf("http://127.0.0.1:%d", port), port: strconv.Itoa(port), bin: bin, dir: dir, logs: &syncBuffer{}}
	s.env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"PORT=" + strconv.Itoa(port),
		// An OAuth client for one integration, so that connect can start a connection (the provider is
		// never reached: the claim link stays on Workbench until a user opens it).
		"GITHUB_CLIENT_ID=compat-test-client",
		"GITHUB_CLIENT_SECRET=compat-test-secret",
	}
	if publicHost == "localhost" {
		s.Public = fmt.Sprintf("http://localhost:%d", port)
		s.env = append(s.env, "HOST=127.0.0.1")
	} else {
		s.Public = s.Base
		s.env = append(s.env, "SERVER_PUBLIC_URL="+s.Base)
	}
	if postgresURL != "" {
		s.env = append(s.env, "DATABASE_URL="+postgresURL, "ENCRYPTION_KEY="+testEncryptionKey, "DATABASE_MAX_CONNS=8")
	} else {
		s.env = append(s.env, "DATABASE_URL="+filepath.Join(dir, "data", "workbench.db"))
	}
	cmd := exec.Command(bin, "serve")
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, s.env, s.logs, s.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Error("workbench serve did not stop within 30s of SIGTERM")
		}
		if t.Failed() {
			t.Logf("server log (tail):\n%s", s.logs.tail(16<<10))
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			t.Fatalf("workbench serve exited before it was ready: %v\n%s", err, s.logs.tail(16<<10))
		default:
		}
		if resp, err := http.Get(s.Base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("workbench serve never became ready\n%s", s.logs.tail(16<<10))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// apiKey mints a key with `workbench apikey create` (the README's way, against the running server's
// database) and waits until the server accepts it.
func (s *servedBinary) apiKey(t *testing.T, email string) string {
	t.Helper()
	cmd := exec.Command(s.bin, "apikey", "create", "--email", email)
	cmd.Dir, cmd.Env = s.dir, s.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("workbench apikey create: %v\n%s", err, stderr.String())
	}
	key := strings.TrimSpace(string(out))
	deadline := time.Now().Add(20 * time.Second)
	for {
		req, _ := http.NewRequest(http.MethodPost, s.Base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				return key
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server never accepted the key minted by apikey create: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// signInLink is the one-time sign-in link the server printed at start.
func (s *servedBinary) signInLink(t *testing.T) string {
	t.Helper()
	link := regexp.MustCompile(regexp.QuoteMeta(s.Public) + `/auth/link/[A-Za-z0-9._~-]+`).FindString(s.logs.tail(1 << 20))
	if link == "" {
		t.Fatalf("the server printed no one-time sign-in link on %s:\n%s", s.Public, s.logs.tail(16<<10))
	}
	return link
}

// newSignInLink mints another one-time sign-in link with `workbench signin-link` (the README's way).
func (s *servedBinary) newSignInLink(t *testing.T, email string) string {
	t.Helper()
	cmd := exec.Command(s.bin, "signin-link", "--email", email)
	cmd.Dir, cmd.Env = s.dir, s.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	link := strings.TrimSpace(string(out))
	if err != nil || !strings.HasPrefix(link, s.Public+"/auth/link/") {
		t.Fatalf("workbench signin-link: %v: %q\n%s", err, link, stderr.String())
	}
	return link
}

// node runs node in dir with env added and returns its stdout; stderr is logged. A non-zero exit is
// returned as the error, with the output already read.
func runNode(t *testing.T, dir string, env []string, args ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, pinnedNode, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if stderr.Len() > 0 {
		t.Logf("node %s: stderr:\n%s", redactArgs(args), stderr.String())
	}
	return stdout.Bytes(), err
}

// redactArgs is args for a log line, with the credential of an Authorization header left out.
func redactArgs(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.HasPrefix(a, "Authorization:") {
			a = "Authorization: (redacted)"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// oneLine is s on one line and at most 400 bytes, for a results table.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return s
}

// runSDKClient runs sdk-client.mjs against base (the server's Base or a loopback alias of it): every
// line it prints is a check; it returns the server's declared capabilities from its initialize check.
func runSDKClient(t *testing.T, clients string, srv *servedBinary, base, signInLink, key string) map[string]any {
	seen, caps := runChecks(t, "TypeScript SDK client", clients, []string{
		"WORKBENCH_URL=" + base, "WORKBENCH_PUBLIC_URL=" + srv.Public, "WORKBENCH_API_KEY=" + key,
		"WORKBENCH_SIGNIN_LINK=" + signInLink, "WORKBENCH_EXPECT_VERSION=" + compatVersion,
		"WORKBENCH_CONNECT_INTEGRATION=github", // the server has GITHUB_CLIENT_ID (startServed)
	}, "sdk-client.mjs")
	for _, c := range []string{"connect", "wait_for_connection", "get_auth_url", "oauth: connect with the access token"} {
		if !seen[c] {
			t.Errorf("TypeScript SDK client: the %s check did not run", c)
		}
	}
	return caps
}

// runChecks runs a script that prints one JSON check line per check ({"check", "ok", "error",
// "skipped"}) and fails the test for each failed or skipped check; it returns the checks seen and the
// capabilities of the initialize check.
func runChecks(t *testing.T, who, clients string, env []string, args ...string) (map[string]bool, map[string]any) {
	out, err := runNode(t, clients, env, args...)
	var caps map[string]any
	failed := 0
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		var line struct {
			Check        string         `json:"check"`
			OK           bool           `json:"ok"`
			Error        string         `json:"error"`
			Skipped      string         `json:"skipped"`
			Capabilities map[string]any `json:"capabilities"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || line.Check == "" {
			t.Errorf("%s printed a line that is not a check: %s", args[0], sc.Text())
			continue
		}
		seen[line.Check] = true
		if line.Check == "initialize" {
			caps = line.Capabilities
		}
		if line.Skipped != "" {
			failed++
			t.Errorf("%s: %s skipped: %s", who, line.Check, line.Skipped)
		} else if line.OK {
			t.Logf("pass: %s", sc.Text())
		} else {
			failed++
			t.Errorf("%s: %s: %s", who, line.Check, line.Error)
		}
	}
	if err != nil && failed == 0 {
		t.Errorf("%s: %v (no failing check printed)\n%s", args[0], err, out)
	}
	if len(seen) == 0 {
		t.Errorf("%s printed no check", args[0])
	}
	return seen, caps
}

type conformanceCheck struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

var scenarioDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T[0-9-]+Z$`)

// runConformance runs every server scenario of the conformance suite once against mcpURL, then
// requires each one that applies (scenarios maps it to "") to have no failed check; a scenario the
// suite lists and scenarios does not fails the test. The suite's server scenarios cannot send a
// credential; bearer.mjs, preloaded into it, adds the API key to its requests to the server (and to
// nothing else).
func runConformance(t *testing.T, clients, mcpURL, key string, scenarios map[string]string, loggingDeclared bool) {
	suite := filepath.Join("node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	listed, err := runNode(t, clients, nil, suite, "list", "--server")
	if err != nil {
		t.Fatalf("conformance list: %v\n%s", err, listed)
	}
	var names []string
	for _, line := range strings.Split(string(listed), "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
			name, _, _ = strings.Cut(name, " ") // "- tools-list [2025-06-18,2025-11-25]"
			names = append(names, name)
			if _, known := scenarios[name]; !known {
				t.Errorf("the conformance suite has a server scenario %q that the test does not classify", name)
			}
		}
	}
	if len(names) == 0 {
		t.Fatalf("conformance list --server listed nothing:\n%s", listed)
	}

	outDir := t.TempDir()
	preload := "file://" + filepath.ToSlash(filepath.Join(clients, "bearer.mjs"))
	// The exit status says whether every scenario passed, and most do not apply: the results are read
	// scenario by scenario below.
	out, _ := runNode(t, clients, []string{
		"NODE_OPTIONS=--import " + preload, "WORKBENCH_BEARER=" + key, "WORKBENCH_MCP_URL=" + mcpURL,
	}, suite, "server", "--url", mcpURL, "--suite", "all", "-o", outDir)
	results := map[string][]conformanceCheck{}
	entries, err := os.ReadDir(outDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		m := scenarioDir.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(outDir, e.Name(), "checks.json"))
		if err != nil {
			t.Errorf("scenario %s: %v", m[1], err)
			continue
		}
		var checks []conformanceCheck
		if err := json.Unmarshal(b, &checks); err != nil {
			t.Errorf("scenario %s: checks.json: %v", m[1], err)
			continue
		}
		results[m[1]] = checks
	}

	var table []string
	for _, name := range names {
		why := scenarios[name]
		if name == "logging-set-level" && !loggingDeclared {
			why = "the server does not declare the logging capability"
		}
		checks, ran := results[name]
		verdict, detail := "pass", ""
		switch {
		case !ran:
			verdict, detail = "did not run", ""
		default:
			succeeded := false
			for _, c := range checks {
				switch c.Status {
				case "SUCCESS":
					succeeded = true
				case "FAILURE":
					verdict = "FAIL"
					detail += fmt.Sprintf(" [%s: %s]", c.ID, oneLine(c.ErrorMessage))
				case "WARNING":
					detail += fmt.Sprintf(" [warning %s: %s]", c.ID, oneLine(c.ErrorMessage))
				}
			}
			if verdict == "pass" && !succeeded {
				// Every check informational, e.g. the SSE scenarios when the server answers with JSON.
				verdict = "pass (informational checks only)"
			}
		}
		if why != "" {
			table = append(table, fmt.Sprintf("%-32s n/a  (%s; ran: %s)", name, why, verdict))
			continue
		}
		table = append(table, fmt.Sprintf("%-32s %s%s", name, verdict, detail))
		if !strings.HasPrefix(verdict, "pass") {
			t.Errorf("conformance scenario %s: %s%s", name, verdict, detail)
		}
	}
	sort.Strings(table)
	t.Logf("conformance server scenarios against %s:\n%s", mcpURL, strings.Join(table, "\n"))
	if t.Failed() {
		if len(out) > 8<<10 {
			out = out[len(out)-8<<10:]
		}
		t.Logf("conformance output (tail):\n%s", out)
	}
}

// runInspector runs the MCP Inspector in CLI mode (--cli), as `npx @modelcontextprotocol/inspector --cli`
// does. Its working directory is the CLI's build directory: inspector-cli 1.0.3 finds its own
// package.json relative to the working directory, not to itself.
func runInspector(t *testing.T, clients string, srv *servedBinary, key string) {
	dir := filepath.Join(clients, "node_modules", "@modelcontextprotocol", "inspector-cli", "build")
	inspect := func(args ...string) map[string]any {
		t.Helper()
		args = append([]string{"cli.js", "--cli", srv.Base + "/mcp", "--transport", "http",
			"--header", "Authorization: Bearer " + key}, args...)
		out, err := runNode(t, dir, nil, args...)
		if err != nil {
			t.Fatalf("inspector %s: %v\n%s", redactArgs(args[1:]), err, out)
		}
		var v map[string]any
		if i := bytes.IndexByte(out, '{'); i < 0 || json.Unmarshal(out[i:], &v) != nil {
			t.Fatalf("inspector %s printed no JSON object:\n%s", redactArgs(args[1:]), out)
		}
		return v
	}

	listed := inspect("--method", "tools/list")
	tools, _ := listed["tools"].([]any)
	var names []string
	for _, tool := range tools {
		if m, ok := tool.(map[string]any); ok {
			names = append(names, fmt.Sprint(m["name"]))
		}
	}
	if !sameSet(names, metaTools) {
		t.Errorf("inspector tools/list is %v, want exactly %v", names, metaTools)
	}

	called := inspect("--method", "tools/call", "--tool-name", "execute_tools",
		"--tool-arg", `executions=[{"tool":"utils_echo","args":{"message":"from the Inspector"}}]`)
	if called["isError"] == true || !strings.Contains(fmt.Sprint(called["content"]), "from the Inspector") {
		t.Errorf("inspector tools/call execute_tools: %v", called)
	}
}

// runGoSDK runs the official Go SDK's client (the go.mod version) with the API key: it lists exactly the
// nine meta-tools and runs execute_tools.
func runGoSDK(t *testing.T, srv *servedBinary, key string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "workbench-compat-go-sdk", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{
		Endpoint:   srv.Base + "/mcp",
		HTTPClient: &http.Client{Transport: &bearerTransport{key: key, base: http.DefaultTransport}},
		MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatalf("Go SDK client: connect: %v", err)
	}
	defer cs.Close()
	if info := cs.InitializeResult(); info == nil || info.ServerInfo == nil || info.ServerInfo.Name != "workbench" || info.ServerInfo.Version != compatVersion {
		t.Errorf("Go SDK client: initialize result %+v", info)
	} else {
		t.Logf("Go SDK client negotiated %s", info.ProtocolVersion)
	}
	listed, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("Go SDK client: tools/list: %v", err)
	}
	var names []string
	for _, tool := range listed.Tools {
		names = append(names, tool.Name)
	}
	if !sameSet(names, metaTools) {
		t.Errorf("Go SDK client: tools/list is %v, want exactly %v", names, metaTools)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "execute_tools", Arguments: map[string]any{
		"executions": []any{map[string]any{"tool": "utils_echo", "args": map[string]any{"message": "from the Go SDK"}}}}})
	if err != nil {
		t.Fatalf("Go SDK client: execute_tools: %v", err)
	}
	if text, ok := res.Content[0].(*sdk.TextContent); res.IsError || !ok || !strings.Contains(text.Text, `"message":"from the Go SDK"`) {
		t.Errorf("Go SDK client: execute_tools returned %+v", res)
	}
}

func sameSet(got, want []string) bool {
	return len(got) == len(want) && !slices.ContainsFunc(want, func(w string) bool { return !slices.Contains(got, w) })
}

// runProtocolVersions opens a session at each protocol revision the README names, as a client of that
// revision does (initialize, initialized, then MCP-Protocol-Version on every request): the server
// answers with the same revision, lists exactly the nine meta-tools and runs execute_tools. A client
// asking for a revision the server does not speak is offered the latest.
func runProtocolVersions(t *testing.T, srv *servedBinary, key string) {
	for _, version := range []string{"2025-03-26", "2025-06-18", "2025-11-25", "2024-11-05"} {
		t.Run(version, func(t *testing.T) {
			want := version
			if version == "2024-11-05" {
				want = "2025-11-25"
			}
			post := func(session, body string) (*http.Response, map[string]any) {
				t.Helper()
				req, _ := http.NewRequest(http.MethodPost, srv.Base+"/mcp", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if session != "" {
					req.Header.Set("Mcp-Session-Id", session)
					req.Header.Set("MCP-Protocol-Version", want)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
					for _, line := range strings.Split(string(b), "\n") {
						if data, ok := strings.CutPrefix(line, "data:"); ok && strings.Contains(data, `"id"`) {
							b = []byte(data)
						}
					}
				}
				var msg map[string]any
				_ = json.Unmarshal(b, &msg)
				return resp, msg
			}
			resp, msg := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"compat-`+version+`","version":"1"}}}`)
			result, _ := msg["result"].(map[string]any)
			session := resp.Header.Get("Mcp-Session-Id")
			if resp.StatusCode != http.StatusOK || result["protocolVersion"] != want || session == "" {
				t.Fatalf("initialize at %s: %d, protocolVersion %v, session %q; want %s", version, resp.StatusCode, result["protocolVersion"], session, want)
			}
			if resp, _ := post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
				t.Errorf("notifications/initialized: %d, want 202", resp.StatusCode)
			}
			_, msg = post(session, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			var names []string
			if r, ok := msg["result"].(map[string]any); ok {
				tools, _ := r["tools"].([]any)
				for _, tool := range tools {
					if m, ok := tool.(map[string]any); ok {
						names = append(names, fmt.Sprint(m["name"]))
					}
				}
			}
			if !sameSet(names, metaTools) {
				t.Errorf("tools/list at %s: %v, want exactly %v", want, names, metaTools)
			}
			_, msg = post(session, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute_tools","arguments":{"executions":[{"tool":"utils_echo","args":{"message":"at `+want+`"}}]}}}`)
			if b, _ := json.Marshal(msg["result"]); !strings.Contains(string(b), `at `+want) {
				t.Errorf("execute_tools at %s: %v", want, msg)
			}
			req, _ := http.NewRequest(http.MethodDelete, srv.Base+"/mcp", nil)
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("MCP-Protocol-Version", want)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		})
	}
}
