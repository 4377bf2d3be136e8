package main

// TestReplicaFigures prints the figures of a deployment of replicas over one PostgreSQL database with
// NATS as the bus (make bench runs it; it is skipped unless WORKBENCH_REPLICA_FIGURES=1):
//
//	replicas n=1 clients=16 calls_per_s=… p50_ms=… p99_ms=… ratio=1.00
//	replicas n=2 …                                        ratio=…   (calls/s against n=1, same run)
//	replicas n=3 …
//	replicas connect_callback_on_C_to_wait_on_B samples=20 p50_ms=… p99_ms=…
//
// The load is execute_tools on utils_echo, each call audited, as raw MCP POSTs from 16 clients spread
// round-robin over the replicas serving in that phase; replicas are added between phases (one, then
// two, then three processes serving). On a 2-core machine the client and every replica share the
// cores: the point is the overhead of more replicas, not a speed-up. WORKBENCH_BENCH_SECONDS sets each
// phase's length (default 10).

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const figureClients = 16

func TestReplicaFigures(t *testing.T) {
	// Serial: it measures throughput and latency, which other tests running beside it would skew.
	if os.Getenv("WORKBENCH_REPLICA_FIGURES") != "1" {
		t.Skip("set WORKBENCH_REPLICA_FIGURES=1 (make bench does) to measure replicas")
	}
	d := benchDuration(t)
	p := newOAuthProvider(t)
	plugDir := t.TempDir()
	writeAcmePlugin(t, plugDir, p)
	c := newCluster(t, 3, map[string]string{
		"PLUGINS_DIR": plugDir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true",
		"ACME_CLIENT_ID": acmeClientID, "ACME_CLIENT_SECRET": acmeClientSecret, "LOG_LEVEL": "warn",
	})
	p.register(c.public + "/api/auth/plugin/acme/callback")
	ada := c.user("ada@example.com")

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: figureClients, DisableCompression: true}}
	defer client.CloseIdleConnections()
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"execute_tools","arguments":{"executions":[{"tool":"utils_echo","args":{"message":"replica figures"}}]}}}`)
	want := `{\"message\":\"replica figures\"}`
	var baseline float64
	for n := 1; n <= 3; n++ {
		r := c.replicas[n-1]
		c.startReady(r)
		headers := make([]http.Header, figureClients)
		endpoints := make([]string, figureClients)
		for i := range headers {
			endpoints[i] = c.replicas[i%n].base + "/mcp"
			headers[i] = rawSession(t, client, endpoints[i], ada.Key)
		}
		res, err := runLoad(figureClients, d, func(i, _ int) error {
			status, _, rb, err := post(client, endpoints[i], headers[i], body)
			if err != nil {
				return err
			}
			if status != http.StatusOK || !strings.Contains(string(rb), want) {
				return fmt.Errorf("status %d: %.300s", status, rb)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%d replicas: %v", n, err)
		}
		if n == 1 {
			baseline = res.perSecond()
		}
		fmt.Printf("replicas n=%d clients=%d calls_per_s=%.0f p50_ms=%.2f p99_ms=%.2f ratio=%.2f\n",
			n, figureClients, res.perSecond(), ms(res.p50), ms(res.p99), res.perSecond()/baseline)
	}

	// Connect on A, wait_for_connection on B, the provider's callback on C: from the moment the
	// callback is sent to C until B's wait returns.
	csA, csB := sdkSession(t, c.replicas[0].base+"/mcp", ada.Key), sdkSession(t, c.replicas[1].base+"/mcp", ada.Key)
	defer csA.Close()
	defer csB.Close()
	browser := c.browser(ada)
	const samples = 20
	var lat []time.Duration
	for range samples {
		id, link := connectStart(t, csA)
		type waited struct {
			text string
			at   time.Time
		}
		done := make(chan waited, 1)
		go func() {
			text := waitForConnection(csB, id, 60*time.Second)
			done <- waited{text, time.Now()}
		}()
		sent := connectBrowse(t, browser, c.replicas[0].base, c.replicas[2].base, link)
		w := <-done
		if w.text != `{"status":"CONNECTED"}` {
			t.Fatalf("wait_for_connection on B = %s", w.text)
		}
		lat = append(lat, w.at.Sub(sent))
	}
	slices.Sort(lat)
	fmt.Printf("replicas connect_callback_on_C_to_wait_on_B samples=%d p50_ms=%.1f p99_ms=%.1f\n",
		samples, ms(lat[len(lat)/2]), ms(lat[min(len(lat)-1, len(lat)*99/100)]))
}

// rawSession initializes an MCP session with raw POSTs and returns the headers of its later requests.
func rawSession(t testing.TB, client *http.Client, endpoint, key string) http.Header {
	t.Helper()
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Authorization", "Bearer "+key)
	status, rh, rb, err := post(client, endpoint, h, []byte(initializeBody))
	if err != nil || status != http.StatusOK || rh.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize: %d %s %v", status, rb, err)
	}
	h.Set("Mcp-Session-Id", rh.Get("Mcp-Session-Id"))
	h.Set("MCP-Protocol-Version", "2025-11-25")
	if s, _, rb, err := post(client, endpoint, h, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil || s != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d %s %v", s, rb, err)
	}
	return h
}

// sdkSession is an initialized session of the official client, authenticated by key.
func sdkSession(t testing.TB, endpoint, key string) *sdk.ClientSession {
	t.Helper()
	rt := &bearerTransport{key: key, base: http.DefaultTransport}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "workbench-figures", Version: "1"}, nil).Connect(context.Background(),
		&sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: rt}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect the SDK client: %v", err)
	}
	return cs
}
