package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/uuid"
)

// rawListing is a streamable-HTTP MCP server written by hand (the SDK's server always sends
// readOnlyHint): initialize, notifications, and tools/list answered with tools, as JSON or as an
// event stream.
func rawListing(t *testing.T, sse bool, tools string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no", http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &m)
		var result string
		switch m.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}`
		case "tools/list":
			result = `{"tools":` + tools + `}`
			var c bytes.Buffer
			if err := json.Compact(&c, []byte(result)); err != nil {
				panic(err)
			}
			result = c.String()
		default:
			if len(m.ID) == 0 {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			result = `{}`
		}
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
		w.Header().Set("Mcp-Session-Id", "raw-session")
		if sse && m.Method == "tools/list" {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\r\ndata: %s\r\n\r\n", msg)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, msg)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A listed tool whose annotations leave out readOnlyHint has no readOnlyHint (nil), not false; one
// that gives it keeps it, true or false.
func TestAnAbsentReadOnlyHintStaysAbsent(t *testing.T) {
	tools := `[{"name":"none","inputSchema":{"type":"object"}},
		{"name":"destructive_only","inputSchema":{"type":"object"},"annotations":{"destructiveHint":true}},
		{"name":"read_only","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}},
		{"name":"not_read_only","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false}}]`
	want := map[string]string{"none": "<nil>", "destructive_only": "<nil>", "read_only": "true", "not_read_only": "false"}
	for _, sse := range []bool{false, true} {
		t.Run(fmt.Sprintf("sse=%v", sse), func(t *testing.T) {
			p := New(Options{AllowLoopback: true})
			defer p.Close()
			ts, err := p.ListTools(context.Background(), uuid.New(), Endpoint{URL: rawListing(t, sse, tools)})
			if err != nil || len(ts) != len(want) {
				t.Fatalf("listing: %d tools, %v", len(ts), err)
			}
			for _, tl := range ts {
				got := "<nil>"
				if tl.ReadOnlyHint != nil {
					got = fmt.Sprint(*tl.ReadOnlyHint)
				}
				if got != want[tl.Name] {
					t.Errorf("%s: readOnlyHint %s, want %s", tl.Name, got, want[tl.Name])
				}
			}
			if ts[1].DestructiveHint == nil || !*ts[1].DestructiveHint {
				t.Errorf("destructive_only lost its destructiveHint")
			}
		})
	}
}
