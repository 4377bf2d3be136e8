// Package shipped assembles what ships with the server from the provider folders under plugins/: the
// built-in plugin folders with their Go handlers (Plugins, for plugins.Options.Builtins) and the
// connector folders with their Go adapters (ConnectorFolders, Adapters, LoadConnectors; spec
// connectors.md, Where connectors come from). The runtimes (plugins, plugins/connector) cannot import
// the providers, which import them; this package is where they meet, and cmd wires it in.
//
// Shipped connectors: sentry (plugins/sentry: Sentry's hosted MCP server, dynamic OAuth: connecting it
// registers a client and signs in through the browser), github-mcp (plugins/github: GitHub's remote
// MCP server with a personal access token), todoist (plugins/todoist: adapter-only, Todoist's REST API
// with an API token and a project lookup), github (plugins/github: adapter-only, GitHub's REST API as
// an installation of the box's GitHub App: the github_app OAuth strategy), and brave
// (plugins/brave-search: adapter-only, the Brave Search API's web search, on the platform's
// brave-search key through auth.instance, or an organisation's own key).
package shipped

import (
	"io/fs"

	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/plugins/atlassian-confluence"
	"github.com/workbench/workbench/plugins/atlassian-jira"
	"github.com/workbench/workbench/plugins/brave-search"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/plugins/datadog"
	"github.com/workbench/workbench/plugins/github"
	"github.com/workbench/workbench/plugins/gitlab"
	"github.com/workbench/workbench/plugins/google-calendar"
	"github.com/workbench/workbench/plugins/google-drive"
	"github.com/workbench/workbench/plugins/google-gmail"
	"github.com/workbench/workbench/plugins/hubspot"
	"github.com/workbench/workbench/plugins/linear"
	"github.com/workbench/workbench/plugins/newrelic"
	"github.com/workbench/workbench/plugins/notion"
	"github.com/workbench/workbench/plugins/pagerduty"
	"github.com/workbench/workbench/plugins/sentry"
	"github.com/workbench/workbench/plugins/slack"
	"github.com/workbench/workbench/plugins/todoist"
	"github.com/workbench/workbench/plugins/utils"
)

// Plugins returns the built-in plugin folders with their Go handlers, in folder-name order. Adding a
// built-in plugin means adding its provider here.
func Plugins() []plugins.Builtin {
	return []plugins.Builtin{
		confluence.Plugin(),
		jira.Plugin(),
		brave.Plugin(),
		datadog.Plugin(),
		github.Plugin(),
		gitlab.Plugin(),
		googlecalendar.Plugin(),
		googledrive.Plugin(),
		gmail.Plugin(),
		hubspot.Plugin(),
		linear.Plugin(),
		newrelic.Plugin(),
		notion.Plugin(),
		pagerduty.Plugin(),
		sentry.Plugin(),
		slack.Plugin(),
		utils.Plugin(),
	}
}

// ConnectorFolders are the providers' connector folders; each holds one folder per connector, named by
// its slug, as plugins/connector.Load reads it. No two providers ship a connector of the same slug
// (TestEveryProviderFolderIsShipped).
func ConnectorFolders() []fs.FS {
	return []fs.FS{brave.Connectors(), github.Connectors(), sentry.Connectors(), todoist.Connectors()}
}

// Adapters returns the shipped adapters by slug, a fresh map each call so a caller (a test) may
// replace one.
func Adapters() map[string]connector.Adapter {
	return map[string]connector.Adapter{"todoist": todoist.New(""), "github": github.New(""), "brave": brave.New("")}
}

// LoadConnectors loads the shipped connector folders with adapters (Adapters() when nil), in slug
// order.
func LoadConnectors(adapters map[string]connector.Adapter) ([]*connector.Connector, []connector.Problem) {
	if adapters == nil {
		adapters = Adapters()
	}
	return connector.LoadAll(ConnectorFolders(), "core", adapters)
}
