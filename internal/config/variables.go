package config

import (
	"fmt"
	"strings"
)

// Area groups the variables by what they configure; docs/configuration.md has one section per area,
// in the order of Areas.
type Area string

// The areas, in the order the documentation lists them.
const (
	AreaServer      Area = "Server and HTTP"
	AreaStorage     Area = "Storage"
	AreaEncryption  Area = "Encryption"
	AreaSignIn      Area = "Sign-in"
	AreaConnectors  Area = "Connectors and plugins"
	AreaBrowser     Area = "Browser sessions"
	AreaJots        Area = "Jots"
	AreaBus         Area = "Bus and replicas"
	AreaAudit       Area = "Audit and compliance"
	AreaObservation Area = "Observability"
	AreaDevelopment Area = "Development"
	AreaTests       Area = "Tests"
)

// Areas lists every area in documentation order.
var Areas = []Area{AreaServer, AreaStorage, AreaEncryption, AreaSignIn, AreaConnectors, AreaBrowser,
	AreaJots, AreaBus, AreaAudit, AreaObservation, AreaDevelopment, AreaTests}

// Var is one environment variable Workbench reads.
type Var struct {
	// Name is the variable, or a pattern whose <UPPER> part stands for a name known at start
	// (<PLUGIN>_CLIENT_ID).
	Name string
	Area Area
	// Default is what an unset variable means, as a reader of the documentation sees it (Markdown).
	Default string
	// Meaning says what the variable does (Markdown).
	Meaning string
	// Whole, when set, makes the variable a whole number within bounds: the reader refuses any other
	// value with an error built from it, and the documentation states the same bounds.
	Whole *Whole
}

// Whole is the form of a whole-number variable: Unit from Min to Max (Max 0: no upper bound).
type Whole struct {
	Min, Max int64
	// Unit names the form as an error message and the documentation say it: "whole seconds".
	Unit string
}

// String is the form expected, e.g. "whole seconds from 10 to 86400".
func (w Whole) String() string {
	if w.Max == 0 {
		return fmt.Sprintf("%s of at least %d", w.Unit, w.Min)
	}
	return fmt.Sprintf("%s from %d to %d", w.Unit, w.Min, w.Max)
}

func seconds(min, max int64) *Whole { return &Whole{Min: min, Max: max, Unit: "whole seconds"} }

