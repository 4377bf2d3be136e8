// Package newrelic is the home of the New Relic provider: its plugin folder (manifest.json, tools.json,
// logo.svg) and its contract test (contract_test.go).
package newrelic

import (
	"embed"

	"github.com/workbench/workbench/plugins"
)

//go:embed manifest.json tools.json logo.svg
var pluginFiles embed.FS

// Plugin is the newrelic plugin folder as it ships with the server.
func Plugin() plugins.Builtin {
	return plugins.Builtin{Folder: "newrelic", FS: pluginFiles}
}
