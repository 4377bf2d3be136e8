package main

import (
	"fmt"
	"io"
)

// errConnectorProblems makes the process exit 1 after the problems were printed.
var errConnectorProblems = fmt.Errorf("connectors check found problems")

// cmdConnectors: `connectors check DIR` validates a CONNECTORS_DIR of connector folders as the server
// would load them at boot (the schema, the slug against the folder, the rules the schema cannot say,
// a slug the binary ships), and prints every problem, one line per reason.
func cmdConnectors(args []string, stdout, stderr io.Writer) error {
	if len(args) != 2 || args[0] != "check" {
		fmt.Fprint(stderr, "usage: workbench connectors check DIR\n\nDIR holds connector folders, each with a connector.json.\n")
		return errUsage
	}
	shipped, _ := shippedConnectors()
	loaded, problems := localConnectors(args[1], shipped)
	n := 0
	for _, p := range problems {
		for _, r := range p.Reasons {
			fmt.Fprintf(stdout, "%s: %s\n", p.Folder, r)
			n++
		}
	}
	if n > 0 {
		fmt.Fprintf(stderr, "%d problem(s) in %d connector folder(s); %d connector(s) would load\n", n, len(problems), len(loaded))
		return errConnectorProblems
	}
	fmt.Fprintf(stdout, "ok: %d connector(s) would load\n", len(loaded))
	return nil
}
