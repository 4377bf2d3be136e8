package auditrm_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/memory"
	"github.com/workbench/workbench/projections/auditrm"
)

// Two accounts of one integration are two holdings in asof, and every record names the account it
// concerns (none for the default label, as in every record made before accounts existed).
func TestAccountsInTheAudit(t *testing.T) {
	ctx := context.Background()
	store := memory.New(nil)
	defer store.Close()
	user := uuid.New()
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	cred := domain.Sealed{Subject: user.String(), KeyVersion: 1, Blob: make([]byte, 40)}
	appendEv := func(stream string, ev domain.Event) eventstore.Envelope {
		t.Helper()
		data, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.Append(ctx, stream, eventstore.Any, eventstore.EventData{ID: uuid.New(), Type: ev.EventType(), SchemaVersion: 1, Data: data,
			Metadata: eventstore.Metadata{Actor: user.String(), Time: at}}); err != nil {
			t.Fatal(err)
		}
		envs, err := store.Load(ctx, stream, 0)
		if err != nil {
			t.Fatal(err)
		}
		return envs[len(envs)-1]
	}
	def := appendEv(connection.StreamName(user, "github", ""), connection.Connected{UserID: user, Integration: "github", AuthMode: connection.AuthAPIKey, Credential: cred, ConnectedAt: at})
	work := appendEv(connection.StreamName(user, "github", "work"), connection.Connected{UserID: user, Integration: "github", Account: "work", AuthMode: connection.AuthAPIKey, Credential: cred, ConnectedAt: at})
	chosen := appendEv(connection.StreamName(user, "github", "work"), connection.DefaultChosen{UserID: user, Integration: "github", Account: "work", At: at})
	key := uuid.New()
	run := appendEv("execution-x", execution.ToolExecuted{ExecutionID: uuid.New(), UserID: user, Via: "api_key", ClientID: key.String(), Integration: "github", Tool: "github_list_repos",
		Success: true, Account: "work", ConnectionVersion: 1, ArgsSHA256: "x", At: at})
	appendEv("execution-y", execution.ToolExecuted{ExecutionID: uuid.New(), UserID: user, Via: "api_key", ClientID: key.String(), Integration: "github", Tool: "github_list_repos",
		Success: true, ConnectionVersion: 1, ArgsSHA256: "x", At: at})

	res, err := auditrm.AsOf(ctx, store, auditrm.AsOfQuery{At: at.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Holdings) != 2 || res.Holdings[0].Account != "default" || res.Holdings[1].Account != "work" || res.Holdings[1].Status != "connected" {
		t.Fatalf("asof holdings: %+v; want github's default and work accounts, connected", res.Holdings)
	}
	dec := auditrm.NewDecoder()
	if rec, ok, err := dec.Decode(chosen); err != nil || !ok || rec.Kind != auditrm.KindDefaultChosen || rec.Integration != "github" {
		t.Errorf("the choice of a default is a record: %+v %v %v", rec, ok, err)
	}
	for env, want := range map[*eventstore.Envelope]string{&def: "", &work: "work", &run: "work", &chosen: "work"} {
		rec, ok, err := dec.Decode(*env)
		if err != nil || !ok || rec.Account != want {
			t.Errorf("record of %s: account %q (ok %v, %v), want %q", env.Type, rec.Account, ok, err, want)
		}
	}
	// The blast radius of the key counts its uses by account.
	blast, err := auditrm.BlastRadius(ctx, store, auditrm.BlastQuery{Kind: auditrm.CredentialAPIKey, ID: key.String()})
	if err != nil {
		t.Fatal(err)
	}
	if len(blast.ByIntegration) != 1 || blast.ByIntegration[0].Accounts["work"] != 1 || blast.ByIntegration[0].Accounts["default"] != 1 {
		t.Errorf("blast radius by integration: %+v; want github used once by work and once by default", blast.ByIntegration)
	}
}
