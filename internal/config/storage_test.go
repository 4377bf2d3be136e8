package config

import (
	"strings"
	"testing"
	"time"
)

func TestReadStorage(t *testing.T) {
	runArea(t, readStorage, []areaCase{
		{name: "defaults", env: map[string]string{}, check: func(t *testing.T, c Config) {
			if c.DatabaseURL != DefaultDatabaseURL || c.Database != SQLite || c.EventStore != SQLite || c.DataDir != "data" ||
				c.DatabaseMaxConns != 20 || c.DatabaseConnMaxIdle != 5*time.Minute {
				t.Errorf("got %+v", c)
			}
		}},
		{name: "postgres with its pool", env: map[string]string{"DATABASE_URL": "postgres://u:p@db:5432/wb", "DATABASE_MAX_CONNS": "1000", "DATABASE_CONN_MAX_IDLE_SECONDS": "86400"}, check: func(t *testing.T, c Config) {
			if c.Database != Postgres || c.DataDir != "./data" || c.DatabaseMaxConns != 1000 || c.DatabaseConnMaxIdle != 24*time.Hour {
				t.Errorf("got %+v", c)
			}
		}},
		{name: "data dir overrides the file's directory", env: map[string]string{"DATABASE_URL": "file:/srv/wb.db", "WORKBENCH_DATA_DIR": " /var/wb "}, check: func(t *testing.T, c Config) {
			if c.DataDir != "/var/wb" || c.SQLitePath() != "/srv/wb.db" {
				t.Errorf("got %q, %q", c.DataDir, c.SQLitePath())
			}
		}},
		{name: "kurrent discover", env: map[string]string{"EVENTSTORE_URL": "esdb+discover://cluster:2113"}, check: func(t *testing.T, c Config) {
			if c.EventStore != Kurrent || c.Database != SQLite {
				t.Errorf("got %s/%s", c.EventStore, c.Database)
			}
		}},
		{name: "bad postgres url hides its password", env: map[string]string{"DATABASE_URL": "postgres://u:hunter2@db:port/wb"}, wantErr: []string{"DATABASE_URL", "not a valid PostgreSQL URL"}},
		{name: "mysql", env: map[string]string{"DATABASE_URL": "mysql://db/wb"}, wantErr: []string{"DATABASE_URL", `scheme "mysql" is not supported`}},
		{name: "a directory", env: map[string]string{"DATABASE_URL": "sqlite:/tmp/"}, wantErr: []string{"DATABASE_URL", "a SQLite file path"}},
		{name: "pool of none", env: map[string]string{"DATABASE_MAX_CONNS": "0"}, wantErr: []string{`DATABASE_MAX_CONNS="0"`, "a whole number of connections from 1 to 1000"}},
		{name: "idle not a number", env: map[string]string{"DATABASE_CONN_MAX_IDLE_SECONDS": "5m"}, wantErr: []string{"DATABASE_CONN_MAX_IDLE_SECONDS", "whole seconds from 1 to 86400"}},
		{name: "event store without a host", env: map[string]string{"EVENTSTORE_URL": "kurrentdb://"}, wantErr: []string{"EVENTSTORE_URL", "esdb://host:port"}},
		{name: "event store over http", env: map[string]string{"EVENTSTORE_URL": "http://kurrent:2113"}, wantErr: []string{"EVENTSTORE_URL", "kurrentdb://host:port"}},
	})
	// The password never reaches the message.
	var c Config
	if err := readStorage(reader(env(map[string]string{"DATABASE_URL": "postgres://u:hunter2@db:port/wb"})), &c); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("err = %v; want an error without the password", err)
	}
}

func TestReadEncryption(t *testing.T) {
	runArea(t, readEncryption, []areaCase{
		{name: "unset", env: map[string]string{}, check: func(t *testing.T, c Config) {
			if c.EncryptionKey != "" || c.EncryptionKeyPrevious != "" {
				t.Errorf("got %q %q", c.EncryptionKey, c.EncryptionKeyPrevious)
			}
		}},
		{name: "trimmed and kept raw for the vault", env: map[string]string{"ENCRYPTION_KEY": " k1 \n", "ENCRYPTION_KEY_PREVIOUS": "k0,k-1"}, check: func(t *testing.T, c Config) {
			if c.EncryptionKey != "k1" || c.EncryptionKeyPrevious != "k0,k-1" {
				t.Errorf("got %q %q", c.EncryptionKey, c.EncryptionKeyPrevious)
			}
		}},
	})
}
