// Package config reads Workbench's configuration from the environment, once, at start. Every error names
// the variable and the form it expected; no value is read anywhere else.
package config

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Backend names where a kind of data lives.
type Backend string

const (
	SQLite   Backend = "sqlite"
	Postgres Backend = "postgres"
	Kurrent  Backend = "kurrent"
)

// Config is everything Workbench reads from its environment.
type Config struct {
	Port int
	// DatabaseURL is a postgres:// URL or a SQLite file path; Database says which.
	DatabaseURL string
	Database    Backend
	// DatabaseMaxConns (DATABASE_MAX_CONNS) caps the PostgreSQL connections the server's database/sql
	// pool opens, and as many are kept idle between requests; DatabaseConnMaxIdle
	// (DATABASE_CONN_MAX_IDLE_SECONDS) closes a connection left idle that long. SQLite ignores both.
	DatabaseMaxConns    int
	DatabaseConnMaxIdle time.Duration
	// EventStoreURL is empty (events live in the database) or an esdb:// / kurrentdb:// URL.
	EventStoreURL string
	EventStore    Backend
	// DataDir holds the SQLite file and, on the embedded default, the generated encryption key.
	DataDir string
	// EncryptionKey and EncryptionKeyPrevious are raw values; the vault parses them.
	EncryptionKey         string
	EncryptionKeyPrevious string
	ServerPublicURL       string
	PluginsDir            string
	BrowserSessionTTL     time.Duration
	BusURL                string
	// BusNATSPrefix (BUS_NATS_PREFIX, default "workbench") names this deployment's NATS stream and
	// subject, so deployments sharing one NATS server stay apart; checked by the bus when it opens.
	BusNATSPrefix string
	LogLevel      string
	// DevAllowLoopback lets URL-fetching features reach loopback addresses (tests and local development only).
	DevAllowLoopback bool

	// OAuthAccessTokenTTL is the lifetime of access tokens issued to MCP clients (zero: the default).
	OAuthAccessTokenTTL time.Duration

	// JotsOrigin, when set, is the separate origin jots are served from (recommended in production).
	JotsOrigin string
	// Jot limits; zero means the jots package's defaults (5 MiB, 1000 files, 5 minutes).
	JotsMaxBytes  int64
	JotsMaxFiles  int
	JotsUploadTTL time.Duration

	// MetricsToken, when set, is the bearer token /metrics requires (METRICS_TOKEN).
	MetricsToken string
	// HTTP is how the server listens: bind address, deadlines, per-client connection cap (http.go).
	HTTP HTTP
	// JotsMaxPerUser and JotsQuotaBytes bound one user's jots (zero: the jots package's defaults, 100
	// names and 100 MiB).
	JotsMaxPerUser int
	JotsQuotaBytes int64

	// SignIn is how people sign in to the portal: OpenID providers, allowed domains, the user of the
	// startup link (signin.go).
	SignIn SignIn
	// Admins are the instance admins' normalised emails (WORKBENCH_ADMINS, comma separated; default the
	// WORKBENCH_ADMIN_EMAIL user): the one list every admin check reads (admins.go).
	Admins []string
	// AuditSink is the SIEM feed (auditsink.go); zero URL and NATSSubject: no feed.
	AuditSink AuditSink
	// OrgLimits is the policy every organisation runs under (WORKBENCH_ORG_LIMITS, orglimits.go).
	OrgLimits OrgLimits
	// ConnectorRegistry is where instance admins install connectors from (CONNECTOR_REGISTRY_DIR or
	// CONNECTOR_REGISTRY_URL, registry.go).
	ConnectorRegistry ConnectorRegistry

	// Browser sessions (internal/browser): the Chromium executable (WORKBENCH_CHROMIUM), sessions per
	// server (BROWSER_MAX_SESSIONS), pages per session (BROWSER_MAX_PAGES), memory per session
	// (BROWSER_MEMORY_LIMIT_MB; zero: the pool's default), and whether browser_evaluate may run
	// (BROWSER_ALLOW_EVALUATE).
	Chromium             string
	BrowserMaxSessions   int
	BrowserMaxPages      int
	BrowserMemoryLimitMB int
	BrowserAllowEvaluate bool
	// ReplicaURL (WORKBENCH_REPLICA_URL) is this replica's own base URL as the other replicas reach
	// it, recorded with each browser session it starts so they forward the user's browser calls here.
	// Empty: derived from the listen address (cmd/workbench).
	ReplicaURL string
	// ConnectorsDir is a directory of extra connector folders (<slug>/connector.json) loaded at boot
	// beside the shipped ones, as source "local" (CONNECTORS_DIR).
	ConnectorsDir string
}

