package compliance_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/compliance"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testenv"
)

// TestAuditorRole: only an admin grants and revokes; only an auditor reads; every read is an
// identity.audit_read event in the log before AuthorizeRead returns.
func TestAuditorRole(t *testing.T) {
	ctx := context.Background()
	db := testenv.OpenSQLite(t)
	svc := &compliance.Service{Store: db.Store, Admins: []string{"root@example.com"}, QueryKey: []byte("0123456789abcdef")}
	admin := compliance.Principal{ID: uuid.New(), Email: "root@example.com"}
	eve := compliance.Principal{ID: uuid.New(), Email: "eve@example.com"}

	if _, err := svc.Grant(ctx, eve, eve.ID, eve.Email); domain.ErrorCode(err) != domain.CodeForbidden {
		t.Fatalf("a non-admin granted the role: %v", err)
	}
	if _, err := svc.AuthorizeRead(ctx, eve, "list", ""); domain.ErrorCode(err) != domain.CodeForbidden {
		t.Fatalf("a non-auditor read: %v", err)
	}
	if _, err := svc.Grant(ctx, admin, eve.ID, eve.Email); err != nil {
		t.Fatal(err)
	}
	if ok, err := svc.IsAuditor(ctx, eve.ID); err != nil || !ok {
		t.Fatalf("IsAuditor after grant = %v, %v", ok, err)
	}
	pos, err := svc.AuthorizeRead(ctx, eve, "list", "user=ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	envs, err := db.Store.ReadAll(ctx, eventstore.Start, 100)
	if err != nil {
		t.Fatal(err)
	}
	last := envs[len(envs)-1]
	if last.Type != identitydom.TypeAuditRead || last.Position != pos || last.Metadata.Actor != eve.ID.String() {
		t.Fatalf("last event = %s at %s by %s, want the read at %s", last.Type, last.Position, last.Metadata.Actor, pos)
	}
	// No address is recorded in clear: not the auditor's in the grant, not the one a read filtered on
	// (a keyed hash stands for it, the same for the same address).
	for _, env := range envs {
		if d := strings.ToLower(string(env.Data)); strings.Contains(d, "eve@example.com") || strings.Contains(d, "ada@example.com") {
			t.Errorf("%s holds an address: %s", env.Type, env.Data)
		}
	}
	if _, err := svc.AuthorizeRead(ctx, eve, "list", "user=Ada@Example.com&tool=x"); err != nil {
		t.Fatal(err)
	}
	again, err := db.Store.ReadAll(ctx, pos, 100)
	if err != nil || len(again) != 1 {
		t.Fatalf("the second read: %v %v", again, err)
	}
	hashed := regexp.MustCompile(`user=hmac-[0-9a-f]{16}`)
	if h1, h2 := hashed.FindString(string(last.Data)), hashed.FindString(string(again[0].Data)); h1 == "" || h1 != h2 {
		t.Fatalf("the reads recorded %s and %s: want the same keyed hash for the same address", last.Data, again[0].Data)
	}
	if _, err := svc.Revoke(ctx, eve, eve.ID); domain.ErrorCode(err) != domain.CodeForbidden {
		t.Fatalf("a non-admin revoked: %v", err)
	}
	if _, err := svc.Revoke(ctx, admin, eve.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AuthorizeRead(ctx, eve, "list", ""); domain.ErrorCode(err) != domain.CodeForbidden {
		t.Fatalf("a revoked auditor read: %v", err)
	}
}
