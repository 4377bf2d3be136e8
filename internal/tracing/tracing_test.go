package tracing_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/workbench/workbench/internal/tracing"
)

func install(t *testing.T) *tracetest.SpanRecorder {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	prevTP, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	tracing.Install(tracing.Provider(sdktrace.WithSpanProcessor(rec)))
	t.Cleanup(func() {
		otel.SetTracerProvider(prevTP)
		otel.SetTextMapPropagator(prevProp)
	})
	return rec
}

// The provider sees a traceparent only under WithPropagation(ctx, true); a trace context set by anyone
// else is stripped otherwise. Either way the request is a client span of the caller's trace.
func TestTransportPropagatesOnlyWhenAllowed(t *testing.T) {
	rec := install(t)
	seen := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Get("traceparent")
	}))
	defer srv.Close()
	client := &http.Client{Transport: tracing.Transport(nil)}

	ctx, parent := tracing.Start(context.Background(), "parent")
	for _, allowed := range []bool{false, true} {
		req, _ := http.NewRequestWithContext(tracing.WithPropagation(ctx, allowed), http.MethodGet, srv.URL+"/x?secret=1", nil)
		if !allowed {
			req.Header.Set("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got := <-seen
		switch {
		case !allowed && got != "":
			t.Errorf("traceparent %q sent to a provider that did not opt in", got)
		case allowed && !strings.Contains(got, parent.SpanContext().TraceID().String()):
			t.Errorf("traceparent %q does not carry the trace %s", got, parent.SpanContext().TraceID())
		}
	}
	parent.End()
	spans := rec.Ended()
	if len(spans) != 3 {
		t.Fatalf("%d spans, want 2 client spans and the parent", len(spans))
	}
	for _, s := range spans[:2] {
		if s.Name() != "HTTP GET" || s.Parent().SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("span %q with parent %s", s.Name(), s.Parent().SpanID())
		}
		for _, a := range s.Attributes() {
			if strings.Contains(a.Value.String(), "secret") || strings.Contains(a.Value.String(), "/x") {
				t.Errorf("span attribute %s=%s names the path or query", a.Key, a.Value.String())
			}
		}
	}
}

// Handler continues an incoming trace; LogHandler puts the trace and span ids on lines logged with
// the request's context, and nothing on lines logged without one.
func TestHandlerAndLogHandler(t *testing.T) {
	install(t)
	var buf bytes.Buffer
	log := slog.New(tracing.LogHandler(slog.NewJSONHandler(&buf, nil)))
	h := tracing.Handler("mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.InfoContext(r.Context(), "inside")
		log.Info("no context")
		w.WriteHeader(http.StatusTeapot)
	}))
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	rr := httptest.NewRecorder()
	h.ServeHTTP(rr, req)
	if rr.Code != http.StatusTeapot {
		t.Fatalf("status %d", rr.Code)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"trace_id":"0af7651916cd43dd8448eb211c80319c"`) || !strings.Contains(lines[0], `"span_id":`) {
		t.Fatalf("log lines: %s", buf.String())
	}
	if strings.Contains(lines[1], "trace_id") {
		t.Fatalf("a line logged without a context has a trace id: %s", lines[1])
	}
}

// Without OTEL_EXPORTER_OTLP_ENDPOINT nothing is installed; a malformed endpoint is refused.
func TestSetup(t *testing.T) {
	shutdown, on, err := tracing.Setup(context.Background(), func(string) string { return "" }, "v")
	if err != nil || on || shutdown(context.Background()) != nil {
		t.Fatalf("Setup without an endpoint: on=%v err=%v", on, err)
	}
	if _, _, err := tracing.Setup(context.Background(), func(k string) string {
		if k == tracing.EnvEndpoint {
			return "otel-collector:4318"
		}
		return ""
	}, "v"); err == nil || !strings.Contains(err.Error(), tracing.EnvEndpoint) {
		t.Fatalf("Setup with a malformed endpoint: %v", err)
	}
}

// With an endpoint, spans are exported over OTLP/HTTP to <endpoint>/v1/traces, flushed by shutdown.
func TestSetupExportsToTheEndpoint(t *testing.T) {
	got := make(chan string, 4)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Method + " " + r.URL.Path + " " + r.Header.Get("Content-Type")
	}))
	defer collector.Close()
	prevTP, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	t.Cleanup(func() {
		otel.SetTracerProvider(prevTP)
		otel.SetTextMapPropagator(prevProp)
	})
	shutdown, on, err := tracing.Setup(context.Background(), func(k string) string {
		if k == tracing.EnvEndpoint {
			return collector.URL
		}
		return ""
	}, "test")
	if err != nil || !on {
		t.Fatalf("Setup: on=%v err=%v", on, err)
	}
	_, span := tracing.Start(context.Background(), "exported")
	span.End()
	if err := shutdown(context.Background()); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	select {
	case req := <-got:
		if req != "POST /v1/traces application/x-protobuf" {
			t.Fatalf("the collector received %q", req)
		}
	default:
		t.Fatal("nothing was exported by the time shutdown returned")
	}
}
