package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/internal/bus"
	"github.com/workbench/workbench/internal/config"
	"github.com/workbench/workbench/internal/vault"
	"github.com/workbench/workbench/migrations"
)

// doctor checks a deployment's settings without serving and without changing anything: it applies no
// migration, writes no key-check record, generates no key. Each finding is one line, "ok", "warn" or
// "FAIL", naming the setting; any FAIL makes the command fail (exit status 1).
type doctor struct {
	out      io.Writer
	failures int
	warnings int
}

func (d *doctor) ok(what, format string, args ...any) { d.line("ok  ", what, format, args...) }
func (d *doctor) warn(what, format string, args ...any) {
	d.warnings++
	d.line("warn", what, format, args...)
}
func (d *doctor) fail(what, format string, args ...any) {
	d.failures++
	d.line("FAIL", what, format, args...)
}
func (d *doctor) line(level, what, format string, args ...any) {
	fmt.Fprintf(d.out, "%s  %-15s %s\n", level, what, fmt.Sprintf(format, args...))
}

// errDoctor is returned when the doctor found something wrong (already printed).
var errDoctor = errors.New("doctor found problems")

func cmdDoctor(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	timeout := fs.Duration("timeout", 5*time.Second, "how long to wait for the database and the bus")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return errUsage
	}
	d := &doctor{out: stdout}
	d.run(ctx, getenv, *timeout)
	fmt.Fprintf(stdout, "%d problem(s), %d warning(s)\n", d.failures, d.warnings)
	if d.failures > 0 {
		return fmt.Errorf("%w: %d (see above)", errDoctor, d.failures)
	}
	return nil
}

func (d *doctor) run(ctx context.Context, getenv func(string) string, timeout time.Duration) {
	cfg, err := config.FromEnv(getenv)
	if err != nil {
		d.fail("settings", "%v", err)
		return
	}
	d.ok("settings", "the environment parses (database %s, event store %s)", cfg.Database, cfg.EventStore)
	d.publicURL(cfg, getenv)
	d.exposure(cfg)
	d.replica(cfg)
	current, previous, keyOK := d.key(cfg)
	db, dialect := d.database(ctx, cfg, timeout)
	if db != nil {
		defer db.Close()
		if d.migrations(ctx, db, dialect) && keyOK {
			d.keyMatches(ctx, db, current, previous)
		}
	}
	d.bus(ctx, cfg, timeout)
}

// publicURL: SERVER_PUBLIC_URL is what links, OAuth callbacks and signed tokens are built on.
func (d *doctor) publicURL(cfg config.Config, getenv func(string) string) {
	const what = "public URL"
	u, err := url.Parse(cfg.ServerPublicURL)
	if err != nil {
		d.fail(what, "SERVER_PUBLIC_URL=%q does not parse: %v", cfg.ServerPublicURL, err)
		return
	}
	if u.Path != "" && u.Path != "/" {
		d.fail(what, "SERVER_PUBLIC_URL=%q has a path (%s): Workbench serves at the root of its origin; use a host of its own", cfg.ServerPublicURL, u.Path)
		return
	}
	if u.User != nil {
		d.fail(what, "SERVER_PUBLIC_URL carries credentials: remove the user info")
		return
	}
	local := isLocalHost(u.Hostname())
	if strings.TrimSpace(getenv("SERVER_PUBLIC_URL")) == "" && cfg.Database == config.Postgres {
		d.warn(what, "SERVER_PUBLIC_URL is unset, so links and OAuth callbacks name %s: set it to the URL clients reach (the same on every replica)", cfg.ServerPublicURL)
	}
	if u.Scheme == "http" && !local {
		d.warn(what, "SERVER_PUBLIC_URL=%s is plain HTTP on a non-local host: sessions, API keys and tokens cross the network in clear; serve it over https", cfg.ServerPublicURL)
	}
	if local && u.Port() != "" && u.Port() != fmt.Sprint(cfg.Port) {
		d.warn(what, "SERVER_PUBLIC_URL=%s names port %s on this machine, but PORT is %d: links will point at another port", cfg.ServerPublicURL, u.Port(), cfg.Port)
	}
	if cfg.JotsOrigin == "" && !local {
		d.warn(what, "JOTS_ORIGIN is unset: jots are served on the portal's origin; give them an origin of their own in production")
	}
	d.ok(what, "%s", cfg.ServerPublicURL)
}

