package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/workbench/workbench/internal/testenv"
)

// TestMigrateCreateRole: `workbench migrate --create-role NAME` makes a role the server runs as (it
// appends events, seals credentials, writes read models) that cannot change or remove an event, nor
// lift the triggers that forbid it.
func TestMigrateCreateRole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ownerURL := testenv.PostgresURL(t)
	name := "wb_server_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
	// Roles belong to the cluster, not the test database: take this one away before the database goes.
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, ownerURL)
		if err != nil {
			t.Logf("drop role: %v", err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, fmt.Sprintf(`DROP OWNED BY %s; DROP ROLE %s`, name, name)); err != nil {
			t.Logf("drop role: %v", err)
		}
	})
	env := func(dbURL string) func(string) string {
		return envFunc(map[string]string{"DATABASE_URL": dbURL, "ENCRYPTION_KEY": testEncryptionKey})
	}
	var out bytes.Buffer
	if err := run(ctx, []string{"migrate", "--create-role", name}, env(ownerURL), &out, io.Discard); err != nil {
		t.Fatalf("migrate --create-role: %v", err)
	}
	if !strings.Contains(out.String(), "role "+name) {
		t.Fatalf("output: %q", out.String())
	}
	// Idempotent: a second run (as after an upgrade) succeeds too.
	if err := run(ctx, []string{"migrate", "--create-role", name}, env(ownerURL), io.Discard, io.Discard); err != nil {
		t.Fatalf("second migrate --create-role: %v", err)
	}

	u, err := url.Parse(ownerURL)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(name)
	roleURL := u.String()

	// The server works as the role: starting (migrations already applied, the key check) and minting a
	// key appends events, seals a secret and updates read models.
	out.Reset()
	if err := run(ctx, []string{"apikey", "create", "--email", "ada@example.com"}, env(roleURL), &out, io.Discard); err != nil {
		t.Fatalf("apikey create as %s: %v", name, err)
	}

	db, err := sql.Open("pgx", roleURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var before int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM events`).Scan(&before); err != nil || before == 0 {
		t.Fatalf("events as %s: %d, %v", name, before, err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO events (id, stream, version, type, schema_version, data, metadata)
		VALUES ($1, 'role-test', 1, 'test.appended', 1, '\x7b7d', '{}')`, uuid.New()); err != nil {
		t.Fatalf("append as %s: %v", name, err)
	}
	for _, stmt := range []string{
		`UPDATE events SET type = 'forged'`,
		`DELETE FROM events`,
		`TRUNCATE events`,
		`DROP TRIGGER events_append_only_row ON events`,
		`ALTER TABLE events DISABLE TRIGGER ALL`,
		`DROP TABLE events`,
		`CREATE TABLE scratch (n int)`,
	} {
		if _, err := db.ExecContext(ctx, stmt); err == nil {
			t.Errorf("%s as %s: succeeded", stmt, name)
		}
	}
	var after int
	var forged bool
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*), bool_or(type = 'forged') FROM events`).Scan(&after, &forged); err != nil {
		t.Fatal(err)
	}
	if after != before+1 || forged {
		t.Fatalf("events: %d before, %d after one append; forged %v", before, after, forged)
	}
	// The audit chain grows as the role (the sealer creates its key, chains and seals) and, like the
	// log, is never rewritten by it.
	if err := run(ctx, []string{"audit", "seal-head", "--now"}, env(roleURL), io.Discard, io.Discard); err != nil {
		t.Fatalf("audit seal-head --now as %s: %v", name, err)
	}
	for _, stmt := range []string{
		`UPDATE audit_chain SET hash = '\x00'`,
		`DELETE FROM audit_chain`,
		`DELETE FROM audit_seals`,
		`UPDATE audit_seal_keys SET public_key = '\x00'`,
	} {
		if _, err := db.ExecContext(ctx, stmt); err == nil {
			t.Errorf("%s as %s: succeeded", stmt, name)
		}
	}
	// The read models stay writable: the role is refused on the log only.
	if _, err := db.ExecContext(ctx, `DELETE FROM vault_shred_checkpoint WHERE id = 0`); err != nil {
		t.Fatalf("read-model delete as %s: %v", name, err)
	}
}
