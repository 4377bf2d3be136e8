package connectionsrm_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/connectionsrm"
)

// BenchmarkAccountLookup is what a tool call's credential lookup costs in the read model (SQLite):
// one row by user, integration and label ("get": what every call read before accounts existed, and
// what a call naming its account reads now), against the accounts of the integration with the default
// picked among them (what a call without a label reads), for a user with one account and with three.
func BenchmarkAccountLookup(b *testing.B) {
	ctx := context.Background()
	db, store, runner := readModel(b)
	now := time.Now().UTC()
	connect := func(user uuid.UUID, account string) {
		cred := domain.Sealed{Subject: user.String(), KeyVersion: 1, Blob: make([]byte, 120)}
		res, err := eventstore.Execute(ctx, store, connection.StreamName(user, "github", account), agg,
			connection.Command(connection.Connect{UserID: user, Integration: "github", Account: account, AuthMode: connection.AuthAPIKey, Credential: cred, At: now}),
			eventstore.Metadata{Actor: user.String(), Time: now})
		if err != nil {
			b.Fatal(err)
		}
		if err := runner.WaitFor(ctx, res.Position); err != nil {
			b.Fatal(err)
		}
	}
	one, three := uuid.New(), uuid.New()
	connect(one, "")
	for _, a := range []string{"", "work", "personal"} {
		connect(three, a)
	}
	reader := connectionsrm.Reader{DB: db}
	b.Run("get", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := reader.Get(ctx, one, "github", ""); err != nil {
				b.Fatal(err)
			}
		}
	})
	for name, user := range map[string]uuid.UUID{"accounts=1": one, "accounts=3": three} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rows, err := reader.Accounts(ctx, user, "github")
				if err != nil {
					b.Fatal(err)
				}
				if _, ok := connectionsrm.Default(rows); !ok {
					b.Fatal("no default")
				}
			}
		})
	}
}
