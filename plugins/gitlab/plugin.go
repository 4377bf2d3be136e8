// Package gitlab is the home of the GitLab provider: its plugin folder (manifest.json, tools.json,
// logo.svg) and its contract test (contract_test.go).
package gitlab

import (
	"embed"

	"github.com/workbench/workbench/plugins"
)

//go:embed manifest.json tools.json logo.svg
var pluginFiles embed.FS

// Plugin is the gitlab plugin folder as it ships with the server.
func Plugin() plugins.Builtin {
	return plugins.Builtin{Folder: "gitlab", FS: pluginFiles}
}
