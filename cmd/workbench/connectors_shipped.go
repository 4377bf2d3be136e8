package main

import (
	"os"

	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/plugins/shipped"
)

// shippedConnectors loads the connector folders built into the binary with their adapters, any of
// them replaced by those of override.
func shippedConnectors(override ...map[string]connector.Adapter) ([]*connector.Connector, []connector.Problem) {
	adapters := shipped.Adapters()
	for _, o := range override {
		for slug, a := range o {
			adapters[slug] = a
		}
	}
	return shipped.LoadConnectors(adapters)
}

// localConnectors loads the folders of CONNECTORS_DIR (no adapters: endpoint connectors only). A
// slug the binary ships is refused there.
func localConnectors(dir string, shipped []*connector.Connector) ([]*connector.Connector, []connector.Problem) {
	if dir == "" {
		return nil, nil
	}
	cs, problems := connector.Load(os.DirFS(dir), "local", nil)
	taken := map[string]bool{}
	for _, c := range shipped {
		taken[c.Manifest.Slug] = true
	}
	out := cs[:0]
	for _, c := range cs {
		if taken[c.Manifest.Slug] {
			problems = append(problems, connector.Problem{Folder: c.Manifest.Slug, Reasons: []string{"a shipped connector has this slug"}})
			continue
		}
		out = append(out, c)
	}
	return out, problems
}