// Variables is every environment variable the code of this module reads outside its tests, each
// once. The package's readers look each name up here (reading a name that is missing panics), the
// documentation is generated from it (go generate ./internal/config), and a test parses the module to
// check that every variable read anywhere is here and every entry is read somewhere.
var Variables = []Var{
	// Server and HTTP.
	{Name: "PORT", Area: AreaServer, Default: "`8080`", Meaning: "the one port that serves everything",
		Whole: &Whole{Min: 1, Max: 65535, Unit: "a TCP port number"}},
	{Name: "HOST", Area: AreaServer, Default: "unset (every interface)",
		Meaning: "the address to bind: an IP address (`127.0.0.1`, `::1` or `[::1]`) or a host name; `HOST=127.0.0.1` serves this machine only, as for local use"},
	{Name: "SERVER_PUBLIC_URL", Area: AreaServer, Default: "`http://localhost:$PORT`",
		Meaning: "the externally visible base URL, `http://` or `https://` with no query or fragment (a trailing `/` is dropped). " +
			"A portal page opened on another host name (say `127.0.0.1` when this says `localhost`) is redirected here (308), since the portal's cookies and origin checks only work on this host; " +
			"MCP, OAuth, `/.well-known/`, the curl proxy, jots, `/api/` and the health and metrics endpoints are never redirected. A reverse proxy must pass the original `Host` (or `X-Forwarded-Host`). " +
			"When it is loopback (`localhost`, `127.0.0.1` or `[::1]`), the three spellings of its port are one server: an MCP client given any of them finds that URL in the protected-resource metadata, " +
			"its origin as the OAuth issuer (the consent page itself opens here, where the portal session is) and tokens for it, which work on all three; " +
			"`/mcp` accepts their `Origin`s and refuses a request whose `Host` is not a loopback name (DNS rebinding)"},
	{Name: "MAX_CONNS_PER_CLIENT", Area: AreaServer, Default: "`256`",
		Meaning: "open connections one client IP address may hold; one more is closed at once, unanswered (loopback included). Behind a reverse proxy every client has the proxy's address: raise it, or turn the cap off",
		Whole:   &Whole{Min: 0, Max: 1000000, Unit: "a whole number of connections per client address (0 for no cap)"}},
	{Name: "HTTP_READ_HEADER_TIMEOUT_SECONDS", Area: AreaServer, Default: "`10`",
		Meaning: "the deadline for a request's head", Whole: seconds(1, 3600)},
	{Name: "HTTP_READ_TIMEOUT_SECONDS", Area: AreaServer, Default: "`60`",
		Meaning: "the deadline for a whole request, head and body. The curl proxy, MCP tool calls (once authenticated) and the audit export stream past it; jot uploads do not, so raise it with a large `JOTS_MAX_BYTES`",
		Whole:   seconds(1, 3600)},
	{Name: "HTTP_WRITE_TIMEOUT_SECONDS", Area: AreaServer, Default: "`60`",
		Meaning: "the deadline for a response. The curl proxy, MCP tool calls (once authenticated) and the audit export stream past it; jot downloads do not, so raise it with a large `JOTS_MAX_BYTES`",
		Whole:   seconds(1, 3600)},
	{Name: "HTTP_IDLE_TIMEOUT_SECONDS", Area: AreaServer, Default: "`120`",
		Meaning: "how long an idle keep-alive connection is kept open", Whole: seconds(1, 3600)},

	// Storage.
	{Name: "DATABASE_URL", Area: AreaStorage, Default: "`./data/workbench.db`",
		Meaning: "`postgres://…` or `postgresql://…` → PostgreSQL; anything else is a SQLite file path (`sqlite:` and `file:` prefixes accepted); another URL scheme is refused"},
	{Name: "DATABASE_MAX_CONNS", Area: AreaStorage, Default: "`20`",
		Meaning: "PostgreSQL only: the most connections the server's pool opens to `DATABASE_URL` for read models and key storage, and as many are kept idle between requests (the event store's own pool is separate). Keep replicas × this below the server's `max_connections`",
		Whole:   &Whole{Min: 1, Max: 1000, Unit: "a whole number of connections"}},
	{Name: "DATABASE_CONN_MAX_IDLE_SECONDS", Area: AreaStorage, Default: "`300`",
		Meaning: "PostgreSQL only: a pooled connection idle this long is closed", Whole: seconds(1, 86400)},
	{Name: "EVENTSTORE_URL", Area: AreaStorage, Default: "unset (events live in `DATABASE_URL`)",
		Meaning: "`esdb://…` or `kurrentdb://…` (or their `+discover` forms) → events live in KurrentDB; read models stay in `DATABASE_URL`"},
	{Name: "WORKBENCH_DATA_DIR", Area: AreaStorage, Default: "the directory of the SQLite file (`./data` on PostgreSQL)",
		Meaning: "where the generated `encryption.key` (SQLite without `ENCRYPTION_KEY`) and, on SQLite, the jot files are kept"},

	// Encryption.
	{Name: "ENCRYPTION_KEY", Area: AreaEncryption, Default: "generated into the data directory (SQLite only)",
		Meaning: "32 bytes as base64 or 64 hex characters; required on PostgreSQL (`openssl rand -base64 32`)"},
	{Name: "ENCRYPTION_KEY_PREVIOUS", Area: AreaEncryption, Default: "unset",
		Meaning: "comma-separated older keys that still open old data keys during a rotation. At start the server opens a key-check record (and, on a database from before it, one data key): if neither `ENCRYPTION_KEY` nor these open it, it refuses to start, naming the key id the data expects and the ids it was given"},

	// Sign-in.
	{Name: EnvGoogleClientID, Area: AreaSignIn, Default: "unset",
		Meaning: "portal sign-in with Google, with `GOOGLE_OIDC_CLIENT_SECRET` (both or neither); redirect URI `<SERVER_PUBLIC_URL>/api/auth/google/callback`"},
	{Name: EnvGoogleClientSecret, Area: AreaSignIn, Default: "unset",
		Meaning: "the secret of the Google client `GOOGLE_OIDC_CLIENT_ID` names"},
	{Name: EnvKeycloakIssuer, Area: AreaSignIn, Default: "unset",
		Meaning: "portal sign-in with Keycloak, with `KEYCLOAK_OIDC_CLIENT_ID`: the realm URL, e.g. `https://sso.example.com/realms/acme` (https; http only on a loopback host); redirect URI `<SERVER_PUBLIC_URL>/api/auth/keycloak/callback`"},
	{Name: EnvKeycloakClientID, Area: AreaSignIn, Default: "unset",
		Meaning: "the Keycloak client; needs `KEYCLOAK_OIDC_ISSUER`"},
	{Name: EnvKeycloakClientSecret, Area: AreaSignIn, Default: "unset (a public PKCE client)",
		Meaning: "the Keycloak client's secret"},
	{Name: EnvAllowedDomains, Area: AreaSignIn, Default: "unset (any domain)",
		Meaning: "comma-separated email domains allowed to sign in by SSO"},
	{Name: EnvAdminEmail, Area: AreaSignIn, Default: "`" + DefaultAdminEmail + "`",
		Meaning: "the account the one-time sign-in link signs in (only when no SSO is configured)"},
	{Name: EnvAdmins, Area: AreaSignIn, Default: "unset (then the `WORKBENCH_ADMIN_EMAIL` user)",
		Meaning: "comma-separated emails of the instance admins, who grant and revoke the `auditor` role and may erase users; a malformed address stops the start"},
	{Name: "OAUTH_ACCESS_TOKEN_TTL_SECONDS", Area: AreaSignIn, Default: "`600`",
		Meaning: "lifetime of the access tokens this server issues to MCP clients (they are signed JWTs; revoking a client stops its refresh tokens at once, its access tokens at this TTL)",
		Whole:   seconds(60, 86400)},

	// Connectors and plugins.
	{Name: "PLUGINS_DIR", Area: AreaConnectors, Default: "unset",
		Meaning: "a directory of user plugins loaded at boot"},
	{Name: "CONNECTORS_DIR", Area: AreaConnectors, Default: "unset",
		Meaning: "a directory of extra connector folders (`<slug>/connector.json`, endpoint connectors) loaded at boot beside the shipped ones"},
	{Name: EnvConnectorRegistryDir, Area: AreaConnectors, Default: "unset (no registry)",
		Meaning: "the connector registry instance admins install from: `<slug>/connector.json` folders or `<slug>.json` files, and an optional `verified.txt` (slugs the registry vouches for, one a line); must be an existing directory or the start stops; read afresh at each listing and install"},
	{Name: EnvConnectorRegistryURL, Area: AreaConnectors, Default: "unset (no registry)",
		Meaning: "the connector registry as an HTTPS URL of a registry index, `{\"connectors\": [...], \"verified\": [...]}`; not with `CONNECTOR_REGISTRY_DIR`; a URL that is not `https` (`http` only on loopback with `WORKBENCH_DEV_ALLOW_LOOPBACK`) stops the start; fetched at listing and install, kept 60 s"},
	{Name: pluginClientID, Area: AreaConnectors, Default: "unset (the plugin cannot be connected, unless an instance admin sets the platform key `integration:<plugin>`)",
		Meaning: "the OAuth client a plugin's integration connects with, its name in upper snake case (`google-gmail` → `GOOGLE_GMAIL_CLIENT_ID`), read at start for every loaded plugin. The platform key `integration:<plugin>` (fields `client_id`, `client_secret`; Admin, Platform keys) wins over it and is read at every connect and token refresh, so it applies at once on every replica with no restart"},
	{Name: pluginClientSecret, Area: AreaConnectors, Default: "unset (a public PKCE client)",
		Meaning: "that OAuth client's secret"},
	{Name: EnvOrgLimits, Area: AreaConnectors, Default: "unset (the open policy: no caps)",
		Meaning: "one JSON object every organisation runs under: `{\"monthly_connector_calls\": {\"<connector slug>\": N}, \"max_mcp_servers\": N}`; an unknown key or a negative number stops the start"},

	// Browser sessions.
	{Name: "BROWSER_SESSION_TTL_SECONDS", Area: AreaBrowser, Default: "`300`",
		Meaning: "a user's browser session (one headless Chromium) unused this long is closed; its profile under `<WORKBENCH_DATA_DIR>/browser/<user>` (mode 0700) is kept",
		Whole:   seconds(10, 86400)},
	{Name: "WORKBENCH_CHROMIUM", Area: AreaBrowser, Default: "`" + DefaultChromium + "`",
		Meaning: "the Chromium executable browser sessions run (an absolute path); nothing ever downloads a browser. Browser tests run it too"},
	{Name: "BROWSER_MAX_SESSIONS", Area: AreaBrowser, Default: "`8`",
		Meaning: "browser sessions the server runs at once; one more is refused until one closes",
		Whole:   &Whole{Min: 1, Max: 1000, Unit: "a whole number of sessions"}},
	{Name: "BROWSER_MAX_PAGES", Area: AreaBrowser, Default: "`4`",
		Meaning: "pages (tabs, popups) one session keeps open; at each tool call the pages beyond it, other than the one the tools drive, are closed",
		Whole:   &Whole{Min: 1, Max: 100, Unit: "a whole number of pages"}},
	{Name: "BROWSER_MEMORY_LIMIT_MB", Area: AreaBrowser, Default: "`1024`",
		Meaning: "a session whose processes hold more (proportional set size, summed) is closed; checked every tenth of the TTL, at most every 30 s",
		Whole:   &Whole{Min: 64, Max: 65536, Unit: "a whole number of MiB"}},
	{Name: "BROWSER_ALLOW_EVALUATE", Area: AreaBrowser, Default: "`false`",
		Meaning: "`true` turns on `browser_evaluate` (arbitrary JavaScript in the user's pages)"},

	// Jots.
	{Name: "JOTS_ORIGIN", Area: AreaJots, Default: "unset (jots served on the main origin)",
		Meaning: "a separate origin for jots, scheme and host only, e.g. `https://jots.example.com`: recommended, so a jot's scripts never share the portal's origin"},
	{Name: "JOTS_MAX_BYTES", Area: AreaJots, Default: "5 MiB",
		Meaning: "the decompressed size of one jot", Whole: &Whole{Min: 1024, Max: 1 << 30, Unit: "a size in bytes"}},
	{Name: "JOTS_MAX_FILES", Area: AreaJots, Default: "`1000`",
		Meaning: "the files of one jot", Whole: &Whole{Min: 1, Max: 100000, Unit: "a whole number"}},
	{Name: "JOTS_UPLOAD_TTL_SECONDS", Area: AreaJots, Default: "`300`",
		Meaning: "how long a jot's upload URL is valid", Whole: seconds(10, 86400)},
	{Name: "JOTS_MAX_PER_USER", Area: AreaJots, Default: "`100`",
		Meaning: "jot names one user may hold: live jots plus names claimed by `deploy_jot` and not yet uploaded to (a claim never uploaded to is released when its upload URL expires)",
		Whole:   &Whole{Min: 1, Max: 1000000, Unit: "a whole number"}},
	{Name: "JOTS_QUOTA_BYTES", Area: AreaJots, Default: "100 MiB",
		Meaning: "total size of one user's live jots; a deploy or update past it is refused before anything is stored",
		Whole:   &Whole{Min: 1024, Max: 1 << 40, Unit: "a size in bytes"}},

	// Bus and replicas.
	{Name: "BUS_URL", Area: AreaBus, Default: "unset (the in-process bus)",
		Meaning: "`nats://…` (NATS JetStream) or `postgres://…` (watermill-sql) when several replicas run"},
	{Name: "BUS_NATS_PREFIX", Area: AreaBus, Default: "`workbench`",
		Meaning: "names this deployment's NATS stream and subject (`<prefix>_events`, `<prefix>.events`), so deployments sharing one NATS server never see each other's events"},
	{Name: "WORKBENCH_REPLICA_URL", Area: AreaBus, Default: "`http://<HOST>:<PORT>` (this machine's host name when `HOST` is unset or a wildcard)",
		Meaning: "this replica's own base URL as the other replicas reach it (http or https, no path); recorded with each browser session it starts, so the other replicas forward that user's browser calls and live view here"},

	// Audit and compliance.
	{Name: EnvAuditSinkURL, Area: AreaAudit, Default: "unset (no webhook feed)",
		Meaning: "SIEM feed: POST every audit record, in log order, in batches signed with HMAC-SHA256 under `AUDIT_SINK_SECRET` to this https URL (plain http only to loopback with `WORKBENCH_DEV_ALLOW_LOOPBACK`); see `app/auditsink/doc.go`"},
	{Name: EnvAuditSinkSecret, Area: AreaAudit, Default: "unset",
		Meaning: "the HMAC key of the webhook feed, at least 16 bytes"},
	{Name: EnvAuditSinkNATSSubject, Area: AreaAudit, Default: "unset (no NATS feed)",
		Meaning: "SIEM feed to a NATS JetStream subject (a stream is created for it when none holds it)"},
	{Name: EnvAuditSinkNATSURL, Area: AreaAudit, Default: "`BUS_URL` when it is `nats://`",
		Meaning: "the NATS server of `AUDIT_SINK_NATS_SUBJECT`"},
	{Name: EnvAuditSinkBatch, Area: AreaAudit, Default: "`100`",
		Meaning: "records per batch", Whole: &Whole{Min: 1, Unit: "a whole number"}},
	{Name: EnvAuditSinkRetryMin, Area: AreaAudit, Default: "`1`",
		Meaning: "the shortest wait of the exponential backoff between delivery attempts", Whole: &Whole{Min: 1, Unit: "a whole number"}},
	{Name: EnvAuditSinkRetryMax, Area: AreaAudit, Default: "`300`",
		Meaning: "the longest wait of that backoff; not below `AUDIT_SINK_RETRY_MIN_SECONDS`", Whole: &Whole{Min: 1, Unit: "a whole number"}},

	// Observability.
	{Name: "METRICS_TOKEN", Area: AreaObservation, Default: "unset (`/metrics` open)",
		Meaning: "when set (at least 16 characters, no white space), `/metrics` answers only `Authorization: Bearer <METRICS_TOKEN>` and 401 otherwise; set it whenever the port is reachable from outside"},
	{Name: "LOG_LEVEL", Area: AreaObservation, Default: "`info`",
		Meaning: "`debug`, `info`, `warn` or `error`; logs are JSON unless stderr is a terminal"},
	{Name: "OTEL_EXPORTER_OTLP_ENDPOINT", Area: AreaObservation, Default: "unset (no tracing)",
		Meaning: "an OTLP/HTTP collector (`http://` or `https://`), e.g. `http://otel-collector:4318`: each MCP request becomes a trace (authentication, each tool execution, its provider call, the audit append with its group-commit wait, waits for the read models), " +
			"log lines logged within a request carry `trace_id` and `span_id`, and audit events carry the trace id in their metadata. Providers receive `traceparent` only when their manifest sets `\"trace_propagation\": true`. " +
			"The exporter reads the other `OTEL_EXPORTER_OTLP_*` settings (headers, timeout, TLS) itself"},
	{Name: "OTEL_SERVICE_NAME", Area: AreaObservation, Default: "`workbench`",
		Meaning: "the service name traces carry"},

	// Development.
	{Name: "WORKBENCH_DEV_ALLOW_LOOPBACK", Area: AreaDevelopment, Default: "`false`",
		Meaning: "`true` lets tool calls, the curl proxy, token exchanges and the browser sessions reach loopback addresses (tests and local development only); private, link-local and metadata addresses stay refused either way. `workbench plugins check` reads it too"},

	// Tests: read by the test-support packages, never by the server.
	{Name: "WORKBENCH_TEST_POSTGRES_URL", Area: AreaTests, Default: "unset (PostgreSQL tests skip)",
		Meaning: "a PostgreSQL server the tests may create and drop databases on, e.g. `postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable`"},
	{Name: "WORKBENCH_TEST_PG_BIN", Area: AreaTests, Default: "unset (the default install directory, then `initdb` on `PATH`)",
		Meaning: "a directory holding `initdb` and `pg_ctl`, for tests that start a PostgreSQL cluster of their own"},
	{Name: "CI", Area: AreaTests, Default: "unset",
		Meaning: "`true` turns a missing Chromium, or missing PostgreSQL server programs for a private cluster, from a skipped test into a failed one"},
}

// The patterns of a plugin's OAuth client; PluginClients fills in the prefix.
const (
	pluginClientID     = "<PLUGIN>_CLIENT_ID"
	pluginClientSecret = "<PLUGIN>_CLIENT_SECRET"
)

// Lookup returns the table's entry for name (a variable or a pattern), and whether there is one.
func Lookup(name string) (Var, bool) {
	for _, v := range Variables {
		if v.Name == name {
			return v, true
		}
	}
	return Var{}, false
}

// mustLookup is Lookup for the package's own readers: a name missing from the table is a programming
// error, caught by the first test that reads it.
func mustLookup(name string) Var {
	v, ok := Lookup(name)
	if !ok {
		panic(fmt.Sprintf("config: %s is read but is not in the table of variables (variables.go)", name))
	}
	return v
}

// pattern fills a pattern's <UPPER> part with value: pattern("<PLUGIN>_CLIENT_ID", "ACME") is
// ACME_CLIENT_ID.
func pattern(p, value string) string {
	i, j := strings.Index(p, "<"), strings.Index(p, ">")
	if i < 0 || j < i {
		panic(fmt.Sprintf("config: %q is not a pattern", p))
	}
	return p[:i] + value + p[j+1:]
}
