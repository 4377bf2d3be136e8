// Package brave is the home of the Brave Search provider: its plugin folder (manifest.json, tools.json,
// logo.svg), its connector (connectors/brave with its adapter in adapter.go) and its contract test
// (contract_test.go).
package brave

import (
	"embed"

	"github.com/workbench/workbench/plugins"
)

//go:embed manifest.json tools.json logo.svg
var pluginFiles embed.FS

// Plugin is the brave-search plugin folder as it ships with the server.
func Plugin() plugins.Builtin {
	return plugins.Builtin{Folder: "brave-search", FS: pluginFiles}
}
