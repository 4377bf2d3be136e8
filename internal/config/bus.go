package config

import (
	"fmt"
	"net/url"
	"strings"
)

// readBus reads how replicas share events (the bus) and how they reach each other (the replica URL).
func readBus(r reader, c *Config) error {
	c.BusURL = r.text("BUS_URL")
	if c.BusURL != "" {
		u, err := url.Parse(c.BusURL)
		if err != nil || (u.Scheme != "nats" && u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
			return fmt.Errorf("BUS_URL: want nats://host:port or postgres://…, or unset for the in-process bus")
		}
	}
	c.BusNATSPrefix = r.text("BUS_NATS_PREFIX")
	if c.BusNATSPrefix == "" {
		c.BusNATSPrefix = "workbench"
	}
	if v := strings.TrimRight(r.text("WORKBENCH_REPLICA_URL"), "/"); v != "" {
		if !baseURL(v) {
			return fmt.Errorf("WORKBENCH_REPLICA_URL=%q: want this replica's base URL as the other replicas reach it, http:// or https:// with no path, e.g. http://10.0.0.12:8080", v)
		}
		c.ReplicaURL = v
	}
	return nil
}

// baseURL reports whether v is an http or https URL of a host alone: no path, query, fragment or
// user information.
func baseURL(v string) bool {
	u, err := url.Parse(v)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.Path == "" && u.RawQuery == "" && u.Fragment == "" && u.User == nil
}
