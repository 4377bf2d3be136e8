// Package pagerduty is the home of the PagerDuty provider: its plugin folder (manifest.json, tools.json,
// logo.svg) and its contract test (contract_test.go).
package pagerduty

import (
	"embed"

	"github.com/workbench/workbench/plugins"
)

//go:embed manifest.json tools.json logo.svg
var pluginFiles embed.FS

// Plugin is the pagerduty plugin folder as it ships with the server.
func Plugin() plugins.Builtin {
	return plugins.Builtin{Folder: "pagerduty", FS: pluginFiles}
}
