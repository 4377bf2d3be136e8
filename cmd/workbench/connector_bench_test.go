package main

// BenchmarkConnectorRemoteCall measures a remote MCP tool called through Workbench beside the same
// tool called straight on the remote server, in the same run: a real MCP server (the official Go
// SDK's, streamable HTTP) on loopback; 32 clients, each its own initialized MCP session, send
// tools/call as raw HTTP POSTs either to the remote directly (tools/call echo) or to Workbench's /mcp
// (tools/call execute_tools on benchremote_echo, which Workbench runs through its pooled session on
// the remote and audits with a ToolExecuted event). It runs twice: with the remote answering at once,
// and answering each call after 50 ms as a real provider would. It prints per case:
//
//	connector_e2e remote_latency_ms=… clients=32 calls_per_s=… p50_ms=… p99_ms=… direct_calls_per_s=… direct_p50_ms=… direct_p99_ms=… ratio=… cpu_us_per_call=… direct_cpu_us_per_call=… cpu_ratio=… relay_calls_per_s=… relay_cpu_us_per_call=… relay_ratio=… relay_cpu_ratio=…
//
// cpu_us_per_call is the process's CPU time (client, Workbench and remote together) per call in the
// phase; cpu_ratio, direct over via, is the ratio the phases would reach on a machine busy with nothing
// else (throughput on a shared machine follows the CPU share this process gets). A third phase sends
// the direct calls through a bare reverse proxy (net/http/httputil) on loopback: relay_ratio and
// relay_cpu_ratio are what a gateway that does nothing but forward reaches, the ceiling for
// Workbench, which adds the same HTTP server and HTTP client on the same cores.
//
// WORKBENCH_BENCH_SECONDS sets each measured phase's length (default 10); WORKBENCH_BENCH_PROFILE_DIR,
// when set, receives CPU, block and mutex profiles of every measured phase (connector_direct_0ms_cpu.pprof, …).

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
)

type benchEchoArgs struct {
	Message string `json:"message"`
}

// benchRemote serves an MCP server with one tool, echo, on loopback, behind a bearer token check;
// tools/call answers after *delay (read on every call, so a phase can change it).
func benchRemote(tb testing.TB, token string, delay *atomic.Int64) string {
	tb.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "bench-remote", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the message back."}, func(_ context.Context, _ *mcp.CallToolRequest, a benchEchoArgs) (*mcp.CallToolResult, any, error) {
		if d := time.Duration(delay.Load()); d > 0 {
			time.Sleep(d)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Message}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: true})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "bad token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // ends with Close
	tb.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/mcp"
}

