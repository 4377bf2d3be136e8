package auditrm_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/auditrm/audittest"
)

// An auditor's read that filtered on Bob's address, recorded in clear as reads were before they kept
// a keyed hash, loses the address from the read model when Bob is erased, incrementally and on a
// rebuild alike; a read that filtered on Ada keeps hers.
func TestErasureWithholdsTheAddressFromAuditReads(t *testing.T) {
	b := openSQLite(t)
	ctx := testCtx(t)
	runner := b.running(t)
	audittest.Build(ctx, t, b.store, b.vault(t))
	auditor := uuid.MustParse("00000000-0000-4000-8000-0000000000ad")
	at := audittest.Day1.Add(200 * time.Hour)
	codec := eventstore.NewJSONCodec(identitydom.Events()...)
	roles := eventstore.NewJSONCodec(identitydom.RoleEvents()...)
	encode := func(c *eventstore.JSONCodec[domain.Event], ev domain.Event) eventstore.EventData {
		typ, sv, data, err := c.Encode(ev)
		if err != nil {
			t.Fatal(err)
		}
		return eventstore.EventData{ID: uuid.New(), Type: typ, SchemaVersion: sv, Data: data, Metadata: eventstore.Metadata{Actor: "test", Time: at}}
	}
	for i, q := range []string{"tool=x&user=Bob%40Example.com", "user=ada%40example.com"} {
		read := uuid.New()
		if _, err := b.store.Append(ctx, identitydom.AuditReadStreamName(read), eventstore.NoStream,
			encode(roles, identitydom.AuditRead{ReadID: read, AuditorID: auditor, View: "list", Query: q, At: at.Add(time.Duration(i) * time.Second)})); err != nil {
			t.Fatal(err)
		}
	}
	last, err := b.store.Append(ctx, identitydom.StreamName(audittest.Bob), eventstore.Any,
		encode(codec, identitydom.UserErased{UserID: audittest.Bob, Pseudonym: "erased-0123456789abcdef", ErasedAt: at.Add(time.Minute)}))
	if err != nil {
		t.Fatal(err)
	}
	if err := runner.WaitFor(ctx, last); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		recs, err := auditrm.Reader{DB: b.db}.ForUser(ctx, auditor, eventstore.Start, 10)
		if err != nil || len(recs) != 2 {
			t.Fatalf("%s: the auditor's records: %+v %v", when, recs, err)
		}
		var paths []string
		for _, r := range recs {
			paths = append(paths, r.Path)
		}
		joined := strings.ToLower(strings.Join(paths, " "))
		if strings.Contains(joined, "bob") || !strings.Contains(joined, "user=withheld") || !strings.Contains(joined, "ada%40example.com") {
			t.Errorf("%s: the auditor's reads record %q: want Bob's address withheld and Ada's kept", when, paths)
		}
	}
	check("incrementally")
	if err := runner.Rebuild(ctx, auditrm.Name); err != nil {
		t.Fatal(err)
	}
	check("after a rebuild")
}
