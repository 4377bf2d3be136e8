package main

// Backup and restore, as deploy/README.md tells an operator to do them: copy the database while the
// server serves (SQLite: `workbench backup`, VACUUM INTO; PostgreSQL: pg_dump into a fresh database
// with pg_restore), rebuild the read models from the restored log, serve it, and get the same answers:
// the same log, the same users and keys, the same connection (its sealed token opens with the same
// key and reaches the provider), the same audit trail.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/projections/auditrm"
)

func TestBackupRestoreSQLite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "wb.db")
	runBackupRestore(t, src, func(env map[string]string) string {
		restoredDir := t.TempDir()
		restored := filepath.Join(restoredDir, "wb.db")
		var out, errOut bytes.Buffer
		if err := run(context.Background(), []string{"backup", "--to", restored}, envFunc(env), &out, &errOut); err != nil {
			t.Fatalf("workbench backup: %v\n%s", err, errOut.String())
		}
		if !strings.Contains(out.String(), "backed up") {
			t.Fatalf("workbench backup printed %q", out.String())
		}
		// A second backup onto the same file is refused rather than overwriting it.
		if err := run(context.Background(), []string{"backup", "--to", restored}, envFunc(env), &out, &errOut); err == nil {
			t.Fatal("backup overwrote an existing file")
		}
		// The generated key is backed up beside the database, as the README says.
		key, err := os.ReadFile(filepath.Join(dir, "encryption.key"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(restoredDir, "encryption.key"), key, 0o600); err != nil {
			t.Fatal(err)
		}
		return restored
	})
}

func TestBackupRestorePostgres(t *testing.T) {
	t.Parallel()
	src := testenv.PostgresURL(t)
	pgDump, pgRestore := pgTool(t, "pg_dump"), pgTool(t, "pg_restore")
	runBackupRestore(t, src, func(map[string]string) string {
		dump := filepath.Join(t.TempDir(), "workbench.dump")
		if out, err := exec.Command(pgDump, "--format=custom", "--no-owner", "--file", dump, "--dbname", src).CombinedOutput(); err != nil {
			t.Fatalf("pg_dump: %v\n%s", err, out)
		}
		restored := testenv.PostgresURL(t)
		if out, err := exec.Command(pgRestore, "--no-owner", "--exit-on-error", "--dbname", restored, dump).CombinedOutput(); err != nil {
			t.Fatalf("pg_restore: %v\n%s", err, out)
		}
		return restored
	})
}

// pgTool finds a PostgreSQL client program on PATH or in the Debian layout.
func pgTool(t *testing.T, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name)
	if len(matches) > 0 {
		return matches[len(matches)-1]
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not installed", name)
	}
	t.Skipf("%s is not installed", name)
	return ""
}

