//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/workbench/workbench/domain/curlsession"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testenv"
)

// These tests check the promise of both audited paths, execute_tools and the curl proxy, against a
// served instance under faults: every answer a client received (an execute_tools result, a proxied
// response head) has its audit record in the log, within the documented bound.
//
//   - execute_tools appends its ToolExecuted event before the result is returned: bound 0.
//   - the proxy appends a RequestForwarded record before the request leaves for the provider: bound
//     0 for that record. Its RequestProxied outcome follows the response from a queue; a crash may
//     lose at most proxyOutcomeBound of those, an outage none (app/curlsessions/doc.go).
//
// The crash test serves the real binary's main in a child process, drives both paths with
// faultClients clients each, kills the child with SIGKILL mid-load, reopens the database with the
// CLI and counts. The outage test serves in process on a private PostgreSQL cluster it stops and
// starts.

const (
	faultClients = 32
	// proxyOutcomeBound is what a crash may cost in RequestProxied outcome records: the queue
	// (curlsessions.DefaultAuditQueue), what the writers hold (2 x 256) and the requests in flight.
	proxyOutcomeBound = 1024 + 2*256 + faultClients
)

// relayProvider is the provider behind the proxy: a small JSON answer to anything.
func relayProvider(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// writeRelayPlugin writes a plugin "relay" (no credential, a proxy block) pointing at base.
func writeRelayPlugin(t *testing.T, dir, base string) {
	t.Helper()
	d := filepath.Join(dir, "relay")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := fmt.Sprintf(`{"name":"relay","version":"1.0.0","display_name":"Relay","description":"A test provider behind the curl proxy.",
		"base_url":%q,"proxy":{},"auth":{"mode":"none"}}`, base)
	for name, body := range map[string]string{"manifest.json": manifest, "tools.json": `[]`} {
		if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// auditLoad drives execute_tools (utils_echo) and the curl proxy with faultClients clients each and
// counts what they were answered, by phase (see the phase constants).
type auditLoad struct {
	t        *testing.T
	base     string
	client   *http.Client
	sessions []http.Header // one MCP session per client
	token    string        // a curl_session token for relay

	phase atomic.Int32
	wg    sync.WaitGroup

	mu sync.Mutex
	// proxyAcked holds the path of every proxied request whose 200 response head arrived.
	proxyAcked map[string]bool
	// proxyStatus counts proxy answers by the phase they came in and status; noRetryAfter counts 503s without
	// Retry-After.
	proxyStatus  [3]map[int]int
	noRetryAfter int
	// toolAcked counts execute_tools results received, by phase; toolFailed calls answered without
	// the result (an error result, another status), by phase.
	toolAcked, toolFailed [3]int
}

const (
	phaseBefore = iota
	phaseFault
	phaseAfter
)

// newAuditLoad opens an MCP session per client with key and mints a curl_session token for relay.
// It waits (up to 30s) for the server to know the key.
func newAuditLoad(t *testing.T, base, key string) *auditLoad {
	t.Helper()
	l := &auditLoad{t: t, base: base, proxyAcked: map[string]bool{},
		client: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConns: 4 * faultClients, MaxIdleConnsPerHost: 4 * faultClients, DisableCompression: true}}}
	for i := range l.proxyStatus {
		l.proxyStatus[i] = map[int]int{}
	}
	t.Cleanup(l.client.CloseIdleConnections)
	deadline := time.Now().Add(30 * time.Second)
	for c := range faultClients {
		h := http.Header{}
		h.Set("Content-Type", "application/json")
		h.Set("Accept", "application/json, text/event-stream")
		h.Set("Authorization", "Bearer "+key)
		for {
			status, rh, rb, err := post(l.client, base+"/mcp", h, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fault-`+strconv.Itoa(c)+`","version":"1"}}}`))
			if err == nil && status == http.StatusOK && rh.Get("Mcp-Session-Id") != "" {
				h.Set("Mcp-Session-Id", rh.Get("Mcp-Session-Id"))
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("initialize: %d %s %v", status, rb, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		h.Set("MCP-Protocol-Version", "2025-11-25")
		if status, _, rb, err := post(l.client, base+"/mcp", h, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil || status != http.StatusAccepted {
			t.Fatalf("notifications/initialized: %d %s %v", status, rb, err)
		}
		l.sessions = append(l.sessions, h)
	}
	status, _, rb, err := post(l.client, base+"/mcp", l.sessions[0], []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"curl_session","arguments":{"integrations":["relay"]}}}`))
	if err != nil || status != http.StatusOK {
		t.Fatalf("curl_session: %d %s %v", status, rb, err)
	}
	var res struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(rpcBody(rb), &res); err != nil || len(res.Result.Content) == 0 {
		t.Fatalf("curl_session answered %s (%v)", rb, err)
	}
	var minted struct{ Token string }
	if err := json.Unmarshal([]byte(res.Result.Content[0].Text), &minted); err != nil || minted.Token == "" {
		t.Fatalf("curl_session minted no token: %s", res.Result.Content[0].Text)
	}
	l.token = minted.Token
	return l
}

// rpcBody is the JSON-RPC message of a response, whether sent as JSON or as one SSE event.
func rpcBody(b []byte) []byte {
	for _, line := range bytes.Split(b, []byte("\n")) {
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			return bytes.TrimSpace(d)
		}
	}
	return b
}

// start runs the clients until ctx ends. A client that gets a transport error (the server is gone
// or restarting) pauses briefly and tries again.
func (l *auditLoad) start(ctx context.Context) {
	for c := range faultClients {
		l.wg.Add(2)
		go func() { defer l.wg.Done(); l.proxyLoop(ctx, c) }()
		go func() { defer l.wg.Done(); l.toolLoop(ctx, c) }()
	}
}

func (l *auditLoad) wait() { l.wg.Wait() }

func (l *auditLoad) proxyLoop(ctx context.Context, c int) {
	for i := 0; ctx.Err() == nil; i++ {
		path := fmt.Sprintf("/c/relay/fault/%d-%d", c, i)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.base+path, nil)
		if err != nil {
			l.t.Error(err)
			return
		}
		req.Header.Set("Authorization", "Bearer "+l.token)
		resp, err := l.client.Do(req)
		if err != nil {
			pause(ctx, 20*time.Millisecond)
			continue
		}
		phase := l.phase.Load() // the phase the answer came in
		// The head has arrived: a 200 is acknowledged from here on, whatever happens to the body.
		l.mu.Lock()
		if resp.StatusCode == http.StatusOK {
			l.proxyAcked[path] = true
		}
		l.proxyStatus[phase][resp.StatusCode]++
		if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
			l.noRetryAfter++
		}
		l.mu.Unlock()
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			pause(ctx, 50*time.Millisecond)
		}
	}
}

func (l *auditLoad) toolLoop(ctx context.Context, c int) {
	for i := 0; ctx.Err() == nil; i++ {
		msg := fmt.Sprintf("fault-%d-%d", c, i)
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"execute_tools","arguments":{"executions":[{"tool":"utils_echo","args":{"message":%q}}]}}}`, i+10, msg)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.base+"/mcp", strings.NewReader(body))
		if err != nil {
			l.t.Error(err)
			return
		}
		req.Header = l.sessions[c].Clone()
		resp, err := l.client.Do(req)
		if err != nil {
			pause(ctx, 20*time.Millisecond)
			continue
		}
		rb, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		phase := l.phase.Load()
		// A result is acknowledged once the client holds it whole.
		ok := err == nil && resp.StatusCode == http.StatusOK && bytes.Contains(rb, []byte(`{\"message\":\"`+msg+`\"}`))
		l.mu.Lock()
		if ok {
			l.toolAcked[phase]++
		} else {
			l.toolFailed[phase]++
		}
		l.mu.Unlock()
		if !ok {
			pause(ctx, 50*time.Millisecond)
		}
	}
}

func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// counts are the acknowledgements so far: 200 proxy heads and execute_tools results, in phase.
func (l *auditLoad) counts(phase int) (proxied, tools int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.proxyStatus[phase][http.StatusOK], l.toolAcked[phase]
}

// waitFor waits until phase has at least proxied proxy acknowledgements and tools results.
func (l *auditLoad) waitFor(phase, proxied, tools int, within time.Duration) {
	l.t.Helper()
	deadline := time.Now().Add(within)
	for {
		p, tl := l.counts(phase)
		if p >= proxied && tl >= tools {
			return
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("load in phase %d reached %d proxied and %d tool results, want %d and %d", phase, p, tl, proxied, tools)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// auditedLog is what the log holds of the two paths.
type auditedLog struct {
	forwarded    map[string]bool // paths with a RequestForwarded record
	proxied      map[string]bool // paths with a RequestProxied record
	toolExecuted int
}

func newAuditedLog() *auditedLog {
	return &auditedLog{forwarded: map[string]bool{}, proxied: map[string]bool{}}
}

func (a *auditedLog) add(t *testing.T, typ string, data []byte) {
	t.Helper()
	switch typ {
	case curlsession.TypeRequestForwarded, curlsession.TypeRequestProxied:
		var ev struct{ Integration, Path string }
		if err := json.Unmarshal(data, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Integration != "relay" {
			return
		}
		if typ == curlsession.TypeRequestForwarded {
			a.forwarded["/c/relay"+ev.Path] = true
		} else {
			a.proxied["/c/relay"+ev.Path] = true
		}
	case execution.TypeToolExecuted:
		a.toolExecuted++
	}
}

// figures compares the acknowledgements with the log, logs both paths' figures and checks the
// bounds: no acknowledged request or result without its record; outcome records of the proxy
// missing at most outcomeBound.
func (l *auditLoad) figures(t *testing.T, name string, log *auditedLog, outcomeBound int) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var noForwarded, noOutcome []string
	for path := range l.proxyAcked {
		if !log.forwarded[path] {
			noForwarded = append(noForwarded, path)
		}
		if !log.proxied[path] {
			noOutcome = append(noOutcome, path)
		}
	}
	toolAcked := l.toolAcked[0] + l.toolAcked[1] + l.toolAcked[2]
	t.Logf("%s: curl proxy: %d acknowledged (200 heads), %d with their request_forwarded record (missing %d), %d with their request_proxied outcome (missing %d, bound %d); answers by phase (before, fault, after): %v",
		name, len(l.proxyAcked), len(l.proxyAcked)-len(noForwarded), len(noForwarded), len(l.proxyAcked)-len(noOutcome), len(noOutcome), outcomeBound, l.proxyStatus)
	t.Logf("%s: execute_tools: %d acknowledged results, %d tool_executed events (acknowledged - recorded = %d, bound 0); calls without a result by phase: %v",
		name, toolAcked, log.toolExecuted, toolAcked-log.toolExecuted, l.toolFailed)
	if len(noForwarded) > 0 {
		t.Errorf("%d acknowledged proxied requests have no request_forwarded record, e.g. %v", len(noForwarded), noForwarded[:min(5, len(noForwarded))])
	}
	if len(noOutcome) > outcomeBound {
		t.Errorf("%d acknowledged proxied requests lost their request_proxied outcome, bound %d", len(noOutcome), outcomeBound)
	}
	if toolAcked > log.toolExecuted {
		t.Errorf("%d execute_tools results acknowledged but only %d tool_executed events", toolAcked, log.toolExecuted)
	}
	if l.noRetryAfter > 0 {
		t.Errorf("%d proxy 503s without Retry-After", l.noRetryAfter)
	}
}

// ---- SIGKILL ----

func TestAuditSurvivesSIGKILLSQLite(t *testing.T) {
	t.Parallel()
	auditCrash(t, filepath.Join(t.TempDir(), "wb.db"))
}

func TestAuditSurvivesSIGKILLPostgres(t *testing.T) {
	t.Parallel()
	auditCrash(t, testenv.PostgresURL(t))
}

func auditCrash(t *testing.T, databaseURL string) {
	provider := relayProvider(t)
	dir := t.TempDir()
	writeRelayPlugin(t, dir, provider.URL)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	env := map[string]string{
		"DATABASE_URL": databaseURL, "PORT": strconv.Itoa(port), "SERVER_PUBLIC_URL": base, "PLUGINS_DIR": dir,
		"WORKBENCH_DEV_ALLOW_LOOPBACK": "true", "LOG_LEVEL": "warn",
	}
	if strings.HasPrefix(databaseURL, "postgres") {
		env["ENCRYPTION_KEY"] = testEncryptionKey
	}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"apikey", "create", "--email", "crash@example.com"}, envFunc(env), &out, &errOut); err != nil {
		t.Fatalf("apikey create: %v\n%s", err, errOut.String())
	}
	key := strings.TrimSpace(out.String())

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "WORKBENCH_TEST_RUN_MAIN=1", "WORKBENCH_TEST_ARGS=serve")
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	// The child never outlives this process, even if the test dies before killing it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	logDone := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			logs.Write(append(sc.Bytes(), '\n'))
		}
		close(logDone)
	}()
	killed := false
	t.Cleanup(func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		if t.Failed() {
			t.Logf("server log (tail):\n%s", logs.tail(8<<10))
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server never became ready: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	load := newAuditLoad(t, base, key)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	load.start(ctx)
	load.waitFor(phaseBefore, 300, 100, 60*time.Second)
	time.Sleep(time.Second)
	load.phase.Store(phaseFault)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	killed = true
	<-logDone
	cancel()
	load.wait()

	// Reopen the database with the CLI, as an operator would after the crash.
	out.Reset()
	errOut.Reset()
	if err := run(context.Background(), []string{"events", "tail"}, envFunc(env), &out, &errOut); err != nil {
		t.Fatalf("events tail: %v\n%s", err, errOut.String())
	}
	log := newAuditedLog()
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var env struct {
			Type string
			Data json.RawMessage
		}
		if err := json.Unmarshal(sc.Bytes(), &env); err != nil {
			t.Fatalf("events tail line %q: %v", sc.Text(), err)
		}
		log.add(t, env.Type, env.Data)
	}
	load.figures(t, "SIGKILL", log, proxyOutcomeBound)
}

// ---- PostgreSQL outage ----

// TestAuditThroughPostgresOutage stops the server's private PostgreSQL cluster under load for a few
// seconds and starts it again. During the outage the proxy must answer 503 with Retry-After (never a
// 200 whose audit is lost) and execute_tools must withhold results; afterwards both work again, and
// every acknowledgement has its records, outcomes included (the proxy retries them until the
// database is back).
func TestAuditThroughPostgresOutage(t *testing.T) {
	t.Parallel()
	cluster := testenv.NewCluster(t)
	provider := relayProvider(t)
	dir := t.TempDir()
	writeRelayPlugin(t, dir, provider.URL)
	srv := startE2E(t, cluster.URL(), map[string]string{"PLUGINS_DIR": dir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"}, slog.LevelWarn)
	user := srv.user(t, "outage@example.com")
	load := newAuditLoad(t, srv.Base, user.Key)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	load.start(ctx)
	load.waitFor(phaseBefore, 100, 50, 60*time.Second)

	load.phase.Store(phaseFault)
	cluster.Stop()
	time.Sleep(3 * time.Second)
	cluster.Start()
	load.phase.Store(phaseAfter)
	load.waitFor(phaseAfter, 100, 50, 90*time.Second)
	cancel()
	load.wait()

	load.mu.Lock()
	refused, okDuringOutage := load.proxyStatus[phaseFault][http.StatusServiceUnavailable], load.proxyStatus[phaseFault][http.StatusOK]
	load.mu.Unlock()
	if refused == 0 {
		t.Errorf("no proxy request was refused with 503 during the outage (200s: %d)", okDuringOutage)
	}
	// Each RequestProxied outcome is written from a queue after its answer, so the last ones may still
	// be on their way when the load stops (and on PostgreSQL an event is readable a moment after its
	// commit): follow the log until every acknowledgement has its records, or 20 seconds pass, then
	// count. A count of outcomes alone is no sign: it includes those of requests whose answers the
	// stopped clients never read.
	load.mu.Lock()
	acked := maps.Clone(load.proxyAcked)
	results := load.toolAcked[0] + load.toolAcked[1] + load.toolAcked[2]
	load.mu.Unlock()
	log := newAuditedLog()
	followCtx, stop := context.WithTimeout(context.Background(), 20*time.Second)
	defer stop()
	complete := errors.New("every acknowledgement has its records")
	err := srv.M.Store.Subscribe(followCtx, eventstore.Start, func(env eventstore.Envelope) error {
		switch env.Type {
		case curlsession.TypeRequestForwarded, curlsession.TypeRequestProxied, execution.TypeToolExecuted:
			log.add(t, env.Type, env.Data)
			if log.toolExecuted >= results && log.covers(acked) {
				return complete
			}
		}
		return nil
	})
	if !errors.Is(err, complete) && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("following the log: %v", err)
	}
	load.figures(t, "outage", log, 0)
}

// covers says whether every path in paths has both its RequestForwarded and its RequestProxied record.
func (a *auditedLog) covers(paths map[string]bool) bool {
	for path := range paths {
		if !a.forwarded[path] || !a.proxied[path] {
			return false
		}
	}
	return true
}
