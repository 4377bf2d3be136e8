// Package linear is the home of the Linear provider: its plugin folder (manifest.json, tools.json,
// logo.svg) and its contract test (contract_test.go).
package linear

import (
	"embed"

	"github.com/workbench/workbench/plugins"
)

//go:embed manifest.json tools.json logo.svg
var pluginFiles embed.FS

// Plugin is the linear plugin folder as it ships with the server.
func Plugin() plugins.Builtin {
	return plugins.Builtin{Folder: "linear", FS: pluginFiles}
}