// benchRelay serves a reverse proxy to target that does nothing else: what any gateway in the path
// costs at least (one more HTTP server and one more HTTP client on the same cores).
func benchRelay(tb testing.TB, target string) string {
	tb.Helper()
	u, err := url.Parse(target)
	if err != nil {
		tb.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	rp.Transport = &http.Transport{MaxIdleConns: 8 * benchClients, MaxIdleConnsPerHost: 4 * benchClients, DisableCompression: true}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // ends with Close
	tb.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + u.Path
}

// mcpSessions initializes benchClients sessions on endpoint with auth and returns their headers.
func mcpSessions(b *testing.B, client *http.Client, endpoint, auth string) []http.Header {
	b.Helper()
	headers := make([]http.Header, benchClients)
	for c := range benchClients {
		h := http.Header{}
		h.Set("Content-Type", "application/json")
		h.Set("Accept", "application/json, text/event-stream")
		h.Set("Authorization", auth)
		status, rh, rb, err := post(client, endpoint, h, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench-`+strconv.Itoa(c)+`","version":"1"}}}`))
		if err != nil || status != http.StatusOK || rh.Get("Mcp-Session-Id") == "" {
			b.Fatalf("initialize %s: %d %s %v", endpoint, status, rb, err)
		}
		h.Set("Mcp-Session-Id", rh.Get("Mcp-Session-Id"))
		h.Set("MCP-Protocol-Version", "2025-06-18")
		if status, _, rb, err := post(client, endpoint, h, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil || status != http.StatusAccepted {
			b.Fatalf("notifications/initialized %s: %d %s %v", endpoint, status, rb, err)
		}
		headers[c] = h
	}
	return headers
}

func BenchmarkConnectorRemoteCall(b *testing.B) {
	d := benchDuration(b)
	warmup := min(d/5, 2*time.Second)
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 8 * benchClients, MaxIdleConnsPerHost: 4 * benchClients, DisableCompression: true}}
	defer client.CloseIdleConnections()

	const token = "bench-remote-token-0123456789"
	var delay atomic.Int64
	remoteURL := benchRemote(b, token, &delay)
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "benchremote"), 0o755); err != nil {
		b.Fatal(err)
	}
	manifest := fmt.Sprintf(`{"slug":"benchremote","display_name":"Bench remote","endpoint":{"url":%q},"auth":{"kind":"token"}}`, remoteURL)
	if err := os.WriteFile(filepath.Join(dir, "benchremote", "connector.json"), []byte(manifest), 0o644); err != nil {
		b.Fatal(err)
	}
	srv := startE2E(b, filepath.Join(b.TempDir(), "wb.db"), map[string]string{"CONNECTORS_DIR": dir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"}, slog.LevelWarn)
	user := srv.user(b, "bench@example.com")
	// The user's API key acts as their default agent.
	if _, err := srv.M.Connectors.Connect(context.Background(), user.ID, connectors.ConnectRequest{ServerID: "mcp_benchremote",
		Owner: login.Owner{Scope: login.ScopeAgent, ID: organization.DefaultAgentID(user.ID)}, Fields: map[string]string{"token": token}}); err != nil {
		b.Fatalf("connect: %v", err)
	}

	message := "benchmark message of a typical short tool argument, 64 bytes...."
	direct := mcpSessions(b, client, remoteURL, "Bearer "+token)
	directBody := []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":%q}}}`, message))
	callDirect := func(c, _ int) error {
		status, _, rb, err := post(client, remoteURL, direct[c], directBody)
		if err != nil {
			return err
		}
		if status != http.StatusOK || !bytes.Contains(rb, []byte(message)) {
			return fmt.Errorf("direct: status %d: %s", status, rb)
		}
		return nil
	}
	relayURL := benchRelay(b, remoteURL)
	callRelay := func(c, _ int) error {
		status, _, rb, err := post(client, relayURL, direct[c], directBody)
		if err != nil {
			return err
		}
		if status != http.StatusOK || !bytes.Contains(rb, []byte(message)) {
			return fmt.Errorf("relay: status %d: %s", status, rb)
		}
		return nil
	}
	via := mcpSessions(b, client, srv.Base+"/mcp", "Bearer "+user.Key)
	viaBody := []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"execute_tools","arguments":{"executions":[{"tool":"benchremote_echo","args":{"message":%q}}]}}}`, message))
	answered := 0
	callVia := func(c, _ int) error {
		status, _, rb, err := post(client, srv.Base+"/mcp", via[c], viaBody)
		if err != nil {
			return err
		}
		if status != http.StatusOK || !bytes.Contains(rb, []byte(message)) || bytes.Contains(rb, []byte(`\"error\"`)) {
			return fmt.Errorf("via workbench: status %d: %s", status, rb)
		}
		return nil
	}

	b.ResetTimer()
	for range b.N {
		for _, latency := range []time.Duration{0, 50 * time.Millisecond} {
			delay.Store(int64(latency))
			if _, err := runLoad(benchClients, warmup, callDirect); err != nil {
				b.Fatalf("direct warm-up: %v", err)
			}
			stop := startProfiles(b, os.Getenv("WORKBENCH_BENCH_PROFILE_DIR"), fmt.Sprintf("connector_direct_%dms_", latency.Milliseconds()), d)
			base, err := runLoad(benchClients, d, callDirect)
			stop()
			if err != nil {
				b.Fatalf("direct: %v", err)
			}
			if _, err := runLoad(benchClients, warmup, callRelay); err != nil {
				b.Fatalf("relay warm-up: %v", err)
			}
			stop = startProfiles(b, os.Getenv("WORKBENCH_BENCH_PROFILE_DIR"), fmt.Sprintf("connector_relay_%dms_", latency.Milliseconds()), d)
			relay, err := runLoad(benchClients, d, callRelay)
			stop()
			if err != nil {
				b.Fatalf("relay: %v", err)
			}
			warm, err := runLoad(benchClients, warmup, callVia)
			if err != nil {
				b.Fatalf("warm-up: %v", err)
			}
			stop = startProfiles(b, os.Getenv("WORKBENCH_BENCH_PROFILE_DIR"), fmt.Sprintf("connector_via_%dms_", latency.Milliseconds()), d)
			got, err := runLoad(benchClients, d, callVia)
			stop()
			if err != nil {
				b.Fatalf("via workbench: %v", err)
			}
			answered += warm.calls + got.calls
			if n := len(srv.settledEvents(b, execution.TypeToolExecuted, answered)); n != answered {
				b.Fatalf("%d calls answered but %d ToolExecuted events appended", answered, n)
			}
			ratio := got.perSecond() / base.perSecond()
			fmt.Printf("connector_e2e remote_latency_ms=%d clients=%d calls_per_s=%.0f p50_ms=%.2f p99_ms=%.2f direct_calls_per_s=%.0f direct_p50_ms=%.2f direct_p99_ms=%.2f ratio=%.2f cpu_us_per_call=%.0f direct_cpu_us_per_call=%.0f cpu_ratio=%.2f relay_calls_per_s=%.0f relay_cpu_us_per_call=%.0f relay_ratio=%.2f relay_cpu_ratio=%.2f\n",
				latency.Milliseconds(), benchClients, got.perSecond(), ms(got.p50), ms(got.p99), base.perSecond(), ms(base.p50), ms(base.p99), ratio,
				got.cpuPerCall(), base.cpuPerCall(), base.cpuPerCall()/got.cpuPerCall(),
				relay.perSecond(), relay.cpuPerCall(), relay.perSecond()/base.perSecond(), base.cpuPerCall()/relay.cpuPerCall())
			unit := fmt.Sprintf("latency%dms_", latency.Milliseconds())
			b.ReportMetric(got.perSecond(), unit+"calls/s")
			b.ReportMetric(base.perSecond(), unit+"direct_calls/s")
			b.ReportMetric(ratio, unit+"ratio")
			b.ReportMetric(got.cpuPerCall(), unit+"cpu_us/call")
			b.ReportMetric(base.cpuPerCall(), unit+"direct_cpu_us/call")
			b.ReportMetric(relay.perSecond()/base.perSecond(), unit+"relay_ratio")
		}
	}
}
