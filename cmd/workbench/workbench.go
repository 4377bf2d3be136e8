package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx" for read models and migrations
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/workbench/workbench/app/accounts"
	"github.com/workbench/workbench/app/approvals"
	"github.com/workbench/workbench/app/browser"
	"github.com/workbench/workbench/app/budgets"
	"github.com/workbench/workbench/app/compliance"
	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/curlsessions"
	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/app/jots"
	"github.com/workbench/workbench/app/mcpsessions"
	"github.com/workbench/workbench/app/oauthclients"
	"github.com/workbench/workbench/app/organizations"
	"github.com/workbench/workbench/app/platformkeys"
	"github.com/workbench/workbench/app/portalsessions"
	"github.com/workbench/workbench/app/signin"
	"github.com/workbench/workbench/app/toolsets"
	"github.com/workbench/workbench/app/webhooks"
	"github.com/workbench/workbench/domain/mcpsession"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/instrumented"
	"github.com/workbench/workbench/eventstore/kurrent"
	"github.com/workbench/workbench/eventstore/postgres"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/handlers/approvalshttp"
	"github.com/workbench/workbench/handlers/audithttp"
	"github.com/workbench/workbench/handlers/authn"
	"github.com/workbench/workbench/handlers/browserhttp"
	"github.com/workbench/workbench/handlers/budgetshttp"
	"github.com/workbench/workbench/handlers/connectorshttp"
	"github.com/workbench/workbench/handlers/erasure"
	"github.com/workbench/workbench/handlers/jotshttp"
	"github.com/workbench/workbench/handlers/mcp"
	"github.com/workbench/workbench/handlers/mcp/metatools"
	"github.com/workbench/workbench/handlers/mcp/toolsetserve"
	"github.com/workbench/workbench/handlers/oauthhttp"
	"github.com/workbench/workbench/handlers/orgs"
	"github.com/workbench/workbench/handlers/portalhttp"
	"github.com/workbench/workbench/handlers/proxy"
	"github.com/workbench/workbench/handlers/toolsetshttp"
	"github.com/workbench/workbench/handlers/tryhttp"
	"github.com/workbench/workbench/handlers/webhookshttp"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/internal/bus"
	"github.com/workbench/workbench/internal/config"
	"github.com/workbench/workbench/internal/httpserve"
	"github.com/workbench/workbench/internal/ssrf"
	"github.com/workbench/workbench/internal/tracing"
	"github.com/workbench/workbench/internal/vault"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/plugins/shipped"
	"github.com/workbench/workbench/portal"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/approvalsrm"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/budgetsrm"
	"github.com/workbench/workbench/projections/connectionsrm"
	"github.com/workbench/workbench/projections/connectorsrm"
	"github.com/workbench/workbench/projections/identityrm"
	"github.com/workbench/workbench/projections/jotsrm"
	"github.com/workbench/workbench/projections/mcpsessionsrm"
	"github.com/workbench/workbench/projections/oauthrm"
	"github.com/workbench/workbench/projections/organizationsrm"
	"github.com/workbench/workbench/projections/platform"
	"github.com/workbench/workbench/projections/portalsessionsrm"
	"github.com/workbench/workbench/projections/toolsetsrm"
	"github.com/workbench/workbench/projections/webhooksrm"
)

// Main is the whole server, wired by hand: Open builds every piece from the configuration, Run serves
// until the context ends, Close releases everything in reverse order. Subcommands use Open and the
// pieces they need.
type Main struct {
	Config   config.Config
	Logger   *slog.Logger
	Registry *prometheus.Registry
	// ConnectTimeout bounds how long Open keeps retrying an unreachable database (default 30s).
	ConnectTimeout time.Duration
	// Listener, when set, is served instead of listening on Config.Port (tests use port 0).
	Listener net.Listener
	// OnRotateProgress, when set before Open, receives `keys rotate` progress.
	OnRotateProgress func(resealed, total int)
	// Getenv is the environment internal/config reads plugin client credentials from
	// (<PLUGIN>_CLIENT_ID/_SECRET, once the registry is loaded); default os.Getenv.
	Getenv func(string) string
	// Version is reported in MCP serverInfo (NewMain sets the binary's; see binaryVersion).
	Version string
	// Now is the clock MCP session ids are minted and checked by and ended MCP sessions are recorded
	// at (NewMain sets time.Now).
	Now func() time.Time
	// BudgetClock, when set, is the clock budgets are charged by (tests hold it still to count a
	// per-minute limit exactly); nil: time.Now.
	BudgetClock func() time.Time

	DB       *sql.DB // read models, migrations, the vault's key table
	Dialect  migrations.Dialect
	Store    eventstore.Store
	Vault    *vault.Vault
	Runner   *projections.Runner
	Accounts *accounts.Service
	// Compliance is the auditor role (app/compliance); its admins are WORKBENCH_ADMINS.
	Compliance *compliance.Service
	// Organizations runs the scope use cases (organisations, members, guilds, agents).
	Organizations *organizations.Service
	Plugins       *plugins.Registry
	// Credentials and Sessions exist once Serve has started.
	Credentials *connections.Service
	Sessions    *websession.Manager

	// Connectors is the connectors use case, once Serve has started.
	Connectors *connectors.Service
	// PlatformKeys are the platform keys (Admin, Platform keys), once Serve has started.
	PlatformKeys *platformkeys.Service
	// ConnectorAdapters, when set before Open, replaces the shipped connectors' adapters by slug
	// (tests point an adapter at a fake provider).
	ConnectorAdapters map[string]connector.Adapter

	masterKey vault.MasterKey
	// inviteeKey keys organization.InviteeHash (Vault.DerivedKey of derivedKeysSubject).
	inviteeKey []byte
	pool       *pgxpool.Pool
	rawStore   eventstore.Store
	// writeGate is held by every writer of the SQLite file (store, projections, relay, vault), so that
	// they queue in Go rather than in SQLite's busy handler; nil on PostgreSQL.
	writeGate *sqlite.WriteGate
	closers   []func() error
	migrated  bool
	closeOnce sync.Once
	// probe checks for /readyz that the SQLite data directory takes a write; nil on PostgreSQL.
	probe *writeProbe
}

