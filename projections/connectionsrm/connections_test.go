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
	db := testenv.MigratedSQLite(t)
	store := memory.New(nil)
	defer store.Close()
	runner, err := projections.NewRunner(store, db, migrations.SQLite, &projections.Options{Projections: []projections.Projection{connectionsrm.New()}, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- runner.Run(rctx) }()
	defer func() { stop(); <-done }()

	user := uuid.New()
	stream := connection.StreamName(user, "github")
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
		row, err := reader.Get(ctx, user, "github")
		if err != nil {
			t.Fatal(err)
		}
		if row.Status != want {
			t.Fatalf("status %s, want %s", row.Status, want)
		}
		return row
	}
	attempt1, attempt2 := uuid.New(), uuid.New()
	if _, err := reader.Get(ctx, user, "github"); !errors.Is(err, connectionsrm.ErrNotFound) {
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
	if err != nil || len(all) != 1 || all["github"].Status != connection.StatusDisconnected {
		t.Fatalf("ForUser: %+v %v", all, err)
	}
	var cred2 sql.NullString
	if err := db.QueryRow(`SELECT credential FROM connections WHERE user_id = $1`, user.String()).Scan(&cred2); err != nil || cred2.Valid {
		t.Fatalf("a disconnected row still holds a credential: %v %v", cred2, err)
	}
}
