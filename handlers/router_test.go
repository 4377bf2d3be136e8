package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
)

func TestRouter(t *testing.T) {
	var readyErr error
	reg := prometheus.NewRegistry()
	h, err := NewRouter(Options{
		Registry: reg,
		Ready:    func(context.Context) error { return readyErr },
		Mount: func(r chi.Router) {
			r.Get("/api/boom", func(http.ResponseWriter, *http.Request) { panic("boom") })
			r.Get("/api/hello", func(w http.ResponseWriter, _ *http.Request) { WriteJSON(w, 200, map[string]string{"hello": "world"}) })
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	get := func(path string) (int, string, http.Header) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}

	tests := []struct {
		name       string
		path       string
		setup      func()
		wantStatus int
		wantBody   string
	}{
		{name: "healthz", path: "/healthz", wantStatus: 200, wantBody: `"ok"`},
		{name: "ready", path: "/readyz", wantStatus: 200, wantBody: `"ready"`},
		{name: "not ready says why", path: "/readyz", setup: func() { readyErr = errors.New("projection connections is behind") }, wantStatus: 503, wantBody: "projection connections is behind"},
		{name: "mounted route", path: "/api/hello", wantStatus: 200, wantBody: `"world"`},
		{name: "unknown api path is JSON 404", path: "/api/nope", wantStatus: 404, wantBody: `"not_found"`},
		{name: "panic is a 500 with a generic message", path: "/api/boom", wantStatus: 500, wantBody: `"internal error"`},
		{name: "other unknown path", path: "/nope", wantStatus: 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readyErr = nil
			if tt.setup != nil {
				tt.setup()
			}
			status, body, hdr := get(tt.path)
			if status != tt.wantStatus {
				t.Fatalf("status = %d, want %d (body %s)", status, tt.wantStatus, body)
			}
			if tt.wantBody != "" && !strings.Contains(body, tt.wantBody) {
				t.Fatalf("body %q does not contain %q", body, tt.wantBody)
			}
			if status == 503 && hdr.Get("Retry-After") == "" {
				t.Fatalf("503 without Retry-After")
			}
			if strings.HasPrefix(tt.path, "/api/") && !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
				t.Fatalf("content type %q", hdr.Get("Content-Type"))
			}
		})
	}

	status, body, _ := get("/metrics")
	if status != 200 || !strings.Contains(body, `workbench_http_request_duration_seconds_count{method="GET",route="/api/hello",status="2xx"} 1`) {
		t.Fatalf("metrics missing the request: %d\n%s", status, body)
	}
	var eb ErrorBody
	_, body, _ = get("/api/nope")
	if err := json.Unmarshal([]byte(body), &eb); err != nil || eb.Message == "" {
		t.Fatalf("error body %q: %v", body, err)
	}
}
