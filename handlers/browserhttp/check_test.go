package browserhttp_test

import (
	"bytes"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/browser"
	"github.com/workbench/workbench/internal/signed"
)

// GET /api/browser-session/live/check tells the live view whether its link can ever stream: 204 for
// the owner's genuine link; 400 INVALID_LINK for a forged, malformed or expired one (genuinely signed,
// past its expiry), with the reason; 403 for another user's; 401 signed out; 403 CROSS_ORIGIN from
// another site. The page stops on each refusal instead of reconnecting (portal/static/assets/pages/live.js).
func TestLiveLinkCheck(t *testing.T) {
	e := newEnv(t)
	owner, other := uuid.New(), uuid.New()
	c := e.client(owner)
	q := c.liveQuery("")
	var body struct{ Error, Message string }
	if st := c.do("GET", "/api/browser-session/live/check"+q, nil, nil); st != http.StatusNoContent {
		t.Fatalf("the owner's link: %d, want 204", st)
	}
	if st := c.do("GET", "/api/browser-session/live/check?t=forged", nil, &body); st != http.StatusBadRequest || body.Error != "INVALID_LINK" {
		t.Errorf("a forged link: %d %+v, want 400 INVALID_LINK", st, body)
	}
	// The same key the server seals with, an expiry a minute ago.
	sealer, err := signed.New[browser.LiveClaim](bytes.Repeat([]byte("v"), 32), browser.LiveLabel, nil)
	if err != nil {
		t.Fatal(err)
	}
	expired, err := sealer.Seal(browser.LiveClaim{UserID: owner.String()}, time.Now().Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	body.Error, body.Message = "", ""
	if st := c.do("GET", "/api/browser-session/live/check?t="+url.QueryEscape(expired), nil, &body); st != http.StatusBadRequest || body.Error != "INVALID_LINK" || !bytes.Contains([]byte(body.Message), []byte("expired")) {
		t.Errorf("an expired link: %d %+v, want 400 INVALID_LINK saying it expired", st, body)
	}
	if st := e.client(other).do("GET", "/api/browser-session/live/check"+q, nil, nil); st != http.StatusForbidden {
		t.Errorf("another user's link: %d, want 403", st)
	}
	if st := e.client(uuid.Nil).do("GET", "/api/browser-session/live/check"+q, nil, nil); st != http.StatusUnauthorized {
		t.Errorf("signed out: %d, want 401", st)
	}
	foreign := e.client(owner)
	foreign.origin = "http://evil.example"
	body.Error = ""
	if st := foreign.do("GET", "/api/browser-session/live/check"+q, nil, &body); st != http.StatusForbidden || body.Error != "CROSS_ORIGIN" {
		t.Errorf("from another origin: %d %+v, want 403 CROSS_ORIGIN", st, body)
	}
}
