package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/workbench/workbench/app/compliance/auditchain"
	"github.com/workbench/workbench/eventstore/sqlite"
)

// TestAuditChainCommands: seal-head --now seals the log, verify passes with the derived key and with
// the printed public key, fails with another key, and names the position of an event edited in the
// database behind Workbench's back.
func TestAuditChainCommands(t *testing.T) {
	t.Parallel()
	env, m := auditEnv(t, 0)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	runCmd := func(args ...string) (string, string, error) {
		var out, errOut bytes.Buffer
		err := run(ctx, args, envFunc(env), &out, &errOut)
		return out.String(), errOut.String(), err
	}

	out, errOut, err := runCmd("audit", "seal-head", "--now")
	if err != nil {
		t.Fatalf("seal-head: %v\n%s", err, errOut)
	}
	var seal auditchain.Seal
	if err := json.Unmarshal([]byte(out), &seal); err != nil || seal.Seq < 20 {
		t.Fatalf("seal-head printed %q: %v", out, err)
	}
	out, errOut, err = runCmd("audit", "public-key")
	if err != nil {
		t.Fatalf("public-key: %v\n%s", err, errOut)
	}
	pubHex := strings.TrimSpace(out)
	pub, err := hex.DecodeString(pubHex)
	if err != nil || !seal.Verify(ed25519.PublicKey(pub)) {
		t.Fatalf("the printed public key %q does not verify the printed seal", pubHex)
	}

	for _, args := range [][]string{{"audit", "verify"}, {"audit", "verify", "--public-key", pubHex}} {
		out, errOut, err = runCmd(args...)
		if err != nil || !strings.Contains(out, "\nOK\n") || !strings.Contains(out, "not yet sealed: 0 chained after the last seal, 0 not yet chained") {
			t.Fatalf("%v: %v\n%s\n%s", args, err, out, errOut)
		}
	}
	other, _, _ := ed25519.GenerateKey(nil)
	out, _, err = runCmd("audit", "verify", "--public-key", hex.EncodeToString(other))
	if err == nil || !strings.Contains(out, "FAILED: bad-seal") {
		t.Fatalf("verify with another key: %v\n%s", err, out)
	}
	if _, _, err := runCmd("audit", "verify", "--from", "nope"); err != errUsage {
		t.Fatalf("bad --from: %v", err)
	}

	// An attacker with the database file edits event 7.
	db, err := sqlite.OpenDB(ctx, env["DATABASE_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tamper(t, db, `DROP TRIGGER events_append_only_update`, `UPDATE events SET data = '{}' WHERE position = 7`)
	out, _, err = runCmd("audit", "verify")
	if err == nil || !strings.Contains(out, "FAILED: edited at position 7/7 (event #7)") {
		t.Fatalf("verify after an edit: %v\n%s", err, out)
	}
	// A range before the edit still verifies.
	out, _, err = runCmd("audit", "verify", "--to", "6")
	if err != nil || !strings.Contains(out, "events checked: 6 ") {
		t.Fatalf("verify --to 6: %v\n%s", err, out)
	}
}

func tamper(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}
