// Package shipped assembles what ships with the server from the provider folders under plugins/: the
// built-in plugin folders with their Go handlers (Plugins, for plugins.Options.Builtins) and the
// connector folders with their Go adapters (ConnectorFS, Adapters, LoadConnectors; spec
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
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"

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

// connectorFolders are the providers' connector folders; each holds one folder per connector, named by
// its slug.
func connectorFolders() []fs.FS {
	return []fs.FS{brave.Connectors(), github.Connectors(), sentry.Connectors(), todoist.Connectors()}
}

// ConnectorFS is the shipped connector folders as one tree: one folder per connector, named by its slug, as
// plugins/connector.Load reads it.
func ConnectorFS() fs.FS { return unionFS(connectorFolders()) }

// Adapters returns the shipped adapters by slug, a fresh map each call so a caller (a test) may
// replace one.
func Adapters() map[string]connector.Adapter {
	return map[string]connector.Adapter{"todoist": todoist.New(""), "github": github.New(""), "brave": brave.New("")}
}

// LoadConnectors loads the shipped connector folders with adapters (Adapters() when nil).
func LoadConnectors(adapters map[string]connector.Adapter) ([]*connector.Connector, []connector.Problem) {
	if adapters == nil {
		adapters = Adapters()
	}
	return connector.Load(ConnectorFS(), "core", adapters)
}

// unionFS joins folders whose top-level entries (the connectors' slug folders) never share a name:
// its root lists them all, and a path opens in the folder that holds its first element.
type unionFS []fs.FS

// ReadDir lists the root's entries in name order; below the root it is the owning folder's.
func (u unionFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name != "." {
		f, rest, err := u.owner(name)
		if err != nil {
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
		}
		return fs.ReadDir(f, rest)
	}
	var all []fs.DirEntry
	for _, f := range u {
		es, err := fs.ReadDir(f, ".")
		if err != nil {
			return nil, err
		}
		all = append(all, es...)
	}
	slices.SortFunc(all, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return all, nil
}

// Open opens a path below the root in the folder that holds it; the root itself is listed with
// ReadDir only.
func (u unionFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, _, err := u.owner(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return f.Open(name)
}

// owner is the folder holding name's first element, and name itself (the folders share the root).
func (u unionFS) owner(name string) (fs.FS, string, error) {
	if name == "." {
		return nil, "", errors.New("the root of the shipped connector folders is listed with ReadDir only")
	}
	top, _, _ := strings.Cut(path.Clean(name), "/")
	for _, f := range u {
		if _, err := fs.Stat(f, top); err == nil {
			return f, name, nil
		}
	}
	return nil, "", fs.ErrNotExist
}
