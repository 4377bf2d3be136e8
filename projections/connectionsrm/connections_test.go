package connectionsrm_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	_ "modernc.org/sqlite"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/memory"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/connectionsrm"
)

var agg = eventstore.Aggregate[connection.State, connection.Command, domain.Event]{
	Initial: connection.Initial, Evolve: connection.Evolve, Decide: connection.Decide,
	Codec: eventstore.NewJSONCodec(connection.Events()...),
}

func TestConnectionLifecycleInTheReadModel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	db, store, runner := readModel(t)

	user := uuid.New()
	stream := connection.StreamName(user, "github", "")
	reader := connectionsrm.Reader{DB: db}
	now := time.Now().UTC().Truncate(time.Second)
	run := func(cmd connection.Command) {
		t.Helper()
		res, err := eventstore.Execute(ctx, store, stream, agg, cmd, eventstore.Metadata{Actor: user.String(), Time: now})
		if err != nil {
			t.Fatalf("%T: %v", cmd, err)
		}
		if err := runner.WaitFor(ctx, res.Position); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(want connection.Status) connectionsrm.Row {
		t.Helper()
		row, err := reader.Get(ctx, user, "github", "")
		if err != nil {
			t.Fatal(err)
		}
		if row.Status != want {
			t.Fatalf("status %s, want %s", row.Status, want)
		}
		return row
	}
	attempt1, attempt2 := uuid.New(), uuid.New()
	if _, err := reader.Get(ctx, user, "github", ""); !errors.Is(err, connectionsrm.ErrNotFound) {
		t.Fatalf("before any event: %v", err)
	}
	run(connection.Start{AttemptID: attempt1, UserID: user, Integration: "github", AuthMode: connection.AuthOAuth2, At: now, ExpiresAt: now.Add(10 * time.Minute)})
	expect(connection.StatusPending)
	run(connection.Start{AttemptID: attempt2, UserID: user, Integration: "github", AuthMode: connection.AuthOAuth2, At: now, ExpiresAt: now.Add(10 * time.Minute)})
	if a, err := reader.Attempt(ctx, attempt1); err != nil || a.Outcome != connection.AttemptExpired || a.Reason != string(connection.ExpirySuperseded) {
		t.Fatalf("superseded attempt: %+v %v", a, err)
	}
	cred := domain.Sealed{Subject: user.String(), KeyVersion: 1, Blob: make([]byte, 40)}
	run(connection.Connect{AttemptID: attempt2, UserID: user, Integration: "github", AuthMode: connection.AuthOAuth2, Credential: cred, ExpiresAt: now.Add(time.Hour), AccountHint: "octocat", At: now})
	row := expect(connection.StatusConnected)
	if row.State.AccountHint != "octocat" || row.State.Generation != 1 || row.Version != 4 || len(row.State.Credential.Blob) != 40 {
		t.Fatalf("connected row: %+v", row)
	}
	if a, err := reader.Attempt(ctx, attempt2); err != nil || a.Outcome != connection.AttemptConnected || a.EndedAt.IsZero() {
		t.Fatalf("connected attempt: %+v %v", a, err)
	}
	run(connection.Refresh{Generation: 1, Credential: cred, ExpiresAt: now.Add(2 * time.Hour), At: now})
	row = expect(connection.StatusConnected)
	if row.State.Generation != 2 || !row.State.ExpiresAt.Equal(now.Add(2*time.Hour)) {
		t.Fatalf("refreshed row: %+v", row.State)
	}
	run(connection.RequireReauth{Generation: 2, Reason: "invalid_grant", At: now})
	row = expect(connection.StatusNeedsReauth)
	if !row.State.Credential.IsZero() && row.State.Connected() {
		t.Fatalf("credential still usable after invalid_grant: %+v", row.State)
	}
	run(connection.Disconnect{Reason: "user request", At: now})
	expect(connection.StatusDisconnected)

	all, err := reader.ForUser(ctx, user)
	if err != nil || len(all) != 1 || len(all["github"]) != 1 || all["github"][0].Status != connection.StatusDisconnected {
		t.Fatalf("ForUser: %+v %v", all, err)
	}

	// Two more accounts, each in its own stream and row; the oldest is the default until the user
	// chooses another, and a disconnected account is none.
	exec := func(account string, cmd connection.Command, at time.Time) {
		t.Helper()
		res, err := eventstore.Execute(ctx, store, connection.StreamName(user, "github", account), agg, cmd, eventstore.Metadata{Actor: user.String(), Time: at})
		if err != nil {
			t.Fatalf("%s %T: %v", account, cmd, err)
		}
		if err := runner.WaitFor(ctx, res.Position); err != nil {
			t.Fatal(err)
		}
	}
	key := func(account string, at time.Time) connection.Command {
		return connection.Connect{UserID: user, Integration: "github", Account: account, AuthMode: connection.AuthAPIKey, Credential: cred, AccountHint: account + "-hint", At: at}
	}
	exec("work", key("work", now.Add(time.Minute)), now.Add(time.Minute))
	exec("personal", key("personal", now.Add(2*time.Minute)), now.Add(2*time.Minute))
	accounts, err := reader.Accounts(ctx, user, "github")
	if err != nil || len(accounts) != 3 {
		t.Fatalf("Accounts: %+v %v", accounts, err)
	}
	if got := []string{accounts[0].Account, accounts[1].Account, accounts[2].Account}; got[0] != "default" || got[1] != "personal" || got[2] != "work" {
		t.Fatalf("labels %v, want default, personal, work", got)
	}
	if d, ok := connectionsrm.Default(accounts); !ok || d.Account != "work" {
		t.Fatalf("default %+v %v, want work (the oldest account holding a credential)", d, ok)
	}
	exec("personal", connection.ChooseDefault{At: now.Add(3 * time.Minute)}, now.Add(3*time.Minute))
	accounts, _ = reader.Accounts(ctx, user, "github")
	if d, ok := connectionsrm.Default(accounts); !ok || d.Account != "personal" {
		t.Fatalf("default after choosing personal: %+v %v", d, ok)
	}
	if row, err := reader.Get(ctx, user, "github", "work"); err != nil || row.State.AccountHint != "work-hint" || row.Account != "work" {
		t.Fatalf("work's row: %+v %v", row, err)
	}
	exec("personal", connection.Disconnect{At: now.Add(4 * time.Minute)}, now.Add(4*time.Minute))
	accounts, _ = reader.Accounts(ctx, user, "github")
	if d, ok := connectionsrm.Default(accounts); !ok || d.Account != "work" {
		t.Fatalf("default after disconnecting personal: %+v %v, want work again", d, ok)
	}
	var cred2 sql.NullString
	if err := db.QueryRow(`SELECT credential FROM connections WHERE user_id = $1 AND account = 'default'`, user.String()).Scan(&cred2); err != nil || cred2.Valid {
		t.Fatalf("a disconnected row still holds a credential: %v %v", cred2, err)
	}
}

// readModel is a migrated SQLite holding the connections projection, kept by a running runner over an
// in-memory log; both stop when the test ends.
func readModel(tb testing.TB) (*sql.DB, *memory.Store, *projections.Runner) {
	tb.Helper()
	db := testenv.MigratedSQLite(tb)
	store := memory.New(nil)
	runner, err := projections.NewRunner(store, db, migrations.SQLite, &projections.Options{Projections: []projections.Projection{connectionsrm.New()}, PollInterval: 5 * time.Millisecond})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runner.Run(ctx) }()
	tb.Cleanup(func() { stop(); <-done; store.Close() })
	return db, store, runner
}
