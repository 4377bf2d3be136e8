package config

import (
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string // substring; empty means success
		check   func(t *testing.T, c Config)
	}{
		{name: "embedded defaults", env: map[string]string{}, check: func(t *testing.T, c Config) {
			if c.Port != 8080 || c.Database != SQLite || c.DatabaseURL != "./data/workbench.db" || c.DataDir != "data" {
				t.Errorf("defaults: %+v", c)
			}
			if c.EventStore != SQLite || c.BrowserSessionTTL != 300*time.Second || c.ServerPublicURL != "http://localhost:8080" {
				t.Errorf("defaults: %+v", c)
			}
		}},
		{name: "postgres url", env: map[string]string{"DATABASE_URL": "postgres://u:p@db:5432/wb"}, check: func(t *testing.T, c Config) {
			if c.Database != Postgres || c.EventStore != Postgres {
				t.Errorf("got %s/%s", c.Database, c.EventStore)
			}
		}},
		{name: "postgresql scheme", env: map[string]string{"DATABASE_URL": "postgresql://db/wb"}, check: func(t *testing.T, c Config) {
			if c.Database != Postgres {
				t.Errorf("got %s", c.Database)
			}
		}},
		{name: "malformed postgres url names the variable and hides the password", env: map[string]string{"DATABASE_URL": "postgres://u:sekrit@db:notaport/wb"}, wantErr: "DATABASE_URL"},
		{name: "other scheme refused", env: map[string]string{"DATABASE_URL": "mysql://db/wb"}, wantErr: `scheme "mysql" is not supported`},
		{name: "sqlite path", env: map[string]string{"DATABASE_URL": "/var/lib/wb/x.db"}, check: func(t *testing.T, c Config) {
			if c.Database != SQLite || c.DataDir != "/var/lib/wb" || c.SQLitePath() != "/var/lib/wb/x.db" {
				t.Errorf("got %+v", c)
			}
		}},
		{name: "sqlite prefix", env: map[string]string{"DATABASE_URL": "sqlite:/tmp/a.db"}, check: func(t *testing.T, c Config) {
			if c.SQLitePath() != "/tmp/a.db" {
				t.Errorf("got %q", c.SQLitePath())
			}
		}},
		{name: "directory is not a database", env: map[string]string{"DATABASE_URL": "./data/"}, wantErr: "SQLite file path"},
		{name: "kurrent", env: map[string]string{"EVENTSTORE_URL": "esdb://localhost:2113?tls=false"}, check: func(t *testing.T, c Config) {
			if c.EventStore != Kurrent || c.Database != SQLite {
				t.Errorf("got %s/%s", c.EventStore, c.Database)
			}
		}},
		{name: "kurrentdb scheme", env: map[string]string{"EVENTSTORE_URL": "kurrentdb://localhost:2113"}, check: func(t *testing.T, c Config) {
			if c.EventStore != Kurrent {
				t.Errorf("got %s", c.EventStore)
			}
		}},
		{name: "bad eventstore url", env: map[string]string{"EVENTSTORE_URL": "http://localhost:2113"}, wantErr: "EVENTSTORE_URL"},
		{name: "bad port", env: map[string]string{"PORT": "eighty"}, wantErr: "PORT"},
		{name: "port out of range", env: map[string]string{"PORT": "70000"}, wantErr: "PORT"},
		{name: "public url", env: map[string]string{"SERVER_PUBLIC_URL": "https://wb.example.com/"}, check: func(t *testing.T, c Config) {
			if c.ServerPublicURL != "https://wb.example.com" {
				t.Errorf("got %q", c.ServerPublicURL)
			}
		}},
		{name: "public url without scheme", env: map[string]string{"SERVER_PUBLIC_URL": "wb.example.com"}, wantErr: "SERVER_PUBLIC_URL"},
		{name: "browser ttl", env: map[string]string{"BROWSER_SESSION_TTL_SECONDS": "60"}, check: func(t *testing.T, c Config) {
			if c.BrowserSessionTTL != time.Minute {
				t.Errorf("got %v", c.BrowserSessionTTL)
			}
		}},
		{name: "bad browser ttl", env: map[string]string{"BROWSER_SESSION_TTL_SECONDS": "-1"}, wantErr: "BROWSER_SESSION_TTL_SECONDS"},
		{name: "audit sink defaults", env: map[string]string{}, check: func(t *testing.T, c Config) {
			want := AuditSink{Batch: 100, RetryMin: time.Second, RetryMax: 300 * time.Second}
			if c.AuditSink != want {
				t.Errorf("got %+v, want %+v", c.AuditSink, want)
			}
		}},
		{name: "audit sink settings", env: map[string]string{"AUDIT_SINK_URL": " https://siem.example.com/in ", "AUDIT_SINK_SECRET": "s3cret-of-16-bytes!",
			"AUDIT_SINK_NATS_SUBJECT": "audit", "BUS_URL": "nats://10.0.0.9:4222", "AUDIT_SINK_BATCH": "20",
			"AUDIT_SINK_RETRY_MIN_SECONDS": "2", "AUDIT_SINK_RETRY_MAX_SECONDS": "60"}, check: func(t *testing.T, c Config) {
			want := AuditSink{URL: "https://siem.example.com/in", Secret: "s3cret-of-16-bytes!", NATSSubject: "audit", NATSURL: "nats://10.0.0.9:4222",
				Batch: 20, RetryMin: 2 * time.Second, RetryMax: time.Minute}
			if c.AuditSink != want {
				t.Errorf("got %+v, want %+v", c.AuditSink, want)
			}
		}},
		{name: "audit sink nats subject without a nats server", env: map[string]string{"AUDIT_SINK_NATS_SUBJECT": "audit"}, wantErr: "AUDIT_SINK_NATS_URL"},
		{name: "bad audit sink batch", env: map[string]string{"AUDIT_SINK_BATCH": "0"}, wantErr: "AUDIT_SINK_BATCH"},
		{name: "audit sink retry bounds reversed", env: map[string]string{"AUDIT_SINK_RETRY_MIN_SECONDS": "10", "AUDIT_SINK_RETRY_MAX_SECONDS": "5"}, wantErr: "AUDIT_SINK_RETRY_MAX_SECONDS"},
		{name: "browser defaults", env: map[string]string{}, check: func(t *testing.T, c Config) {
			if c.Chromium != "/usr/bin/chromium" || c.BrowserMaxSessions != 8 || c.BrowserMaxPages != 4 || c.BrowserMemoryLimitMB != 0 || c.BrowserAllowEvaluate {
				t.Errorf("got %q %d %d %d %v", c.Chromium, c.BrowserMaxSessions, c.BrowserMaxPages, c.BrowserMemoryLimitMB, c.BrowserAllowEvaluate)
			}
		}},
		{name: "browser settings", env: map[string]string{"WORKBENCH_CHROMIUM": "/opt/chromium/chrome", "BROWSER_MAX_SESSIONS": "3",
			"BROWSER_MAX_PAGES": "2", "BROWSER_MEMORY_LIMIT_MB": "512", "BROWSER_ALLOW_EVALUATE": "true"}, check: func(t *testing.T, c Config) {
			if c.Chromium != "/opt/chromium/chrome" || c.BrowserMaxSessions != 3 || c.BrowserMaxPages != 2 || c.BrowserMemoryLimitMB != 512 || !c.BrowserAllowEvaluate {
				t.Errorf("got %q %d %d %d %v", c.Chromium, c.BrowserMaxSessions, c.BrowserMaxPages, c.BrowserMemoryLimitMB, c.BrowserAllowEvaluate)
			}
		}},
		{name: "relative chromium", env: map[string]string{"WORKBENCH_CHROMIUM": "chromium"}, wantErr: "WORKBENCH_CHROMIUM"},
		{name: "bad max sessions", env: map[string]string{"BROWSER_MAX_SESSIONS": "0"}, wantErr: "BROWSER_MAX_SESSIONS"},
		{name: "bad max pages", env: map[string]string{"BROWSER_MAX_PAGES": "many"}, wantErr: "BROWSER_MAX_PAGES"},
		{name: "bad memory limit", env: map[string]string{"BROWSER_MEMORY_LIMIT_MB": "10"}, wantErr: "BROWSER_MEMORY_LIMIT_MB"},
		{name: "bad allow evaluate", env: map[string]string{"BROWSER_ALLOW_EVALUATE": "sure"}, wantErr: "BROWSER_ALLOW_EVALUATE"},
		{name: "nats bus", env: map[string]string{"BUS_URL": "nats://127.0.0.1:4222"}, check: func(t *testing.T, c Config) {
			if c.BusURL != "nats://127.0.0.1:4222" || c.BusNATSPrefix != "workbench" {
				t.Errorf("got %q, prefix %q", c.BusURL, c.BusNATSPrefix)
			}
		}},
		{name: "nats prefix", env: map[string]string{"BUS_URL": "nats://127.0.0.1:4222", "BUS_NATS_PREFIX": " staging "}, check: func(t *testing.T, c Config) {
			if c.BusNATSPrefix != "staging" {
				t.Errorf("got %q", c.BusNATSPrefix)
			}
		}},
		{name: "bad bus", env: map[string]string{"BUS_URL": "redis://x"}, wantErr: "BUS_URL"},
		{name: "bad log level", env: map[string]string{"LOG_LEVEL": "loud"}, wantErr: "LOG_LEVEL"},
		{name: "jots settings", env: map[string]string{"JOTS_ORIGIN": "https://jots.example.com/", "JOTS_MAX_BYTES": "2048", "JOTS_MAX_FILES": "10", "JOTS_UPLOAD_TTL_SECONDS": "60"}, check: func(t *testing.T, c Config) {
			if c.JotsOrigin != "https://jots.example.com" || c.JotsMaxBytes != 2048 || c.JotsMaxFiles != 10 || c.JotsUploadTTL != time.Minute {
				t.Errorf("got %+v", c)
			}
		}},
		{name: "jots origin with a path", env: map[string]string{"JOTS_ORIGIN": "https://jots.example.com/x"}, wantErr: "JOTS_ORIGIN"},
		{name: "oauth ttl", env: map[string]string{"OAUTH_ACCESS_TOKEN_TTL_SECONDS": "300"}, check: func(t *testing.T, c Config) {
			if c.OAuthAccessTokenTTL != 5*time.Minute {
				t.Errorf("got %v", c.OAuthAccessTokenTTL)
			}
		}},
		{name: "database pool defaults", env: map[string]string{"DATABASE_URL": "postgres://db/wb"}, check: func(t *testing.T, c Config) {
			if c.DatabaseMaxConns != 20 || c.DatabaseConnMaxIdle != 5*time.Minute {
				t.Errorf("got %d, %v", c.DatabaseMaxConns, c.DatabaseConnMaxIdle)
			}
		}},
		{name: "database pool", env: map[string]string{"DATABASE_URL": "postgres://db/wb", "DATABASE_MAX_CONNS": "64", "DATABASE_CONN_MAX_IDLE_SECONDS": "30"}, check: func(t *testing.T, c Config) {
			if c.DatabaseMaxConns != 64 || c.DatabaseConnMaxIdle != 30*time.Second {
				t.Errorf("got %d, %v", c.DatabaseMaxConns, c.DatabaseConnMaxIdle)
			}
		}},
		{name: "database pool of none", env: map[string]string{"DATABASE_MAX_CONNS": "0"}, wantErr: "DATABASE_MAX_CONNS"},
		{name: "database pool not a number", env: map[string]string{"DATABASE_MAX_CONNS": "many"}, wantErr: "DATABASE_MAX_CONNS"},
		{name: "database idle time", env: map[string]string{"DATABASE_CONN_MAX_IDLE_SECONDS": "0"}, wantErr: "DATABASE_CONN_MAX_IDLE_SECONDS"},
		{name: "bad oauth ttl", env: map[string]string{"OAUTH_ACCESS_TOKEN_TTL_SECONDS": "5"}, wantErr: "OAUTH_ACCESS_TOKEN_TTL_SECONDS"},
		{name: "jots max bytes", env: map[string]string{"JOTS_MAX_BYTES": "lots"}, wantErr: "JOTS_MAX_BYTES"},
		{name: "jots max files", env: map[string]string{"JOTS_MAX_FILES": "0"}, wantErr: "JOTS_MAX_FILES"},
		{name: "jots upload ttl", env: map[string]string{"JOTS_UPLOAD_TTL_SECONDS": "1"}, wantErr: "JOTS_UPLOAD_TTL_SECONDS"},
		{name: "http defaults", env: map[string]string{}, check: func(t *testing.T, c Config) {
			if c.HTTP.Host != "" || c.HTTP.ListenAddr(c.Port) != ":8080" || c.HTTP.MaxConnsPerClient != 256 || c.HTTP.ReadTimeout != 0 {
				t.Errorf("got %+v", c.HTTP)
			}
		}},
		{name: "http settings", env: map[string]string{"HOST": "127.0.0.1", "PORT": "9000", "MAX_CONNS_PER_CLIENT": "0",
			"HTTP_READ_HEADER_TIMEOUT_SECONDS": "2", "HTTP_READ_TIMEOUT_SECONDS": "3", "HTTP_WRITE_TIMEOUT_SECONDS": "4", "HTTP_IDLE_TIMEOUT_SECONDS": "5"}, check: func(t *testing.T, c Config) {
			h := c.HTTP
			if h.ListenAddr(c.Port) != "127.0.0.1:9000" || h.MaxConnsPerClient != 0 ||
				h.ReadHeaderTimeout != 2*time.Second || h.ReadTimeout != 3*time.Second || h.WriteTimeout != 4*time.Second || h.IdleTimeout != 5*time.Second {
				t.Errorf("got %+v", h)
			}
		}},
		{name: "ipv6 host", env: map[string]string{"HOST": "[::1]"}, check: func(t *testing.T, c Config) {
			if c.HTTP.ListenAddr(8080) != "[::1]:8080" {
				t.Errorf("got %q", c.HTTP.ListenAddr(8080))
			}
		}},
		{name: "bad host", env: map[string]string{"HOST": "http://0.0.0.0"}, wantErr: "HOST"},
		{name: "replica url", env: map[string]string{"WORKBENCH_REPLICA_URL": "http://10.0.0.12:8080/"}, check: func(t *testing.T, c Config) {
			if c.ReplicaURL != "http://10.0.0.12:8080" {
				t.Errorf("got %q", c.ReplicaURL)
			}
		}},
		{name: "replica url with a path", env: map[string]string{"WORKBENCH_REPLICA_URL": "http://10.0.0.12:8080/x"}, wantErr: "WORKBENCH_REPLICA_URL"},
		{name: "replica url not http", env: map[string]string{"WORKBENCH_REPLICA_URL": "ftp://10.0.0.12"}, wantErr: "WORKBENCH_REPLICA_URL"},
		{name: "bad conn cap", env: map[string]string{"MAX_CONNS_PER_CLIENT": "-1"}, wantErr: "MAX_CONNS_PER_CLIENT"},
		{name: "bad read timeout", env: map[string]string{"HTTP_READ_TIMEOUT_SECONDS": "0"}, wantErr: "HTTP_READ_TIMEOUT_SECONDS"},
		{name: "jots per user", env: map[string]string{"JOTS_MAX_PER_USER": "7", "JOTS_QUOTA_BYTES": "1048576"}, check: func(t *testing.T, c Config) {
			if c.JotsMaxPerUser != 7 || c.JotsQuotaBytes != 1<<20 {
				t.Errorf("got %d %d", c.JotsMaxPerUser, c.JotsQuotaBytes)
			}
		}},
		{name: "jots max per user", env: map[string]string{"JOTS_MAX_PER_USER": "0"}, wantErr: "JOTS_MAX_PER_USER"},
		{name: "jots quota", env: map[string]string{"JOTS_QUOTA_BYTES": "10"}, wantErr: "JOTS_QUOTA_BYTES"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := FromEnv(env(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "sekrit") {
					t.Fatalf("error leaks the password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}
