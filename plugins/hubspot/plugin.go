// Package hubspot is the home of the HubSpot provider: its plugin folder (manifest.json, tools.json,
// logo.svg) and its contract test (contract_test.go).
package hubspot

import (
	"embed"

	"github.com/workbench/workbench/plugins"
)

//go:embed manifest.json tools.json logo.svg
var pluginFiles embed.FS

// Plugin is the hubspot plugin folder as it ships with the server.
func Plugin() plugins.Builtin {
	return plugins.Builtin{Folder: "hubspot", FS: pluginFiles}
}