// exposure: settings that are fine on a laptop and wrong on a network.
func (d *doctor) exposure(cfg config.Config) {
	loopbackOnly := isLocalHost(cfg.HTTP.Host)
	if cfg.MetricsToken == "" && !loopbackOnly {
		d.warn("metrics", "METRICS_TOKEN is unset and the server binds %q: anyone who reaches the port reads /metrics", cfg.HTTP.Host)
	}
	if cfg.DevAllowLoopback {
		d.warn("outbound", "WORKBENCH_DEV_ALLOW_LOOPBACK is true: tool calls and the curl proxy may reach this machine's loopback services (development only)")
	}
}

// replica: on PostgreSQL several replicas may serve one database, and a user's browser calls are
// relayed to the replica whose Chromium holds the session, at the URL it recorded. Unset, that URL is
// derived from HOST and PORT (or the machine's host name), which the others may not reach.
func (d *doctor) replica(cfg config.Config) {
	const what = "replica URL"
	if cfg.Database != config.Postgres {
		return
	}
	if cfg.ReplicaURL == "" {
		d.warn(what, "WORKBENCH_REPLICA_URL is unset: browser calls relayed from other replicas go to an address derived from HOST and PORT; set it to this replica's base URL as the others reach it (a different one on each replica)")
		return
	}
	if u, err := url.Parse(cfg.ReplicaURL); err == nil && isLocalHost(u.Hostname()) {
		d.warn(what, "WORKBENCH_REPLICA_URL=%s is a loopback address: only replicas on this machine reach it", cfg.ReplicaURL)
		return
	}
	d.ok(what, "%s", cfg.ReplicaURL)
}

// key parses ENCRYPTION_KEY (and the previous keys), or finds the generated key file on SQLite.
func (d *doctor) key(cfg config.Config) (vault.MasterKey, []vault.MasterKey, bool) {
	const what = "encryption key"
	switch {
	case cfg.EncryptionKey != "":
		current, previous, err := vault.ParseMasterKeys(cfg.EncryptionKey, cfg.EncryptionKeyPrevious)
		if err != nil {
			d.fail(what, "%v", err)
			return vault.MasterKey{}, nil, false
		}
		d.ok(what, "ENCRYPTION_KEY parses (key id %s, %d previous)", current.ID(), len(previous))
		return current, previous, true
	case cfg.Database == config.SQLite:
		path := filepath.Join(cfg.DataDir, vault.DefaultKeyFile)
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			d.warn(what, "ENCRYPTION_KEY is unset and %s does not exist: the first start generates it; back it up then", path)
			return vault.MasterKey{}, nil, false
		}
		current, _, err := vault.LoadOrCreateKeyFile(path)
		if err != nil {
			d.fail(what, "ENCRYPTION_KEY is unset and the key file cannot be used: %v", err)
			return vault.MasterKey{}, nil, false
		}
		var previous []vault.MasterKey
		if cfg.EncryptionKeyPrevious != "" {
			if _, previous, err = vault.ParseMasterKeys(current.Encode(), cfg.EncryptionKeyPrevious); err != nil {
				d.fail(what, "%v", err)
				return vault.MasterKey{}, nil, false
			}
		}
		d.warn(what, "ENCRYPTION_KEY is unset: using the generated key in %s (key id %s); keep a copy of that file off this machine", path, current.ID())
		return current, previous, true
	default:
		d.fail(what, "ENCRYPTION_KEY is required on PostgreSQL: 32 random bytes as base64 (`openssl rand -base64 32`), the same on every replica")
		return vault.MasterKey{}, nil, false
	}
}

