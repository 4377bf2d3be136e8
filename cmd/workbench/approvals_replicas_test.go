package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/organization"
)

// An approval works across replicas: the call is held on A, the person approves through B's portal
// API while the agent's retry waits on A, and the call runs once.
func TestApprovalAcrossTwoReplicas(t *testing.T) {
	t.Parallel()
	const tok = "tok-approval-replicas-0123"
	remote := connectorstest.NewRemote(t, tok)
	c := newCluster(t, 2, map[string]string{"CONNECTORS_DIR": writeRemoteConnector(t, remote), "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"})
	ada := c.user("ada@example.com")
	c.start()
	portal := func(i int, method, path string, body any) (int, string) {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, c.replicas[i].base+path, bytes.NewReader(b))
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
	if status, body := portal(0, http.MethodPost, "/api/mcp/connections", map[string]string{"mcp_server_id": "mcp_remote", "owner_scope": "agent",
		"owner_id": agent.String(), "token": tok}); status != http.StatusCreated {
		t.Fatalf("connect through A: %d %s", status, body)
	}
	if status, body := portal(0, http.MethodPut, "/api/mcp/switches", map[string]any{"owner_scope": "agent", "owner_id": agent.String(), "mcp_server_id": "mcp_remote",
		"tool": "remote_echo", "state": "ask"}); status != http.StatusNoContent {
		t.Fatalf("Ask through A: %d %s", status, body)
	}
	cs, _ := c.mcp(0).connectSDK(t, ada.Key)
	defer cs.Close()
	x := ex("remote_echo", map[string]any{"text": "across"})
	var id string
	eventually(t, "A holds remote_echo back for approval", 30*time.Second, func() error {
		r := execute(t, cs, x).Results[0]
		json.Unmarshal(r["approval_id"], &id) //nolint:errcheck // an empty id is retried
		if id == "" {
			return errors.New(string(r["error"]))
		}
		return nil
	})
	x["approval_id"] = id
	done := make(chan execResults, 1)
	go func() { done <- execute(t, cs, x) }()
	eventually(t, "B approves", 30*time.Second, func() error {
		if status, body := portal(1, http.MethodPost, "/api/approvals/"+id+"/approve", nil); status != http.StatusOK {
			return errors.New(body)
		}
		return nil
	})
	select {
	case r := <-done:
		if !strings.Contains(string(r.Results[0]["result"]), "echo: across") || remote.Calls.Load() != 1 {
			t.Fatalf("the call approved on B, waiting on A: %v, %d calls", r.Results[0], remote.Calls.Load())
		}
	case <-time.After(90 * time.Second):
		t.Fatal("the call waiting on A never answered")
	}
}
