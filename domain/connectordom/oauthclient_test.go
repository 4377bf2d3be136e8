package connectordom

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/workbench/workbench/domain"
)

func TestRegisterClient(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	installed := Installed{ID: "mcp_hosted", Slug: "hosted", ToolPrefix: "hosted", Manifest: json.RawMessage(`{}`), Digest: "d1", Source: "core", At: at}
	reg := ClientRegistered{ID: "mcp_hosted", Issuer: "https://as.example", RedirectURI: "https://wb.example/api/mcp/oauth/callback", ClientID: "c1", At: at}

	if _, err := Decide(Initial(), RegisterClient{Event: reg}); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("no connector: %v", err)
	}
	s := Evolve(Initial(), installed)
	evs, err := Decide(s, RegisterClient{Event: reg})
	if err != nil || len(evs) != 1 {
		t.Fatalf("first registration: %v %v", evs, err)
	}
	s = Evolve(s, evs[0])
	// Another request registered first: the stored client stays the connector's.
	other := reg
	other.ClientID = "c2"
	if evs, err := Decide(s, RegisterClient{Event: other}); err != nil || len(evs) != 0 {
		t.Fatalf("second registration: %v %v", evs, err)
	}
	// Another redirect URI gets its own client.
	elsewhere := reg
	elsewhere.RedirectURI, elsewhere.ClientID = "http://127.0.0.1:8080/api/mcp/oauth/callback", "c3"
	if evs, err := Decide(s, RegisterClient{Event: elsewhere}); err != nil || len(evs) != 1 {
		t.Fatalf("another redirect URI: %v %v", evs, err)
	}
	// A reinstall keeps the client.
	installed.Digest = "d2"
	s = Evolve(s, installed)
	if got := s.Client(reg.Issuer, reg.RedirectURI); got != "c1" {
		t.Fatalf("after a reinstall the client is %q", got)
	}
	if _, err := Decide(s, RegisterClient{Event: ClientRegistered{ID: "mcp_hosted", At: at}}); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Fatalf("an empty registration: %v", err)
	}
}
