package config

// readConnectors reads where plugins and connectors come from, the connector registry and the
// organisation limits. The plugins' OAuth clients are read once the plugins are loaded
// (PluginClients).
func readConnectors(r reader, c *Config) error {
	c.PluginsDir = r.text("PLUGINS_DIR")
	c.ConnectorsDir = r.text("CONNECTORS_DIR")
	var err error
	if c.OrgLimits, err = readOrgLimits(r); err != nil {
		return err
	}
	c.ConnectorRegistry, err = readConnectorRegistry(r, c.DevAllowLoopback)
	return err
}
