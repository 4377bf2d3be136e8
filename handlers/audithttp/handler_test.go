package audithttp_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers/audithttp"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/auditrm/audittest"
)

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// node is the audit log of audittest on a fresh migrated SQLite file, with the audit projection
// running over it (batches of 4 events, so the log is applied over many transactions).
type node struct {
	store  eventstore.Store
	db     *sql.DB
	runner *projections.Runner
}

func newNode(t *testing.T) node {
	t.Helper()
	ctx := testCtx(t)
	sq := testenv.OpenSQLite(t)
	db, store := sq.DB, sq.Store
	v := testenv.Vault(t, db, store)
	r, err := projections.NewRunner(store, db, migrations.SQLite, &projections.Options{
		Projections: []projections.Projection{auditrm.New()}, BatchSize: 4, PollInterval: 20 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(runCtx) }()
	t.Cleanup(func() { cancel(); <-done })
	audittest.Build(ctx, t, store, v)
	return node{store: store, db: db, runner: r}
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

type pageResult struct {
	status int
	page   audithttp.Page
	body   string
	header http.Header
}

func getPage(t *testing.T, srv *httptest.Server, method, user, query string) pageResult {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+"/api/audit"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		req.Header.Set("X-Test-User", user)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	res := pageResult{status: resp.StatusCode, body: string(body), header: resp.Header}
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(body, &res.page); err != nil {
			t.Fatalf("body %s: %v", body, err)
		}
	}
	return res
}

func TestHandler(t *testing.T) {
	b := newNode(t)
	ctx := testCtx(t)
	runner := b.runner
	if _, err := audittest.AppendCurlSession(ctx, b.store); err != nil {
		t.Fatal(err)
	}
	if err := audittest.AppendToolRuns(ctx, b.store, audittest.Bob, audittest.Day1.AddDate(0, 1, 0), 60, 4); err != nil {
		t.Fatal(err)
	}
	envs, err := b.store.ReadAll(ctx, eventstore.Start, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	if err := runner.WaitFor(ctx, envs[len(envs)-1].Position); err != nil {
		t.Fatal(err)
	}
	// The test resolves the signed-in user from a header; the server gives a portal-session resolver.
	userOf := func(r *http.Request) (uuid.UUID, bool) {
		id, err := uuid.Parse(r.Header.Get("X-Test-User"))
		return id, err == nil
	}
	srv := httptest.NewServer(audithttp.Handler(auditrm.Reader{DB: b.db}, userOf))
	defer srv.Close()
	ada, bob := audittest.Ada.String(), audittest.Bob.String()

	t.Run("pages through every record, newest first", func(t *testing.T) {
		want := replay(t, b.store, auditrm.Filter{Email: "ada@example.com"})
		slices.Reverse(want)
		var got []auditrm.Record
		query, pages := "?limit=3", 0
		for {
			res := getPage(t, srv, http.MethodGet, ada, query)
			if res.status != http.StatusOK {
				t.Fatalf("%s: %d %s", query, res.status, res.body)
			}
			if cc := res.header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("Cache-Control %q", cc)
			}
			pages++
			got = append(got, res.page.Records...)
			if res.page.NextBefore == "" {
				break
			}
			if len(res.page.Records) != 3 {
				t.Fatalf("a page that is not the last has %d records", len(res.page.Records))
			}
			query = "?limit=3&before=" + res.page.NextBefore
		}
		if pages != (len(want)+2)/3 {
			t.Errorf("%d pages for %d records", pages, len(want))
		}
		if diff := cmp.Diff(asJSON(t, want), asJSON(t, got)); diff != "" {
			t.Errorf("pages differ from the replay (-replay +pages):\n%s", diff)
		}
		for _, r := range got {
			if r.UserID != audittest.Ada {
				t.Errorf("another user's record: %+v", r)
			}
		}
	})

	t.Run("default and largest limits", func(t *testing.T) {
		res := getPage(t, srv, http.MethodGet, bob, "")
		if res.status != http.StatusOK || len(res.page.Records) != audithttp.DefaultLimit || res.page.NextBefore == "" {
			t.Fatalf("default page: %d, %d records, next %q", res.status, len(res.page.Records), res.page.NextBefore)
		}
		res = getPage(t, srv, http.MethodGet, bob, fmt.Sprintf("?limit=%d", audithttp.MaxLimit))
		if res.status != http.StatusOK || len(res.page.Records) != 9+60 || res.page.NextBefore != "" {
			t.Fatalf("largest page: %d, %d records, next %q", res.status, len(res.page.Records), res.page.NextBefore)
		}
	})

	t.Run("no records", func(t *testing.T) {
		res := getPage(t, srv, http.MethodGet, uuid.NewString(), "")
		if res.status != http.StatusOK || !strings.Contains(res.body, `"records":[]`) {
			t.Fatalf("%d %s", res.status, res.body)
		}
	})

	cases := []struct {
		name, method, user, query string
		status                    int
	}{
		{"no one signed in", http.MethodGet, "", "", http.StatusUnauthorized},
		{"limit zero", http.MethodGet, ada, "?limit=0", http.StatusBadRequest},
		{"limit too large", http.MethodGet, ada, "?limit=501", http.StatusBadRequest},
		{"limit not a number", http.MethodGet, ada, "?limit=ten", http.StatusBadRequest},
		{"limit empty", http.MethodGet, ada, "?limit=", http.StatusBadRequest},
		{"before not a position", http.MethodGet, ada, "?before=yesterday", http.StatusBadRequest},
		{"before zero", http.MethodGet, ada, "?before=0", http.StatusBadRequest},
		{"post", http.MethodPost, ada, "", http.StatusMethodNotAllowed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := getPage(t, srv, tc.method, tc.user, tc.query)
			if res.status != tc.status {
				t.Fatalf("%d %s, want %d", res.status, res.body, tc.status)
			}
			var e struct{ Error, Message string }
			if err := json.Unmarshal([]byte(res.body), &e); err != nil || e.Error == "" || e.Message == "" {
				t.Fatalf("error body %q: %v", res.body, err)
			}
		})
	}
}
