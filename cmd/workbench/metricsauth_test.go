package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workbench/workbench/internal/config"
)

// TestMetricsToken: with METRICS_TOKEN set, /metrics answers only a bearer of the token, under every
// spelling of the path that could reach it; the rest of the server is untouched.
func TestMetricsToken(t *testing.T) {
	t.Parallel()
	const token = "metrics-0123456789abcdef"
	base, _ := serveInProcess(t, map[string]string{"DATABASE_URL": filepath.Join(t.TempDir(), "wb.db"), "METRICS_TOKEN": token})
	waitReady(t, base)
	host := strings.TrimPrefix(base, "http://")
	send := func(path, auth string) (int, string, http.Header) {
		t.Helper()
		// A raw request, so that the client sends the path exactly as written ("//metrics").
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		req := "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n"
		if auth != "" {
			req += "Authorization: " + auth + "\r\n"
		}
		if _, err := io.WriteString(conn, req+"\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufioReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	tests := []struct {
		name, path, auth string
		want             int
	}{
		{"no credential", "/metrics", "", 401},
		{"wrong token", "/metrics", "Bearer metrics-0123456789abcdeX", 401},
		{"token prefix", "/metrics", "Bearer " + token[:8], 401},
		{"token as basic", "/metrics", "Basic " + token, 401},
		{"trailing slash", "/metrics/", "", 401},
		{"double slash", "//metrics", "", 401},
		{"escaped", "/%6detrics", "", 401},
		{"with a query", "/metrics?x=1", "", 401},
		{"the token", "/metrics", "Bearer " + token, 200},
		{"health needs none", "/healthz", "", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body, h := send(tt.path, tt.auth)
			if code != tt.want {
				t.Fatalf("GET %s: %d, want %d: %s", tt.path, code, tt.want, body)
			}
			if code == 401 && (h.Get("WWW-Authenticate") == "" || strings.Contains(body, "go_goroutines")) {
				t.Fatalf("refusal without a challenge, or with metrics: %v %s", h, body)
			}
			if tt.path == "/metrics" && code == 200 && !strings.Contains(body, "go_goroutines") {
				t.Fatalf("metrics body: %s", body)
			}
		})
	}
}

func TestMetricsTokenSetting(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"short", "has white space in it ok"} {
		if _, err := config.FromEnv(envFunc(map[string]string{"METRICS_TOKEN": bad})); err == nil || !strings.Contains(err.Error(), "METRICS_TOKEN") {
			t.Errorf("METRICS_TOKEN=%q: %v", bad, err)
		}
	}
}

func bufioReader(r io.Reader) *bufio.Reader { return bufio.NewReader(r) }
