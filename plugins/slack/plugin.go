// Package slack is the home of the Slack provider: its plugin folder (manifest.json, tools.json, logo.svg),
// its Go handlers and its contract test (contract_test.go).
package slack

import (
	"embed"

	"github.com/workbench/workbench/plugins"
)

//go:embed manifest.json tools.json logo.svg
var pluginFiles embed.FS

// Plugin is the slack plugin folder as it ships with the server.
func Plugin() plugins.Builtin {
	return plugins.Builtin{Folder: "slack", FS: pluginFiles, Handlers: handlers()}
}
