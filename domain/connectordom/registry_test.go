package connectordom

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/workbench/workbench/domain"
)

func TestDecideRegistry(t *testing.T) {
	ev := Installed{ID: "mcp_notes", Slug: "notes", ToolPrefix: "notes", Manifest: json.RawMessage(`{}`), Digest: "d1", Source: SourceRegistry,
		Verified: true, Publisher: "Acme", At: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	// Given no stream, when installed from the registry, then the event as given.
	evs, err := Decide(Initial(), InstallFromRegistry{Event: ev})
	if err != nil || len(evs) != 1 || !evs[0].(Installed).Verified {
		t.Fatalf("new: %v, %v", evs, err)
	}
	// Given an installed connector (any source), a registry install of its slug is a conflict naming the source.
	s := Evolve(Initial(), Installed{ID: "mcp_notes", Slug: "notes", ToolPrefix: "notes", Digest: "d0", Source: "core"})
	if _, err := Decide(s, InstallFromRegistry{Event: ev}); domain.ErrorCode(err) != domain.CodeConflict || domain.ErrorMessage(err) != `a connector with slug "notes" is already installed (source core)` {
		t.Fatalf("existing: %v", err)
	}
	// Another source is refused; so is what Install refuses (no digest).
	bad := ev
	bad.Source = "core"
	if _, err := Decide(Initial(), InstallFromRegistry{Event: bad}); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Fatalf("source core: %v", err)
	}
	bad = ev
	bad.Digest = ""
	if _, err := Decide(Initial(), InstallFromRegistry{Event: bad}); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Fatalf("no digest: %v", err)
	}
}
