// Package dbtime is how read models store times: UTC text in one fixed-width layout, so that the same
// SQL sorts and compares times alike on SQLite and PostgreSQL.
package dbtime

import (
	"database/sql"
	"time"
)

// Layout is fixed width (nanoseconds always written), so text order is time order.
const Layout = "2006-01-02T15:04:05.000000000Z"

// Format writes t in UTC.
func Format(t time.Time) string { return t.UTC().Format(Layout) }

// Nullable writes t, or NULL for the zero time.
func Nullable(t time.Time) sql.NullString {
	if t.IsZero() {
		return sql.NullString{}
	}
	return sql.NullString{String: Format(t), Valid: true}
}

// Parse reads a value written by Format.
func Parse(s string) (time.Time, error) { return time.Parse(Layout, s) }

// ParseNull reads a nullable value; NULL is the zero time.
func ParseNull(s sql.NullString) (time.Time, error) {
	if !s.Valid {
		return time.Time{}, nil
	}
	return Parse(s.String)
}