// Defaults used when a variable is unset.
const (
	DefaultPort        = 8080
	DefaultDatabaseURL = "./data/workbench.db"
	DefaultBrowserTTL  = 300 * time.Second
	// DefaultDatabaseMaxConns is 20 PostgreSQL connections: enough for 32 concurrent MCP clients
	// (most of a call waits on the event log's commit, not on the pool), far below PostgreSQL's default
	// max_connections of 100 even with a few replicas.
	DefaultDatabaseMaxConns    = 20
	DefaultDatabaseConnMaxIdle = 5 * time.Minute
	DefaultChromium            = "/usr/bin/chromium"
	DefaultBrowserMaxSessions  = 8
	DefaultBrowserMaxPages     = 4
)

// FromEnv reads the configuration through getenv (os.Getenv in production, a map in tests).
func FromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		Port:                  DefaultPort,
		DatabaseURL:           strings.TrimSpace(getenv("DATABASE_URL")),
		EventStoreURL:         strings.TrimSpace(getenv("EVENTSTORE_URL")),
		EncryptionKey:         strings.TrimSpace(getenv("ENCRYPTION_KEY")),
		EncryptionKeyPrevious: strings.TrimSpace(getenv("ENCRYPTION_KEY_PREVIOUS")),
		ServerPublicURL:       strings.TrimRight(strings.TrimSpace(getenv("SERVER_PUBLIC_URL")), "/"),
		PluginsDir:            strings.TrimSpace(getenv("PLUGINS_DIR")),
		ConnectorsDir:         strings.TrimSpace(getenv("CONNECTORS_DIR")),
		BrowserSessionTTL:     DefaultBrowserTTL,
		DatabaseMaxConns:      DefaultDatabaseMaxConns,
		DatabaseConnMaxIdle:   DefaultDatabaseConnMaxIdle,
		BusURL:                strings.TrimSpace(getenv("BUS_URL")),
		BusNATSPrefix:         strings.TrimSpace(getenv("BUS_NATS_PREFIX")),
		LogLevel:              strings.ToLower(strings.TrimSpace(getenv("LOG_LEVEL"))),
	}
	if v := strings.TrimSpace(getenv("PORT")); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p < 1 || p > 65535 {
			return c, fmt.Errorf("PORT=%q: want a TCP port number from 1 to 65535", v)
		}
		c.Port = p
	}
	if c.DatabaseURL == "" {
		c.DatabaseURL = DefaultDatabaseURL
	}
	backend, dataDir, err := parseDatabaseURL(c.DatabaseURL)
	if err != nil {
		return c, err
	}
	c.Database, c.DataDir = backend, dataDir
	if v := strings.TrimSpace(getenv("DATABASE_MAX_CONNS")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return c, fmt.Errorf("DATABASE_MAX_CONNS=%q: want a whole number of connections from 1 to 1000", v)
		}
		c.DatabaseMaxConns = n
	}
	if v := strings.TrimSpace(getenv("DATABASE_CONN_MAX_IDLE_SECONDS")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 86400 {
			return c, fmt.Errorf("DATABASE_CONN_MAX_IDLE_SECONDS=%q: want whole seconds from 1 to 86400", v)
		}
		c.DatabaseConnMaxIdle = time.Duration(n) * time.Second
	}
	if v := strings.TrimSpace(getenv("WORKBENCH_DATA_DIR")); v != "" {
		c.DataDir = v
	}
	c.EventStore = c.Database
	if c.EventStoreURL != "" {
		u, err := url.Parse(c.EventStoreURL)
		if err != nil || (u.Scheme != "esdb" && u.Scheme != "esdb+discover" && u.Scheme != "kurrentdb" && u.Scheme != "kurrentdb+discover") || u.Host == "" {
			return c, fmt.Errorf("EVENTSTORE_URL: want esdb://host:port or kurrentdb://host:port (events then live in KurrentDB), or unset to keep events in DATABASE_URL")
		}
		c.EventStore = Kurrent
	}
	if c.ServerPublicURL == "" {
		c.ServerPublicURL = fmt.Sprintf("http://localhost:%d", c.Port)
	}
	if u, err := url.Parse(c.ServerPublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return c, fmt.Errorf("SERVER_PUBLIC_URL=%q: want an absolute http:// or https:// URL with no query or fragment, e.g. https://workbench.example.com", c.ServerPublicURL)
	}
	if v := strings.TrimSpace(getenv("BROWSER_SESSION_TTL_SECONDS")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 10 || n > 86400 {
			return c, fmt.Errorf("BROWSER_SESSION_TTL_SECONDS=%q: want whole seconds from 10 to 86400", v)
		}
		c.BrowserSessionTTL = time.Duration(n) * time.Second
	}
	if err := c.readBrowser(getenv); err != nil {
		return c, err
	}
	if c.BusNATSPrefix == "" {
		c.BusNATSPrefix = "workbench"
	}
	if c.BusURL != "" {
		u, err := url.Parse(c.BusURL)
		if err != nil || (u.Scheme != "nats" && u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
			return c, fmt.Errorf("BUS_URL: want nats://host:port or postgres://…, or unset for the in-process bus")
		}
	}
	switch c.LogLevel {
	case "", "info", "debug", "warn", "error":
	default:
		return c, fmt.Errorf("LOG_LEVEL=%q: want debug, info, warn or error", c.LogLevel)
	}
	if v := strings.TrimSpace(getenv("OAUTH_ACCESS_TOKEN_TTL_SECONDS")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 60 || n > 86400 {
			return c, fmt.Errorf("OAUTH_ACCESS_TOKEN_TTL_SECONDS=%q: want whole seconds from 60 to 86400", v)
		}
		c.OAuthAccessTokenTTL = time.Duration(n) * time.Second
	}
	if v := strings.TrimRight(strings.TrimSpace(getenv("JOTS_ORIGIN")), "/"); v != "" {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			return c, fmt.Errorf("JOTS_ORIGIN=%q: want an origin such as https://jots.example.com (scheme and host only)", v)
		}
		c.JotsOrigin = v
	}
	if v := strings.TrimSpace(getenv("JOTS_MAX_BYTES")); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1024 || n > 1<<30 {
			return c, fmt.Errorf("JOTS_MAX_BYTES=%q: want a size in bytes from 1024 to 1073741824", v)
		}
		c.JotsMaxBytes = n
	}
	if v := strings.TrimSpace(getenv("JOTS_MAX_FILES")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100000 {
			return c, fmt.Errorf("JOTS_MAX_FILES=%q: want a whole number from 1 to 100000", v)
		}
		c.JotsMaxFiles = n
	}
	if v := strings.TrimSpace(getenv("JOTS_UPLOAD_TTL_SECONDS")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 10 || n > 86400 {
			return c, fmt.Errorf("JOTS_UPLOAD_TTL_SECONDS=%q: want whole seconds from 10 to 86400", v)
		}
		c.JotsUploadTTL = time.Duration(n) * time.Second
	}
	if v := getenv("METRICS_TOKEN"); v != "" {
		if len(v) < 16 || strings.ContainsAny(v, " \t\r\n") {
			return c, errors.New("METRICS_TOKEN: want at least 16 characters without white space (`openssl rand -hex 32`)")
		}
		c.MetricsToken = v
	}
	if v := strings.TrimSpace(getenv("JOTS_MAX_PER_USER")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000000 {
			return c, fmt.Errorf("JOTS_MAX_PER_USER=%q: want a whole number from 1 to 1000000", v)
		}
		c.JotsMaxPerUser = n
	}
	if v := strings.TrimSpace(getenv("JOTS_QUOTA_BYTES")); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1024 || n > 1<<40 {
			return c, fmt.Errorf("JOTS_QUOTA_BYTES=%q: want a size in bytes from 1024 to 1099511627776", v)
		}
		c.JotsQuotaBytes = n
	}
	if v := strings.TrimSpace(getenv("WORKBENCH_DEV_ALLOW_LOOPBACK")); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return c, fmt.Errorf("WORKBENCH_DEV_ALLOW_LOOPBACK=%q: want true or false", v)
		}
		c.DevAllowLoopback = b
	}
	if err := c.HTTP.read(getenv); err != nil {
		return c, err
	}
	signIn, err := readSignIn(getenv)
	if err != nil {
		return c, err
	}
	c.SignIn = signIn
	if c.Admins, err = readAdmins(getenv, signIn.AdminEmail); err != nil {
		return c, err
	}
	if c.AuditSink, err = readAuditSink(getenv, c.BusURL); err != nil {
		return c, err
	}
	if c.OrgLimits, err = readOrgLimits(getenv); err != nil {
		return c, err
	}
	if c.ConnectorRegistry, err = readConnectorRegistry(getenv, c.DevAllowLoopback); err != nil {
		return c, err
	}
	return c, nil
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

