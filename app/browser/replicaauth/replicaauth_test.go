package replicaauth_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/browser/replicaauth"
)

func TestSignVerify(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	key := bytes.Repeat([]byte{7}, 32)
	s, err := replicaauth.New(key, clock)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := replicaauth.New(bytes.Repeat([]byte{8}, 32), clock)
	user := uuid.New()
	body := []byte(`{"tool":"browser_read"}`)
	signed := func(sig *replicaauth.Signer) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/api/internal/browser/tool?x=1", bytes.NewReader(body))
		sig.Sign(r, user, body)
		return r
	}

	r := signed(s)
	got, err := s.Verify(r)
	if err != nil || got != user {
		t.Fatalf("verify: %v %v", got, err)
	}
	if b, _ := io.ReadAll(r.Body); !bytes.Equal(b, body) {
		t.Fatalf("body after verify %q", b)
	}

	refused := map[string]*http.Request{}
	refused["other key"] = signed(other)
	r = signed(s)
	r.Body = io.NopCloser(strings.NewReader(`{"tool":"browser_type"}`))
	refused["other body"] = r
	r = signed(s)
	r.URL.RawQuery = "x=2"
	refused["other query"] = r
	r = signed(s)
	r.Method = http.MethodPut
	refused["other method"] = r
	r = signed(s)
	f := strings.Fields(r.Header.Get(replicaauth.Header))
	r.Header.Set(replicaauth.Header, strings.Join([]string{f[0], f[1], uuid.NewString(), f[3]}, " "))
	refused["other user"] = r
	r = signed(s)
	r.Header.Del(replicaauth.Header)
	refused["unsigned"] = r
	for name, r := range refused {
		if _, err := s.Verify(r); !errors.Is(err, replicaauth.ErrUnauthenticated) {
			t.Errorf("%s: %v", name, err)
		}
	}

	// Outside the window either way.
	r = signed(s)
	now = now.Add(replicaauth.Window + time.Second)
	if _, err := s.Verify(r); err == nil {
		t.Error("a stale request was accepted")
	}
	r = signed(s)
	now = now.Add(-2 * (replicaauth.Window + time.Second))
	if _, err := s.Verify(r); err == nil {
		t.Error("a request from the future was accepted")
	}
	if _, err := replicaauth.New(key[:16], nil); err == nil {
		t.Error("a short key was accepted")
	}
}
