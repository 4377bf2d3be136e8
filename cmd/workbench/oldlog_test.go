package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// testdata/oldlog/8f853c8.db is a SQLite database written by the code of commit 8f853c8 (before the
// invitations that wait for an answer, the sealed sign-in and membership addresses, the hashed
// invitations and the schema digests), with ENCRYPTION_KEY oldLogKey: ada created Acme, invited bob
// (who had an account, so he became a member at once) and carol (no account: pending), bob ran
// execute_tools over MCP, and `signin-link` was printed for dora. The new code opens it, migrates it,
// rebuilds its read models to the same answers, accepts the old pending invitation, erases a user
// of the old log, and the audit chain still verifies.
const (
	oldLogKey = "a2tra2tra2tra2tra2tra2tra2tra2tra2tra2tra2s="
	oldLogOrg = "01a242ef-5a52-7364-a7e0-1dfc768089a2"
)

func TestLogOfThePreviousVersionOpens(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("testdata", "oldlog", "8f853c8.db"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "wb.db")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"DATABASE_URL": path, "ENCRYPTION_KEY": oldLogKey, "WORKBENCH_DATA_DIR": dir}
	if err := run(context.Background(), []string{"audit", "verify"}, envFunc(env), &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatalf("audit verify of the old log: %v", err)
	}
	_, m := serveInProcess(t, env)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	settle := func() {
		t.Helper()
		envs, err := m.Store.ReadAll(ctx, eventstore.Start, 1<<20)
		if err != nil || len(envs) == 0 {
			t.Fatalf("read the log: %d events, %v", len(envs), err)
		}
		if err := m.Runner.WaitFor(ctx, envs[len(envs)-1].Position); err != nil {
			t.Fatalf("read models never reached the log's end: %v", err)
		}
	}
	settle()
	org := uuid.MustParse(oldLogOrg)
	members, err := m.Organizations.Reader().Members(ctx, org)
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string]organization.Role{}
	for _, mb := range members {
		roles[mb.Email] = mb.Role
	}
	if len(roles) != 2 || roles["ada@example.com"] != organization.RoleOwner || roles["bob@example.com"] != organization.RoleMember {
		t.Fatalf("Acme's members from the old log: %+v, want ada the owner and bob a member", members)
	}

	// carol's old invitation is still pending, and she accepts it once she has an account.
	invs, err := m.Organizations.PendingInvitations(ctx, "carol@example.com")
	if err != nil || len(invs) != 1 || invs[0].OrganizationID != org || invs[0].Role != organization.RoleAdmin {
		t.Fatalf("carol's pending invitations: %+v, %v", invs, err)
	}
	md := eventstore.Metadata{Actor: "test"}
	carol, _, pos, err := m.Accounts.EnsureUser(ctx, "carol@example.com", "", md)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Runner.WaitFor(ctx, pos); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Organizations.AcceptInvitation(ctx, carol.ID, "carol@example.com", invs[0].ID, md); err != nil {
		t.Fatalf("carol accepts the old invitation: %v", err)
	}
	if ms, err := m.Organizations.Reader().Membership(ctx, org, carol.ID); err != nil || ms.Role != organization.RoleAdmin {
		t.Fatalf("carol in Acme: %+v, %v", ms, err)
	}

	// Erasing bob, a user of the old log, leaves the read models without his address, and the
	// boot backfill gives every user who is not erased a personal organisation.
	eraser, err := m.eraser(m.Runner)
	if err != nil {
		t.Fatal(err)
	}
	erased, err := eraser.EraseUser(ctx, "bob@example.com", md)
	if err != nil {
		t.Fatalf("erase bob: %v", err)
	}
	if err := m.Runner.WaitFor(ctx, erased.Position); err != nil {
		t.Fatal(err)
	}
	members, err = m.Organizations.Reader().Members(ctx, org)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(members, func(mb organizationsrm.Member) bool { return mb.Email == "bob@example.com" }) {
		t.Fatalf("Acme's members after bob's erasure still name him: %+v", members)
	}
	if _, err := m.Organizations.Backfill(ctx, md); err != nil {
		t.Fatalf("backfill over the old log with an erased user: %v", err)
	}
	settle()
	if ms, err := m.Organizations.Reader().Memberships(ctx, carol.ID); err != nil || !slices.ContainsFunc(ms, func(x organizationsrm.Membership) bool { return x.Organization.Personal }) {
		t.Fatalf("carol's memberships after the backfill: %+v, %v; want her personal organisation", ms, err)
	}
	if err := run(context.Background(), []string{"audit", "verify"}, envFunc(env), &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatalf("audit verify after the new code appended to the old log: %v", err)
	}
}
