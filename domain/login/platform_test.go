package login

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

func TestSyncPlatformConnectsAndDisconnects(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	id := uuid.New()
	empty := domain.Sealed{Subject: "mcp-login:" + id.String(), Blob: []byte("sealed {}")}
	on := SyncPlatform{NewLoginID: id, ServerID: "mcp_brave", KeySet: true, Credential: empty, At: at}
	off := SyncPlatform{ServerID: "mcp_brave", Reason: "platform key unset", At: at}

	// Given nothing, unset records nothing; set connects at the platform.
	if evs, err := Decide(Initial(), off); err != nil || len(evs) != 0 {
		t.Fatalf("off over nothing: %v, %v", evs, err)
	}
	evs, err := Decide(Initial(), on)
	if err != nil || len(evs) != 1 {
		t.Fatalf("on: %v, %v", evs, err)
	}
	c := evs[0].(Connected)
	if c.Owner.Scope != ScopePlatform || c.Status != StatusConnected || c.LoginID != id {
		t.Fatalf("connected: %+v", c)
	}
	s := Evolve(Initial(), c)
	// Set again: idempotent.
	if evs, err := Decide(s, on); err != nil || len(evs) != 0 {
		t.Fatalf("on again: %v, %v", evs, err)
	}
	// Unset: disconnected; then set again: the same login connects with its stored payload.
	evs, err = Decide(s, off)
	if err != nil || len(evs) != 1 {
		t.Fatalf("off: %v, %v", evs, err)
	}
	s = Evolve(s, evs[0])
	if s.Status != StatusDisconnected {
		t.Fatalf("status %s", s.Status)
	}
	on.NewLoginID = uuid.New()
	evs, err = Decide(s, on)
	if err != nil || len(evs) != 1 || evs[0].(Connected).LoginID != id {
		t.Fatalf("on after off: %v, %v", evs, err)
	}
}
