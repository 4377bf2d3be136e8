package curlsessions

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/curlsession"
)

// The hand-written encoders write exactly what encoding/json writes, for every field set and unset,
// and for text that encoding/json escapes (quotes, backslashes, HTML characters, control characters,
// non-ASCII, invalid UTF-8, U+2028).
func TestRecordEncodingMatchesEncodingJSON(t *testing.T) {
	// A field added to a record must be added to its encoder too.
	if n := reflect.TypeFor[curlsession.RequestForwarded]().NumField(); n != 10 {
		t.Fatalf("RequestForwarded has %d fields; encodeForwarded writes 10: update it", n)
	}
	if n := reflect.TypeFor[curlsession.RequestProxied]().NumField(); n != 15 {
		t.Fatalf("RequestProxied has %d fields; encodeProxied writes 15: update it", n)
	}
	texts := []string{"", "github", "/repos/o%2Fr/issues", `a"b\c`, "<script>&amp;", "tab\there\nnl\x00\x1f\x7f",
		"héllo wörld", "\xff\xfe invalid", "line\u2028sep\u2029", "emoji 🎉"}
	times := []time.Time{
		time.Date(2026, 12, 1, 19, 0, 0, 0, time.UTC),
		time.Date(2026, 12, 1, 19, 0, 0, 123456789, time.UTC),
		time.Date(2026, 12, 1, 19, 0, 0, 5000, time.FixedZone("x", 3600+1800)),
	}
	keys := [][]string{nil, {}, {"a"}, {"q", "state", `we"ird`, "<k>"}}
	for i, text := range texts {
		for j, at := range times {
			for k, qk := range keys {
				f := curlsession.RequestForwarded{RequestID: uuid.Must(uuid.NewV7()), SessionID: uuid.New(), UserID: uuid.New(),
					Integration: text, Method: texts[(i+1)%len(texts)], Path: texts[(i+2)%len(texts)], QueryKeys: qk,
					ConnectionVersion: int64(k * j), Account: texts[(i+4)%len(texts)], At: at}
				same(t, f, encodeForwarded)
				p := curlsession.RequestProxied{RequestID: f.RequestID, SessionID: f.SessionID, UserID: f.UserID,
					Integration: f.Integration, Method: f.Method, Path: f.Path, QueryKeys: qk, Status: 200 + i,
					ErrorCode: texts[(i+3)%len(texts)], RequestBytes: int64(i * 1000), ResponseBytes: -int64(j), DurationMS: int64(k),
					ConnectionVersion: int64(j - k), Account: texts[(i+5)%len(texts)], At: at}
				same(t, p, encodeProxied)
			}
		}
	}
	same(t, curlsession.RequestProxied{}, encodeProxied)
	same(t, curlsession.RequestForwarded{}, encodeForwarded)
	// A time encoding/json refuses, the encoder refuses too.
	if _, err := encodeForwarded(curlsession.RequestForwarded{At: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}); err == nil {
		t.Fatal("year 10000 encoded")
	}
}

func same[T any](t *testing.T, v T, enc func(T) ([]byte, error)) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := enc(v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("encoded\n%s\nencoding/json\n%s", got, want)
	}
}

// The synchronous appends share their deadline contexts (one per deadlineStep) but keep each caller's
// values, and each ends AuditTimeout after it was made.
func TestSharedDeadlinesKeepTheCallersValues(t *testing.T) {
	var d deadlines
	type key struct{}
	before := time.Now()
	a := withDeadline{Context: d.get(), values: context.WithValue(context.Background(), key{}, "a")}
	b := withDeadline{Context: d.get(), values: context.WithValue(context.Background(), key{}, "b")}
	if a.Value(key{}) != "a" || b.Value(key{}) != "b" {
		t.Fatalf("values %v %v", a.Value(key{}), b.Value(key{}))
	}
	dl, ok := a.Deadline()
	if !ok || dl.Before(before.Add(AuditTimeout)) || dl.After(time.Now().Add(AuditTimeout)) {
		t.Fatalf("deadline %v, want AuditTimeout from now", dl)
	}
	if a.Err() != nil {
		t.Fatal(a.Err())
	}
}
