package kurrent

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/EventStore/EventStore-Client-Go/v4/esdb"
	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/workbench/workbench/eventstore"
)

func TestExpectedRevision(t *testing.T) {
	for _, tc := range []struct {
		name     string
		expected eventstore.ExpectedVersion
		want     esdb.ExpectedRevision
		wantErr  bool
	}{
		{"any", eventstore.Any, esdb.Any{}, false},
		{"no stream", eventstore.NoStream, esdb.NoStream{}, false},
		{"exact 1 is revision 0", eventstore.Exact(1), esdb.Revision(0), false},
		{"exact 42 is revision 41", eventstore.Exact(42), esdb.Revision(41), false},
		{"exact 0 is no stream", eventstore.Exact(0), esdb.NoStream{}, false},
		{"largest version", eventstore.Exact(math.MaxInt64), esdb.Revision(math.MaxInt64 - 1), false},
		{"below any", eventstore.ExpectedVersion(-2), nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := expectedRevision(tc.expected)
			if (err != nil) != tc.wantErr {
				t.Fatalf("expectedRevision(%s) error = %v, want error %v", tc.expected, err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("expectedRevision(%s) = %#v, want %#v", tc.expected, got, tc.want)
			}
		})
	}
}

func TestLastRevision(t *testing.T) {
	for _, tc := range []struct {
		name     string
		expected eventstore.ExpectedVersion
		n        int
		reported uint64
		want     uint64
	}{
		{"no stream, one event", eventstore.NoStream, 1, 99, 0},
		{"no stream, three events", eventstore.NoStream, 3, 99, 2},
		// Stream at version 3 (revisions 0..2): two more take revisions 3 and 4.
		{"exact 3, two events", eventstore.Exact(3), 2, 99, 4},
		{"exact 1, one event", eventstore.Exact(1), 1, 99, 1},
		{"any trusts the server", eventstore.Any, 2, 17, 17},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lastRevision(tc.expected, tc.n, tc.reported); got != tc.want {
				t.Errorf("lastRevision(%s, %d, %d) = %d, want %d", tc.expected, tc.n, tc.reported, got, tc.want)
			}
		})
	}
}

func TestPositions(t *testing.T) {
	t.Run("from position", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			in   eventstore.Position
			want esdb.AllPosition
		}{
			{"start is the beginning of $all", eventstore.Start, esdb.Start{}},
			{"a position names the event there", eventstore.Position{Commit: 1234, Prepare: 1200}, esdb.Position{Commit: 1234, Prepare: 1200}},
			{"commit only", eventstore.Position{Commit: 7}, esdb.Position{Commit: 7}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if got := fromPosition(tc.in); got != tc.want {
					t.Errorf("fromPosition(%s) = %#v, want %#v", tc.in, got, tc.want)
				}
			})
		}
	})
	t.Run("position of", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			in   esdb.Position
			want eventstore.Position
		}{
			{"one to one", esdb.Position{Commit: 98765, Prepare: 98700}, eventstore.Position{Commit: 98765, Prepare: 98700}},
			{"large values", esdb.Position{Commit: math.MaxUint64 - 1, Prepare: math.MaxUint64 - 2}, eventstore.Position{Commit: math.MaxUint64 - 1, Prepare: math.MaxUint64 - 2}},
			{"no position is unknown", esdb.Position{Commit: math.MaxUint64, Prepare: math.MaxUint64}, eventstore.Position{}},
			{"half unknown is unknown", esdb.Position{Commit: 5, Prepare: math.MaxUint64}, eventstore.Position{}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if got := positionOf(tc.in); got != tc.want {
					t.Errorf("positionOf(%#v) = %s, want %s", tc.in, got, tc.want)
				}
			})
		}
	})
	t.Run("round trip keeps order", func(t *testing.T) {
		ps := []eventstore.Position{{Commit: 10, Prepare: 10}, {Commit: 10, Prepare: 11}, {Commit: 11, Prepare: 3}, {Commit: 500, Prepare: 499}}
		for i, p := range ps {
			back := positionOf(fromPosition(p).(esdb.Position))
			if back != p {
				t.Errorf("%s came back as %s", p, back)
			}
			if i > 0 && !ps[i-1].Less(back) {
				t.Errorf("%s is not after %s", back, ps[i-1])
			}
		}
	})
	t.Run("write position", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			in   *esdb.WriteResult
			want eventstore.Position
		}{
			{"written", &esdb.WriteResult{CommitPosition: 300, PreparePosition: 250, NextExpectedVersion: 4}, eventstore.Position{Commit: 300, Prepare: 250}},
			{"idempotent retry reports none", &esdb.WriteResult{NextExpectedVersion: 4}, eventstore.Position{}},
			{"nil", nil, eventstore.Position{}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if got := writePosition(tc.in); got != tc.want {
					t.Errorf("writePosition = %s, want %s", got, tc.want)
				}
			})
		}
	})
}

