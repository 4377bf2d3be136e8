package auditrm_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/curlsession"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/auditrm"
)

// A request_forwarded record carries what was sent where and the request id that joins it to the
// request_proxied record of its outcome.
func TestDecodeRequestForwarded(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	ev := curlsession.RequestForwarded{
		RequestID: uuid.New(), SessionID: uuid.New(), UserID: uuid.New(), Integration: "github",
		Method: "POST", Path: "/repos/a/b/issues", QueryKeys: []string{"page"}, ConnectionVersion: 4, At: at,
	}
	typ, sv, data, err := eventstore.NewJSONCodec(curlsession.Events()...).Encode(ev)
	if err != nil {
		t.Fatal(err)
	}
	env := eventstore.Envelope{ID: uuid.New(), Stream: curlsession.SessionStreamName(ev.SessionID), Version: 2, Type: typ, SchemaVersion: sv,
		Data: data, Metadata: eventstore.Metadata{Actor: ev.UserID.String(), Time: at}}
	if !auditrm.Audited(typ) {
		t.Fatalf("%s is not audited", typ)
	}
	rec, ok, err := auditrm.NewDecoder().Decode(env)
	if err != nil || !ok {
		t.Fatalf("Decode: %v %v", ok, err)
	}
	if rec.Kind != auditrm.KindRequestForwarded || rec.RequestID != ev.RequestID || rec.SessionID != ev.SessionID || rec.UserID != ev.UserID ||
		rec.Integration != "github" || rec.Method != "POST" || rec.Path != ev.Path || len(rec.QueryKeys) != 1 || rec.ConnectionVersion != 4 ||
		!rec.Time.Equal(at) || rec.Status != 0 || rec.ResponseBytes != nil {
		t.Fatalf("record %+v", rec)
	}
}