// NewMain returns a Main for cfg that logs to log.
func NewMain(cfg config.Config, log *slog.Logger) *Main {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return &Main{Config: cfg, Logger: log, Registry: reg, ConnectTimeout: 30 * time.Second, Version: binaryVersion(), Now: time.Now}
}

// Open connects to the databases (retrying with backoff while they are unreachable), applies
// migrations, and opens the event store.
func (m *Main) Open(ctx context.Context) error {
	if err := m.openDatabase(ctx); err != nil {
		return err
	}
	n, err := migrations.Apply(ctx, m.DB, m.Dialect, m.Logger)
	if err != nil {
		return err
	}
	m.migrated = true
	m.Logger.Info("schema up to date", "dialect", m.Dialect, "applied", n)
	if err := m.openStore(ctx); err != nil {
		return err
	}
	if err := m.openVault(ctx); err != nil {
		return err
	}
	// The key of the hash that names an invited address in the log is derived from a vault data key,
	// not from the master key, so that a master-key rotation does not change it (the hashes already in
	// the log must still find their invitations and be shredded on erasure).
	if m.inviteeKey, err = m.Vault.DerivedKey(ctx, derivedKeysSubject, organizations.InviteeKeyLabel); err != nil {
		return fmt.Errorf("the invitee hash key: %w", err)
	}
	runner, err := projections.NewRunner(m.Store, m.DB, m.Dialect, &projections.Options{
		Projections: []projections.Projection{identityrm.New().WithOpener(m.Vault), connectionsrm.New(), auditrm.New().WithOpener(m.Vault), jotsrm.New(), oauthrm.New(),
			mcpsessionsrm.New(), portalsessionsrm.New(), organizationsrm.New().WithInviteeKey(m.inviteeKey), connectorsrm.New(),
			platform.NewKeys(), platform.NewCalls(), approvalsrm.New(), budgetsrm.New(), webhooksrm.New(m.Config.ServerPublicURL), toolsetsrm.New()},
		Logger:     m.Logger,
		Registerer: m.Registry,
		WriteGate:  m.writeGate,
	})
	if err != nil {
		return err
	}
	m.Runner = runner
	if s, ok := m.rawStore.(*sqlite.Store); ok {
		// On SQLite the audit read model is written in the append's own transaction: an audited
		// call costs one fsync, not a second one for its record.
		s.SetInTransaction(runner.InTransaction)
	}
	if s, ok := m.rawStore.(*postgres.Store); ok {
		// On PostgreSQL too, when the store can tell where the log stood before a batch (no
		// transaction below it still running); otherwise the projection's loop writes it.
		s.SetInTransaction(runner.InTransaction)
	}
	m.Accounts = &accounts.Service{Store: m.Store, Vault: m.Vault}
	if err := m.openCompliance(); err != nil {
		return err
	}
	m.Organizations, err = organizations.New(organizations.Options{
		Store: m.Store, Reader: &organizationsrm.Reader{DB: m.DB}, Projections: m.Runner, Keys: m.Accounts, Vault: m.Vault,
		InviteeKey: m.inviteeKey,
	})
	if err != nil {
		return err
	}
	m.Accounts.Agents = m.Organizations
	reg, problems := plugins.Load(ctx, plugins.Options{Builtins: shipped.Plugins(), Logger: m.Logger, PluginsDir: m.Config.PluginsDir, AllowInsecureHTTP: m.Config.DevAllowLoopback})
	// Load logged each problem once, with its source; here only the count.
	m.Plugins = reg
	m.Logger.Info("plugins loaded", "integrations", len(reg.Integrations()), "tools", len(reg.Tools()), "problems", len(problems))
	return nil
}

// openJots builds the jot service, registers the built-in "jots" integration whose tools close over
// it (plugins never see the jot store), and returns the handler that serves /j/ and uploads. Blobs live
// in PostgreSQL when the database is, so every replica serves the same jots; on the filesystem otherwise.
func (m *Main) openJots() (*jotshttp.Handler, *jots.Service, error) {
	var blobs jots.BlobStore = jots.FSBlobs{Dir: filepath.Join(m.Config.DataDir, "jots")}
	if m.Config.Database == config.Postgres {
		blobs = jots.PostgresBlobs{DB: m.DB}
	}
	svc, err := jots.New(jots.Options{
		Store: m.Store, Blobs: blobs, Reader: jotsrm.Reader{DB: m.DB}, Waiter: m.Runner,
		PublicURL: m.Config.ServerPublicURL, JotsOrigin: m.Config.JotsOrigin,
		Limits: jots.Limits{MaxBytes: m.Config.JotsMaxBytes, MaxFiles: m.Config.JotsMaxFiles, UploadTTL: m.Config.JotsUploadTTL,
			MaxJotsPerUser: m.Config.JotsMaxPerUser, QuotaBytes: m.Config.JotsQuotaBytes},
		Logger: m.Logger,
	})
	if err != nil {
		return nil, nil, err
	}
	if err := m.Plugins.AddInternal(svc.Integration()); err != nil {
		return nil, nil, fmt.Errorf("register the jots integration: %w", err)
	}
	h, err := jotshttp.New(jotshttp.Options{
		Service: svc, CookieKey: m.deriveKey("jot-cookie"),
		SecureCookies: strings.HasPrefix(m.Config.ServerPublicURL, "https://"),
		JotsOrigin:    m.Config.JotsOrigin, Logger: m.Logger,
	})
	return h, svc, err
}

// derivedKeysSubject is the vault subject whose data key the keys that must outlive a master-key
// rotation are derived from (Vault.DerivedKey).
const derivedKeysSubject = "workbench-derived-keys"

