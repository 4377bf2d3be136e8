package proxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/workbench/workbench/app/curlsessions"
	"github.com/workbench/workbench/domain/curlsession"
	"github.com/workbench/workbench/eventstore"
)

// switchedStore is the real store behind a switch: while down, every append fails as a database
// outage would, and nothing reaches the store.
type switchedStore struct {
	next curlsessions.Appender
	down atomic.Bool
}

var errOutage = errors.New("connect: connection refused")

func (s *switchedStore) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.Position, error) {
	if s.down.Load() {
		return eventstore.Position{}, errOutage
	}
	return s.next.Append(ctx, stream, expected, events...)
}

// A request is in the log before the provider sees it: the provider, on receiving it, finds its
// RequestForwarded record already readable.
func TestForwardedRecordPrecedesTheProvider(t *testing.T) {
	e := newEnv(t, envOptions{})
	s := e.mint(t, e.user, "keyed")
	var found atomic.Int32
	hook := func(r *http.Request) {
		for _, f := range events[curlsession.RequestForwarded](t, e, curlsession.TypeRequestForwarded, 0) {
			// The request id is time-ordered (UUIDv7): the completed record takes it as its event id.
			if f.Path == "/durable" && f.SessionID == s.SessionID && f.Method == "PUT" && f.RequestID.Version() == 7 {
				found.Add(1)
			}
		}
	}
	e.api.onRequest.Store(&hook)
	if status, _, body := e.do(t, "PUT", "/c/keyed/durable", s.Token, strings.NewReader("x"), nil); status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	if found.Load() != 1 {
		t.Fatal("the provider received the request before its RequestForwarded record (with a UUIDv7 request id) was in the log")
	}
}

// While the log cannot be written the proxy refuses with 503 and Retry-After, sends nothing to the
// provider and answers no refusal it could not record; once the log is back, requests go through and
// are recorded.
func TestAuditOutageRefusesRequests(t *testing.T) {
	var sw *switchedStore
	e := newEnv(t, envOptions{wrapStore: func(a curlsessions.Appender) curlsessions.Appender { sw = &switchedStore{next: a}; return sw }})
	s := e.mint(t, e.user, "keyed")
	if status, _, body := e.do(t, "GET", "/c/keyed/before", s.Token, nil, nil); status != 200 {
		t.Fatalf("before the outage: %d %s", status, body)
	}
	sw.down.Store(true)
	sent := e.api.count()
	for _, path := range []string{"/c/keyed/during", "/c/other/during", "/c/keyed/../during"} {
		status, hdr, body := e.do(t, "GET", path, s.Token, nil, nil)
		var eb struct{ Error, Message string }
		_ = json.Unmarshal(body, &eb)
		if status != http.StatusServiceUnavailable || hdr.Get("Retry-After") == "" || eb.Error != "audit_unavailable" {
			t.Errorf("%s during the outage: %d Retry-After=%q %s", path, status, hdr.Get("Retry-After"), body)
		}
	}
	if n := e.api.count(); n != sent {
		t.Errorf("the provider received %d requests during the outage", n-sent)
	}
	sw.down.Store(false)
	if status, _, body := e.do(t, "GET", "/c/keyed/after", s.Token, nil, nil); status != 200 {
		t.Fatalf("after the outage: %d %s", status, body)
	}
	recs := events[curlsession.RequestProxied](t, e, curlsession.TypeRequestProxied, 2)
	paths := map[string]int{}
	for _, r := range recs {
		paths[r.Path] = r.Status
	}
	if len(recs) != 2 || paths["/before"] != 200 || paths["/after"] != 200 {
		t.Fatalf("records %v, want /before and /after only", paths)
	}
}

// An outcome whose append fails is retried until the log takes it: a request forwarded just before
// an outage longer than a few retries still gets its RequestProxied record once the log is back.
func TestOutcomeSurvivesAnOutage(t *testing.T) {
	var sw *switchedStore
	e := newEnv(t, envOptions{wrapStore: func(a curlsessions.Appender) curlsessions.Appender { sw = &switchedStore{next: a}; return sw }})
	s := e.mint(t, e.user, "keyed")
	// The outage starts while the provider answers: the RequestForwarded record is in, the outcome
	// is not.
	hook := func(*http.Request) { sw.down.Store(true) }
	e.api.onRequest.Store(&hook)
	if status, _, body := e.do(t, "GET", "/c/keyed/caught", s.Token, nil, nil); status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	e.api.onRequest.Store(nil)
	// Longer than the three attempts a record once had (100 + 200 ms apart).
	time.Sleep(1500 * time.Millisecond)
	if n := len(events[curlsession.RequestProxied](t, e, curlsession.TypeRequestProxied, 0)); n != 0 {
		t.Fatalf("%d outcome records written during the outage", n)
	}
	sw.down.Store(false)
	recs := events[curlsession.RequestProxied](t, e, curlsession.TypeRequestProxied, 1)
	if len(recs) != 1 || recs[0].Path != "/caught" || recs[0].Status != 200 {
		t.Fatalf("after the outage: records %+v", recs)
	}
}