func TestIsSystem(t *testing.T) {
	for _, tc := range []struct {
		name, stream, eventType string
		want                    bool
	}{
		{"ours", "connection-1", "connection.connected", false},
		{"dollar inside a name", "price-$5", "paid$", false},
		{"system stream", "$stats-127.0.0.1:2113", "$statsCollected", true},
		{"stream metadata", "$$connection-1", "$metadata", true},
		{"link event in a user stream", "$ce-connection", "$>", true},
		{"system type in a user stream", "connection-1", "$>", true},
		{"epoch", "$epoch-information", "$epoch-information", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := isSystem(tc.stream, tc.eventType); got != tc.want {
				t.Errorf("isSystem(%q, %q) = %v, want %v", tc.stream, tc.eventType, got, tc.want)
			}
		})
	}
}

func sampleEvent() eventstore.EventData {
	return eventstore.EventData{
		ID:            uuid.MustParse("0b5e1c3a-6f1e-4d2b-9a57-3c1f0e2d4b6a"),
		Type:          "connection.connected",
		SchemaVersion: 2,
		Data:          json.RawMessage(`{"integration":"github","scopes":["repo"]}`),
		Metadata: eventstore.Metadata{
			Actor:         "user-1",
			OnBehalfOf:    "user-2",
			MCPClient:     "client-9",
			CorrelationID: "corr-1",
			CausationID:   "cause-1",
			Time:          time.Date(2026, 3, 14, 15, 9, 26, 535897932, time.UTC),
		},
	}
}

