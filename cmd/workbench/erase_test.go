package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/workbench/workbench/app/compliance"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/portalsession"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/internal/config"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/internal/vault"
	"github.com/workbench/workbench/projections/auditrm/audittest"
	"github.com/workbench/workbench/projections/identityrm"
)

// TestEraseUserEndToEnd: Bob is created, connects newrelic with a sealed credential, mints an API key
// and runs tools (audittest.Build, through the same deciders the server uses); the log is sealed; Bob is
// erased with `workbench users erase`; the read models are rebuilt from the log. Afterwards no read model
// holds his email or account label, his credential and API key no longer open, his key no longer
// authenticates, his audit records keep their number, kinds, times and tools, and the chain verifies.
func TestEraseUserEndToEnd(t *testing.T) {
	t.Parallel()
	env, m := auditEnv(t, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := m.Runner.Rebuild(ctx, ""); err != nil {
		t.Fatal(err)
	}
	before := bobRecords(t, m.DB)
	if len(before) == 0 {
		t.Fatal("Bob has no audit records to begin with")
	}
	var sealedCred string
	if err := m.DB.QueryRow(`SELECT credential FROM connections WHERE user_id = $1 AND integration = 'newrelic'`, audittest.Bob.String()).Scan(&sealedCred); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	runCmd := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if err := run(ctx, args, envFunc(env), &out, &errOut); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut.String())
		}
		return out.String()
	}
	runCmd("audit", "seal-head", "--now")

	var erased compliance.Erasure
	if err := json.Unmarshal([]byte(runCmd("users", "erase", "--email", "Bob@Example.com")), &erased); err != nil {
		t.Fatal(err)
	}
	if erased.UserID != audittest.Bob || !strings.HasPrefix(erased.Pseudonym, "erased-") || erased.AlreadyErased {
		t.Fatalf("erasure: %+v", erased)
	}
	runCmd("projections", "rebuild")

	db, err := sqlite.OpenDB(ctx, env["DATABASE_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// No read model holds the address any more. (audittest writes its users the way older versions did,
	// with the address in clear in identity.user_created, so the event log itself still has it: only
	// users created since addresses are sealed leave nothing in the log; see TestEraseUserAdminAPI.)
	for _, needle := range []string{"bob@example.com"} {
		if where := findText(t, db, needle, "events", "audit_chain", "audit_seals", "audit_seal_keys", "schema_migrations"); where != "" {
			t.Errorf("%q is still in %s after erasure and rebuild", needle, where)
		}
	}
	if email, name, erasedAt := userRow(t, db, audittest.Bob); email != erased.Pseudonym || name != "" || !erasedAt {
		t.Fatalf("Bob's row after erasure: %q %q erased %v", email, name, erasedAt)
	}
	// The readers that authenticate no longer find him.
	if _, err := (identityrm.Reader{DB: db}).UserByID(ctx, audittest.Bob); !errors.Is(err, identityrm.ErrNotFound) {
		t.Fatalf("lookup of the erased user by id: %v", err)
	}
	if _, err := (identityrm.Reader{DB: db}).UserByEmail(ctx, "bob@example.com"); !errors.Is(err, identityrm.ErrNotFound) {
		t.Fatalf("lookup by the erased email: %v", err)
	}
	// His key no longer authenticates, and its sealed copy is gone.
	var live, sealedKeys int
	if err := db.QueryRow(`SELECT COUNT(*) FILTER (WHERE revoked_at IS NULL), COUNT(sealed) FROM api_keys WHERE user_id = $1`, audittest.Bob.String()).Scan(&live, &sealedKeys); err != nil {
		t.Fatal(err)
	}
	if live != 0 || sealedKeys != 0 {
		t.Fatalf("Bob still has %d live keys and %d sealed copies", live, sealedKeys)
	}
	// The audit trail keeps its shape: same records, kinds, times and tools, under the pseudonym.
	// One more record: the erasure's shred of his key.
	after := bobRecords(t, db)
	if len(after) != len(before)+1 || after[len(before)]["kind"] != "subject_shredded" {
		t.Fatalf("Bob had %d audit records, now %d: %v", len(before), len(after), after[len(after)-1])
	}
	for i := range before {
		b, a := before[i], after[i]
		if a["email"] != erased.Pseudonym || a["kind"] != b["kind"] || a["time"] != b["time"] || a["tool"] != b["tool"] || a["outcome"] != b["outcome"] {
			t.Errorf("record %d: before %v, after %v", i, b, a)
		}
	}
	// His credential, in the log and the read model, no longer opens.
	cfg, err := config.FromEnv(envFunc(env))
	if err != nil {
		t.Fatal(err)
	}
	m2 := NewMain(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer m2.Close()
	if err := m2.Open(ctx); err != nil {
		t.Fatal(err)
	}
	var cred domain.Sealed
	if err := json.Unmarshal([]byte(sealedCred), &cred); err != nil {
		t.Fatal(err)
	}
	if _, err := m2.Vault.Open(ctx, cred, "connection:newrelic:credential"); !errors.Is(err, vault.ErrShredded) {
		t.Fatalf("Bob's credential after erasure: %v", err)
	}
	// Nobody signs in as the erased user again.
	if _, _, _, err := m2.Accounts.EnsureUser(ctx, "bob@example.com", "", mdCLI()); domain.ErrorCode(err) != domain.CodeForbidden {
		t.Fatalf("sign-in of the erased address: %v", err)
	}
	m2.Close()
	// The log was not rewritten: the chain verifies, the erasure included.
	runCmd("audit", "seal-head", "--now")
	if out := runCmd("audit", "verify"); !strings.Contains(out, "\nOK\n") {
		t.Fatalf("verify after erasure:\n%s", out)
	}
	// Erasing again appends nothing and succeeds.
	if err := json.Unmarshal([]byte(runCmd("users", "erase", "--email", "bob@example.com")), &erased); err != nil || !erased.AlreadyErased {
		t.Fatalf("second erasure: %+v %v", erased, err)
	}
}

// bobRecords returns Bob's audit records from the read model, in log order, as JSON objects.
func bobRecords(t *testing.T, db *sql.DB) []map[string]any {
	t.Helper()
	rows, err := db.Query(`SELECT record FROM audit_records WHERE user_id = $1 ORDER BY commit_pos, prepare_pos`, audittest.Bob.String())
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []map[string]any
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			t.Fatal(err)
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(raw), &rec); err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}

// findText returns "table.column" of the first text cell of db that contains needle, skipping the tables
// named; "" when none does. On PostgreSQL every column is read as text (bytea decoded as UTF-8 where it
// is, as the event data is).
func findText(t *testing.T, db *sql.DB, needle string, skip ...string) string {
	t.Helper()
	if isPostgres(db) {
		return findTextPostgres(t, db, needle, skip...)
	}
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	rows.Close()
next:
	for _, table := range tables {
		for _, s := range skip {
			if s == table {
				continue next
			}
		}
		r, err := db.Query(fmt.Sprintf(`SELECT * FROM %q`, table))
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := r.Columns()
		for r.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := r.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				var s string
				switch v := v.(type) {
				case string:
					s = v
				case []byte:
					s = string(v)
				}
				if strings.Contains(strings.ToLower(s), needle) {
					r.Close()
					return table + "." + cols[i]
				}
			}
		}
		r.Close()
	}
	return ""
}