// readBrowser reads the browser session settings.
func (c *Config) readBrowser(getenv func(string) string) error {
	c.Chromium, c.BrowserMaxSessions, c.BrowserMaxPages = DefaultChromium, DefaultBrowserMaxSessions, DefaultBrowserMaxPages
	if v := strings.TrimSpace(getenv("WORKBENCH_CHROMIUM")); v != "" {
		if !filepath.IsAbs(v) {
			return fmt.Errorf("WORKBENCH_CHROMIUM=%q: want the absolute path of the Chromium executable, e.g. /usr/bin/chromium", v)
		}
		c.Chromium = v
	}
	ints := []struct {
		name     string
		min, max int
		dst      *int
		unit     string
	}{
		{"BROWSER_MAX_SESSIONS", 1, 1000, &c.BrowserMaxSessions, "sessions"},
		{"BROWSER_MAX_PAGES", 1, 100, &c.BrowserMaxPages, "pages"},
		{"BROWSER_MEMORY_LIMIT_MB", 64, 65536, &c.BrowserMemoryLimitMB, "MiB"},
	}
	for _, f := range ints {
		v := strings.TrimSpace(getenv(f.name))
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < f.min || n > f.max {
			return fmt.Errorf("%s=%q: want a whole number of %s from %d to %d", f.name, v, f.unit, f.min, f.max)
		}
		*f.dst = n
	}
	if v := strings.TrimRight(strings.TrimSpace(getenv("WORKBENCH_REPLICA_URL")), "/"); v != "" {
		if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return fmt.Errorf("WORKBENCH_REPLICA_URL=%q: want this replica's base URL as the other replicas reach it, http:// or https:// with no path, e.g. http://10.0.0.12:8080", v)
		}
		c.ReplicaURL = v
	}
	if v := strings.TrimSpace(getenv("BROWSER_ALLOW_EVALUATE")); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("BROWSER_ALLOW_EVALUATE=%q: want true or false", v)
		}
		c.BrowserAllowEvaluate = b
	}
	return nil
}
