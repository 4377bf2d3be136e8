// Package tracing is the server's OpenTelemetry tracing: off unless OTEL_EXPORTER_OTLP_ENDPOINT is set
// (then spans go to that OTLP/HTTP endpoint, in batches), a span helper, the W3C trace context
// propagated to a provider only when its integration opts in, and a slog handler that adds the trace
// and span ids to every log line logged with a context that carries a span.
//
// The spans of one MCP request: "mcp <method>" (the request; HTTP handler in cmd wiring), with
// children "authenticate", "tool <name>" per execution (app/executions), under each the provider's
// "HTTP <method>" (Transport) and the audit "eventstore.append" (eventstore/instrumented, the
// group-commit wait included), and "projections.wait_for" where a use case waits for the read models.
package tracing

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
)

// Name is the instrumentation scope of every span the server makes.
const Name = "github.com/workbench/workbench"

// EnvEndpoint turns tracing on. The exporter reads the other OTEL_EXPORTER_OTLP_* variables (headers,
// timeout, TLS) itself.
const EnvEndpoint = "OTEL_EXPORTER_OTLP_ENDPOINT"

// Setup installs the global tracer provider and the W3C trace-context propagator when getenv names an
// OTLP endpoint, and returns a shutdown that flushes the spans still queued. Without the endpoint it
// installs nothing: spans are no-ops and cost next to nothing. Setup(nil) is Setup(os.Getenv).
func Setup(ctx context.Context, getenv func(string) string, version string) (shutdown func(context.Context) error, enabled bool, err error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	endpoint := strings.TrimSpace(getenv(EnvEndpoint))
	if endpoint == "" {
		return func(context.Context) error { return nil }, false, nil
	}
	if !strings.HasPrefix(endpoint, "http://") && !strings.HasPrefix(endpoint, "https://") {
		return nil, false, fmt.Errorf("%s=%q: want an http:// or https:// URL of an OTLP/HTTP collector, e.g. http://otel-collector:4318", EnvEndpoint, endpoint)
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(strings.TrimRight(endpoint, "/")+"/v1/traces"))
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", EnvEndpoint, err)
	}
	tp := Provider(sdktrace.WithBatcher(exp), sdktrace.WithResource(serviceResource(getenv, version)))
	Install(tp)
	return tp.Shutdown, true, nil
}

// Provider is a tracer provider with the server's sampler (every trace, or its parent's decision).
func Provider(opts ...sdktrace.TracerProviderOption) *sdktrace.TracerProvider {
	return sdktrace.NewTracerProvider(append([]sdktrace.TracerProviderOption{
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.AlwaysSample())),
	}, opts...)...)
}

// Install makes tp the global provider and W3C trace context the propagator (tests install a provider
// with an in-memory recorder).
func Install(tp trace.TracerProvider) {
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
}

func serviceResource(getenv func(string) string, version string) *resource.Resource {
	name := strings.TrimSpace(getenv("OTEL_SERVICE_NAME"))
	if name == "" {
		name = "workbench"
	}
	r, err := resource.Merge(resource.Default(), resource.NewWithAttributes(semconv.SchemaURL,
		semconv.ServiceName(name), semconv.ServiceVersion(version)))
	if err != nil {
		return resource.Default()
	}
	return r
}

// Start starts a span named name as a child of the span in ctx (a new trace when there is none).
func Start(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	return otel.Tracer(Name).Start(ctx, name, trace.WithAttributes(attrs...))
}

// Fail marks span as failed with err (nil: nothing).
func Fail(span trace.Span, err error) {
	if err == nil {
		return
	}
	span.RecordError(err)
	span.SetStatus(codes.Error, err.Error())
}

// TraceID is the id of the trace ctx's span is part of, or "" when there is none.
func TraceID(ctx context.Context) string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.HasTraceID() {
		return ""
	}
	return sc.TraceID().String()
}

type propagateKey struct{}

// WithPropagation marks ctx so that Transport sends the W3C trace context (traceparent) upstream with
// the requests made under it: the integration opted in (its manifest's "trace_propagation").
func WithPropagation(ctx context.Context, allowed bool) context.Context {
	return context.WithValue(ctx, propagateKey{}, allowed)
}

func propagationAllowed(ctx context.Context) bool {
	v, _ := ctx.Value(propagateKey{}).(bool)
	return v
}

// Transport wraps base (nil: http.DefaultTransport) so that every request is a client span "HTTP
// <method>" naming the host (never the path or query, which may carry identifiers), with the
// response's status. It sends the trace context upstream only under WithPropagation(ctx, true): by
// default a provider learns nothing of this server's traces.
func Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{base: base}
}

type transport struct{ base http.RoundTripper }

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, span := otel.Tracer(Name).Start(req.Context(), "HTTP "+req.Method, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("http.request.method", req.Method), attribute.String("server.address", req.URL.Hostname())))
	defer span.End()
	propagate := propagationAllowed(req.Context())
	span.SetAttributes(attribute.Bool("workbench.trace_propagated", propagate))
	if propagate {
		req = req.Clone(ctx)
		otel.GetTextMapPropagator().Inject(ctx, propagation.HeaderCarrier(req.Header))
	} else if req.Header.Get("traceparent") != "" || req.Header.Get("tracestate") != "" {
		// Nothing upstream of here may leak a trace context the integration did not ask for.
		req = req.Clone(req.Context())
		req.Header.Del("traceparent")
		req.Header.Del("tracestate")
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		Fail(span, err)
		return nil, err
	}
	span.SetAttributes(attribute.Int("http.response.status_code", resp.StatusCode))
	if resp.StatusCode >= 500 {
		span.SetStatus(codes.Error, resp.Status)
	}
	return resp, nil
}

// Handler wraps an HTTP handler so that each request is a server span "<name> <method>", continuing
// the caller's trace when the request carries a valid traceparent.
func Handler(name string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := otel.Tracer(Name).Start(ctx, name+" "+r.Method, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("http.request.method", r.Method)))
		defer span.End()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(ctx))
		if sw.status != 0 {
			span.SetAttributes(attribute.Int("http.response.status_code", sw.status))
			if sw.status >= 500 {
				span.SetStatus(codes.Error, http.StatusText(sw.status))
			}
		}
	})
}

// statusWriter records the status; it passes Flush through (MCP streams its responses).
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
