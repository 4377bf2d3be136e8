// Package connectors holds the connector folders that ship with the server (spec connectors.md,
// Where connectors come from): each folder under this directory is one connector, its connector.json
// and logo.svg embedded here, its Go adapter (if any) registered by slug in Adapters.
//
// Shipped: sentry (Sentry's hosted MCP server, dynamic OAuth: connecting it registers a client and
// signs in through the browser), github-mcp (GitHub's remote MCP server with a personal access token), and
// todoist (adapter-only, Todoist's REST API with an API token and a project lookup), github
// (adapter-only, GitHub's REST API as an installation of the box's GitHub App: the github_app OAuth
// strategy), and brave (adapter-only, the Brave Search API's web search, on the platform's
// brave-search key through auth.instance, or an organisation's own key).
package shippedconnectors

import (
	"embed"
	"io/fs"

	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/plugins/shippedconnectors/brave"
	"github.com/workbench/workbench/plugins/shippedconnectors/github"
	"github.com/workbench/workbench/plugins/shippedconnectors/todoist"
)

//go:embed */connector.json */logo.svg
var folders embed.FS

// FS is the shipped folders.
func FS() fs.FS { return folders }

// Adapters returns the shipped adapters by slug, a fresh map each call so a caller (a test) may
// replace one.
func Adapters() map[string]connector.Adapter {
	return map[string]connector.Adapter{"todoist": todoist.New(""), "github": github.New(""), "brave": brave.New("")}
}

// Load loads the shipped folders with adapters (Adapters() when nil).
func Load(adapters map[string]connector.Adapter) ([]*connector.Connector, []connector.Problem) {
	if adapters == nil {
		adapters = Adapters()
	}
	return connector.Load(folders, "core", adapters)
}
