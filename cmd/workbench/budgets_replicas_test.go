package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/organization"
)

// A budget is exact across replicas: 64 calls at once, half through each of two replicas (separate
// processes on one PostgreSQL and one bus), against a limit of 10 (a minute and a day, so that no
// token refills while they run): exactly 10 reach the remote.
func TestBudgetAcrossTwoReplicas(t *testing.T) {
	t.Parallel()
	const tok = "tok-budget-replicas-0123"
	remote := connectorstest.NewRemote(t, tok)
	c := newCluster(t, 2, map[string]string{"CONNECTORS_DIR": writeRemoteConnector(t, remote), "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"})
	ada := c.user("ada@example.com")
	c.start()
	portal := func(method, path string, body any) (int, string) {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, c.replicas[0].base+path, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", c.public)
		resp, err := c.browser(ada).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(out)
	}
	agent := organization.DefaultAgentID(ada.ID)
	if status, body := portal(http.MethodPost, "/api/mcp/connections", map[string]string{"mcp_server_id": "mcp_remote", "owner_scope": "agent",
		"owner_id": agent.String(), "token": tok}); status != http.StatusCreated {
		t.Fatalf("connect through A: %d %s", status, body)
	}
	if status, body := portal(http.MethodPut, "/api/budgets", map[string]any{"owner_scope": "agent", "owner_id": agent.String(), "per_minute": 10, "per_day": 10}); status != http.StatusNoContent {
		t.Fatalf("set the budget through A: %d %s", status, body)
	}
	var sessions []*sdk.ClientSession
	for i := range 8 {
		cs, _ := c.mcp(i%2).connectSDK(t, ada.Key)
		defer cs.Close()
		sessions = append(sessions, cs)
	}
	// Both replicas see the login and the budget before the burst (B within its cache's second).
	for i, cs := range sessions[:2] {
		eventually(t, "replica "+c.replicas[i].name+" offers remote_echo", 30*time.Second, func() error {
			var out struct {
				Tools []struct{ Name string } `json:"tools"`
			}
			call(t, cs, "search_tools", map[string]any{"query": "echo", "integration": "mcp_remote"}, &out)
			if len(out.Tools) == 0 {
				return errors.New("not offered yet")
			}
			return nil
		})
	}
	var ran, limited atomic.Int64
	var wrong sync.Map
	var wg sync.WaitGroup
	for _, cs := range sessions {
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "execute_tools", Arguments: map[string]any{"executions": []any{ex("remote_echo", map[string]any{"text": "x"})}}})
				if err != nil {
					wrong.Store(err.Error(), true)
					return
				}
				text := res.Content[0].(*sdk.TextContent).Text
				switch {
				case strings.Contains(text, "echo: x"):
					ran.Add(1)
				case strings.Contains(text, `"error":"RATE_LIMITED"`):
					limited.Add(1)
				default:
					wrong.Store(text, true)
				}
			}()
		}
	}
	wg.Wait()
	wrong.Range(func(k, _ any) bool { t.Errorf("an unexpected answer: %v", k); return true })
	if ran.Load() != 10 || limited.Load() != 54 || remote.Calls.Load() != 10 {
		t.Fatalf("64 calls on two replicas against 10: %d ran, %d RATE_LIMITED, %d reached the remote; want 10, 54, 10", ran.Load(), limited.Load(), remote.Calls.Load())
	}
}