// deriveKey derives a purpose-bound secret from the master key (HMAC-SHA256 keyed by the master key,
// over a fixed label), so every replica that shares ENCRYPTION_KEY shares the key without another
// setting. Rotating the master key changes derived keys: portal sessions, claim links and MCP session ids
// minted before then stop being valid, and clients sign in or initialize again. A key whose hashes
// are kept in the log comes from Vault.DerivedKey instead.
func (m *Main) deriveKey(label string) []byte {
	raw, err := base64.StdEncoding.DecodeString(m.masterKey.Encode())
	if err != nil {
		panic("workbench: master key does not encode: " + err.Error())
	}
	mac := hmac.New(sha256.New, raw)
	mac.Write([]byte("workbench/derived-key/v1\x00" + label))
	return mac.Sum(nil)
}

// openVault reads the master keys and checks them against the data keys stored. On the embedded
// default with no ENCRYPTION_KEY, a key is generated into the data directory (mode 0600) and the
// operator is told, loudly, to keep it.
func (m *Main) openVault(ctx context.Context) error {
	var current vault.MasterKey
	var previous []vault.MasterKey
	var err error
	switch {
	case m.Config.EncryptionKey != "":
		current, previous, err = vault.ParseMasterKeys(m.Config.EncryptionKey, m.Config.EncryptionKeyPrevious)
		if err != nil {
			return err
		}
	case m.Config.Database == config.SQLite:
		path := filepath.Join(m.Config.DataDir, vault.DefaultKeyFile)
		var created bool
		current, created, err = vault.LoadOrCreateKeyFile(path)
		if err != nil {
			return fmt.Errorf("ENCRYPTION_KEY is unset and the key file could not be used: %w", err)
		}
		if created {
			m.Logger.Warn("!!! ENCRYPTION_KEY is not set: GENERATED a new master key into " + path + " (mode 0600). " +
				"Everything sealed in the log depends on it: back it up, or set ENCRYPTION_KEY explicitly. Losing it loses every stored credential.")
		} else {
			m.Logger.Warn("ENCRYPTION_KEY is not set: using the generated master key in "+path, "master_key", current.ID())
		}
		if m.Config.EncryptionKeyPrevious != "" {
			_, previous, err = vault.ParseMasterKeys(current.Encode(), m.Config.EncryptionKeyPrevious)
			if err != nil {
				return err
			}
		}
	default:
		return errors.New("ENCRYPTION_KEY is required when DATABASE_URL is PostgreSQL: set it to 32 random bytes as base64 " +
			"(`openssl rand -base64 32`), the same on every replica")
	}
	m.masterKey = current
	v, err := vault.New(m.DB, m.Store, current, previous, &vault.Options{Logger: m.Logger, OnRotateProgress: m.OnRotateProgress, WriteGate: m.writeGate, OnFailure: m.vaultFailures()})
	if err != nil {
		return err
	}
	// Refuse to start with a master key that does not open the data keys already stored: otherwise
	// every credential fails at its first use, in front of an agent.
	if err := v.CheckMasterKeys(ctx); err != nil {
		return err
	}
	m.Vault = v
	return nil
}

func (m *Main) openDatabase(ctx context.Context) error {
	switch m.Config.Database {
	case config.SQLite:
		path := m.Config.SQLitePath()
		// Files made before 0600/0700 were the rule (or by another tool) are tightened, and said so.
		fixed, err := sqlite.Tighten(path)
		for _, f := range fixed {
			m.Logger.Warn("database file was readable by other users; tightened", "path", f.Path, "from", f.From.String(), "to", f.To.String())
		}
		if err != nil {
			// Not fatal: a data directory another user owns cannot be changed, and still works.
			m.Logger.Warn("database files are readable by other users and could not be tightened", "err", err)
		}
		db, err := sqlite.OpenDB(ctx, path)
		if err != nil {
			return fmt.Errorf("open SQLite database %s (DATABASE_URL): %w", path, err)
		}
		// Keep connections open between requests: a new SQLite connection re-runs its pragmas and
		// re-reads the schema, which the end-to-end benchmark showed at 8-12% of CPU.
		db.SetMaxIdleConns(16)
		m.DB, m.Dialect, m.writeGate = db, migrations.SQLite, sqlite.NewWriteGate()
		if m.probe == nil {
			m.probe = &writeProbe{interval: WriteProbeInterval}
		}
		m.probe.dir = filepath.Dir(path)
		m.closers = append(m.closers, db.Close)
		m.Logger.Info("database", "backend", "sqlite", "path", path)
	case config.Postgres:
		db, err := sql.Open("pgx", m.Config.DatabaseURL)
		if err != nil {
			return fmt.Errorf("DATABASE_URL: %w", err)
		}
		m.closers = append(m.closers, db.Close)
		// database/sql keeps only 2 idle connections unless told otherwise: under load every other
		// query then opens (and PostgreSQL forks) a new backend. Keep as many idle as may be open.
		conns := m.Config.DatabaseMaxConns
		if conns <= 0 {
			conns = config.DefaultDatabaseMaxConns
		}
		db.SetMaxOpenConns(conns)
		db.SetMaxIdleConns(conns)
		db.SetConnMaxIdleTime(m.Config.DatabaseConnMaxIdle)
		if err := retry(ctx, m.Logger, "PostgreSQL (DATABASE_URL)", m.ConnectTimeout, db.PingContext); err != nil {
			return err
		}
		m.DB, m.Dialect = db, migrations.Postgres
		m.Logger.Info("database", "backend", "postgres", "max_conns", conns)
	default:
		return fmt.Errorf("unsupported database backend %q", m.Config.Database)
	}
	return nil
}

