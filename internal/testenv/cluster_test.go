package testenv

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestClusterStopStart proves the private cluster is a real server of its own: reachable on its own
// port with fsync on, unreachable once stopped, and back with its data after Start.
func TestClusterStopStart(t *testing.T) {
	c := NewCluster(t)
	if c.Port() == 5432 {
		t.Fatalf("private cluster on the shared server's port")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	conn, err := pgx.Connect(ctx, c.URL())
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	var fsync string
	if err := conn.QueryRow(ctx, "SHOW fsync").Scan(&fsync); err != nil || fsync != "on" {
		t.Fatalf("fsync = %q, %v; want on", fsync, err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)"); err != nil {
		t.Fatalf("create: %v", err)
	}
	conn.Close(ctx)

	c.Stop()
	if conn, err := pgx.Connect(ctx, c.URL()); err == nil {
		conn.Close(ctx)
		t.Fatalf("connect succeeded while the cluster is stopped")
	}

	c.Start()
	conn, err = pgx.Connect(ctx, c.URL())
	if err != nil {
		t.Fatalf("connect after restart: %v", err)
	}
	defer conn.Close(ctx)
	var v int
	if err := conn.QueryRow(ctx, "SELECT v FROM kept").Scan(&v); err != nil || v != 42 {
		t.Fatalf("after restart v = %d, %v; want 42", v, err)
	}
}
