package brave

import (
	"embed"
	"io/fs"
)

//go:embed connectors/*/connector.json connectors/*/logo.svg
var connectorFiles embed.FS

// Connectors is the folder of the brave connector (Brave Web Search, adapter only): one folder per connector, named by its slug, holding its
// connector.json and logo.svg.
func Connectors() fs.FS {
	sub, err := fs.Sub(connectorFiles, "connectors")
	if err != nil {
		panic(err) // a constant, valid directory name
	}
	return sub
}
