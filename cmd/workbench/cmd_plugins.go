package main

import (
	"context"
	"fmt"
	"io"

	"github.com/workbench/workbench/internal/config"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/plugins/shipped"
)

// errProblems makes the process exit 1 after the problems were printed.
var errProblems = fmt.Errorf("plugins check found problems")

// cmdPlugins: `plugins check DIR` validates a plugin folder, or a PLUGINS_DIR of them, as the server
// would load it at boot, and prints every problem with its location.
func cmdPlugins(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) != 2 || args[0] != "check" {
		fmt.Fprint(stderr, "usage: workbench plugins check DIR\n\nDIR is one plugin folder (it holds manifest.json) or a PLUGINS_DIR of plugin folders.\n")
		return errUsage
	}
	// The same switch as serve's: a plugin pointing at a local development server passes with it.
	allowLoopback, err := config.DevAllowLoopback(getenv)
	if err != nil {
		return err
	}
	res, err := plugins.Check(ctx, args[1], allowLoopback, shipped.Plugins())
	if err != nil {
		return err
	}
	for _, p := range res.Problems {
		for _, line := range p.Lines() {
			fmt.Fprintln(stdout, line)
		}
	}
	if n := res.Count(); n > 0 {
		fmt.Fprintf(stderr, "%d problem(s) in %d plugin(s); %d integration(s) with %d tool(s) would load\n", n, foldersWithProblems(res), res.Integrations, res.Tools)
		return errProblems
	}
	fmt.Fprintf(stdout, "ok: %d integration(s) with %d tool(s) would load\n", res.Integrations, res.Tools)
	return nil
}

// foldersWithProblems counts the distinct plugin folders with a problem.
func foldersWithProblems(res plugins.CheckResult) int {
	seen := map[string]bool{}
	for _, p := range res.Problems {
		seen[p.Source] = true
	}
	return len(seen)
}
