package migrations

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
)

// roleName is what CreateServerRole accepts: a plain lower-case identifier, so it never needs quoting
// rules beyond the double quotes it gets anyway.
var roleName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// CreateServerRole creates, or brings up to date, a PostgreSQL login role for the server with the least
// privilege it runs with: it may connect to the current database, read and append to the event log
// (SELECT and INSERT on events, USAGE on its sequence) but never change or remove an event, read and
// append to the audit chain (audit_chain, audit_seals, audit_seal_keys) but never rewrite it, read
// schema_migrations, and read and write every other table (read models, the vault's key tables, the
// bus and jot tables). It owns nothing and may create nothing, so it cannot drop the append-only
// triggers or run migrations: `workbench migrate` runs as the owner, and is run again with the same
// role after every upgrade so that new tables get their grants (it is idempotent).
//
// The role gets no password: set one with ALTER ROLE, or use certificate or peer authentication.
// The caller must be allowed to create roles and own the tables (the migrating owner).
func CreateServerRole(ctx context.Context, db *sql.DB, name string) (err error) {
	if !roleName.MatchString(name) {
		return fmt.Errorf("role name %q: want a lower-case identifier (letters, digits, _; at most 63)", name)
	}
	if strings.HasPrefix(name, "pg_") {
		return fmt.Errorf("role name %q: names starting with pg_ are reserved", name)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("create role %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			tx.Rollback() //nolint:errcheck
		}
	}()
	var self, database, schema string
	if err := tx.QueryRowContext(ctx, `SELECT current_user, current_database(), current_schema()`).Scan(&self, &database, &schema); err != nil {
		return fmt.Errorf("create role %s: %w", name, err)
	}
	if name == self {
		return fmt.Errorf("create role %s: that is the role running the migration (the tables' owner); name another", name)
	}
	role := quoteIdent(name)
	var exists bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, name).Scan(&exists); err != nil {
		return fmt.Errorf("create role %s: %w", name, err)
	}
	attrs := ` LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS`
	stmts := []string{`CREATE ROLE ` + role + attrs}
	if exists {
		stmts = []string{`ALTER ROLE ` + role + attrs}
	}
	s := quoteIdent(schema)
	stmts = append(stmts,
		`GRANT CONNECT ON DATABASE `+quoteIdent(database)+` TO `+role,
		`GRANT USAGE ON SCHEMA `+s+` TO `+role,
		// Start from nothing, so a second run also takes back what an earlier grant gave.
		`REVOKE ALL ON ALL TABLES IN SCHEMA `+s+` FROM `+role,
		`REVOKE ALL ON ALL SEQUENCES IN SCHEMA `+s+` FROM `+role,
		`GRANT USAGE ON ALL SEQUENCES IN SCHEMA `+s+` TO `+role,
	)
	rows, err := tx.QueryContext(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename`, schema)
	if err != nil {
		return fmt.Errorf("create role %s: list tables: %w", name, err)
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return fmt.Errorf("create role %s: list tables: %w", name, err)
		}
		tables = append(tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("create role %s: list tables: %w", name, err)
	}
	for _, t := range tables {
		rights := "SELECT, INSERT, UPDATE, DELETE"
		switch t {
		case "events":
			rights = "SELECT, INSERT"
		case "audit_chain", "audit_seals", "audit_seal_keys":
			// The audit chain only grows, like the log it covers (app/compliance/auditchain).
			rights = "SELECT, INSERT"
		case "schema_migrations":
			rights = "SELECT"
		}
		stmts = append(stmts, `GRANT `+rights+` ON `+s+`.`+quoteIdent(t)+` TO `+role)
	}
	for _, stmt := range stmts {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("create role %s: %s: %w", name, strings.SplitN(stmt, " TO ", 2)[0], err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("create role %s: commit: %w", name, err)
	}
	return nil
}

// quoteIdent quotes a PostgreSQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
