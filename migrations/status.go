package migrations

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
)

// State is how a database's schema compares with the migrations this binary carries.
type State struct {
	Applied int         // migrations of this binary recorded as applied
	Pending []Migration // migrations of this binary not applied yet (serve and migrate apply them)
	// Changed are applied migrations whose file changed since (the checksum differs): Apply refuses them.
	Changed []Migration
	// Unknown are versions recorded in the database that this binary does not carry: a newer binary
	// migrated it, and this one must not serve it.
	Unknown []int
}

// Status reads schema_migrations, changing nothing: a database never migrated has every migration
// pending.
func Status(ctx context.Context, db *sql.DB, d Dialect) (State, error) {
	all, err := List(d)
	if err != nil {
		return State{}, err
	}
	exists := `SELECT to_regclass('schema_migrations') IS NOT NULL`
	if d == SQLite {
		exists = `SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations')`
	}
	var haveTable bool
	if err := db.QueryRowContext(ctx, exists).Scan(&haveTable); err != nil {
		return State{}, fmt.Errorf("migrations: look for schema_migrations: %w", err)
	}
	applied := map[int]string{}
	if haveTable {
		rows, err := db.QueryContext(ctx, `SELECT version, checksum FROM schema_migrations`)
		if err != nil {
			return State{}, fmt.Errorf("migrations: read schema_migrations: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var v int
			var sum string
			if err := rows.Scan(&v, &sum); err != nil {
				return State{}, err
			}
			applied[v] = sum
		}
		if err := rows.Err(); err != nil {
			return State{}, err
		}
	}
	var st State
	known := map[int]bool{}
	for _, m := range all {
		known[m.Version] = true
		sum, ok := applied[m.Version]
		switch {
		case !ok:
			st.Pending = append(st.Pending, m)
		case sum != m.Checksum:
			st.Changed = append(st.Changed, m)
		default:
			st.Applied++
		}
	}
	for v := range applied {
		if !known[v] {
			st.Unknown = append(st.Unknown, v)
		}
	}
	slices.Sort(st.Unknown)
	return st, nil
}