func (m *Main) openStore(ctx context.Context) error {
	var raw eventstore.Store
	switch m.Config.EventStore {
	case config.SQLite:
		s, err := sqlite.New(m.DB, &sqlite.Options{Logger: m.Logger, WriteGate: m.writeGate})
		if err != nil {
			return fmt.Errorf("event store: %w", err)
		}
		raw = s
	case config.Postgres:
		pool, err := pgxpool.New(ctx, m.Config.DatabaseURL)
		if err != nil {
			return fmt.Errorf("DATABASE_URL: %w", err)
		}
		m.pool = pool
		if err := retry(ctx, m.Logger, "PostgreSQL event store (DATABASE_URL)", m.ConnectTimeout, pool.Ping); err != nil {
			pool.Close()
			return err
		}
		s, err := postgres.New(ctx, pool, &postgres.Options{Logger: m.Logger})
		if err != nil {
			pool.Close()
			return fmt.Errorf("event store: %w", err)
		}
		raw = s
		m.closers = append(m.closers, func() error { pool.Close(); return nil })
	case config.Kurrent:
		var s *kurrent.Store
		err := retry(ctx, m.Logger, "KurrentDB (EVENTSTORE_URL)", m.ConnectTimeout, func(ctx context.Context) error {
			var err error
			s, err = kurrent.Open(ctx, m.Config.EventStoreURL, &kurrent.Options{Logger: m.Logger})
			return err
		})
		if err != nil {
			return err
		}
		raw = s
	}
	m.rawStore = raw
	wrapped, err := instrumented.Wrap(raw, string(m.Config.EventStore), m.Registry)
	if err != nil {
		return err
	}
	m.Store = wrapped
	return nil
}

// Serve runs the projections, the bus relay and the HTTP server until ctx ends, then shuts down
// gracefully: stop accepting, drain in-flight requests, stop the background work, flush pending
// appends (Close), close. It builds the services (buildServices), mounts them (routes), then serves.
func (m *Main) Serve(ctx context.Context) error {
	if err := m.Vault.ReconcileShreds(ctx); err != nil {
		return fmt.Errorf("reconcile shredded subjects: %w", err)
	}
	bg, stopBackground := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	defer func() {
		stopBackground()
		wg.Wait()
	}()
	goRun := func(name string, f func(context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(bg); err != nil && bg.Err() == nil {
				m.Logger.Error("background task stopped", "task", name, "err", err)
			}
		}()
	}
	var s services
	if err := m.buildServices(ctx, bg, goRun, &s); err != nil {
		return err
	}
	s.done = ctx.Done()
	root, err := m.routes(&s)
	if err != nil {
		return err
	}
	return m.serve(ctx, root, s.signIn)
}

// services are what Serve builds before it routes: the use cases and the HTTP surfaces over them.
type services struct {
	sessions    *websession.Manager
	signIn      *signin.Service
	creds       *connections.Service
	jotHandler  *jotshttp.Handler
	curl        *proxy.Proxy
	oauthServer *oauthhttp.Server
	keys        *identityrm.KeyLookup
	mcpServer   *mcp.Server
	app         http.Handler
	// browser is the users' browser sessions and the browser tools (the live view mounts on it).
	browser    *browser.Service
	connectors *connectors.Service
	approvals  *approvals.Service
	budgets    *budgets.Service
	webhooks   *webhooks.Service
	toolsets   *toolsets.Service
	tsServer   *mcp.Server
	// metaTools are the meta-tools /mcp serves; the portal's Try a tool page runs tools through them.
	metaTools *metatools.Set
	// done is closed when Serve's ctx ends: long-lived streams (the live browser view) end then, so
	// the drain does not wait on them.
	done <-chan struct{}
}

