package auditrm_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/approval"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/auditrm"
)

// Every step of an approval is a record in the trail of the user whose agent asked: who decided and
// how, and which execution spent it.
func TestDecodeApprovals(t *testing.T) {
	at := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	id, user, decider, exec := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	b := approval.Binding{UserID: user, AgentID: uuid.New(), Tool: "github_delete_repo", Integration: "github", Account: "work", ArgsSHA256: "abc"}
	codec := eventstore.NewJSONCodec(approval.Events()...)
	for _, c := range []struct {
		ev   domain.Event
		kind auditrm.Kind
		ok   func(auditrm.Record) bool
	}{
		{approval.Requested{ApprovalID: id, Binding: b, ExpiresAt: at.Add(time.Minute), At: at}, auditrm.KindApprovalRequested,
			func(r auditrm.Record) bool {
				return r.Account == "work" && r.AgentID == b.AgentID && r.ArgsSHA256 == "abc"
			}},
		{approval.Approved{ApprovalID: id, UserID: user, Tool: b.Tool, Integration: "github", By: decider, Via: approval.ViaPortal, Always: true, At: at}, auditrm.KindApprovalApproved,
			func(r auditrm.Record) bool {
				return r.ApprovalVia == "portal" && r.ApprovalAlways && r.Actor == decider.String()
			}},
		{approval.Denied{ApprovalID: id, UserID: user, Tool: b.Tool, Integration: "github", By: user, Via: approval.ViaElicitation, At: at}, auditrm.KindApprovalDenied,
			func(r auditrm.Record) bool { return r.ApprovalVia == "elicitation" }},
		{approval.Expired{ApprovalID: id, UserID: user, Tool: b.Tool, Integration: "github", At: at}, auditrm.KindApprovalExpired,
			func(auditrm.Record) bool { return true }},
		{approval.Used{ApprovalID: id, UserID: user, Tool: b.Tool, Integration: "github", ExecutionID: exec, At: at}, auditrm.KindApprovalUsed,
			func(r auditrm.Record) bool { return r.ExecutionID == exec }},
	} {
		typ, sv, data, err := codec.Encode(c.ev)
		if err != nil {
			t.Fatal(err)
		}
		actor := user.String()
		if c.kind == auditrm.KindApprovalApproved {
			actor = decider.String()
		}
		env := eventstore.Envelope{ID: uuid.New(), Stream: approval.StreamName(id), Version: 1, Type: typ, SchemaVersion: sv, Data: data,
			Metadata: eventstore.Metadata{Actor: actor, Time: at}}
		rec, ok, err := auditrm.NewDecoder().Decode(env)
		if err != nil || !ok {
			t.Fatalf("%s: %v %v", typ, ok, err)
		}
		if rec.Kind != c.kind || rec.UserID != user || rec.ApprovalID != id || rec.Tool != b.Tool || rec.Integration != "github" || !rec.Time.Equal(at) || !c.ok(rec) {
			t.Errorf("%s: record %+v", typ, rec)
		}
	}
}
