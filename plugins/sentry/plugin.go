// Package sentry is the home of the Sentry provider: its plugin folder (manifest.json, tools.json,
// logo.svg), its connector (connectors/sentry) and its contract test (contract_test.go).
package sentry

import (
	"embed"

	"github.com/workbench/workbench/plugins"
)

//go:embed manifest.json tools.json logo.svg
var pluginFiles embed.FS

// Plugin is the sentry plugin folder as it ships with the server.
func Plugin() plugins.Builtin {
	return plugins.Builtin{Folder: "sentry", FS: pluginFiles}
}
