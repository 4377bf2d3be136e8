// Package config reads Workbench's configuration from the environment, once, at start. Every error names
// the variable and the form it expected. Variables (variables.go) is the one table of the variables:
// each area's reader (one file per area) reads its variables through it, docs/configuration.md is
// generated from it, and a test checks that it names every variable the module reads.
package config

//go:generate go run ./cmd/configdoc ../../docs/configuration.md

import "time"

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

	// Browser sessions (app/browserpool): the Chromium executable (WORKBENCH_CHROMIUM), sessions per
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

// FromEnv reads the configuration through getenv (os.Getenv in production, a map in tests), one area
// after another; the first bad value stops it with an error naming the variable.
func FromEnv(getenv func(string) string) (Config, error) {
	r := reader(getenv)
	var c Config
	// Order matters where an area reads another's result: the public URL defaults from the port,
	// the registry and the audit sink read the development switch and the bus.
	for _, read := range []func(reader, *Config) error{
		readServer, readStorage, readEncryption, readDevelopment, readSignInArea, readConnectors,
		readBrowser, readJots, readBus, readAudit, readObservability,
	} {
		if err := read(r, &c); err != nil {
			return c, err
		}
	}
	return c, nil
}
