package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/workbench/workbench/app/compliance"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers/audithttp"
	"github.com/workbench/workbench/projections/auditrm"
)

const auditComplianceUsage = `usage:
  workbench audit asof TIME [--user EMAIL] [--integration NAME]
      every connection as it stood at TIME (RFC 3339, or a date meaning its last instant, UTC), folded
      from the log: state, credential generation, scopes, account hint, who made it and through which
      client. JSON on stdout.
  workbench audit blast-radius --api-key ID | --oauth-client ID | --session ID | --agent ID [--format json|html]
      everything that credential did from issue to revocation, with totals (--session: a curl session;
      --agent: everything done by the agent's API keys and OAuth grants, and every record naming it).
  workbench audit what-if --switch SCOPE:TOOL=off [--switch ...] [--days 30]
      replay the tool executions of the last DAYS days against the current tool switches with these
      laid over them, and list per agent the calls that would have been blocked. SCOPE is platform,
      org:ID, guild:ID or agent:ID; TOOL is the tool's name as agents call it (e.g. github_create_issue).
  workbench audit auditor grant|revoke --email EMAIL
      grant or revoke the auditor role (recorded as an event; the command line acts as an instance admin).

Every asof, blast-radius and what-if run is recorded in the log as an audit read by "cli".
`

// cmdAuditCompliance runs the compliance subcommands of `audit` (asof, blast-radius, what-if, auditor).
func cmdAuditCompliance(ctx context.Context, sub string, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("audit "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, auditComplianceUsage) }
	bad := func(msg string) error {
		fmt.Fprintf(stderr, "workbench audit %s: %s\n", sub, msg)
		return errUsage
	}
	var run func(m *Main) error
	switch sub {
	case "asof":
		if len(args) == 0 || strings.HasPrefix(args[0], "-") {
			return bad("the instant comes first: workbench audit asof 2025-03-01T12:00:00Z")
		}
		at, err := audithttp.ParseInstant(args[0])
		if err != nil {
			return bad(describe(err))
		}
		user := fs.String("user", "", "only this user's connections")
		integration := fs.String("integration", "", "only this integration's connections")
		if err := fs.Parse(args[1:]); err != nil {
			return errUsage
		}
		q := auditrm.AsOfQuery{At: at, Email: *user, Integration: *integration}
		if err := q.Validate(); err != nil {
			return bad(describe(err))
		}
		run = func(m *Main) error {
			if err := m.recordCLIRead(ctx, "asof", url.Values{"at": {args[0]}, "user": {*user}, "integration": {*integration}}); err != nil {
				return err
			}
			q.Opener = m.Vault
			res, err := auditrm.AsOf(ctx, m.Store, q)
			if err != nil {
				return err
			}
			return writeIndented(stdout, res)
		}
	case "blast-radius":
		key := fs.String("api-key", "", "an API key id")
		client := fs.String("oauth-client", "", "an OAuth client id")
		session := fs.String("session", "", "a curl session id")
		agent := fs.String("agent", "", "an agent id")
		format := fs.String("format", "json", "json or html")
		if err := fs.Parse(args); err != nil {
			return errUsage
		}
		var qs []auditrm.BlastQuery
		for _, c := range []struct{ v, kind string }{{*key, auditrm.CredentialAPIKey}, {*client, auditrm.CredentialOAuthClient},
			{*session, auditrm.CredentialCurlSession}, {*agent, auditrm.CredentialAgent}} {
			if c.v != "" {
				qs = append(qs, auditrm.BlastQuery{Kind: c.kind, ID: c.v})
			}
		}
		if len(qs) != 1 {
			return bad("name exactly one of --api-key, --oauth-client, --session, --agent")
		}
		if err := qs[0].Validate(); err != nil {
			return bad(describe(err))
		}
		if *format != "json" && *format != "html" {
			return bad(fmt.Sprintf("--format %q: want json or html", *format))
		}
		run = func(m *Main) error {
			if err := m.recordCLIRead(ctx, "blast_radius", url.Values{qs[0].Kind: {qs[0].ID}}); err != nil {
				return err
			}
			qs[0].Opener = m.Vault
			rep, err := auditrm.BlastRadius(ctx, m.Store, qs[0])
			if err != nil {
				return err
			}
			if *format == "html" {
				return audithttp.WriteBlastHTML(stdout, rep)
			}
			return writeIndented(stdout, rep)
		}
	case "what-if":
		var switches []string
		fs.Func("switch", "a proposed switch, SCOPE:TOOL=off (repeatable)", func(v string) error { switches = append(switches, v); return nil })
		days := fs.Int("days", auditrm.DefaultWhatIfDays, "how many days of executions to replay")
		if err := fs.Parse(args); err != nil {
			return errUsage
		}
		if fs.NArg() > 0 {
			return bad(fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
		}
		q := auditrm.WhatIfQuery{Days: *days}
		for _, sw := range switches {
			p, err := auditrm.ParseSwitch(sw)
			if err != nil {
				return bad(describe(err))
			}
			q.Switches = append(q.Switches, p)
		}
		if *days < 1 {
			return bad("--days must be at least 1")
		}
		if err := q.Validate(); err != nil {
			return bad(describe(err))
		}
		run = func(m *Main) error {
			if err := m.recordCLIRead(ctx, "what_if", url.Values{"switch": switches, "days": {fmt.Sprint(*days)}}); err != nil {
				return err
			}
			rep, err := m.whatIf(ctx, q)
			if err != nil {
				return err
			}
			return writeIndented(stdout, rep)
		}
	case "auditor":
		if len(args) == 0 || (args[0] != "grant" && args[0] != "revoke") {
			return bad("want grant or revoke: workbench audit auditor grant --email EMAIL")
		}
		verb := args[0]
		email := fs.String("email", "", "the user's email")
		if err := fs.Parse(args[1:]); err != nil {
			return errUsage
		}
		norm, err := identitydom.NormalizeEmail(*email)
		if err != nil {
			return bad("--email: " + describe(err))
		}
		run = func(m *Main) error {
			u, _, _, err := m.Accounts.EnsureUser(ctx, norm, "", eventstore.Metadata{Actor: "cli"})
			if err != nil {
				return err
			}
			cli := compliance.Principal{CLI: true}
			if verb == "grant" {
				_, err = m.Compliance.Grant(ctx, cli, u.ID, u.Email)
			} else {
				_, err = m.Compliance.Revoke(ctx, cli, u.ID)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "auditor role %sed for %s\n", strings.TrimSuffix(verb, "e"), u.Email)
			return nil
		}
	default:
		fmt.Fprint(stderr, auditComplianceUsage)
		return errUsage
	}
	if fs.NArg() > 0 {
		return bad(fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	m, err := openMain(ctx, getenv, stderr, nil)
	if err != nil {
		return err
	}
	defer m.Close()
	if err := run(m); err != nil {
		return fmt.Errorf("audit %s: %s", sub, describe(err))
	}
	return nil
}

// recordCLIRead records a compliance read made from the command line before it is made.
func (m *Main) recordCLIRead(ctx context.Context, view string, q url.Values) error {
	for k, v := range q {
		if len(v) == 0 || v[0] == "" {
			delete(q, k)
		}
	}
	_, err := m.Compliance.AuthorizeRead(ctx, compliance.Principal{CLI: true}, view, q.Encode())
	return err
}

func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
