// Command configdoc writes the configuration reference generated from the config package's table of
// variables: go run ./internal/config/cmd/configdoc docs/configuration.md (go generate ./internal/config
// runs it with the path from the package's directory).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/workbench/workbench/internal/config"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: configdoc PATH (the configuration reference to write, e.g. docs/configuration.md)")
		os.Exit(2)
	}
	if err := os.MkdirAll(filepath.Dir(os.Args[1]), 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "configdoc:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(os.Args[1], []byte(config.Markdown()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "configdoc:", err)
		os.Exit(1)
	}
}
