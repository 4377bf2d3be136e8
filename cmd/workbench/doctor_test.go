package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workbench/workbench/internal/testenv"
)

// doctorRun runs `workbench doctor` with env and returns its output and error.
func doctorRun(t *testing.T, env map[string]string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"doctor", "--timeout", "3s"}, envFunc(env), &out, &errOut)
	return out.String() + errOut.String(), err
}

func wantDoctor(t *testing.T, env map[string]string, ok bool, lines ...string) string {
	t.Helper()
	out, err := doctorRun(t, env)
	if ok && err != nil {
		t.Fatalf("doctor failed: %v\n%s", err, out)
	}
	if !ok && !errors.Is(err, errDoctor) {
		t.Fatalf("doctor answered %v, want it to find a problem\n%s", err, out)
	}
	for _, l := range lines {
		if !strings.Contains(out, l) {
			t.Errorf("doctor output lacks %q:\n%s", l, out)
		}
	}
	return out
}

// On SQLite: a healthy served database passes (its generated key opens the key check); another key,
// a missing bus, a public URL with a path and a broken setting each fail, naming what is wrong.
func TestDoctorSQLite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "wb.db")
	env := map[string]string{"DATABASE_URL": db, "HOST": "127.0.0.1"}

	// Before the first start: nothing exists yet, which is not a problem.
	wantDoctor(t, env, true, "does not exist yet", "the first start generates it")

	base, _ := serveInProcess(t, env)
	waitReady(t, base)
	out := wantDoctor(t, env, true, "ok    settings", "ok    database", "all ", "ok    encryption key  opens the database's key check", "in-process")
	if strings.Contains(out, "FAIL") {
		t.Fatalf("a FAIL on a healthy deployment:\n%s", out)
	}

	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range env {
			m[a] = b
		}
		m[k] = v
		return m
	}
	wantDoctor(t, with("ENCRYPTION_KEY", testEncryptionKey), false, "FAIL  encryption key", "sealed under master key id")
	wantDoctor(t, with("BUS_URL", "nats://127.0.0.1:1"), false, "FAIL  bus ")
	wantDoctor(t, with("SERVER_PUBLIC_URL", "https://wb.example.com/workbench"), false, "FAIL  public URL", "has a path")
	wantDoctor(t, with("PORT", "eighty"), false, "FAIL  settings", "PORT=")
	wantDoctor(t, with("SERVER_PUBLIC_URL", "http://wb.example.com"), true, "warn  public URL", "plain HTTP")
	wantDoctor(t, with("HOST", "0.0.0.0"), true, "warn  metrics", "METRICS_TOKEN is unset")
}

// On PostgreSQL: an unreachable server, a missing ENCRYPTION_KEY, a database a newer binary migrated
// and a never-migrated database; then a served one with NATS passes.
func TestDoctorPostgres(t *testing.T) {
	t.Parallel()
	url := testenv.PostgresURL(t)
	env := map[string]string{"DATABASE_URL": url, "ENCRYPTION_KEY": testEncryptionKey, "SERVER_PUBLIC_URL": "https://wb.example.com", "METRICS_TOKEN": "0123456789abcdef0123", "JOTS_ORIGIN": "https://jots.example.com", "WORKBENCH_REPLICA_URL": "http://10.0.0.12:8080"}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range env {
			m[a] = b
		}
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	out := wantDoctor(t, with("DATABASE_URL", "postgres://workbench:hunter2-secret@127.0.0.1:1/workbench?sslmode=disable"), false, "FAIL  database", "does not answer")
	if strings.Contains(out, "hunter2-secret") {
		t.Fatalf("doctor printed the database password:\n%s", out)
	}
	wantDoctor(t, with("ENCRYPTION_KEY", ""), false, "FAIL  encryption key", "ENCRYPTION_KEY is required")
	wantDoctor(t, with("WORKBENCH_REPLICA_URL", ""), true, "warn  replica URL", "WORKBENCH_REPLICA_URL is unset")
	wantDoctor(t, with("WORKBENCH_REPLICA_URL", "http://127.0.0.1:8080"), true, "warn  replica URL", "loopback")
	// Never migrated: pending migrations are applied by serve, a warning.
	wantDoctor(t, env, true, "warn  migrations", "pending", "warn  bus", "BUS_URL is unset")

	natsURL := natsURLOrSkip(t)
	env["BUS_URL"] = natsURL
	env["BUS_NATS_PREFIX"] = natsPrefix(t, natsURL)
	startE2E(t, url, env, 0)
	out = wantDoctor(t, env, true, "ok    database", "ok    migrations", "opens the database's key check", "ok    bus", "ok    replica URL", "http://10.0.0.12:8080")
	if strings.Contains(out, "warn  ") {
		t.Errorf("warnings on a complete deployment:\n%s", out)
	}
	wantDoctor(t, with("ENCRYPTION_KEY", "ZmVkY2JhOTg3NjU0MzIxMGZlZGNiYTk4NzY1NDMyMTA="), false, "FAIL  encryption key")

	// A database a newer Workbench migrated: this binary must not serve it.
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (9999, 'future', 'x', 'now')`); err != nil {
		t.Fatal(err)
	}
	wantDoctor(t, env, false, "FAIL  migrations", "9999")
}
