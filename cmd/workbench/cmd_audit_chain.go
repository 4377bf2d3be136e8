package main

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/workbench/workbench/app/compliance"
	"github.com/workbench/workbench/app/compliance/auditchain"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/bus"
	"github.com/workbench/workbench/internal/config"
)

// auditChainCommands are the `workbench audit` subcommands of the tamper-evident chain.
var auditChainCommands = map[string]func(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error{
	"verify":     cmdAuditVerify,
	"seal-head":  cmdAuditSealHead,
	"public-key": cmdAuditPublicKey,
}

const auditVerifyUsage = `usage: workbench audit verify [--from POS] [--to POS] [--public-key HEX] [--json]

Recomputes the hash chain from the events table, checks every stored chain hash and every seal's
Ed25519 signature, and names the first position where an event was edited, deleted, inserted,
reordered, or where the log ends before the last seal (truncated). Exits 1 when anything fails.
Events the sealer has not reached yet, and those after the last seal, are counted and reported: they
are not covered by a signature yet.

  --from POS        first position to check (COMMIT/PREPARE, or a number on SQLite); default: the start
  --to POS          last position to check; default: the end of the log
  --public-key HEX  trust this public key (as printed by 'audit public-key') instead of the one derived
                    from the sealing key in the vault
  --json            print the report as JSON
`

func (m *Main) chain() *compliance.Chain {
	c := &compliance.Chain{DB: m.DB, Store: m.Store, Vault: m.Vault}
	if m.writeGate != nil {
		c.Gate = m.writeGate
	}
	return c
}

func cmdAuditVerify(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("audit verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, auditVerifyUsage) }
	from := fs.String("from", "", "first position")
	to := fs.String("to", "", "last position")
	pubHex := fs.String("public-key", "", "public key to trust (hex)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	bad := func(msg string) error {
		fmt.Fprintf(stderr, "workbench audit verify: %s\n", msg)
		return errUsage
	}
	if fs.NArg() > 0 {
		return bad(fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	var r auditchain.Range
	var err error
	if *from != "" {
		if r.From, err = eventstore.ParsePosition(*from); err != nil {
			return bad("--from: " + err.Error())
		}
	}
	if *to != "" {
		if r.To, err = eventstore.ParsePosition(*to); err != nil {
			return bad("--to: " + err.Error())
		}
	}
	if !r.From.IsZero() && !r.To.IsZero() && r.To.Less(r.From) {
		return bad("--to is before --from")
	}
	var pub ed25519.PublicKey
	if *pubHex != "" {
		b, err := hex.DecodeString(*pubHex)
		if err != nil || len(b) != ed25519.PublicKeySize {
			return bad(fmt.Sprintf("--public-key: want %d bytes of hex", ed25519.PublicKeySize))
		}
		pub = b
	}
	m, err := openMain(ctx, getenv, stderr, nil)
	if err != nil {
		return err
	}
	defer m.Close()
	start := time.Now()
	last := start
	rep, err := m.chain().Verify(ctx, r, pub, &auditchain.VerifyOptions{Progress: func(p auditchain.Report) {
		if time.Since(last) >= auditProgressEvery {
			last = time.Now()
			fmt.Fprintf(stderr, "audit verify: %d events checked, at position %s\n", p.Events, p.Last)
		}
	}})
	if err != nil {
		return fmt.Errorf("audit verify: %w", err)
	}
	elapsed := time.Since(start)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "events checked: %d (positions %s to %s)\nseals checked: %d\n", rep.Events, rep.First, rep.Last, rep.Seals)
		if rep.LastSeal != nil {
			fmt.Fprintf(stdout, "last seal: #%d at position %s, %s, key %s\n", rep.LastSeal.Seq, rep.LastSeal.Position, rep.LastSeal.SealedAt.Format(time.RFC3339), rep.LastSeal.KeyID)
		}
		fmt.Fprintf(stdout, "not yet sealed: %d chained after the last seal, %d not yet chained\n", rep.Unsealed, rep.Unchained)
	}
	fmt.Fprintf(stderr, "audit verify: %d events in %s (%.0f events/s)\n", rep.Events, elapsed.Round(time.Millisecond), float64(rep.Events)/elapsed.Seconds())
	if rep.Events == 0 && rep.Unchained > 0 {
		fmt.Fprintf(stderr, "audit verify: nothing is chained yet: the server chains and seals the log as it runs (or run 'workbench audit seal-head --now')\n")
	}
	if rep.Problem != nil {
		if !*asJSON {
			fmt.Fprintf(stdout, "FAILED: %s\n", rep.Problem)
		}
		return fmt.Errorf("audit verify: %s", rep.Problem)
	}
	if !*asJSON {
		fmt.Fprintln(stdout, "OK")
	}
	return nil
}

const auditSealHeadUsage = `usage: workbench audit seal-head [--now]

Prints the latest seal of the audit chain as one JSON line (seq, position, head hash, time, key id,
signature), for anchoring outside the system. --now first chains everything the log holds and seals
the head at once.
`

func cmdAuditSealHead(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("audit seal-head", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, auditSealHeadUsage) }
	now := fs.Bool("now", false, "seal the head first")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprint(stderr, auditSealHeadUsage)
		return errUsage
	}
	m, err := openMain(ctx, getenv, stderr, nil)
	if err != nil {
		return err
	}
	defer m.Close()
	seal, ok, err := m.chain().SealHead(ctx, *now)
	if err != nil {
		return fmt.Errorf("audit seal-head: %w", err)
	}
	if !ok {
		return errors.New("audit seal-head: nothing is sealed yet (the server seals as it runs; --now seals at once)")
	}
	return json.NewEncoder(stdout).Encode(seal)
}

func cmdAuditPublicKey(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		fmt.Fprint(stderr, "usage: workbench audit public-key\n\nPrints the Ed25519 public key seals verify with, as hex (created with the sealing key on first use).\n")
		return errUsage
	}
	m, err := openMain(ctx, getenv, stderr, nil)
	if err != nil {
		return err
	}
	defer m.Close()
	pub, err := m.chain().PublicKey(ctx)
	if err != nil {
		return fmt.Errorf("audit public-key: %w", err)
	}
	fmt.Fprintf(stdout, "%s\n", hex.EncodeToString(pub))
	fmt.Fprintf(stderr, "key id %s\n", auditchain.KeyID(pub))
	return nil
}

// startAuditSealer runs the audit chain's sealer in the background (app/compliance/auditchain): it creates
// the sealing key on first use, then follows the log. With several replicas on PostgreSQL one sealer
// runs at a time, under an advisory lock.
func (m *Main) startAuditSealer(ctx context.Context, goRun func(name string, f func(context.Context) error)) error {
	opts := &auditchain.SealerOptions{Logger: m.Logger}
	if m.Config.Database == config.Postgres {
		opts.Lock = bus.NewAdvisoryLock(m.Config.DatabaseURL, bus.AdvisoryLockKey("workbench-audit-sealer"), 5*time.Second, m.Logger)
	}
	sealer, err := m.chain().Sealer(ctx, opts)
	if err != nil {
		return fmt.Errorf("audit sealer: %w", err)
	}
	goRun("audit sealer", sealer.Run)
	return nil
}
