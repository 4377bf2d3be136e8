package auditrm_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/auditrm/audittest"
)

// TestBlastRadiusAgent: an agent's report holds what its API keys and OAuth grants did and the
// records naming it; records naming no agent belong to the user's default agent, unless their client
// is a key of another agent.
func TestBlastRadiusAgent(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := testCtx(t)
		audittest.Build(ctx, t, b.store, b.vault(t))
		if _, err := audittest.AppendCurlSession(ctx, b.store); err != nil {
			t.Fatal(err)
		}
		if _, _, err := audittest.AppendAccess(ctx, b.store); err != nil {
			t.Fatal(err)
		}
		// Bob mints a key for a second agent, which runs three tools: one record names the agent, one
		// (as records did before they named agents) only the key, one comes over OAuth naming the agent.
		agent := uuid.MustParse("00000000-0000-4000-8000-0000000a9e07")
		key := uuid.MustParse("00000000-0000-4000-8000-0000000000b3")
		at := audittest.Day1.Add(120 * time.Hour)
		codec := eventstore.NewJSONCodec(identitydom.Events()...)
		typ, sv, data, err := codec.Encode(identitydom.APIKeyMinted{UserID: audittest.Bob, AgentID: agent, KeyID: key,
			Hash: "h", Prefix: "wb_", MintedAt: at})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.store.Append(ctx, identitydom.StreamName(audittest.Bob), eventstore.Any, eventstore.EventData{
			ID: uuid.New(), Type: typ, SchemaVersion: sv, Data: data, Metadata: eventstore.Metadata{Actor: audittest.Bob.String(), Time: at}}); err != nil {
			t.Fatal(err)
		}
		for i, run := range []execution.ToolExecuted{
			{Via: "api_key", ClientID: key.String(), AgentID: agent, Success: true},
			{Via: "api_key", ClientID: key.String(), ErrorCode: "TOOL_ERROR"},
			{Via: "oauth", ClientID: audittest.ClientID, AgentID: agent, Success: true},
		} {
			run.ExecutionID = uuid.MustParse("00000000-0000-4000-8000-00000000e0" + string(rune('0'+i)) + "0")
			run.UserID, run.Integration, run.Tool, run.At = audittest.Bob, "utils", "utils_uuid", at.Add(time.Duration(i+1)*time.Minute)
			run.ArgsSize, run.ArgsSHA256 = execution.Digest([]byte(`{}`))
			if _, err := audittest.AppendToolRun(ctx, b.store, run); err != nil {
				t.Fatal(err)
			}
		}

		rep, err := auditrm.BlastRadius(ctx, b.store, auditrm.BlastQuery{Kind: auditrm.CredentialAgent, ID: agent.String()})
		if err != nil {
			t.Fatal(err)
		}
		if want := (auditrm.BlastTotals{ToolRuns: 3, ToolFailures: 1, Users: 1}); rep.Totals != want {
			t.Errorf("the second agent: totals %+v, want %+v", rep.Totals, want)
		}
		if rep.Owner != audittest.Bob || rep.OwnerEmail != "bob@example.com" {
			t.Errorf("the second agent: owner %s %q", rep.Owner, rep.OwnerEmail)
		}
		// Bob's default agent: his first key's runs, his curl session and its requests, and the
		// OAuth grant's run (a grant naming no agent).
		rep, err = auditrm.BlastRadius(ctx, b.store, auditrm.BlastQuery{Kind: auditrm.CredentialAgent, ID: identitydom.DefaultAgentID(audittest.Bob).String()})
		if err != nil {
			t.Fatal(err)
		}
		if want := (auditrm.BlastTotals{ToolRuns: 3, ProxiedRequests: 2, CurlSessions: 1, Users: 1}); rep.Totals != want {
			t.Errorf("bob's default agent: totals %+v, want %+v", rep.Totals, want)
		}
		rep, err = auditrm.BlastRadius(ctx, b.store, auditrm.BlastQuery{Kind: auditrm.CredentialAgent, ID: uuid.NewString()})
		if err != nil || rep.Totals != (auditrm.BlastTotals{}) {
			t.Errorf("an unknown agent: %+v, %v", rep.Totals, err)
		}
		if _, err := auditrm.BlastRadius(ctx, b.store, auditrm.BlastQuery{Kind: auditrm.CredentialAgent, ID: "agent-1"}); err == nil {
			t.Error("an agent id that is not a UUID was accepted")
		}
	})
}
