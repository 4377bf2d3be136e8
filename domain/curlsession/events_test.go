package curlsession

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

func TestValidate(t *testing.T) {
	now := time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)
	minted := SessionMinted{SessionID: uuid.New(), UserID: uuid.New(), Integrations: []string{"github"}, ExpiresAt: now.Add(TTL), At: now}
	req := RequestProxied{RequestID: uuid.New(), SessionID: uuid.New(), UserID: uuid.New(), Integration: "github", Method: "GET", Path: "/user", Status: 200, At: now}
	fwd := RequestForwarded{RequestID: uuid.New(), SessionID: uuid.New(), UserID: uuid.New(), Integration: "github", Method: "GET", Path: "/user", At: now}
	cases := []struct {
		name  string
		event interface{ Validate() error }
		ok    bool
	}{
		{"minted", minted, true},
		{"minted without user", func() SessionMinted { m := minted; m.UserID = uuid.Nil; return m }(), false},
		{"minted without integrations", func() SessionMinted { m := minted; m.Integrations = nil; return m }(), false},
		{"minted expiring at once", func() SessionMinted { m := minted; m.ExpiresAt = now; return m }(), false},
		{"request", req, true},
		{"request without session", func() RequestProxied { r := req; r.SessionID = uuid.Nil; return r }(), false},
		{"request without method", func() RequestProxied { r := req; r.Method = ""; return r }(), false},
		{"request with no status", func() RequestProxied { r := req; r.Status = 0; return r }(), false},
		{"forwarded", fwd, true},
		{"forwarded without request id", func() RequestForwarded { f := fwd; f.RequestID = uuid.Nil; return f }(), false},
		{"forwarded without path", func() RequestForwarded { f := fwd; f.Path = ""; return f }(), false},
		{"forwarded without time", func() RequestForwarded { f := fwd; f.At = time.Time{}; return f }(), false},
		{"request without time", func() RequestProxied { r := req; r.At = time.Time{}; return r }(), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.event.Validate()
			if (err == nil) != c.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, c.ok)
			}
			if err != nil && domain.ErrorCode(err) != domain.CodeInvalid {
				t.Fatalf("code %s, want invalid", domain.ErrorCode(err))
			}
		})
	}
}

func TestStreamNames(t *testing.T) {
	id := uuid.MustParse("6f1c1d7e-0a4f-4a53-9d1e-2b8f7d7b9a10")
	if got := SessionStreamName(id); got != "curlsession-6f1c1d7e-0a4f-4a53-9d1e-2b8f7d7b9a10" {
		t.Errorf("session stream %q", got)
	}
}
