package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/signin"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/signindom"
	"github.com/workbench/workbench/eventstore"
)

// cmdAPIKey: `apikey create --email E [--name N] [--agent ID]` creates the user when missing, mints a
// key for the agent (default: the user's default agent) or rotates its live one, which stops working at
// once, and prints the new key once.
func cmdAPIKey(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "create" {
		fmt.Fprint(stderr, "usage: workbench apikey create --email EMAIL [--name DISPLAY_NAME] [--agent AGENT_ID]\n")
		return errUsage
	}
	fs := flag.NewFlagSet("apikey create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	email := fs.String("email", "", "the user's email address (the user is created when missing)")
	name := fs.String("name", "", "display name for a new user")
	agentFlag := fs.String("agent", "", "the id of the user's agent the key acts as (default: the user's default agent)")
	if err := fs.Parse(args[1:]); err != nil {
		return errUsage
	}
	var agent uuid.UUID
	if *agentFlag != "" {
		var err error
		if agent, err = uuid.Parse(*agentFlag); err != nil {
			fmt.Fprintf(stderr, "workbench apikey create: --agent %q is not an agent id\n", *agentFlag)
			return errUsage
		}
	}
	if *email == "" {
		fmt.Fprint(stderr, "workbench apikey create: --email is required\n")
		return errUsage
	}
	m, err := openMain(ctx, getenv, stderr, nil)
	if err != nil {
		return err
	}
	defer m.Close()
	md := eventstore.Metadata{Actor: "cli", Time: time.Now().UTC()}
	u, created, _, err := m.Accounts.EnsureUser(ctx, *email, *name, md)
	if err != nil {
		return fmt.Errorf("apikey create: %s", describe(err))
	}
	md.OnBehalfOf = u.ID.String()
	hadKey := m.Accounts.HasLiveKey(ctx, u.ID, agent)
	key, _, err := m.Accounts.MintOrRotateAgent(ctx, u.ID, agent, md)
	if err != nil {
		return fmt.Errorf("apikey create: %s", describe(err))
	}
	if created {
		fmt.Fprintf(stderr, "created user %s (%s)\n", u.Email, u.ID)
	}
	base, _ := linkBaseURL(getenv, m.Config.DataDir, m.Config.ServerPublicURL)
	fmt.Fprintf(stderr, "API key %s for %s: it is shown only now, so keep it. An MCP client sends it as\n"+
		"  Authorization: Bearer <key>\nto %s/mcp\n", key.Prefix, u.Email, base)
	if hadKey {
		fmt.Fprint(stderr, "It replaces the key this agent had: that one has stopped working.\n")
	}
	fmt.Fprintln(stdout, key.Secret)
	return nil
}

// describe gives the caller-safe message of an application error, or the error itself.
func describe(err error) string {
	if domain.ErrorCode(err) != domain.CodeInternal {
		return domain.ErrorMessage(err)
	}
	return err.Error()
}

// cmdProjections: `projections rebuild [NAME]` resets one read model (or all) and replays the log.
func cmdProjections(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "rebuild" || len(args) > 2 {
		fmt.Fprint(stderr, "usage: workbench projections rebuild [NAME]\n")
		return errUsage
	}
	name := ""
	if len(args) == 2 {
		name = args[1]
	}
	m, err := openMain(ctx, getenv, stderr, nil)
	if err != nil {
		return err
	}
	defer m.Close()
	known := false
	for _, n := range m.Runner.Names() {
		known = known || n == name
	}
	if name != "" && !known {
		return fmt.Errorf("projections rebuild: no projection %q (have: %v)", name, m.Runner.Names())
	}
	start := time.Now()
	if err := m.Runner.Rebuild(ctx, name); err != nil {
		return err
	}
	what := name
	if what == "" {
		what = "all projections"
	}
	fmt.Fprintf(stdout, "rebuilt %s in %s\n", what, time.Since(start).Round(time.Millisecond))
	return nil
}

// cmdKeys: `keys rotate` re-seals every data key under the current ENCRYPTION_KEY, with the previous
// keys given in ENCRYPTION_KEY_PREVIOUS, reporting progress on stderr.
func cmdKeys(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) != 1 || args[0] != "rotate" {
		fmt.Fprint(stderr, "usage: workbench keys rotate\n\nSet the new key as ENCRYPTION_KEY and the old one(s) in ENCRYPTION_KEY_PREVIOUS (comma-separated), run this, then drop ENCRYPTION_KEY_PREVIOUS.\n")
		return errUsage
	}
	m, err := openMain(ctx, getenv, stderr, func(m *Main) {
		m.OnRotateProgress = func(done, total int) { fmt.Fprintf(stderr, "keys rotate: %d/%d data keys re-sealed\n", done, total) }
	})
	if err != nil {
		return err
	}
	defer m.Close()
	start := time.Now()
	n, err := m.Vault.Rotate(ctx)
	if err != nil {
		return fmt.Errorf("keys rotate: %w", err)
	}
	usage, err := m.Vault.MasterKeyUsage(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "re-sealed %d data keys under master key %s in %s; data keys per master key now: %v\n",
		n, m.Vault.CurrentMasterID(), time.Since(start).Round(time.Millisecond), usage)
	return nil
}

// cmdSigninLink: `signin-link [--email E]` prints a one-time portal sign-in link for the user of E
// (created when missing; default WORKBENCH_ADMIN_EMAIL's user), the same kind of link `serve` prints
// when no SSO provider is configured. It is how an operator signs in again once the startup link has
// expired, or lets another person in without SSO: whoever opens the link first, within
// signin.LinkTTL, is signed in as that user; so hand it over privately. The link is built on the
// running server's public URL (linkBaseURL) unless this command's environment names one.
func cmdSigninLink(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("signin-link", flag.ContinueOnError)
	fs.SetOutput(stderr)
	email := fs.String("email", "", "the user's email address (the user is created when missing; default WORKBENCH_ADMIN_EMAIL's user)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() != 0 {
		fmt.Fprint(stderr, "usage: workbench signin-link [--email EMAIL]\n")
		return errUsage
	}
	m, err := openMain(ctx, getenv, stderr, nil)
	if err != nil {
		return err
	}
	defer m.Close()
	if *email == "" {
		*email = m.Config.SignIn.AdminEmail
	}
	base, from := linkBaseURL(getenv, m.Config.DataDir, m.Config.ServerPublicURL)
	svc, err := signin.New(signin.Config{
		Settings: signin.Settings{AdminEmail: *email}, Users: m.Accounts, Store: m.Store, Vault: m.Vault,
		// The CLI reads no read model: the server's own runner projects the new user from the log
		// before anyone can open the link, so there is nothing to wait for here.
		Projections: noWait{}, PublicURL: base, FlowKey: m.deriveKey("signin-flow"), Logger: m.Logger,
	})
	if err != nil {
		return err
	}
	link, err := svc.IssueLink(ctx, *email, "cli")
	if err != nil {
		return fmt.Errorf("signin-link: %s", describe(err))
	}
	fmt.Fprintf(stderr, "one-time sign-in link for %s on %s (%s): it works once, within %s; whoever opens it is signed in as this user\n",
		strings.ToLower(strings.TrimSpace(*email)), base, from, signindom.LinkTTL)
	fmt.Fprintln(stdout, link)
	return nil
}

// noWait is a projections waiter that does not wait (see cmdSigninLink).
type noWait struct{}

func (noWait) WaitFor(context.Context, eventstore.Position) error { return nil }
