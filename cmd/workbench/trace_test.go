package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/internal/tracing"
)

// One execute_tools call with two executions is one trace: the MCP request's span, under it the
// authentication and one span per tool; under the tool that calls its provider, the provider's HTTP
// request (whose traceparent the provider receives, since the integration opted in) and the audit
// append; the audit events carry the trace id.
func TestTraceOfExecuteTools(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	prevTP, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	tracing.Install(tracing.Provider(sdktrace.WithSpanProcessor(rec)))
	t.Cleanup(func() {
		otel.SetTracerProvider(prevTP)
		otel.SetTextMapPropagator(prevProp)
	})

	var mu sync.Mutex
	var traceparents []string
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		traceparents = append(traceparents, r.Header.Get("traceparent"))
		mu.Unlock()
		if r.Method != http.MethodGet || r.URL.Path != "/hello" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"greeting":"hello"}`)) //nolint:errcheck
	}))
	defer provider.Close()
	plugDir := t.TempDir()
	d := filepath.Join(plugDir, "tracey")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"manifest.json": fmt.Sprintf(`{"name":"tracey","version":"1.0.0","display_name":"Tracey","description":"A test integration that opts in to trace propagation.",
			"categories":["testing"],"base_url":%q,"auth":{"mode":"none"},"trace_propagation":true}`, provider.URL),
		"tools.json": `[{"name":"tracey_hello","description":"Says hello.","input_schema":{"type":"object","properties":{},"additionalProperties":false},
			"http":{"method":"GET","path":"/hello","response":{"fields":["greeting"]}}}]`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{
		"PLUGINS_DIR": plugDir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true",
	}, slog.LevelInfo)
	ada := srv.user(t, "ada@example.com")
	e := &mcpEnv{srv: srv, endpoint: srv.Base + "/mcp"}
	cs, _ := e.connectSDK(t, ada.Key)
	defer cs.Close()
	res := execute(t, cs, ex("tracey_hello", nil), ex("utils_echo", map[string]any{"message": "traced"}))
	if got := string(res.Results[0]["result"]); got != `{"greeting":"hello"}` {
		t.Fatalf("tracey_hello: %v", res.Results[0])
	}

	spans := rec.Ended()
	byID := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		byID[s.SpanContext().SpanID().String()] = s
	}
	children := func(parent sdktrace.ReadOnlySpan) []string {
		var out []string
		for _, s := range spans {
			if s.Parent().SpanID() == parent.SpanContext().SpanID() && s.Parent().IsValid() {
				out = append(out, s.Name())
			}
		}
		sort.Strings(out)
		return out
	}
	find := func(name string) sdktrace.ReadOnlySpan {
		t.Helper()
		for _, s := range spans {
			if s.Name() == name {
				return s
			}
		}
		t.Fatalf("no span %q among:\n%s", name, spanTree(spans))
		return nil
	}
	hello := find("tool tracey_hello")
	root, ok := byID[hello.Parent().SpanID().String()]
	if !ok || root.Name() != "mcp POST" || root.Parent().IsValid() {
		t.Fatalf("the tool span's parent is not the MCP request's root span:\n%s", spanTree(spans))
	}
	traceID := root.SpanContext().TraceID().String()
	if got, want := strings.Join(children(root), ","), "authenticate,tool tracey_hello,tool utils_echo"; got != want {
		t.Errorf("under the MCP request: %s, want %s\n%s", got, want, spanTree(spans))
	}
	if got, want := strings.Join(children(hello), ","), "HTTP GET,eventstore.append"; got != want {
		t.Errorf("under tool tracey_hello: %s, want %s\n%s", got, want, spanTree(spans))
	}
	if got, want := strings.Join(children(find("tool utils_echo")), ","), "eventstore.append"; got != want {
		t.Errorf("under tool utils_echo: %s, want %s\n%s", got, want, spanTree(spans))
	}
	for _, s := range spans {
		if s.Name() == "HTTP GET" && s.SpanContext().TraceID().String() == traceID && !hasAttr(s, attribute.Bool("workbench.trace_propagated", true)) {
			t.Errorf("the provider call is not marked as propagated: %v", s.Attributes())
		}
	}
	mu.Lock()
	if len(traceparents) != 1 || !strings.Contains(traceparents[0], traceID) {
		t.Errorf("the provider received traceparent %q, want one in trace %s", traceparents, traceID)
	}
	mu.Unlock()

	evs := srv.settledEvents(t, execution.TypeToolExecuted, 2)
	if len(evs) != 2 {
		t.Fatalf("%d executions recorded, want 2", len(evs))
	}
	for _, ev := range evs {
		if ev.Metadata.TraceID != traceID {
			var r execution.ToolExecuted
			json.Unmarshal(ev.Data, &r) //nolint:errcheck
			t.Errorf("the audit event of %s names trace %q, want %s", r.Tool, ev.Metadata.TraceID, traceID)
		}
	}
}

func hasAttr(s sdktrace.ReadOnlySpan, want attribute.KeyValue) bool {
	for _, a := range s.Attributes() {
		if a == want {
			return true
		}
	}
	return false
}

// spanTree prints spans as an indented tree, for failure messages.
func spanTree(spans []sdktrace.ReadOnlySpan) string {
	var b strings.Builder
	var walk func(parent string, depth int)
	walk = func(parent string, depth int) {
		for _, s := range spans {
			p := ""
			if s.Parent().IsValid() {
				p = s.Parent().SpanID().String()
			}
			if p == parent {
				fmt.Fprintf(&b, "%s%s (trace %s)\n", strings.Repeat("  ", depth), s.Name(), s.SpanContext().TraceID())
				walk(s.SpanContext().SpanID().String(), depth+1)
			}
		}
	}
	walk("", 0)
	return b.String()
}
