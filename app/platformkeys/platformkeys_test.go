package platformkeys_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/app/platformkeys"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/platformkey"
	"github.com/workbench/workbench/internal/vault"
)

var (
	admin    = platformkeys.Principal{ID: uuid.MustParse("aaaaaaaa-0000-4000-8000-000000000001"), Email: "admin@example.com"}
	nonAdmin = platformkeys.Principal{ID: uuid.MustParse("bbbbbbbb-0000-4000-8000-000000000002"), Email: "user@example.com"}
)

const secret = "BSA-secret-value-4242"

func open(t *testing.T) *connectorstest.Env {
	return connectorstest.Open(t, connectorstest.Options{FS: connectorstest.ManifestFS("https://mcp.example.test/mcp", nil), Admins: []string{"Admin@example.com", "admin@example.com"}})
}

// Set, replace and remove a key: each write is an event on the key's stream whose data holds the field
// names and a sealed blob, never the value; the previous values are shredded; the list shows names,
// fields, who and when; PlatformKey reads the values at call time.
func TestSetReplaceRemove(t *testing.T) {
	e := open(t)
	ctx := context.Background()
	v, err := e.Keys.Set(ctx, admin, "integration:brave-search", map[string]string{"api_key": secret})
	if err != nil {
		t.Fatal(err)
	}
	if !v.Set || v.SetBy != admin.Email || len(v.Fields) != 1 || v.Fields[0] != "api_key" {
		t.Fatalf("view = %+v", v)
	}
	got, ok, err := e.Keys.PlatformKey(ctx, "integration:brave-search")
	if err != nil || !ok || got["api_key"] != secret {
		t.Fatalf("PlatformKey = %v, %v, %v", got, ok, err)
	}
	evs := e.Events(t, platformkey.TypeSet)
	if len(evs) != 1 || strings.Contains(string(evs[0].Data), secret) {
		t.Fatalf("set events: %d, data %s", len(evs), evs[0].Data)
	}
	var first platformkey.Set
	if err := json.Unmarshal(evs[0].Data, &first); err != nil || first.Sealed.IsZero() {
		t.Fatalf("set event: %+v, %v", first, err)
	}
	list, err := e.Keys.List(ctx, admin)
	if err != nil || len(list) != 1 || list[0].Name != "integration:brave-search" {
		t.Fatalf("list = %+v, %v", list, err)
	}
	if b, _ := json.Marshal(list); strings.Contains(string(b), secret) {
		t.Fatalf("the list shows the value: %s", b)
	}
	// Replaced: the new value is read, the first one is shredded.
	if _, err := e.Keys.Set(ctx, admin, "integration:brave-search", map[string]string{"api_key": secret + "-2"}); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := e.Keys.PlatformKey(ctx, "integration:brave-search"); got["api_key"] != secret+"-2" {
		t.Fatalf("after replacing: %v", got)
	}
	if _, err := e.Vault.Open(ctx, first.Sealed, "platform-key"); !errors.Is(err, vault.ErrShredded) {
		t.Fatalf("the replaced value opens: %v", err)
	}
	// Removed: unset, and removing again is not found.
	if err := e.Keys.Remove(ctx, admin, "integration:brave-search"); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := e.Keys.PlatformKey(ctx, "integration:brave-search"); ok || err != nil {
		t.Fatalf("after removal: %v, %v", ok, err)
	}
	if err := e.Keys.Remove(ctx, admin, "integration:brave-search"); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("second removal: %v", err)
	}
	if n := len(e.Events(t, platformkey.TypeRemoved)); n != 1 {
		t.Fatalf("%d removals", n)
	}
}

func TestRefusals(t *testing.T) {
	e := open(t)
	ctx := context.Background()
	// Non-admins are refused everything.
	if _, err := e.Keys.List(ctx, nonAdmin); domain.ErrorCode(err) != domain.CodeForbidden {
		t.Errorf("list as non-admin: %v", err)
	}
	if _, err := e.Keys.Set(ctx, nonAdmin, "github_app", map[string]string{"app_id": "1"}); domain.ErrorCode(err) != domain.CodeForbidden {
		t.Errorf("set as non-admin: %v", err)
	}
	if err := e.Keys.Remove(ctx, nonAdmin, "github_app"); domain.ErrorCode(err) != domain.CodeForbidden {
		t.Errorf("remove as non-admin: %v", err)
	}
	for name, c := range map[string]struct {
		key    string
		fields map[string]string
		want   string
	}{
		"unknown form":        {"brave", map[string]string{"api_key": "x"}, "is not integration:<plugin slug>"},
		"no such plugin":      {"integration:nope", map[string]string{"api_key": "x"}, `no integration "nope"`},
		"no such connector":   {"connector:nope", map[string]string{"token": "x"}, `no connector "nope"`},
		"undeclared field":    {"integration:brave-search", map[string]string{"api_key": "x", "extra": "y"}, "fields.extra is not a field"},
		"missing field":       {"connector:remote", map[string]string{}, "fields.token is required"},
		"blank value":         {"connector:remote", map[string]string{"token": "  "}, "fields.token is blank"},
		"github app lacks id": {"github_app", map[string]string{"client_id": "a", "client_secret": "b", "private_key": "c"}, "fields.app_id is required"},
	} {
		_, err := e.Keys.Set(ctx, admin, c.key, c.fields)
		if domain.ErrorCode(err) != domain.CodeUnprocessable || !strings.Contains(domain.ErrorMessage(err), c.want) {
			t.Errorf("%s: %v, want 422 naming %q", name, err, c.want)
		}
	}
	if n := len(e.Events(t, platformkey.TypeSet)); n != 0 {
		t.Fatalf("a refused write appended %d events", n)
	}
}
