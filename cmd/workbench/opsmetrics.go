package main

import (
	"context"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/workbench/workbench/internal/bus"
	"github.com/workbench/workbench/internal/vault"
)

// The operator metrics the alert rules in deploy/ need beyond what the packages export themselves:
// whether this replica's relay is the one publishing to the bus, and how many vault operations failed.

// vaultFailures registers workbench_vault_failures_total (every op and reason present from the start,
// so an alert on its rate has a series to read) and returns the vault's OnFailure hook.
func (m *Main) vaultFailures() func(op, reason string) {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "workbench_vault_failures_total",
		Help: "Seal and open operations of the vault that failed (a shredded subject is not a failure), by operation and reason.",
	}, []string{"op", "reason"})
	if err := m.Registry.Register(c); err != nil {
		m.Logger.Warn("metrics: vault failures not registered", "err", err)
		return nil
	}
	for _, op := range []string{"seal", "open"} {
		for _, reason := range vault.FailureReasons {
			c.WithLabelValues(op, reason)
		}
	}
	return func(op, reason string) { c.WithLabelValues(op, reason).Inc() }
}

// leaderLock wraps the relay's lock (nil: a single replica, always the publisher) and keeps the gauge
// workbench_relay_leader at 1 while this replica holds it and 0 otherwise.
type leaderLock struct {
	inner bus.Lock
	gauge prometheus.Gauge
}

func (m *Main) relayLeaderLock(inner bus.Lock) bus.Lock {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "workbench_relay_leader",
		Help: "1 while this replica's bus relay holds the relay lock and publishes the log to the bus; 0 otherwise. Across replicas the sum is 1.",
	})
	if err := m.Registry.Register(g); err != nil {
		m.Logger.Warn("metrics: relay leader gauge not registered", "err", err)
		return inner
	}
	return &leaderLock{inner: inner, gauge: g}
}

func (l *leaderLock) Acquire(ctx context.Context) (context.Context, func(), error) {
	held, release := ctx, func() {}
	if l.inner != nil {
		var err error
		held, release, err = l.inner.Acquire(ctx)
		if err != nil {
			return nil, nil, err
		}
	}
	l.gauge.Set(1)
	var once sync.Once
	lost := func() { once.Do(func() { l.gauge.Set(0) }) }
	stop := context.AfterFunc(held, lost)
	return held, func() {
		stop()
		lost()
		release()
	}, nil
}
