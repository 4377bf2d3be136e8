package config

import "testing"

func TestReadBus(t *testing.T) {
	runArea(t, readBus, []areaCase{
		{name: "in-process", env: map[string]string{}, check: func(t *testing.T, c Config) {
			if c.BusURL != "" || c.BusNATSPrefix != "workbench" || c.ReplicaURL != "" {
				t.Errorf("got %q %q %q", c.BusURL, c.BusNATSPrefix, c.ReplicaURL)
			}
		}},
		{name: "postgres bus and a replica url", env: map[string]string{"BUS_URL": "postgresql://db/wb", "WORKBENCH_REPLICA_URL": "https://10.0.0.12:8443/"}, check: func(t *testing.T, c Config) {
			if c.BusURL != "postgresql://db/wb" || c.ReplicaURL != "https://10.0.0.12:8443" {
				t.Errorf("got %q %q", c.BusURL, c.ReplicaURL)
			}
		}},
		{name: "prefix", env: map[string]string{"BUS_URL": "nats://127.0.0.1:4222", "BUS_NATS_PREFIX": "staging"}, check: func(t *testing.T, c Config) {
			if c.BusNATSPrefix != "staging" {
				t.Errorf("got %q", c.BusNATSPrefix)
			}
		}},
		{name: "redis", env: map[string]string{"BUS_URL": "redis://cache:6379"}, wantErr: []string{"BUS_URL", "nats://host:port or postgres://"}},
		{name: "nats without a host", env: map[string]string{"BUS_URL": "nats://"}, wantErr: []string{"BUS_URL"}},
		{name: "replica url with user information", env: map[string]string{"WORKBENCH_REPLICA_URL": "http://u:p@10.0.0.12:8080"}, wantErr: []string{"WORKBENCH_REPLICA_URL", "no path"}},
		{name: "replica url with a query", env: map[string]string{"WORKBENCH_REPLICA_URL": "http://10.0.0.12:8080?a=b"}, wantErr: []string{"WORKBENCH_REPLICA_URL"}},
	})
}
