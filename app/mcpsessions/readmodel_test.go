package mcpsessions_test

import (
	"context"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/workbench/workbench/app/mcpsessions"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/memory"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/mcpsessionsrm"
)

// Ended sessions reach the read model once each, and Unexpired returns only those not yet lapsed.
func TestEndedSessionsReadModel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db := testenv.MigratedSQLite(t)
	log := memory.New(nil)
	defer log.Close()
	runner, err := projections.NewRunner(log, db, migrations.SQLite, &projections.Options{Projections: []projections.Projection{mcpsessionsrm.New()}, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- runner.Run(rctx) }()
	defer func() { stop(); <-done }()

	now := time.Now()
	store := mcpsessions.New(log, nil)
	for _, s := range []struct {
		id  string
		exp time.Time
	}{{"live", now.Add(time.Hour)}, {"soon", now.Add(time.Minute)}, {"live", now.Add(time.Hour)}} {
		if err := store.End(ctx, s.id, s.exp); err != nil {
			t.Fatal(err)
		}
	}
	envs, err := log.ReadAll(ctx, eventstore.Start, 100)
	if err != nil || len(envs) != 2 {
		t.Fatalf("%d events for two distinct session ends (%v)", len(envs), err)
	}
	if err := runner.WaitFor(ctx, envs[len(envs)-1].Position); err != nil {
		t.Fatal(err)
	}
	got, err := mcpsessionsrm.Unexpired(ctx, db, now)
	if err != nil || len(got) != 2 || got["live"].IsZero() || got["soon"].IsZero() {
		t.Fatalf("unexpired now: %v %v", got, err)
	}
	got, err = mcpsessionsrm.Unexpired(ctx, db, now.Add(10*time.Minute))
	if err != nil || len(got) != 1 || got["live"].IsZero() {
		t.Fatalf("unexpired in ten minutes: %v %v", got, err)
	}
}