func TestEncodeEvent(t *testing.T) {
	ev := sampleEvent()
	got, err := encodeEvent(ev)
	if err != nil {
		t.Fatal(err)
	}
	if got.EventID != ev.ID || got.EventType != ev.Type || got.ContentType != esdb.ContentTypeJson || string(got.Data) != string(ev.Data) {
		t.Errorf("encodeEvent = %+v; want id, type, JSON content type and data as given", got)
	}
	// The stored metadata is one flat JSON object: the domain metadata's fields plus schema_version.
	const want = `{"actor":"user-1","on_behalf_of":"user-2","mcp_client":"client-9","correlation_id":"corr-1","causation_id":"cause-1","time":"2026-03-14T15:09:26.535897932Z","schema_version":2}`
	if string(got.Metadata) != want {
		t.Errorf("metadata = %s\nwant       %s", got.Metadata, want)
	}

	sparse := ev
	sparse.Metadata = eventstore.Metadata{Actor: "system"}
	sparse.SchemaVersion = 1
	got, err = encodeEvent(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"actor":"system","time":"0001-01-01T00:00:00Z","schema_version":1}`; string(got.Metadata) != want {
		t.Errorf("sparse metadata = %s, want %s", got.Metadata, want)
	}
}

// recorded returns what the server would send back for ev written at revision rev of stream.
func recorded(t *testing.T, ev eventstore.EventData, stream string, rev uint64, pos esdb.Position) *esdb.RecordedEvent {
	t.Helper()
	data, err := encodeEvent(ev)
	if err != nil {
		t.Fatal(err)
	}
	return &esdb.RecordedEvent{
		EventID:        data.EventID,
		EventType:      data.EventType,
		ContentType:    "application/json",
		StreamID:       stream,
		EventNumber:    rev,
		Position:       pos,
		CreatedDate:    time.Now(),
		Data:           data.Data,
		SystemMetadata: map[string]string{"type": data.EventType, "content-type": "application/json"},
		UserMetadata:   data.Metadata,
	}
}

func TestDecodeEvent(t *testing.T) {
	ev := sampleEvent()
	pos := esdb.Position{Commit: 4096, Prepare: 4000}
	wantEnv := eventstore.Envelope{
		ID: ev.ID, Stream: "connection-1", Version: 6, Position: eventstore.Position{Commit: 4096, Prepare: 4000},
		Type: ev.Type, SchemaVersion: 2, Data: ev.Data, Metadata: ev.Metadata,
	}
	timeEqual := cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })

	for _, tc := range []struct {
		name    string
		rec     func() *esdb.RecordedEvent
		prefix  string
		want    eventstore.Envelope
		wantErr string
	}{
		{"round trip", func() *esdb.RecordedEvent { return recorded(t, ev, "connection-1", 5, pos) }, "", wantEnv, ""},
		{"prefix taken off", func() *esdb.RecordedEvent { return recorded(t, ev, "wb-a-connection-1", 5, pos) }, "wb-a-", wantEnv, ""},
		{"first revision is version 1", func() *esdb.RecordedEvent { return recorded(t, ev, "connection-1", 0, pos) }, "", func() eventstore.Envelope {
			e := wantEnv
			e.Version = 1
			return e
		}(), ""},
		{"stream read without a position", func() *esdb.RecordedEvent {
			return recorded(t, ev, "connection-1", 5, esdb.Position{Commit: math.MaxUint64, Prepare: math.MaxUint64})
		}, "", func() eventstore.Envelope {
			e := wantEnv
			e.Position = eventstore.Position{}
			return e
		}(), ""},
		{"foreign event without metadata", func() *esdb.RecordedEvent {
			r := recorded(t, ev, "connection-1", 5, pos)
			r.UserMetadata = nil
			return r
		}, "", func() eventstore.Envelope {
			e := wantEnv
			e.SchemaVersion, e.Metadata = 1, eventstore.Metadata{}
			return e
		}(), ""},
		{"metadata not JSON", func() *esdb.RecordedEvent {
			r := recorded(t, ev, "connection-1", 5, pos)
			r.UserMetadata = []byte("actor=me")
			return r
		}, "", eventstore.Envelope{}, "metadata"},
		{"data not JSON", func() *esdb.RecordedEvent {
			r := recorded(t, ev, "connection-1", 5, pos)
			r.Data = []byte{0xde, 0xad}
			return r
		}, "", eventstore.Envelope{}, "data is not JSON"},
		{"empty data", func() *esdb.RecordedEvent {
			r := recorded(t, ev, "connection-1", 5, pos)
			r.Data = nil
			return r
		}, "", eventstore.Envelope{}, "data is not JSON"},
		{"nil", func() *esdb.RecordedEvent { return nil }, "", eventstore.Envelope{}, "empty event"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeEvent(tc.rec(), tc.prefix)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("decodeEvent error = %v, want one mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("decodeEvent: %v", err)
			}
			if diff := cmp.Diff(tc.want, got, timeEqual); diff != "" {
				t.Errorf("decodeEvent (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConflictActual(t *testing.T) {
	// The v4.2.0 client formats a refused append as
	// "wrong expected version: expecting '%s' but got '%s'" (esdb/client.go, AppendToStream).
	msg := func(expected, current string) error {
		return fmt.Errorf("wrong expected version: expecting '%s' but got '%s'", expected, current)
	}
	for _, tc := range []struct {
		name   string
		err    error
		want   int64
		wantOK bool
	}{
		{"stream missing", msg("0", "no_stream"), 0, true},
		{"stream at revision 0 is version 1", msg("no_stream", "0"), 1, true},
		{"stream at revision 4", msg("1", "4"), 5, true},
		{"expected any", msg("any", "9"), 10, true},
		{"inside the client's error", func() error { e, _ := esdb.FromError(msg("2", "6")); return e }(), 7, true},
		{"wrapped", fmt.Errorf("append: %w", msg("stream_exists", "no_stream")), 0, true},
		{"other error", errors.New("connection refused"), 0, false},
		{"garbled revision", msg("1", "four"), 0, false},
		{"negative revision", msg("1", "-1"), 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := conflictActual(tc.err)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("conflictActual(%v) = %d, %v; want %d, %v", tc.err, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	t.Run("codes", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			code esdb.ErrorCode
			ok   bool
			want failure
		}{
			{"wrong expected version", esdb.ErrorCodeWrongExpectedVersion, true, failWrongVersion},
			{"stream not found", esdb.ErrorCodeResourceNotFound, true, failNotFound},
			{"connection closed", esdb.ErrorCodeConnectionClosed, true, failClosed},
			{"stream deleted", esdb.ErrorCodeStreamDeleted, true, failOther},
			{"access denied", esdb.ErrorCodeAccessDenied, true, failOther},
			{"unavailable", esdb.ErrorUnavailable, true, failOther},
			{"deadline", esdb.ErrorCodeDeadlineExceeded, true, failOther},
			{"unknown", esdb.ErrorCodeUnknown, true, failOther},
			{"no client error at all", esdb.ErrorCodeWrongExpectedVersion, false, failOther},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if got := classifyCode(tc.code, tc.ok); got != tc.want {
					t.Errorf("classifyCode(%d, %v) = %d, want %d", tc.code, tc.ok, got, tc.want)
				}
			})
		}
	})
	t.Run("errors", func(t *testing.T) {
		unknown, _ := esdb.FromError(errors.New("boom"))
		for _, tc := range []struct {
			name string
			err  error
			want failure
		}{
			{"nil", nil, failOther},
			{"plain error", errors.New("boom"), failOther},
			{"client error without a known code", unknown, failOther},
			{"wrapped client error", fmt.Errorf("could not send: %w", unknown), failOther},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if got := classify(tc.err); got != tc.want {
					t.Errorf("classify(%v) = %d, want %d", tc.err, got, tc.want)
				}
			})
		}
	})
}

func TestClientURL(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		want    string
		address string
		user    string
		noTLS   bool
		wantErr string
	}{
		{"esdb unchanged", "esdb://localhost:2113?tls=false", "esdb://localhost:2113?tls=false", "localhost:2113", "", true, ""},
		{"kurrentdb", "kurrentdb://admin:changeit@db.internal:2113?tls=false", "esdb://admin:changeit@db.internal:2113?tls=false", "db.internal:2113", "admin", true, ""},
		{"kurrent", "kurrent://127.0.0.1:2113", "esdb://127.0.0.1:2113", "127.0.0.1:2113", "", false, ""},
		{"scheme case", "KurrentDB://127.0.0.1:2113?tls=false", "esdb://127.0.0.1:2113?tls=false", "127.0.0.1:2113", "", true, ""},
		{"discover", "kurrentdb+discover://cluster.example:2113", "esdb+discover://cluster.example:2113", "", "", false, ""},
		{"esdb discover", "esdb+discover://cluster.example:2113", "esdb+discover://cluster.example:2113", "", "", false, ""},
		{"postgres is not kurrent", "postgres://u:secret@h/db", "", "", "", false, `scheme "postgres"`},
		{"no scheme", "localhost:2113", "", "", "", false, "want esdb://"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := clientURL(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("clientURL(%q) error = %v, want one mentioning %q", tc.in, err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "secret") {
					t.Errorf("error %q shows the password", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("clientURL(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			// And the client parses what we hand it the way the original meant.
			cfg, err := esdb.ParseConnectionString(got)
			if err != nil {
				t.Fatalf("client cannot parse %q: %v", got, err)
			}
			if tc.address != "" && cfg.Address != tc.address {
				t.Errorf("address = %q, want %q", cfg.Address, tc.address)
			}
			if cfg.Username != tc.user || cfg.DisableTLS != tc.noTLS {
				t.Errorf("user %q, TLS disabled %v; want %q, %v", cfg.Username, cfg.DisableTLS, tc.user, tc.noTLS)
			}
			if want := strings.HasPrefix(got, "esdb+discover://"); cfg.DnsDiscover != want {
				t.Errorf("DNS discovery = %v for %q", cfg.DnsDiscover, got)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"url", "esdb://admin:hunter2@localhost:2113?tls=false"},
		{"not a url", "esdb://admin:hunter2@a:1,b:2,c:3"},
		{"with path and query", "kurrentdb://ops:hunter2@db:2113/?tls=false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := redact(tc.in); strings.Contains(got, "hunter2") {
				t.Errorf("redact(%q) = %q, still shows the password", tc.in, got)
			}
		})
	}
}

func TestRedactError(t *testing.T) {
	const raw = "esdb://admin:hunter2@host:notaport"
	err := redactError(raw, errors.New(`parse "esdb://admin:hunter2@host:notaport": invalid port`))
	if strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "invalid port") {
		t.Errorf("redactError = %q; want the message without the password", err)
	}
	plain := errors.New("no password here")
	if got := redactError(raw, plain); got != plain {
		t.Errorf("redactError changed an error that holds no password: %v", got)
	}
}