// buildServices opens the bus and builds every service Serve routes to, starting their background tasks
// with goRun (they run on bg until Serve returns).
func (m *Main) buildServices(ctx, bg context.Context, goRun func(name string, f func(context.Context) error), s *services) error {
	goRun("projections", m.Runner.Run)
	if err := m.startAuditSinks(ctx, goRun); err != nil {
		return err
	}
	// Users from before organisations existed get their personal organisation once the read models
	// have caught up (app/organizations, Upgrading).
	goRun("organisation backfill", func(ctx context.Context) error {
		n, err := m.Organizations.RunBackfill(ctx, m.Runner.Ready, 100*time.Millisecond, eventstore.Metadata{Actor: "system"})
		if n > 0 {
			m.Logger.Info("personal organisations backfilled", "users", n)
		}
		return err
	})

	b, err := bus.Open(ctx, m.Config.BusURL, &bus.Options{Logger: m.Logger, NATSPrefix: m.Config.BusNATSPrefix})
	if err != nil {
		return err
	}
	m.closers = append(m.closers, b.Close)
	relayCfg := bus.RelayConfig{Store: m.Store, Bus: b, Checkpoint: bus.NewSQLCheckpoint(m.DB, "events").WithWriteGate(m.writeGate), Logger: m.Logger}
	if m.Config.Database == config.Postgres {
		relayCfg.Lock = bus.NewAdvisoryLock(m.Config.DatabaseURL, bus.AdvisoryLockKey("workbench-relay"), 5*time.Second, m.Logger)
	}
	relayCfg.Lock = m.relayLeaderLock(relayCfg.Lock)
	// The relay publishes only the events some subscription of this process asks for (every replica
	// subscribes alike); it starts at the end, once every subscription below is made.
	relayCfg.Select = func(stream, typ string) bool { return b.Wants(bus.EventsTopic, stream, typ) }
	relay, err := bus.NewRelay(relayCfg)
	if err != nil {
		return err
	}
	if err := m.startAuditSealer(ctx, goRun); err != nil {
		return err
	}
	// Another replica's shred must take effect here at once: forget the subject's cached data keys.
	onlyShreds := func(_, typ string) bool { return typ == vault.EventSubjectShredded }
	if _, err := b.SubscribeWhere(bg, bus.EventsTopic, onlyShreds, func(_ context.Context, env eventstore.Envelope) error {
		if subject, ok := vault.ShreddedSubject(env); ok {
			m.Vault.Forget(subject)
		}
		return nil
	}); err != nil {
		return err
	}

	getenv := m.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	portalEnds, err := portalsessions.New(m.Store, m.Runner, nil)
	if err != nil {
		return err
	}
	sessions, err := websession.New(m.deriveKey("portal-session"), m.Config.ServerPublicURL, &websession.Options{
		Ended: portalsessionsrm.Reader{DB: m.DB}, Ends: portalEnds,
	})
	if err != nil {
		return err
	}
	m.Sessions = sessions
	signIn, err := signin.New(signin.Config{
		Settings: m.Config.SignIn, Users: m.Accounts, Store: m.Store, Vault: m.Vault, Projections: m.Runner, Organizations: m.Organizations,
		PublicURL: m.Config.ServerPublicURL, FlowKey: m.deriveKey("signin-flow"), Logger: m.Logger,
	})
	if err != nil {
		return err
	}
	// Every request made on a user's behalf (tool calls, the curl proxy, token exchanges, API-key checks)
	// dials public addresses only; loopback only with WORKBENCH_DEV_ALLOW_LOOPBACK.
	outbound := ssrf.Transport(m.Config.DevAllowLoopback)
	tokenClient := &http.Client{
		Transport: tracing.Transport(outbound), Timeout: 20 * time.Second, // token requests are spans too
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	creds, err := connections.New(connections.Config{
		HTTPClient: tokenClient, Transport: outbound,
		Store: m.Store, Vault: m.Vault, Catalog: m.Plugins, DB: m.DB, Projections: m.Runner, Bus: b,
		PublicURL: m.Config.ServerPublicURL, LinkKey: m.deriveKey("connect-link"), Clients: m.pluginClients(getenv), Logger: m.Logger,
		// An integration's OAuth client set as the platform key integration:<name> (Admin, Platform keys)
		// wins over the environment's, read at connect and token time: no restart, on every replica.
		// The platform keys open with the connectors, below; until then only the environment counts.
		PlatformKeys: connections.PlatformKeysFunc(func(ctx context.Context, name string) (map[string]string, bool, error) {
			if m.PlatformKeys == nil {
				return nil, false, nil
			}
			return m.PlatformKeys.PlatformKey(ctx, name)
		}),
	})
	if err != nil {
		return err
	}
	m.Credentials = creds
	goRun("credentials", creds.Run)
	jotHandler, jotService, err := m.openJots()
	if err != nil {
		return err
	}
	goRun("jot blob collector", jotService.RunCollector)
	browserService, err := m.openBrowser(goRun)
	if err != nil {
		return err
	}
	curlKey := m.deriveKey("curl-session")
	curlTokens, err := proxy.NewIssuer(curlKey)
	if err != nil {
		return err
	}
	curlSessions, err := curlsessions.New(curlsessions.Options{
		Catalog: m.Plugins, Credentials: creds, Store: m.Store, Tokens: curlTokens, PublicURL: m.Config.ServerPublicURL, Logger: m.Logger,
	})
	if err != nil {
		return err
	}
	curl, err := proxy.New(proxy.Options{
		Catalog: m.Plugins, Credentials: creds, Sessions: curlSessions, Key: curlKey, Transport: outbound,
		PublicURL: m.Config.ServerPublicURL, Logger: m.Logger,
	})
	if err != nil {
		return err
	}
	goRun("curl proxy audit", curlSessions.Run)
	connectorSvc, err := m.openConnectors(ctx)
	if err != nil {
		return err
	}
	m.Connectors = connectorSvc
	m.Organizations.WithLogins(connectorSvc)
	// Logins of agents deleted before deleting an agent removed its logins go once the read models
	// have caught up (app/connectors, SweepDeletedAgentLogins).
	goRun("deleted agents' logins sweep", func(ctx context.Context) error {
		n, err := connectorSvc.RunSweep(ctx, m.Runner.Ready, 100*time.Millisecond, eventstore.Metadata{Actor: "system"})
		if n > 0 {
			m.Logger.Info("logins of deleted agents removed", "logins", n)
		}
		return err
	})
	goRun("platform login sync", connectorSvc.RunPlatformSync)
	// Tool requests to providers are client spans (the trace context goes upstream only when the
	// integration's manifest opts in).
	// Calls of tools switched to Ask wait for a person's approval (app/approvals).
	approvalSvc, err := approvals.New(approvals.Options{Store: m.Store, Vault: m.Vault, PublicURL: m.Config.ServerPublicURL,
		Scopes: connectors.OrganizationScopes{Reader: &organizationsrm.Reader{DB: m.DB}}, Approvers: approvalsrm.Reader{DB: m.DB}, Switches: connectorSvc,
		Projections: m.Runner, Logger: m.Logger})
	if err != nil {
		return err
	}
	// Rate limits and budgets on agents' tool calls (app/budgets).
	budgetSvc, err := budgets.New(budgets.Options{Store: m.Store, DB: m.DB, Chains: connectorSvc, Now: m.BudgetClock,
		Scopes: connectors.OrganizationScopes{Reader: &organizationsrm.Reader{DB: m.DB}}, Projections: m.Runner, Logger: m.Logger})
	if err != nil {
		return err
	}
	// Organisations' webhooks: the sender works off the outbox the webhooks projection fills.
	webhookSvc, err := webhooks.New(webhooks.Options{Store: m.Store, DB: m.DB, Vault: m.Vault, Orgs: &organizationsrm.Reader{DB: m.DB},
		Projections: m.Runner, AllowLoopback: m.Config.DevAllowLoopback, Logger: m.Logger})
	if err != nil {
		return err
	}
	goRun("webhook deliveries", webhookSvc.Run)
	runs, err := executions.New(executions.Options{Registry: m.Plugins, Credentials: creds, Store: m.Store, Logger: m.Logger,
		Transport: tracing.Transport(outbound), Sources: []executions.ToolSource{connectorSvc}, Switches: connectorSvc, Approvals: approvalSvc, Budgets: budgetSvc})
	if err != nil {
		return err
	}
	tools, err := metatools.New(metatools.Options{Registry: m.Plugins, Credentials: creds, Executions: runs, Logger: m.Logger, CurlSessions: curlSessions, PublicURL: m.Config.ServerPublicURL,
		Connectors: connectorSvc, Budgets: budgetSvc})
	if err != nil {
		return err
	}
	oauthClients, err := oauthclients.New(oauthclients.Options{Store: m.Store, Projections: m.Runner, Grants: oauthrm.Reader{DB: m.DB}, Logger: m.Logger})
	if err != nil {
		return err
	}
	m.Organizations.WithGrants(oauthClients)
	oauthServer, err := oauthhttp.New(oauthhttp.Options{
		Clients: oauthClients, DB: m.DB, Sessions: sessions,
		Users: identityrm.Reader{DB: m.DB}, Agents: m.Organizations.Reader(), PublicURL: m.Config.ServerPublicURL,
		SigningKey: m.deriveKey("oauth-signing"), AccessTokenTTL: m.Config.OAuthAccessTokenTTL, Logger: m.Logger,
		// A code or client written through another replica a moment ago is found here too: a miss waits
		// (bounded) for the oauth read model to catch up with the log, then reads again.
		CatchUp: func(ctx context.Context) error { return m.Runner.CatchUp(ctx, oauthrm.Name) },
	})
	if err != nil {
		return err
	}
	keys, err := identityrm.NewKeyLookup(ctx, m.DB)
	if err != nil {
		return err
	}
	m.closers = append(m.closers, keys.Close)
	// Key owners are cached; the identity read model's every batch that may change one empties the
	// cache before its position is reported applied, so a rotated or revoked key is refused from then on.
	keyOwners := identityrm.NewKeyCache(keys, nil)
	if err := m.Runner.AfterApply(identityrm.Name, keyOwners.Forget); err != nil {
		return err
	}
	// Ended MCP sessions: heard from the bus while running (subscribed before the read model is loaded,
	// so nothing ended in between is missed), preloaded from the read model at start.
	endedSessions := mcpsessions.New(m.Store, m.Now)
	onlySessionEnds := func(_, typ string) bool { return typ == mcpsession.TypeSessionEnded }
	if _, err := b.SubscribeWhere(bg, bus.EventsTopic, onlySessionEnds, endedSessions.Observe); err != nil {
		return err
	}
	preloaded, err := mcpsessionsrm.Unexpired(ctx, m.DB, m.Now())
	if err != nil {
		return err
	}
	endedSessions.Preload(preloaded)
	mcpServer, err := mcp.New(mcp.Options{
		Sessions: endedSessions,
		Now:      m.Now,
		Auth: tracedAuth{authn.Chain{
			authn.APIKeys{Reader: keyOwners},
			authn.AccessTokens{Verifier: oauthServer, Users: identityrm.Reader{DB: m.DB}},
			authn.PortalSessions{Sessions: sessions, Users: identityrm.Reader{DB: m.DB}},
		}},
		Tools:               tools,
		SessionKey:          m.deriveKey("mcp-session"),
		AllowedOrigins:      []string{sessions.Origin()},
		Loopback:            httpserve.NewLoopback(m.Config.ServerPublicURL),
		ResourceMetadataURL: oauthServer.ProtectedResourceMetadataURL(),
		ServerName:          "workbench",
		ServerVersion:       m.Version,
		Instructions: "Workbench gives you the user's integration tools through meta-tools: search_tools to find a tool, " +
			"get_tool_schema for its arguments, execute_tools to run it. If a result says NOT_CONNECTED, do what its message says: " +
			"usually call connect, give the user the URL, then wait_for_connection; for an API-key integration, give the user the portal link it names.",
		Logger: m.Logger,
	})
	if err != nil {
		return err
	}
	// Toolsets: a scope's curated tools, each served as a plain MCP server at /mcp/ts/{name}, on the
	// same authentication, switches, approvals, budgets and audit as execute_tools.
	toolsetSvc, err := toolsets.New(toolsets.Options{Store: m.Store, Reader: toolsetsrm.Reader{DB: m.DB}, Registry: m.Plugins, Connectors: connectorSvc,
		Scopes: connectors.OrganizationScopes{Reader: &organizationsrm.Reader{DB: m.DB}}, Projections: m.Runner})
	if err != nil {
		return err
	}
	tsServer, err := mcp.New(mcp.Options{
		Sessions: endedSessions,
		Now:      m.Now,
		Auth: tracedAuth{authn.Chain{
			authn.APIKeys{Reader: keyOwners},
			authn.AccessTokens{Verifier: oauthServer, Users: identityrm.Reader{DB: m.DB}},
			authn.PortalSessions{Sessions: sessions, Users: identityrm.Reader{DB: m.DB}},
		}},
		Tools:               &toolsetserve.Set{Toolsets: toolsetSvc, Executions: runs, Connectors: connectorSvc},
		SessionKey:          m.deriveKey("mcp-session"),
		AllowedOrigins:      []string{sessions.Origin()},
		Loopback:            httpserve.NewLoopback(m.Config.ServerPublicURL),
		ResourceMetadataURL: oauthServer.ProtectedResourceMetadataURL(),
		MetadataPerPath:     true, // each toolset's endpoint is a resource of its own
		ServerName:          "workbench-toolset",
		ServerVersion:       m.Version,
		Instructions:        "This endpoint serves one Workbench toolset: call its tools directly. A result APPROVAL_REQUIRED names a page the user opens to approve the call; call the tool again with the same arguments once they have.",
		Logger:              m.Logger,
	})
	if err != nil {
		return err
	}
	app, err := portal.Handler(&portal.Options{Logger: m.Logger})
	if err != nil {
		return err
	}
	*s = services{
		sessions: sessions, signIn: signIn, creds: creds, jotHandler: jotHandler, curl: curl,
		oauthServer: oauthServer, keys: keys, mcpServer: mcpServer, app: app, browser: browserService,
		connectors: connectorSvc, approvals: approvalSvc, budgets: budgetSvc, webhooks: webhookSvc, toolsets: toolsetSvc, tsServer: tsServer,
		metaTools: tools,
	}
	goRun("bus relay", relay.Run)
	return nil
}

// routes mounts every surface on one router and wraps it in the checks every request passes.
func (m *Main) routes(s *services) (http.Handler, error) {
	mcpServer, curl, oauthServer, creds, sessions := s.mcpServer, s.curl, s.oauthServer, s.creds, s.sessions
	signIn, keys, jotHandler, app := s.signIn, s.keys, s.jotHandler, s.app
	eraseUsers, err := m.erasureHandler(keys, sessions)
	if err != nil {
		return nil, err
	}
	router, err := handlers.NewRouter(handlers.Options{
		Logger:   m.Logger,
		Registry: m.Registry,
		Ready:    m.ready,
		App:      app,
		Mount: func(r chi.Router) {
			r.Handle("/mcp", tracing.Handler("mcp", mcpServer))
			r.Handle("/mcp/ts/{toolset}", tracing.Handler("mcp toolset", toolsetserve.WithName(s.tsServer)))
			r.Handle("/c/*", curl)
			oauthServer.Mount(r)
			portalhttp.Mount(r, portalhttp.Deps{
				Sessions: sessions, SignIn: signIn, Accounts: m.Accounts, Projections: m.Runner,
				Credentials: creds, Catalog: m.Plugins, Connections: connectionsrm.Reader{DB: m.DB}, Logger: m.Logger,
				APIKeys: authn.APIKeys{Reader: keys}, Admins: m.Config.Admins,
			})
			orgs.Mount(r, orgs.Deps{
				Auth: authn.Chain{
					authn.APIKeys{Reader: keys},
					authn.AccessTokens{Verifier: oauthServer, Users: identityrm.Reader{DB: m.DB}},
					authn.PortalSessions{Sessions: sessions, Users: identityrm.Reader{DB: m.DB}},
				},
				Orgs: m.Organizations, Reader: m.Organizations.Reader(), Keys: m.Accounts,
				KeyReader: identityrm.Reader{DB: m.DB}, Clients: oauthrm.Reader{DB: m.DB}, Projections: m.Runner, Logger: m.Logger,
			})
			r.Method(http.MethodGet, "/api/audit", httpserve.Streaming(audithttp.Handler(auditrm.Reader{DB: m.DB}, sessions.User)))
			m.mountCompliance(r, sessions)
			jotHandler.Mount(r)
			connectorshttp.Mount(r, connectorshttp.Deps{Sessions: sessions, Connectors: s.connectors, Logger: m.Logger,
				Admins: m.Config.Admins, Users: identityrm.Reader{DB: m.DB}})
			m.mountPlatformKeys(r, sessions)
			approvalshttp.Mount(r, approvalshttp.Deps{Sessions: sessions, Approvals: s.approvals, Reader: approvalsrm.Reader{DB: m.DB}, Logger: m.Logger})
			budgetshttp.Mount(r, budgetshttp.Deps{Sessions: sessions, Budgets: s.budgets, Logger: m.Logger})
			webhookshttp.Mount(r, webhookshttp.Deps{Sessions: sessions, Webhooks: s.webhooks, Logger: m.Logger})
			toolsetshttp.Mount(r, toolsetshttp.Deps{Sessions: sessions, Toolsets: s.toolsets, PublicURL: m.Config.ServerPublicURL, Logger: m.Logger})
			// Try a tool: the portal runs one tool through execute_tools' path, as the user's default agent.
			tryhttp.Mount(r, tryhttp.Deps{Sessions: sessions, Tools: s.metaTools, Agents: m.Organizations.Reader(), Logger: m.Logger})
			connectorshttp.MountRegistry(r, connectorshttp.RegistryDeps{Sessions: sessions, Connectors: s.connectors, Users: identityrm.Reader{DB: m.DB}, Admins: m.Config.Admins, Logger: m.Logger})
			r.Method(http.MethodPost, erasure.Path, eraseUsers)
			// The live view of each user's browser session, its reset, and cookie capture (handlers/browserhttp).
			browserhttp.Mount(r, browserhttp.Deps{
				Sessions: sessions, PublicURL: m.Config.ServerPublicURL, Browser: s.browser,
				Capture: browser.NewCapture(s.browser, creds, nil), Integrations: m.Plugins, Logger: m.Logger, Done: s.done,
				Replicas: s.browser.ReplicaSigner(), Holders: s.browser,
			})
		},
	})
	if err != nil {
		return nil, err
	}
	// Portal pages opened on another name of this server go to the public URL's host (internal/httpserve).
	// Every request with a portal session cookie is checked for an ended session once (websession).
	root, err := httpserve.CanonicalHost(m.Config.ServerPublicURL, sessions.Guard(router))
	if err != nil {
		return nil, err
	}
	return root, nil
}

// serve listens (unless m.Listener is set), serves root until ctx ends, then drains the requests in flight.
func (m *Main) serve(ctx context.Context, root http.Handler, signIn *signin.Service) error {
	var err error
	ln := m.Listener
	if ln == nil {
		addr := m.Config.HTTP.ListenAddr(m.Config.Port)
		ln, err = net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("listen on %s (HOST, PORT): %w", addr, err)
		}
	}
	ln = httpserve.Limit(ln, m.Config.HTTP.MaxConnsPerClient)
	if ll, ok := ln.(*httpserve.LimitListener); ok {
		_ = m.Registry.Register(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "workbench_http_connections_refused_total",
			Help: "Connections closed unanswered for being over MAX_CONNS_PER_CLIENT from one address.",
		}, func() float64 { return float64(ll.Refused()) }))
	}
	srv := &http.Server{
		Handler:     requireMetricsToken(m.Config.MetricsToken, root),
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		ErrorLog:    slog.NewLogLogger(m.Logger.Handler(), slog.LevelWarn),
	}
	httpserve.Timeouts{
		ReadHeader: m.Config.HTTP.ReadHeaderTimeout, Read: m.Config.HTTP.ReadTimeout,
		Write: m.Config.HTTP.WriteTimeout, Idle: m.Config.HTTP.IdleTimeout,
	}.Apply(srv)
	httpserve.Edge(srv)
	if err := recordPublicURL(m.Config.DataDir, m.Config.ServerPublicURL); err != nil {
		m.Logger.Warn("could not record the public URL for the command line; `workbench signin-link` will print links for its own configuration",
			"dir", m.Config.DataDir, "err", err)
	}
	if !signIn.SSOConfigured() {
		// Issued before serving, so it is in the log by the time /readyz answers.
		link, err := signIn.IssueStartupLink(ctx)
		if err != nil {
			return fmt.Errorf("one-time sign-in link: %w", err)
		}
		m.Logger.Warn("!!! No SSO provider is configured. Sign in to the portal ONCE, within 15 minutes, by opening this link "+
			"(for another one, run `workbench signin-link` with this server's environment; set GOOGLE_OIDC_* or KEYCLOAK_OIDC_* for SSO)", "url", link, "user", signIn.AdminEmail())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	m.Logger.Info("workbench serving", "addr", ln.Addr().String(), "public_url", m.Config.ServerPublicURL)

	select {
	case err := <-errc:
		return fmt.Errorf("http server: %w", err)
	case <-ctx.Done():
	}
	m.Logger.Info("shutting down: draining requests")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		m.Logger.Warn("drain incomplete", "err", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// ready is /readyz: migrated, the database answering a ping within a second (so an outage takes the
// replica out of rotation at once), on SQLite its data directory taking a write (writeprobe.go, at
// most every WriteProbeInterval), and the read models caught up.
func (m *Main) ready(ctx context.Context) error {
	if !m.migrated {
		return errors.New("migrations have not run")
	}
	pingCtx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if err := m.DB.PingContext(pingCtx); err != nil {
		// The cause names the database's address and user: logged, not answered to anyone who asks.
		m.Logger.WarnContext(ctx, "readyz: the database does not answer", "err", err)
		return errors.New("the database does not answer")
	}
	if m.probe != nil {
		// A full disk still answers pings and reads; only a write shows it.
		if err := m.probe.check(ctx); err != nil {
			m.Logger.WarnContext(ctx, "readyz: the data directory does not take a write", "dir", m.probe.dir, "err", err)
			return errors.New(writeProbeReason(err))
		}
	}
	return m.Runner.Ready(ctx)
}

// Close flushes pending appends and releases everything, in reverse order of opening.
func (m *Main) Close() error {
	var errs []error
	m.closeOnce.Do(func() {
		if m.rawStore != nil {
			if err := m.rawStore.Close(); err != nil {
				errs = append(errs, fmt.Errorf("close event store: %w", err))
			}
		}
		for i := len(m.closers) - 1; i >= 0; i-- {
			if err := m.closers[i](); err != nil {
				errs = append(errs, err)
			}
		}
	})
	return errors.Join(errs...)
}

// retry calls try with exponential backoff until it succeeds, ctx ends, or timeout passes, logging each
// failure, and then reports the last cause plainly.
func retry(ctx context.Context, log *slog.Logger, what string, timeout time.Duration, try func(context.Context) error) error {
	deadline := time.Now().Add(timeout)
	wait := 250 * time.Millisecond
	for attempt := 1; ; attempt++ {
		tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := try(tctx)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if time.Now().Add(wait).After(deadline) {
			return fmt.Errorf("cannot reach %s after %d attempts over %s: %w", what, attempt, timeout, err)
		}
		log.Warn("database unreachable, retrying", "what", what, "attempt", attempt, "retry_in", wait, "err", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(wait*2, 5*time.Second)
	}
}

// newLogger builds the process logger: text for a terminal, JSON otherwise.
func newLogger(w io.Writer, level string) *slog.Logger {
	var lv slog.Level
	switch strings.ToLower(level) {
	case "debug":
		lv = slog.LevelDebug
	case "warn":
		lv = slog.LevelWarn
	case "error":
		lv = slog.LevelError
	}
	opts := &slog.HandlerOptions{Level: lv}
	// Lines logged with a request's context carry its trace_id and span_id (internal/tracing).
	if f, ok := w.(*os.File); ok && isTerminal(f) {
		return slog.New(tracing.LogHandler(slog.NewTextHandler(w, opts)))
	}
	return slog.New(tracing.LogHandler(slog.NewJSONHandler(w, opts)))
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// loadConfig reads the environment and builds the logger.
func loadConfig(getenv func(string) string, stderr io.Writer) (config.Config, *slog.Logger, error) {
	cfg, err := config.FromEnv(getenv)
	if err != nil {
		return cfg, nil, err
	}
	if cfg.Database == config.SQLite {
		if err := os.MkdirAll(filepath.Dir(cfg.SQLitePath()), 0o700); err != nil {
			return cfg, nil, fmt.Errorf("create data directory for DATABASE_URL: %w", err)
		}
	}
	return cfg, newLogger(stderr, cfg.LogLevel), nil
}

// openMain is every command's start: read the environment, build the Main (prepare, when set, adjusts
// it before it opens), and open it. On failure nothing is left open; on success the caller closes it.
func openMain(ctx context.Context, getenv func(string) string, stderr io.Writer, prepare func(*Main)) (*Main, error) {
	cfg, log, err := loadConfig(getenv, stderr)
	if err != nil {
		return nil, err
	}
	m := NewMain(cfg, log)
	m.Getenv = getenv
	if prepare != nil {
		prepare(m)
	}
	if err := m.Open(ctx); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// pluginClients reads the OAuth client of every integration the registry holds.
func (m *Main) pluginClients(getenv func(string) string) map[string]config.OAuthClient {
	names := make([]string, 0, len(m.Plugins.Integrations()))
	for _, in := range m.Plugins.Integrations() {
		names = append(names, in.Name)
	}
	return config.PluginClients(getenv, names)
}
