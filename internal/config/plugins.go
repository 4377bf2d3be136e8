package config

import "strings"

// OAuthClient is the OAuth client an operator registered with an integration's provider, read from
// <PLUGIN>_CLIENT_ID and <PLUGIN>_CLIENT_SECRET.
type OAuthClient struct {
	ID     string
	Secret string // empty: a public client (PKCE only)
}

// PluginEnvPrefix is the upper-snake form of an integration name that prefixes its client
// credentials: google-gmail becomes GOOGLE_GMAIL, read as GOOGLE_GMAIL_CLIENT_ID and
// GOOGLE_GMAIL_CLIENT_SECRET.
func PluginEnvPrefix(integration string) string {
	return strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(integration))
}

// PluginClients reads the OAuth client of each named integration. The names are the plugin
// registry's, known only once it is loaded, so this runs beside FromEnv at start rather than inside
// it. An integration whose <PLUGIN>_CLIENT_ID is unset is left out: it cannot be connected until the
// operator sets it (and restarts).
func PluginClients(getenv func(string) string, integrations []string) map[string]OAuthClient {
	r := reader(getenv)
	out := make(map[string]OAuthClient)
	for _, name := range integrations {
		p := PluginEnvPrefix(name)
		id := r.filled(pluginClientID, p)
		if id == "" {
			continue
		}
		out[name] = OAuthClient{ID: id, Secret: r.filled(pluginClientSecret, p)}
	}
	return out
}
