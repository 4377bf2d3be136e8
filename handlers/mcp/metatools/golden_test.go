package metatools

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers/mcp"
	"github.com/workbench/workbench/plugins"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGoldenToolCalls pins the JSON-RPC exchanges of every error shape of the meta-tools, through the real
// /mcp transport: protocol errors (-32602) and tool failures as successful results.
func TestGoldenToolCalls(t *testing.T) {
	e := newEnv(t, nil)
	e.creds.access = func(in *plugins.Integration) (Access, error) { return notConnected(in) }
	e.creds.connect = func(integration string) (ConnectResult, error) {
		if integration == "slack" {
			return ConnectResult{}, domain.Errorf(domain.CodeUnavailable, "slack cannot be connected on this server yet: the operator has not set SLACK_CLIENT_ID")
		}
		return ConnectResult{}, domain.Errorf(domain.CodeNotFound, "Unknown integration: %s. list_integrations names them all.", integration)
	}
	e.creds.wait = func(uuid.UUID, time.Duration) (string, error) {
		return "", domain.Errorf(domain.CodeNotFound, "no such attempt")
	}
	srv, err := mcp.New(mcp.Options{
		Auth: mcp.AuthenticatorFunc(func(r *http.Request) (mcp.Principal, error) {
			if r.Header.Get("Authorization") != "Bearer k" {
				return mcp.Principal{}, errors.New("no")
			}
			return ada, nil
		}),
		Tools: e.set, SessionKey: bytes.Repeat([]byte("s"), 32),
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	post := func(sid, body string) (*http.Response, string) {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer k")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, _ := post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
	sid := resp.Header.Get("Mcp-Session-Id")

	cases := []struct{ name, body string }{
		{"unknown_meta_tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"github_list_repos","arguments":{}}}`},
		{"meta_tool_bad_arguments", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":""}}}`},
		{"meta_tool_extra_argument", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute_tools","arguments":{"executions":[{"tool":"utils_echo"}],"dry_run":true}}}`},
		{"unknown_method", `{"jsonrpc":"2.0","id":4,"method":"prompts/list"}`},
		{"execute_not_connected", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"execute_tools","arguments":{"executions":[{"tool":"github_get_repo","args":{"owner":"o","repo":"r"}}]}}}`},
		{"execute_unknown_tool", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"execute_tools","arguments":{"executions":[{"tool":"github_teleport"}]}}}`},
		{"execute_invalid_arguments", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"execute_tools","arguments":{"executions":[{"tool":"utils_echo","args":{"message":42}}]}}}`},
		{"execute_success", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"execute_tools","arguments":{"executions":[{"tool":"utils_echo","args":{"message":"hi"}}]}}}`},
		{"get_tool_schema_unknown", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"get_tool_schema","arguments":{"tool":"nope"}}}`},
		{"execute_not_connected_apikey", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"execute_tools","arguments":{"executions":[{"tool":"newrelic_get_current_user","args":{}}]}}}`},
		{"connect_apikey", `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"connect","arguments":{"integration":"newrelic"}}}`},
		{"connect_unknown_integration", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"connect","arguments":{"integration":"nope"}}}`},
		{"connect_unconfigured", `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"connect","arguments":{"integration":"slack"}}}`},
		{"wait_for_connection_unknown", `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"wait_for_connection","arguments":{"connectionId":"00000000-0000-4000-8000-000000000000"}}}`},
		{"curl_session_unavailable", `{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"curl_session","arguments":{"integrations":["github"]}}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(sid, tc.body)
			got := tc.body + "\n" + resp.Status + "\n" + body + "\n"
			golden := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("exchange differs from %s\n--- got\n%s--- want\n%s", golden, got, want)
			}
		})
	}
}