// database opens and pings the database, never creating a SQLite file that is not there.
func (d *doctor) database(ctx context.Context, cfg config.Config, timeout time.Duration) (*sql.DB, migrations.Dialect) {
	const what = "database"
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	switch cfg.Database {
	case config.SQLite:
		path := cfg.SQLitePath()
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			d.warn(what, "SQLite file %s does not exist yet: the first start creates it", path)
			return nil, ""
		}
		db, err := sqlite.OpenDB(ctx, path)
		if err != nil {
			d.fail(what, "open SQLite database %s (DATABASE_URL): %v", path, err)
			return nil, ""
		}
		if err := db.PingContext(ctx); err != nil {
			db.Close()
			d.fail(what, "SQLite database %s does not answer: %v", path, err)
			return nil, ""
		}
		d.ok(what, "SQLite database %s opens", path)
		return db, migrations.SQLite
	case config.Postgres:
		where := redactURL(cfg.DatabaseURL)
		db, err := sql.Open("pgx", cfg.DatabaseURL)
		if err != nil {
			d.fail(what, "DATABASE_URL (%s): %v", where, err)
			return nil, ""
		}
		db.SetMaxOpenConns(2)
		if err := db.PingContext(ctx); err != nil {
			db.Close()
			d.fail(what, "PostgreSQL at %s does not answer within %s: %v", where, timeout, err)
			return nil, ""
		}
		var version string
		if err := db.QueryRowContext(ctx, `SHOW server_version`).Scan(&version); err == nil {
			d.ok(what, "PostgreSQL %s at %s answers", version, where)
		} else {
			d.ok(what, "PostgreSQL at %s answers", where)
		}
		return db, migrations.Postgres
	default:
		d.fail(what, "unsupported database backend %q", cfg.Database)
		return nil, ""
	}
}

// migrations compares the schema with this binary's migrations; it reports whether the key tables exist.
func (d *doctor) migrations(ctx context.Context, db *sql.DB, dialect migrations.Dialect) bool {
	const what = "migrations"
	st, err := migrations.Status(ctx, db, dialect)
	if err != nil {
		d.fail(what, "%v", err)
		return false
	}
	switch {
	case len(st.Unknown) > 0:
		d.fail(what, "the database has migrations this binary does not know (%v): a newer Workbench migrated it; run that version", st.Unknown)
	case len(st.Changed) > 0:
		d.fail(what, "migration %04d_%s changed after it was applied: this binary and the database disagree", st.Changed[0].Version, st.Changed[0].Name)
	case len(st.Pending) > 0:
		d.warn(what, "%d applied, %d pending (from %04d_%s): `workbench serve` or `workbench migrate` applies them",
			st.Applied, len(st.Pending), st.Pending[0].Version, st.Pending[0].Name)
	default:
		d.ok(what, "all %d applied", st.Applied)
	}
	return st.Applied > 0 && len(st.Unknown) == 0 && len(st.Changed) == 0
}

// keyMatches opens the vault's key-check record with the key given, writing nothing.
func (d *doctor) keyMatches(ctx context.Context, db *sql.DB, current vault.MasterKey, previous []vault.MasterKey) {
	const what = "encryption key"
	verdict, err := vault.VerifyMasterKeys(ctx, db, current, previous)
	switch {
	case err != nil:
		d.fail(what, "%v", err)
	case verdict.Checked == "":
		d.ok(what, "the database holds no data key yet: the first start records key id %s", current.ID())
	default:
		d.ok(what, "opens the database's key check (sealed under key id %s)", verdict.MasterID)
	}
}

// bus connects to BUS_URL (NATS: JetStream must be on) and closes again.
func (d *doctor) bus(ctx context.Context, cfg config.Config, timeout time.Duration) {
	const what = "bus"
	if cfg.BusURL == "" {
		if cfg.Database == config.Postgres {
			d.warn(what, "BUS_URL is unset: one replica is fine, but several hear each other's events only late; set nats://… or postgres://…")
		} else {
			d.ok(what, "in-process (BUS_URL unset; one server on SQLite)")
		}
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type opened struct {
		b   *bus.Bus
		err error
	}
	done := make(chan opened, 1)
	go func() {
		b, err := bus.Open(ctx, cfg.BusURL, &bus.Options{NATSPrefix: cfg.BusNATSPrefix})
		done <- opened{b, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			d.fail(what, "BUS_URL %s: %v", redactURL(cfg.BusURL), o.err)
			return
		}
		o.b.Close()
		d.ok(what, "%s answers", redactURL(cfg.BusURL))
	case <-ctx.Done():
		d.fail(what, "BUS_URL %s does not answer within %s", redactURL(cfg.BusURL), timeout)
		go func() {
			if o := <-done; o.b != nil {
				o.b.Close()
			}
		}()
	}
}

// redactURL is u without its password, for printing.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

func isLocalHost(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
