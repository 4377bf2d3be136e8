package auditrm_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/domain/curlsession"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/internal/vault"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/auditrm/audittest"
)

type backend struct {
	dialect migrations.Dialect
	store   eventstore.Store
	db      *sql.DB
	// inline: the runner is the SQLite store's in-transaction hook, so the records are written in
	// the appends' own transactions, as the server does.
	inline bool
}

var backends = []struct {
	name string
	open func(testing.TB) backend
}{
	{"sqlite", openSQLite},
	{"sqlite-inline", func(t testing.TB) backend { b := openSQLite(t); b.inline = true; return b }},
	{"postgres", openPostgres},
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func openSQLite(t testing.TB) backend { return openNode(t, testenv.SQLite) }

func openPostgres(t testing.TB) backend { return openNode(t, testenv.Postgres) }

func openNode(t testing.TB, on testenv.Backend) backend {
	t.Helper()
	n := testenv.Open(t, on)
	return backend{dialect: n.Dialect, store: n.Store, db: n.DB}
}

func (b backend) vault(t testing.TB) *vault.Vault {
	t.Helper()
	return testenv.Vault(t, b.db, b.store)
}

// running starts a runner with the audit projection (batches of 4 events, so the log is applied over
// many transactions) and stops it at the end of the test.
func (b backend) running(t testing.TB) *projections.Runner {
	t.Helper()
	r, err := projections.NewRunner(b.store, b.db, b.dialect, &projections.Options{
		Projections: []projections.Projection{auditrm.New()}, BatchSize: 4, PollInterval: 20 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if b.inline {
		b.store.(*sqlite.Store).SetInTransaction(r.InTransaction)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return r
}

func forEachBackend(t *testing.T, f func(t *testing.T, b backend)) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) { f(t, be.open(t)) })
	}
}

func replay(t *testing.T, store eventstore.Store, f auditrm.Filter) []auditrm.Record {
	t.Helper()
	var out []auditrm.Record
	if err := auditrm.Replay(testCtx(t), store, f, func(r auditrm.Record) error { out = append(out, r); return nil }, nil); err != nil {
		t.Fatal(err)
	}
	return out
}

func asJSON(t *testing.T, recs []auditrm.Record) []string {
	t.Helper()
	out := make([]string, len(recs))
	for i, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	return out
}

// dump returns both tables of the read model as text, in a fixed order.
func dump(t *testing.T, db *sql.DB) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT event_id, user_id, commit_pos, prepare_pos, at, kind, integration, record FROM audit_records ORDER BY event_id`,
		`SELECT user_id, email, '', '', '', '', '', '' FROM audit_users ORDER BY user_id`,
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var c [8]string
			if err := rows.Scan(&c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7]); err != nil {
				t.Fatal(err)
			}
			b.WriteString(strings.Join(c[:], "|") + "\n")
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	return b.String()
}

// The read model holds, for each user, exactly the records the replay gives for that user's email,
// newest first; built incrementally while the log grows, it equals the one a rebuild makes.
func TestReadModelMatchesReplayAndRebuild(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := testCtx(t)
		runner := b.running(t)
		audittest.Build(ctx, t, b.store, b.vault(t))
		last, err := audittest.AppendCurlSession(ctx, b.store)
		if err != nil {
			t.Fatal(err)
		}
		if err := runner.WaitFor(ctx, last); err != nil {
			t.Fatal(err)
		}
		reader := auditrm.Reader{DB: b.db}
		for email, user := range map[string]uuid.UUID{"ada@example.com": audittest.Ada, "bob@example.com": audittest.Bob} {
			want := replay(t, b.store, auditrm.Filter{Email: email})
			slices.Reverse(want)
			got, err := reader.ForUser(ctx, user, eventstore.Start, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 {
				t.Fatalf("no records replayed for %s", email)
			}
			if diff := cmp.Diff(asJSON(t, want), asJSON(t, got)); diff != "" {
				t.Errorf("%s: read model differs from the replay (-replay +read model):\n%s", email, diff)
			}
		}
		incremental := dump(t, b.db)
		if err := runner.Rebuild(ctx, auditrm.Name); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(incremental, dump(t, b.db)); diff != "" {
			t.Errorf("rebuilt read model differs from the incremental one (-incremental +rebuilt):\n%s", diff)
		}
		if n := strings.Count(incremental, "\n"); n != 23+2 {
			t.Errorf("read model has %d rows, want 23 records and 2 users", n)
		}
		if got, err := reader.ForUser(ctx, uuid.New(), eventstore.Start, 10); err != nil || len(got) != 0 {
			t.Errorf("a stranger's records: %v %v", got, err)
		}
	})
}

// The projection asks for the audited event types and identity.user_created, nothing else.
func TestHandles(t *testing.T) {
	cases := []struct {
		name, eventType string
		want            bool
	}{
		{"user created", identitydom.TypeUserCreated, true},
		{"tool executed", execution.TypeToolExecuted, true},
		{"connected", connection.TypeConnected, true},
		{"api key minted", identitydom.TypeAPIKeyMinted, true},
		{"subject shredded", vault.EventSubjectShredded, true},
		{"curl session minted", curlsession.TypeSessionMinted, true},
		{"request proxied", curlsession.TypeRequestProxied, true},
		{"email claimed", identitydom.TypeEmailClaimed, false},
		{"unknown", "jots.created", false},
	}
	p := auditrm.New()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.Handles(tc.eventType); got != tc.want {
				t.Errorf("Handles(%q) = %v, want %v", tc.eventType, got, tc.want)
			}
		})
	}
}
