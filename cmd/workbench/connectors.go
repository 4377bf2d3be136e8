package main

import (
	"context"
	"os"
	"strings"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/mcpclient"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// openConnectors loads the shipped connector folders, opens the MCP client pool and the connectors
// use case, and installs the folders into the catalog (the projections must be running). Until the
// organizations read model is wired, every user is one organization and one agent
// (connectors.PersonalScopes).
func (m *Main) openConnectors(ctx context.Context) (*connectors.Service, error) {
	folders, problems := shippedConnectors(m.ConnectorAdapters)
	local, more := localConnectors(m.Config.ConnectorsDir, folders)
	folders, problems = append(folders, local...), append(problems, more...)
	for _, p := range problems {
		m.Logger.Error("connector folder not loaded", "folder", p.Folder, "problems", strings.Join(p.Reasons, "; "))
	}
	pool := mcpclient.New(mcpclient.Options{AllowLoopback: m.Config.DevAllowLoopback, Logger: m.Logger, ClientVersion: m.Version})
	m.closers = append(m.closers, func() error { pool.Close(); return nil })
	reserved := map[string]bool{}
	for _, t := range m.Plugins.Tools() {
		if i := strings.Index(t.Name, "_"); i > 0 {
			reserved[t.Name[:i]] = true
		}
	}
	for _, in := range m.Plugins.Integrations() {
		reserved[strings.ReplaceAll(in.Name, "-", "")] = true
		reserved[strings.ReplaceAll(in.Name, "-", "_")] = true
	}
	keys, err := m.openPlatformKeys()
	if err != nil {
		return nil, err
	}
	svc, err := connectors.New(connectors.Options{
		Store: m.Store, DB: m.DB, Projections: m.Runner, Vault: m.Vault, Pool: pool, Scopes: connectors.OrganizationScopes{Reader: &organizationsrm.Reader{DB: m.DB}},
		Connectors: folders, Reserved: func(p string) bool { return reserved[p] }, AllowLoopback: m.Config.DevAllowLoopback, Logger: m.Logger,
		// The OAuth callback lives under SERVER_PUBLIC_URL; its signed state's key is derived from the master key.
		PublicURL: m.Config.ServerPublicURL, OAuthStateKey: m.deriveKey("mcp-oauth-state"),
		// The configured OAuth strategy with a provider signs in with an integration's endpoints and client.
		Integrations: m.Plugins, IntegrationClients: m.pluginClients(m.getenv()),
		MaxMCPServers: m.Config.OrgLimits.MaxMCPServers,
		PlatformKeys:  keys, MonthlyCap: m.Config.OrgLimits.MonthlyCap,
		Registry: connectorRegistry(m.Config.ConnectorRegistry), RegistryURL: m.Config.ConnectorRegistry.URL,
	})
	if err != nil {
		return nil, err
	}
	if err := svc.Install(ctx); err != nil {
		return nil, err
	}
	if err := m.startPlatformLogins(ctx, svc); err != nil {
		return nil, err
	}
	return svc, nil
}

// getenv is Getenv, else os.Getenv.
func (m *Main) getenv() func(string) string {
	if m.Getenv != nil {
		return m.Getenv
	}
	return os.Getenv
}
