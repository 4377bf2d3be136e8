// Package instrumented wraps an eventstore.Store with Prometheus metrics: append latency and events
// appended by type. It changes no behaviour.
package instrumented

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/workbench/workbench/eventstore"
)

// Store is an eventstore.Store that records metrics.
type Store struct {
	eventstore.Store
	latency  *prometheus.HistogramVec
	appended *prometheus.CounterVec
}

var _ eventstore.Store = (*Store)(nil)

// Wrap registers the metrics on reg and returns the wrapped store. backend labels the metrics.
func Wrap(s eventstore.Store, backend string, reg prometheus.Registerer) (*Store, error) {
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:        "workbench_eventstore_append_seconds",
		Help:        "Time from an Append call to its durable acknowledgement, by outcome.",
		ConstLabels: prometheus.Labels{"backend": backend},
		Buckets:     []float64{.0005, .001, .002, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
	}, []string{"outcome"})
	appended := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name:        "workbench_eventstore_events_appended_total",
		Help:        "Events durably appended, by event type.",
		ConstLabels: prometheus.Labels{"backend": backend},
	}, []string{"type"})
	for _, c := range []prometheus.Collector{latency, appended} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return &Store{Store: s, latency: latency, appended: appended}, nil
}

// Append implements eventstore.Store.
func (s *Store) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.Position, error) {
	ctx, span, events := traceAppend(ctx, stream, events)
	defer span.End()
	start := time.Now()
	pos, err := s.Store.Append(ctx, stream, expected, events...)
	endAppend(span, pos, err)
	outcome := "ok"
	switch {
	case errors.Is(err, eventstore.ErrConflict):
		outcome = "conflict"
	case err != nil:
		outcome = "error"
	}
	s.latency.WithLabelValues(outcome).Observe(time.Since(start).Seconds())
	if err == nil {
		for _, ev := range events {
			s.appended.WithLabelValues(ev.Type).Inc()
		}
	}
	return pos, err
}
