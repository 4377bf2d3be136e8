// Command workbench is the Workbench server and its operator tools, in one binary:
//
//	workbench [serve]                       run the server (migrates first)
//	workbench migrate [--create-role NAME]  apply pending schema migrations and exit (and create the server's PostgreSQL role)
//	workbench apikey create --email E       create the user when missing, mint a key, print it once
//	workbench signin-link [--email E]       print a one-time portal sign-in link for that user
//	workbench events tail [--from POS] [-f] print the event log as JSON lines
//	workbench projections rebuild [NAME]    rebuild one read model (or all) from position zero
//	workbench keys rotate                   re-seal every data key under the current ENCRYPTION_KEY
//	workbench plugins check DIR             validate user plugins as the server would load them
//	workbench connectors check DIR          validate connector folders (a CONNECTORS_DIR) as the server would load them
//	workbench audit replay [filters]        stream the audit trail from the log as JSON lines or CSV
//	workbench doctor                        check a deployment's settings, database, key, bus and public URL
//	workbench backup --to PATH              copy a running SQLite database into a new file (online)
//	workbench version                       print the version (also --version)
//
// Configuration comes from the environment (see docs/configuration.md and internal/config).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "workbench:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

const usage = `usage: workbench <command> [arguments]

commands:
  serve                          run the server (the default; migrates first)
  migrate [--create-role NAME]   apply pending schema migrations and exit; --create-role: create the server's
                                 least-privilege PostgreSQL role (append-only on events)
  apikey create --email EMAIL    create the user when missing, mint an API key, print it once
  signin-link [--email EMAIL]    print a one-time portal sign-in link for the running server (default: the
                                 WORKBENCH_ADMIN_EMAIL user; another user is created when missing)
  events tail [--from POS] [-f]  print the event log as JSON lines (-f: keep following)
  projections rebuild [NAME]     rebuild one read model, or all, from position zero
  audit replay [flags]           stream the log's audit records as JSON lines or CSV (-h for flags)
  audit asof TIME                every connection at TIME, folded from the log (also blast-radius, what-if, auditor)
  audit verify [--from --to]     check the hash chain and seals; name the first tampered position
  audit seal-head [--now]        print the latest signed seal of the chain head (JSON), for anchoring
  audit public-key               print the Ed25519 public key seals verify with
  keys rotate                    re-seal every data key under the current ENCRYPTION_KEY
  users erase --email EMAIL      erase a user (GDPR art. 17): pseudonymise the read models, shred their keys
  plugins check DIR              validate a plugin folder (or a PLUGINS_DIR) and print every problem
  doctor [--timeout 5s]          check the settings, database, migrations, key, bus and public URL; changes nothing
  backup --to PATH               SQLite: copy the database, while serving, into a new file (PostgreSQL: pg_dump)
  connectors check DIR           validate connector folders (a CONNECTORS_DIR) and print every problem
  version                        print the version (also --version)

Configuration comes from the environment; see docs/configuration.md.
`

// run dispatches a command line. It is main without the process: tests call it directly.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return cmdServe(ctx, args, getenv, stdout, stderr)
	case "migrate":
		return cmdMigrate(ctx, args, getenv, stdout, stderr)
	case "apikey":
		return cmdAPIKey(ctx, args, getenv, stdout, stderr)
	case "signin-link":
		return cmdSigninLink(ctx, args, getenv, stdout, stderr)
	case "events":
		return cmdEvents(ctx, args, getenv, stdout, stderr)
	case "projections":
		return cmdProjections(ctx, args, getenv, stdout, stderr)
	case "audit":
		return cmdAudit(ctx, args, getenv, stdout, stderr)
	case "keys":
		return cmdKeys(ctx, args, getenv, stdout, stderr)
	case "users":
		return cmdUsers(ctx, args, getenv, stdout, stderr)
	case "plugins":
		return cmdPlugins(ctx, args, getenv, stdout, stderr)
	case "doctor":
		return cmdDoctor(ctx, args, getenv, stdout, stderr)
	case "backup":
		return cmdBackup(ctx, args, getenv, stdout, stderr)
	case "connectors":
		return cmdConnectors(args, stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "workbench", binaryVersion())
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprintf(stderr, "workbench: unknown command %q\n\n%s", cmd, usage)
		return errUsage
	}
}

// version is set at link time: go build -ldflags "-X main.version=v1.2.3" (make build does).
var version string

// binaryVersion is the version this binary reports (MCP serverInfo.version, `workbench version`).
func binaryVersion() string {
	bi, _ := debug.ReadBuildInfo()
	return resolveVersion(version, bi)
}

// resolveVersion picks, in order: the link-time version; the main module's version from the build
// info (a tagged release, or the pseudo-version go build derives from the checkout); the VCS revision
// the binary was built from, shortened, with "-dirty" when the tree had changes; "dev".
func resolveVersion(linked string, bi *debug.BuildInfo) string {
	if linked != "" {
		return linked
	}
	if bi == nil {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}
