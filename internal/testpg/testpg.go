// Package testpg gives each test its own empty PostgreSQL database on the server named by
// WORKBENCH_TEST_POSTGRES_URL, and skips the test cleanly when that variable is unset (New). A test
// that must stop the database (an outage, a crash) gets a private cluster of its own instead, created
// with initdb on a free loopback port (NewCluster); the shared server is never stopped.
package testpg

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// EnvVar names the server tests run against, e.g. postgres://postgres@127.0.0.1:5432/postgres.
const EnvVar = "WORKBENCH_TEST_POSTGRES_URL"

// New creates a fresh database and returns its URL; the database is dropped when the test ends. It
// skips the test when EnvVar is unset.
func New(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvVar)
	if base == "" {
		t.Skipf("%s is not set; skipping PostgreSQL test", EnvVar)
	}
	name := "wbtest_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:16]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("testpg: connect %s: %v", EnvVar, err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("testpg: create database: %v", err)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("testpg: parse %s: %v", EnvVar, err)
	}
	u.Path = "/" + name
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Logf("testpg: drop %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)); err != nil {
			t.Logf("testpg: drop %s: %v", name, err)
		}
	})
	return u.String()
}
