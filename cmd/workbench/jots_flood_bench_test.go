package main

// BenchmarkMCPUnderJotPasswordFlood measures what a flood of jot password guesses costs the rest of
// the server: 32 MCP clients calling execute_tools on utils_echo (as BenchmarkMCPEndToEnd does), first
// alone, then while 32 more connections post wrong passwords to a password-gated jot as fast as they
// are answered. Both phases run against the same served instance in the same run.
//
// It prints one summary line:
//
//	jot_flood clients=32 flooders=32 calls_per_s=… flooded_calls_per_s=… ratio=… guesses_per_s=… guess_statuses=… healthz_flood_calls_per_s=… healthz_ratio=…
//
// ratio is flooded_calls_per_s / calls_per_s: 1 means the flood costs MCP nothing. For scale, a third
// phase floods GET /healthz from the same 32 connections: healthz_ratio is what a flood of the cheapest
// request costs, the floor a refused guess can approach. WORKBENCH_BENCH_SECONDS sets each measured
// phase's length (default 10).

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workbench/workbench/app/jots/jotstest"
)

const benchFlooders = 32

var uploadURLRE = regexp.MustCompile(`upload_url\\":\\"(http[^\\"]+)`)

func BenchmarkMCPUnderJotPasswordFlood(b *testing.B) {
	d := benchDuration(b)
	warmup := min(d/5, 2*time.Second)
	srv := startE2E(b, filepath.Join(b.TempDir(), "wb.db"), nil, slog.LevelError)
	user := srv.user(b, "bench@example.com")
	endpoint := srv.Base + "/mcp"
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 4 * benchClients, MaxIdleConnsPerHost: 4 * benchClients, DisableCompression: true}}
	defer client.CloseIdleConnections()

	headers := make([]http.Header, benchClients)
	for c := range benchClients {
		h := http.Header{}
		h.Set("Content-Type", "application/json")
		h.Set("Accept", "application/json, text/event-stream")
		h.Set("Authorization", "Bearer "+user.Key)
		status, rh, rb, err := post(client, endpoint, h, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench-`+strconv.Itoa(c)+`","version":"1"}}}`))
		if err != nil || status != http.StatusOK || rh.Get("Mcp-Session-Id") == "" {
			b.Fatalf("initialize: %d %s %v", status, rb, err)
		}
		h.Set("Mcp-Session-Id", rh.Get("Mcp-Session-Id"))
		h.Set("MCP-Protocol-Version", "2025-11-25")
		if s, _, rb, err := post(client, endpoint, h, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil || s != http.StatusAccepted {
			b.Fatalf("notifications/initialized: %d %s %v", s, rb, err)
		}
		headers[c] = h
	}

	// A password-gated jot, deployed through MCP like an agent would.
	status, _, rb, err := post(client, endpoint, headers[0], []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_tools","arguments":{"executions":[{"tool":"deploy_jot","args":{"name":"gated","password":"correct horse battery"}}]}}}`))
	m := uploadURLRE.FindSubmatch(rb)
	if err != nil || status != http.StatusOK || m == nil {
		b.Fatalf("deploy_jot: %d %s %v", status, rb, err)
	}
	req, _ := http.NewRequest(http.MethodPut, string(m[1]), bytes.NewReader(jotstest.Archive(b, jotstest.File{Path: "index.html", Body: "secret"})))
	resp, err := client.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("upload: %v %v", resp, err)
	}
	resp.Body.Close()

	message := "benchmark message of a typical short tool argument, 64 bytes...."
	body := []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"execute_tools","arguments":{"executions":[{"tool":"utils_echo","args":{"message":%q}}]}}}`, message))
	want := []byte(`{\"message\":\"` + message + `\"}`)
	callMCP := func(c, _ int) error {
		status, _, rb, err := post(client, endpoint, headers[c], body)
		if err != nil {
			return err
		}
		if status != http.StatusOK || !bytes.Contains(rb, want) {
			return fmt.Errorf("status %d: %s", status, rb)
		}
		return nil
	}

	// flood sends requests made by mk on its own connections until ctx ends, counting answers by status.
	flood := func(ctx context.Context, mk func(ctx context.Context, i int) *http.Request) (map[int]int, int) {
		fc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * benchFlooders, DisableCompression: true},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		defer fc.CloseIdleConnections()
		var mu sync.Mutex
		statuses := map[int]int{}
		var wg sync.WaitGroup
		for i := range benchFlooders {
			wg.Add(1)
			go func() {
				defer wg.Done()
				local := map[int]int{}
				for ctx.Err() == nil {
					resp, err := fc.Do(mk(ctx, i))
					if err != nil {
						if ctx.Err() == nil {
							local[-1]++ // a transport error
						}
						continue
					}
					resp.Body.Close()
					local[resp.StatusCode]++
				}
				mu.Lock()
				for k, v := range local {
					statuses[k] += v
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
		total := 0
		for _, v := range statuses {
			total += v
		}
		return statuses, total
	}

	guess := func(ctx context.Context, i int) *http.Request {
		form := url.Values{"password": {"guess-" + strconv.Itoa(i)}}.Encode()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.Base+"/j/gated/", strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return req
	}
	health := func(ctx context.Context, _ int) *http.Request {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.Base+"/healthz", nil)
		return req
	}
	type floodResult struct {
		statuses map[int]int
		total    int
	}
	// underFlood measures MCP while mk's flood runs.
	underFlood := func(mk func(context.Context, int) *http.Request) (loadResult, floodResult) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan floodResult, 1)
		go func() { s, n := flood(ctx, mk); done <- floodResult{s, n} }()
		time.Sleep(warmup) // let the flood build up
		got, err := runLoad(benchClients, d, callMCP)
		cancel()
		fr := <-done
		if err != nil {
			b.Fatalf("mcp under flood: %v", err)
		}
		return got, fr
	}

	b.ResetTimer()
	for range b.N {
		if _, err := runLoad(benchClients, warmup, callMCP); err != nil {
			b.Fatalf("warm-up: %v", err)
		}
		alone, err := runLoad(benchClients, d, callMCP)
		if err != nil {
			b.Fatalf("mcp alone: %v", err)
		}

		flooded, fr := underFlood(guess)
		cheap, _ := underFlood(health)
		if fr.statuses[http.StatusOK]+fr.statuses[http.StatusSeeOther] != 0 {
			b.Fatalf("a wrong password was accepted: %v", fr.statuses)
		}

		codes := make([]int, 0, len(fr.statuses))
		for k := range fr.statuses {
			codes = append(codes, k)
		}
		sort.Ints(codes)
		var parts []string
		for _, k := range codes {
			parts = append(parts, fmt.Sprintf("%d:%d", k, fr.statuses[k]))
		}
		ratio := flooded.perSecond() / alone.perSecond()
		fmt.Printf("jot_flood clients=%d flooders=%d calls_per_s=%.0f flooded_calls_per_s=%.0f ratio=%.3f guesses_per_s=%.0f guess_statuses=%s healthz_flood_calls_per_s=%.0f healthz_ratio=%.3f\n",
			benchClients, benchFlooders, alone.perSecond(), flooded.perSecond(), ratio,
			float64(fr.total)/(d+warmup).Seconds(), strings.Join(parts, ","), cheap.perSecond(), cheap.perSecond()/alone.perSecond())
		b.ReportMetric(alone.perSecond(), "calls/s")
		b.ReportMetric(flooded.perSecond(), "flooded_calls/s")
		b.ReportMetric(ratio, "ratio")
		b.ReportMetric(cheap.perSecond()/alone.perSecond(), "healthz_ratio")
	}
}
