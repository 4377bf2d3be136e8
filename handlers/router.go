package handlers

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/workbench/workbench/domain"
)

// Options are what the router needs; zero fields get sensible defaults.
type Options struct {
	Logger *slog.Logger
	// Registry gathers /metrics and receives the HTTP metrics. Required.
	Registry *prometheus.Registry
	// Ready reports whether the server can take traffic (migrated, projections caught up). A nil
	// Ready means always ready.
	Ready func(ctx context.Context) error
	// Mount, when set, adds the product surfaces. It runs after the fixed routes are registered and
	// before the API 404 catch-all, so API routes win over the single-page app.
	Mount func(r chi.Router)
	// App, when set, answers every request no route matched outside /api/ (the portal's single-page
	// app, which itself decides what is a client route).
	App http.Handler
}

// NewRouter builds the root handler. Routes are registered in a fixed order: operational endpoints,
// then the mounted surfaces, then a JSON 404 for any unknown /api/ path, so the portal's app only ever
// catches genuine client-route 404s.
func NewRouter(opts Options) (http.Handler, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	durations := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "workbench_http_request_duration_seconds",
		Help:    "HTTP request durations by route pattern, method and status class.",
		Buckets: prometheus.DefBuckets,
	}, []string{"route", "method", "status"})
	if err := opts.Registry.Register(durations); err != nil {
		return nil, err
	}

	r := chi.NewRouter()
	r.Use(middleware.RequestID)
	r.Use(recoverer(log))
	r.Use(measure(durations))

	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	r.Get("/readyz", func(w http.ResponseWriter, req *http.Request) {
		if opts.Ready != nil {
			ctx, cancel := context.WithTimeout(req.Context(), 2*time.Second)
			defer cancel()
			if err := opts.Ready(ctx); err != nil {
				w.Header().Set("Retry-After", RetryAfterSeconds)
				WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "not ready", "reason": err.Error()})
				return
			}
		}
		WriteJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
	r.Handle("/metrics", promhttp.HandlerFor(opts.Registry, promhttp.HandlerOpts{Registry: opts.Registry}))

	if opts.Mount != nil {
		opts.Mount(r)
	}
	r.HandleFunc("/api/*", func(w http.ResponseWriter, req *http.Request) {
		WriteError(w, req, log, domain.Errorf(domain.CodeNotFound, "no API route %s %s", req.Method, req.URL.Path))
	})
	r.NotFound(func(w http.ResponseWriter, req *http.Request) {
		if strings.HasPrefix(req.URL.Path, "/api/") {
			WriteError(w, req, log, domain.Errorf(domain.CodeNotFound, "no API route %s %s", req.Method, req.URL.Path))
			return
		}
		if opts.App != nil {
			opts.App.ServeHTTP(w, req)
			return
		}
		http.NotFound(w, req)
	})
	return r, nil
}

// measure records each request's duration under its chi route pattern (never the raw path, which
// would explode the label set).
func measure(h *prometheus.HistogramVec) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
			next.ServeHTTP(ww, r)
			route := "unmatched"
			if rc := chi.RouteContext(r.Context()); rc != nil {
				if p := rc.RoutePattern(); p != "" {
					route = p
				}
			}
			status := ww.Status()
			if status == 0 {
				status = http.StatusOK
			}
			h.WithLabelValues(route, r.Method, strconv.Itoa(status/100)+"xx").Observe(time.Since(start).Seconds())
		})
	}
}

// recoverer turns a panic in a handler into a logged 500 instead of a dropped connection.
func recoverer(log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer func() {
				if v := recover(); v != nil {
					if v == http.ErrAbortHandler {
						panic(v)
					}
					log.ErrorContext(r.Context(), "handler panicked", "method", r.Method, "path", r.URL.Path, "panic", v)
					WriteError(w, r, nil, domain.Errorf(domain.CodeInternal, "internal error"))
				}
			}()
			next.ServeHTTP(w, r)
		})
	}
}
