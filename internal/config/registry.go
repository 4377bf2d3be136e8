package config

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
)

// EnvConnectorRegistryDir names the connector registry an instance admin installs connectors from
// (spec connectors.md, Where connectors come from): a directory holding <slug>/connector.json folders
// or <slug>.json files, and optionally verified.txt, the slugs the registry vouches for, one a line.
// Unset or blank: no registry, and the registry routes answer an empty list.
const EnvConnectorRegistryDir = "CONNECTOR_REGISTRY_DIR"

// EnvConnectorRegistryURL names a connector registry fetched over HTTPS instead: the URL of a
// registry index, {"connectors": [<connector.json object>, ...], "verified": ["<slug>", ...]}
// (app/connectors registryurl.go). It must be https (http only for a loopback address with
// WORKBENCH_DEV_ALLOW_LOOPBACK); setting it beside CONNECTOR_REGISTRY_DIR is an error.
const EnvConnectorRegistryURL = "CONNECTOR_REGISTRY_URL"

// ConnectorRegistry is where the connector registry is read from: at most one of Dir and URL is set.
type ConnectorRegistry struct {
	// Dir is an absolute directory; empty: none.
	Dir string
	// URL is the registry index's URL; empty: none.
	URL string
}

// readConnectorRegistry reads CONNECTOR_REGISTRY_DIR: it must name an existing, readable directory.
// Its entries are read at every listing and install (app/connectors registry.go), so a file added
// later needs no restart; a bad entry is shown with its problems, never a reason not to start.
func readConnectorRegistry(getenv func(string) string, allowLoopback bool) (ConnectorRegistry, error) {
	r := reader(getenv)
	dir, raw := r.text(EnvConnectorRegistryDir), r.text(EnvConnectorRegistryURL)
	if dir != "" && raw != "" {
		return ConnectorRegistry{}, fmt.Errorf("%s and %s are both set; set one: a directory or the URL of a registry index", EnvConnectorRegistryDir, EnvConnectorRegistryURL)
	}
	if raw != "" {
		return readConnectorRegistryURL(raw, allowLoopback)
	}
	if dir == "" {
		return ConnectorRegistry{}, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ConnectorRegistry{}, fmt.Errorf("%s=%q: %w", EnvConnectorRegistryDir, dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return ConnectorRegistry{}, fmt.Errorf("%s=%q: %w", EnvConnectorRegistryDir, dir, err)
	}
	if !fi.IsDir() {
		return ConnectorRegistry{}, fmt.Errorf("%s=%q: not a directory; want a directory of <slug>/connector.json folders or <slug>.json files", EnvConnectorRegistryDir, dir)
	}
	if _, err := os.ReadDir(abs); err != nil {
		return ConnectorRegistry{}, fmt.Errorf("%s=%q: %w", EnvConnectorRegistryDir, dir, err)
	}
	return ConnectorRegistry{Dir: abs}, nil
}

// readConnectorRegistryURL checks CONNECTOR_REGISTRY_URL's form: an absolute https URL with no user
// information (http only for a loopback address with WORKBENCH_DEV_ALLOW_LOOPBACK). Its address is
// checked at every fetch, not here: the registry need not answer for the box to start.
func readConnectorRegistryURL(raw string, allowLoopback bool) (ConnectorRegistry, error) {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return ConnectorRegistry{}, fmt.Errorf("%s=%q: not an absolute URL; want https://host/path of a registry index", EnvConnectorRegistryURL, raw)
	}
	if u.User != nil {
		return ConnectorRegistry{}, fmt.Errorf("%s: the URL carries user information; a registry index is fetched without credentials", EnvConnectorRegistryURL)
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !allowLoopback || !loopbackHost(u.Hostname()) {
			return ConnectorRegistry{}, fmt.Errorf("%s=%q: must use https (http only for a loopback address with WORKBENCH_DEV_ALLOW_LOOPBACK)", EnvConnectorRegistryURL, raw)
		}
	default:
		return ConnectorRegistry{}, fmt.Errorf("%s=%q: scheme %q; want https", EnvConnectorRegistryURL, raw, u.Scheme)
	}
	return ConnectorRegistry{URL: u.String()}, nil
}

func loopbackHost(h string) bool {
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.Unmap().IsLoopback() || net.ParseIP(h) == nil && h == "localhost"
}