// runBackupRestore fills a served database, has backup copy it (while serving) into a new one whose
// URL it returns, rebuilds the projections there, serves it, and compares the answers.
func runBackupRestore(t *testing.T, srcURL string, backup func(env map[string]string) string) {
	e := newMCPEnv(t, srcURL)
	ada, _ := e.connectSDK(t, e.ada.Key)
	defer ada.Close()
	bob, _ := e.connectSDK(t, e.bob.Key)
	defer bob.Close()
	for i := range 3 {
		execute(t, ada, ex("utils_echo", map[string]any{"message": fmt.Sprint("before the backup ", i)}))
	}
	execute(t, bob, ex("utils_echo", map[string]any{"message": "bob"}))
	id, link := connectStart(t, ada)
	waited := make(chan string, 1)
	go func() { waited <- waitForConnection(ada, id, 30*time.Second) }()
	connectBrowse(t, portalBrowser(t, e.srv.M, e.ada.ID), e.srv.Base, "", link)
	if got := <-waited; got != `{"status":"CONNECTED"}` {
		t.Fatalf("wait_for_connection = %s", got)
	}
	// The provider call is made before the copy, never after: a refresh on the source after the copy
	// would rotate the refresh token the copy holds (the provider forgets the old one), which is what
	// restoring an old backup means for a connection, and not what this test is about.
	profile := string(execute(t, ada, ex("acme_profile", nil)).Results[0]["result"])
	restoredURL := backup(e.srv.Env)
	// Nothing writes between the copy and this read: the source's state as copied.
	sourceLog, before := stateAnswers(t, e.srv, e.ada, e.bob)
	mcpAnswers(t, e, before, false, e.ada, e.bob)
	before["acme_profile"] = profile

	env := map[string]string{}
	for k, v := range e.srv.Env {
		env[k] = v
	}
	env["DATABASE_URL"] = restoredURL
	delete(env, "SERVER_PUBLIC_URL")
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"projections", "rebuild"}, envFunc(env), &out, &errOut); err != nil {
		t.Fatalf("projections rebuild on the restored database: %v\n%s", err, errOut.String())
	}
	delete(env, "DATABASE_URL")
	restored := startE2E(t, restoredURL, env, slog.LevelInfo)
	restoredLog, after := stateAnswers(t, restored, e.ada, e.bob)
	mcpAnswers(t, &mcpEnv{srv: restored, endpoint: restored.Base + "/mcp"}, after, true, e.ada, e.bob)
	// The restored log is the copied one, plus the sign-in link the restored server issued at its start
	// and, for users made while the source served (after its boot backfill), their personal
	// organisations, which a server gives existing users at its start (app/organizations, RunBackfill).
	personal := map[string]bool{}
	for _, u := range []e2eUser{e.ada, e.bob} {
		personal[organization.StreamName(organization.PersonalOrganizationID(u.ID))] = true
	}
	if len(restoredLog) < len(sourceLog) || !slices.Equal(restoredLog[:len(sourceLog)], sourceLog) {
		t.Fatalf("the restored log is not the copied one:\n%s\n---\n%s", strings.Join(sourceLog, "\n"), strings.Join(restoredLog, "\n"))
	}
	for _, extra := range restoredLog[len(sourceLog):] {
		typ, stream, _ := strings.Cut(extra, " ")
		if strings.HasPrefix(typ, "organization.") && personal[stream] {
			continue
		}
		if typ != "signin_link.issued" {
			t.Errorf("the restored server appended %s before any request", extra)
		}
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Fatalf("the restored deployment answers differently (-before +after):\n%s", diff)
	}
}

// stateAnswers reads a deployment's log (type and stream of every event, in order) and, once its read
// models have caught up with it, each user's audit trail, writing nothing.
func stateAnswers(t *testing.T, s *e2eServer, users ...e2eUser) ([]string, map[string]string) {
	t.Helper()
	ctx := context.Background()
	answers := map[string]string{}
	var log []string
	var last eventstore.Position
	from := eventstore.Start
	for {
		page, err := s.M.Store.ReadAll(ctx, from, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range page {
			log = append(log, ev.Type+" "+ev.Stream)
			last = ev.Position
		}
		if len(page) < 1000 {
			break
		}
		from = page[len(page)-1].Position
	}
	s.waitFor(t, last)
	for _, u := range users {
		recs, err := auditrm.Reader{DB: s.M.DB}.ForUser(ctx, u.ID, eventstore.Position{}, 1000)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(recs)
		answers["audit "+u.Email] = string(b)
	}
	return log, answers
}

// mcpAnswers adds what the deployment answers through MCP: who each key is, the user's integrations,
// and, with callProvider, ada's connected acme profile (its token opened from the vault and sent to the
// provider).
func mcpAnswers(t *testing.T, e *mcpEnv, answers map[string]string, callProvider bool, users ...e2eUser) {
	t.Helper()
	for _, u := range users {
		cs, _ := e.connectSDK(t, u.Key)
		answers["whoami "+u.Email] = callText(t, cs, "whoami", nil)
		answers["list_integrations "+u.Email] = callText(t, cs, "list_integrations", nil)
		if callProvider && u.Email == "ada@example.com" {
			res := execute(t, cs, ex("acme_profile", nil))
			answers["acme_profile"] = string(res.Results[0]["result"])
		}
		cs.Close()
	}
}
