package login

import "strings"

// PluginServerPrefix marks the switches of plugin tools (the shipped integrations and the built-ins):
// a SwitchSet whose ServerID is PluginServerID(integration) turns that integration's tool On or Off,
// under the rules a connector tool's switch follows. A connector's id is "mcp_" and a slug, which
// holds no colon, so the two never meet.
const PluginServerPrefix = "plugin:"

// PluginServerID is the ServerID of a plugin integration's switches.
func PluginServerID(integration string) string { return PluginServerPrefix + integration }

// PluginIntegration is the integration a ServerID names, and whether it names one.
func PluginIntegration(serverID string) (string, bool) {
	name, ok := strings.CutPrefix(serverID, PluginServerPrefix)
	if !ok || name == "" {
		return "", false
	}
	return name, true
}