// TestEraseUserAdminAPI: POST /api/admin/users/erase over real HTTP, with API keys: only the instance
// admin (WORKBENCH_ADMIN_EMAIL) may erase; the answer comes once the read models show the pseudonym,
// and the erased user's key stops authenticating.
func TestEraseUserAdminAPI(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) { testEraseUserAdminAPI(t, t.TempDir()+"/wb.db") })
	t.Run("postgres", func(t *testing.T) { testEraseUserAdminAPI(t, testenv.PostgresURL(t)) })
}

func testEraseUserAdminAPI(t *testing.T, databaseURL string) {
	s := startE2E(t, databaseURL, map[string]string{"WORKBENCH_ADMIN_EMAIL": "root@example.com"}, slog.LevelWarn)
	admin := s.user(t, "root@example.com")
	carol := s.user(t, "carol@example.com")
	post := func(key, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, s.Base+"/api/admin/users/erase", strings.NewReader(body))
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	cases := []struct {
		key, body string
		status    int
	}{
		{"", `{"email":"carol@example.com"}`, http.StatusUnauthorized},
		{"wb_" + strings.Repeat("x", 43), `{"email":"carol@example.com"}`, http.StatusUnauthorized},
		{carol.Key, `{"email":"carol@example.com"}`, http.StatusForbidden},
		{admin.Key, `not json`, http.StatusBadRequest},
		{admin.Key, `{"email":"carol"}`, http.StatusBadRequest},
		{admin.Key, `{"email":"nobody@example.com"}`, http.StatusNotFound},
	}
	for _, c := range cases {
		if status, body := post(c.key, c.body); status != c.status {
			t.Errorf("%q with key %.6s: %d %s, want %d", c.body, c.key, status, body, c.status)
		}
	}
	status, body := post(admin.Key, `{"email":"Carol@Example.com"}`)
	if status != http.StatusOK {
		t.Fatalf("erase: %d %s", status, body)
	}
	var res compliance.Erasure
	if err := json.Unmarshal([]byte(body), &res); err != nil || res.UserID != carol.ID {
		t.Fatalf("erase answered %s: %v", body, err)
	}
	if email, _, erasedAt := userRow(t, s.M.DB, carol.ID); email != res.Pseudonym || !erasedAt {
		t.Fatalf("carol right after the answer: %q erased %v", email, erasedAt)
	}
	// Her portal sessions were ended too, by a browser still signed in as her.
	if ended := s.events(t, portalsession.TypeAllSessionsEnded); len(ended) != 1 || ended[0].Stream != portalsession.StreamName(carol.ID) {
		t.Fatalf("portal sessions ended: %+v", ended)
	}
	if status, _ := post(carol.Key, `{"email":"carol@example.com"}`); status != http.StatusUnauthorized {
		t.Fatalf("the erased user's key answered %d, want 401", status)
	}
	if _, err := s.M.Vault.Seal(context.Background(), carol.ID.String(), "x", []byte("y")); !errors.Is(err, vault.ErrShredded) {
		t.Fatalf("sealing for the erased user: %v", err)
	}
	// Users created through the server have their address sealed in the log: after erasure it is in no
	// table at all, the event log included, and rebuilding the read models does not bring it back.
	if err := s.M.Runner.Rebuild(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	if where := findText(t, s.M.DB, "carol@example.com"); where != "" {
		t.Fatalf("carol's address is still in %s", where)
	}
	// (The search does find an address that is there: the admin's, in the read models.)
	if where := findText(t, s.M.DB, "root@example.com", "events"); where == "" {
		t.Fatal("the search does not find the admin's address")
	}
	if email, _, erasedAt := userRow(t, s.M.DB, carol.ID); email != res.Pseudonym || !erasedAt {
		t.Fatalf("carol after a rebuild: %q erased %v", email, erasedAt)
	}
	if root, err := (identityrm.Reader{DB: s.M.DB}).UserByID(context.Background(), admin.ID); err != nil || root.Email != "root@example.com" {
		t.Fatalf("the admin after a rebuild: %+v %v", root, err)
	}
}

func mdCLI() eventstore.Metadata { return eventstore.Metadata{Actor: "cli", Time: time.Now().UTC()} }

func isPostgres(db *sql.DB) bool {
	var v string
	return db.QueryRow(`SELECT version()`).Scan(&v) == nil && strings.HasPrefix(v, "PostgreSQL")
}

func findTextPostgres(t *testing.T, db *sql.DB, needle string, skip ...string) string {
	t.Helper()
	rows, err := db.Query(`SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public'`)
	if err != nil {
		t.Fatal(err)
	}
	type col struct{ table, name, typ string }
	var cols []col
	for rows.Next() {
		var c col
		if err := rows.Scan(&c.table, &c.name, &c.typ); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c)
	}
	rows.Close()
next:
	for _, c := range cols {
		for _, s := range skip {
			if s == c.table {
				continue next
			}
		}
		expr := fmt.Sprintf("%q::text", c.name)
		if c.typ == "bytea" {
			expr = fmt.Sprintf("convert_from(%q, 'UTF8')", c.name)
		}
		var n int
		q := fmt.Sprintf(`SELECT COUNT(*) FROM %q WHERE lower(%s) LIKE '%%' || $1 || '%%'`, c.table, expr)
		if err := db.QueryRow(q, needle).Scan(&n); err != nil {
			// A bytea column that is not text (a sealed blob) cannot be decoded: it holds no address.
			if c.typ == "bytea" {
				continue
			}
			t.Fatalf("%s: %v", q, err)
		}
		if n > 0 {
			return c.table + "." + c.name
		}
	}
	return ""
}

// userRow reads a user's row of the identity read model, erased or not.
func userRow(t *testing.T, db *sql.DB, id uuid.UUID) (email, name string, erased bool) {
	t.Helper()
	var at sql.NullString
	if err := db.QueryRow(`SELECT email, display_name, erased_at FROM users WHERE user_id = $1`, id.String()).Scan(&email, &name, &at); err != nil {
		t.Fatal(err)
	}
	return email, name, at.Valid
}
