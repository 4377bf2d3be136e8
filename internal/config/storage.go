package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"
)

// readStorage reads where the data lives: the database, its pool, the data directory and the event
// store.
func readStorage(r reader, c *Config) error {
	c.DatabaseURL = r.text("DATABASE_URL")
	if c.DatabaseURL == "" {
		c.DatabaseURL = DefaultDatabaseURL
	}
	var err error
	if c.Database, c.DataDir, err = parseDatabaseURL(c.DatabaseURL); err != nil {
		return err
	}
	if c.DatabaseMaxConns, err = r.wholeInt("DATABASE_MAX_CONNS", DefaultDatabaseMaxConns); err != nil {
		return err
	}
	if c.DatabaseConnMaxIdle, err = r.seconds("DATABASE_CONN_MAX_IDLE_SECONDS", DefaultDatabaseConnMaxIdle); err != nil {
		return err
	}
	if v := r.text("WORKBENCH_DATA_DIR"); v != "" {
		c.DataDir = v
	}
	c.EventStore = c.Database
	c.EventStoreURL = r.text("EVENTSTORE_URL")
	if c.EventStoreURL == "" {
		return nil
	}
	if !kurrentURL(c.EventStoreURL) {
		return fmt.Errorf("EVENTSTORE_URL: want esdb://host:port or kurrentdb://host:port (events then live in KurrentDB), or unset to keep events in DATABASE_URL")
	}
	c.EventStore = Kurrent
	return nil
}

// kurrentURL reports whether raw is a KurrentDB connection string with a host.
func kurrentURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return false
	}
	switch u.Scheme {
	case "esdb", "esdb+discover", "kurrentdb", "kurrentdb+discover":
		return true
	}
	return false
}

// parseDatabaseURL decides the backend. postgres:// and postgresql:// mean PostgreSQL and must parse;
// any other URL scheme is refused (it is almost certainly a mistake, not a file name); anything else is
// a SQLite file path, optionally written as sqlite:PATH or file:PATH.
func parseDatabaseURL(v string) (Backend, string, error) {
	if strings.HasPrefix(v, "postgres://") || strings.HasPrefix(v, "postgresql://") {
		if _, err := pgx.ParseConfig(v); err != nil {
			return "", "", fmt.Errorf("DATABASE_URL: not a valid PostgreSQL URL (want postgres://user:password@host:5432/dbname?sslmode=…): %s", redactErr(err, v))
		}
		return Postgres, "./data", nil
	}
	if i := strings.Index(v, "://"); i > 0 && !strings.ContainsAny(v[:i], `/\.`) {
		return "", "", fmt.Errorf("DATABASE_URL: scheme %q is not supported: want postgres://… for PostgreSQL or a file path for the embedded SQLite database", v[:i])
	}
	path := strings.TrimPrefix(strings.TrimPrefix(v, "sqlite:"), "file:")
	if path == "" || strings.HasSuffix(path, "/") {
		return "", "", fmt.Errorf("DATABASE_URL=%q: want a SQLite file path such as ./data/workbench.db", v)
	}
	return SQLite, filepath.Dir(path), nil
}

// SQLitePath returns the file path of a SQLite DatabaseURL.
func (c Config) SQLitePath() string {
	return strings.TrimPrefix(strings.TrimPrefix(c.DatabaseURL, "sqlite:"), "file:")
}

// redactErr keeps a password out of an error message that may quote the URL.
func redactErr(err error, raw string) string {
	msg := err.Error()
	if u, perr := url.Parse(raw); perr == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			msg = strings.ReplaceAll(msg, pw, "xxxxx")
		}
	}
	return msg
}
