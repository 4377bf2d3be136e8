package testenv

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

// PostgresEnvVar names the shared server PostgreSQL tests run against, e.g.
// postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable.
const PostgresEnvVar = "WORKBENCH_TEST_POSTGRES_URL"

// PostgresURL creates a fresh, empty database on the server PostgresEnvVar names and returns its URL;
// the database is dropped when the test ends. It skips the test when PostgresEnvVar is unset.
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(PostgresEnvVar)
	if base == "" {
		t.Skipf("%s is not set; skipping PostgreSQL test", PostgresEnvVar)
	}
	name := "wbtest_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:16]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("testenv: connect %s: %v", PostgresEnvVar, err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("testenv: create database: %v", err)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("testenv: parse %s: %v", PostgresEnvVar, err)
	}
	u.Path = "/" + name
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Logf("testenv: drop %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)); err != nil {
			t.Logf("testenv: drop %s: %v", name, err)
		}
	})
	return u.String()
}
