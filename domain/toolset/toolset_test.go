package toolset

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

func TestMirrorServesExactlyOneConnector(t *testing.T) {
	owner := Owner{Scope: "agent", ID: uuid.New()}
	at := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		connectors []string
		ok         bool
	}{{nil, false}, {[]string{"mcp_a"}, true}, {[]string{"mcp_a", "mcp_b"}, false}} {
		evs, err := Decide(Initial(), Save{Owner: owner, Name: "m", Connectors: c.connectors, Mirror: true, At: at,
			Entries: []Entry{{Tool: "test_*"}}})
		if c.ok != (err == nil) {
			t.Fatalf("mirror with connectors %v: %v", c.connectors, err)
		}
		if err != nil {
			if domain.ErrorCode(err) != domain.CodeInvalid {
				t.Fatalf("mirror with connectors %v: code %s", c.connectors, domain.ErrorCode(err))
			}
			continue
		}
		if s := evs[0].(Saved); !s.Mirror || s.Version != 1 {
			t.Fatalf("saved %+v", s)
		}
	}
}

// A toolset.saved written before mirror existed (as the code of 933a54e wrote it) reads as a plain,
// namespaced toolset.
func TestSavedBeforeMirrorReadsAsPlain(t *testing.T) {
	old := `{"owner":{"scope":"agent","id":"5f0c8a53-7d62-4d0c-9a39-2d7f7f0a5e11"},"name":"ops","entries":[{"tool":"remote_*"}],"connectors":["mcp_remote"],"version":1,"by":"u","at":"2026-12-01T10:00:00Z"}`
	var s Saved
	if err := json.Unmarshal([]byte(old), &s); err != nil {
		t.Fatal(err)
	}
	if s.Mirror || len(s.Connectors) != 1 || s.Version != 1 {
		t.Fatalf("old event read as %+v", s)
	}
	b, _ := json.Marshal(s)
	if string(b) != old {
		t.Fatalf("a plain toolset encodes as\n%s\nnot as before\n%s", b, old)
	}
}
