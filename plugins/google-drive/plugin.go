// Package googledrive is the home of the Google Drive provider: its plugin folder (manifest.json,
// tools.json, logo.svg) and its contract test (contract_test.go).
package googledrive

import (
	"embed"

	"github.com/workbench/workbench/plugins"
)

//go:embed manifest.json tools.json logo.svg
var pluginFiles embed.FS

// Plugin is the google-drive plugin folder as it ships with the server.
func Plugin() plugins.Builtin {
	return plugins.Builtin{Folder: "google-drive", FS: pluginFiles}
}
