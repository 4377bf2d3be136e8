package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/workbench/workbench/projections/auditrm"
)

const auditUsage = `usage: workbench audit replay [--from T] [--to T] [--user EMAIL] [--integration NAME] [--format jsonl|csv]

Streams the audit records of the event log itself (not a read model) to stdout, in log order:
tool executions, connects and connect attempts, refreshes, re-authorizations, disconnects, API key
mints, rotations and revocations, shredded subjects, curl sessions and their requests, sign-in links
issued and used, OAuth client registrations, grants and token-family revocations (with the OAuth
client's name beside its id). Stdout holds only records; progress goes to stderr.

  --from T         records at or after T: RFC 3339 (2025-01-31T13:45:00Z) or a date (2025-01-31, from its start, UTC)
  --to T           records before T: RFC 3339, or a date meaning through the end of that day (UTC)
  --user EMAIL     only this user's records
  --integration N  only records about this integration
  --format F       jsonl (default) or csv; CSV cells starting with = + - @ are prefixed with '
`

// auditProgressEvery is how often `audit replay` reports progress on stderr while it runs.
const auditProgressEvery = 2 * time.Second

// cmdAudit: `audit replay [flags]` writes the log's audit records to stdout (see auditUsage).
func cmdAudit(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) > 0 && (args[0] == "asof" || args[0] == "blast-radius" || args[0] == "what-if" || args[0] == "auditor") {
		return cmdAuditCompliance(ctx, args[0], args[1:], getenv, stdout, stderr)
	}
	if len(args) > 0 {
		if sub, ok := auditChainCommands[args[0]]; ok {
			return sub(ctx, args[1:], getenv, stdout, stderr)
		}
	}
	if len(args) == 0 || args[0] != "replay" {
		fmt.Fprint(stderr, auditUsage, "\n", auditComplianceUsage)
		return errUsage
	}
	filter, format, err := parseAuditFlags(args[1:], stderr)
	if err != nil {
		return err
	}
	m, err := openMain(ctx, getenv, stderr, nil)
	if err != nil {
		return err
	}
	defer m.Close()
	return replayAudit(ctx, m, filter, format, stdout, stderr, auditProgressEvery)
}

// parseAuditFlags reads the flags of `audit replay`. A bad flag is reported on stderr and returned
// as errUsage.
func parseAuditFlags(args []string, stderr io.Writer) (auditrm.Filter, string, error) {
	fs := flag.NewFlagSet("audit replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, auditUsage) }
	from := fs.String("from", "", "records at or after this time (RFC 3339 or YYYY-MM-DD)")
	to := fs.String("to", "", "records before this time (RFC 3339), or through this date (YYYY-MM-DD)")
	user := fs.String("user", "", "only the records of the user with this email")
	integration := fs.String("integration", "", "only the records about this integration")
	format := fs.String("format", auditrm.FormatJSONL, "jsonl or csv")
	if err := fs.Parse(args); err != nil {
		return auditrm.Filter{}, "", errUsage
	}
	bad := func(msg string) (auditrm.Filter, string, error) {
		fmt.Fprintf(stderr, "workbench audit replay: %s\n", msg)
		return auditrm.Filter{}, "", errUsage
	}
	if fs.NArg() > 0 {
		return bad(fmt.Sprintf("unexpected argument %q (flags only; see workbench audit replay -h)", fs.Arg(0)))
	}
	var f auditrm.Filter
	var err error
	if *from != "" {
		if f.From, err = auditrm.ParseFrom(*from); err != nil {
			return bad(describe(err))
		}
	}
	if *to != "" {
		if f.To, err = auditrm.ParseTo(*to); err != nil {
			return bad(describe(err))
		}
	}
	f.Email, f.Integration = *user, *integration
	if err := f.Validate(); err != nil {
		return bad(describe(err))
	}
	if *format != auditrm.FormatJSONL && *format != auditrm.FormatCSV {
		return bad(fmt.Sprintf("--format %q: want %s or %s", *format, auditrm.FormatJSONL, auditrm.FormatCSV))
	}
	return f, *format, nil
}

// replayAudit writes the records to stdout and reports progress on stderr every `every`, then a
// summary.
func replayAudit(ctx context.Context, m *Main, f auditrm.Filter, format string, stdout, stderr io.Writer, every time.Duration) error {
	w, err := auditrm.NewWriter(format, stdout)
	if err != nil {
		return err
	}
	var last time.Duration
	var final auditrm.Progress
	err = auditrm.ReplayWith(ctx, m.Store, m.Vault, f, w.Write, func(p auditrm.Progress) {
		final = p
		if p.Done || p.Elapsed-last < every {
			return
		}
		last = p.Elapsed
		fmt.Fprintf(stderr, "audit replay: %d events scanned, %d records written, %.0f events/s, at position %s\n",
			p.Scanned, p.Emitted, p.Rate(), p.Position)
	})
	if ferr := w.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("audit replay: write: %w", ferr)
	}
	if err != nil {
		return fmt.Errorf("audit replay: %s", describe(err))
	}
	fmt.Fprintf(stderr, "audit replay: done: %d events scanned, %d records written in %s (%.0f events/s), last position %s\n",
		final.Scanned, final.Emitted, final.Elapsed.Round(time.Millisecond), final.Rate(), final.Position)
	if !final.UserSeen {
		fmt.Fprintf(stderr, "audit replay: no user with the email %q appears in the log\n", f.Email)
	}
	return nil
}
