package main

// The gateway is as conformant as the server behind it: a reference remote server written with the
// official TypeScript SDK to the conformance suite's scenario descriptions
// (testdata/remote/conformance-server.mjs) is connected as a connector, a mirror toolset serves it whole
// under its own names, and every server scenario of the pinned @modelcontextprotocol/conformance runs
// against the toolset's endpoint, /mcp/ts/conformance. None is exempt.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
)

// throughToolset classifies every server scenario of the pinned suite for a toolset endpoint: all apply.
var throughToolset = func() map[string]string {
	m := map[string]string{}
	for name := range serverScenarios {
		m[name] = ""
	}
	return m
}()

func TestConformanceThroughAToolset(t *testing.T) {
	t.Parallel()
	clients := clientsDir(t) // skips (fails under CI=true) without Node and npm; sets pinnedNode
	const tok = "tok-conformance-remote-0123"
	endpoint := startNodeRemote(t, clients, "conformance-server.mjs", tok)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "conf"), 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := fmt.Sprintf(`{"slug":"conf","display_name":"Conformance reference","endpoint":{"url":%q},"auth":{"kind":"token"}}`, endpoint)
	if err := os.WriteFile(filepath.Join(dir, "conf", "connector.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{"CONNECTORS_DIR": dir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"}, slog.LevelWarn)
	ada := srv.user(t, "ada@example.com")
	agent := login.Owner{Scope: login.ScopeAgent, ID: organization.DefaultAgentID(ada.ID)}
	if _, err := srv.M.Connectors.Connect(t.Context(), ada.ID, connectors.ConnectRequest{ServerID: "mcp_conf", Owner: agent, Fields: map[string]string{"token": tok}}); err != nil {
		t.Fatal(err)
	}
	saveToolset(t, srv, ada, map[string]any{"owner_scope": "agent", "owner_id": agent.ID.String(), "name": "conformance",
		"description": "The conformance reference server, whole.", "connectors": []string{"mcp_conf"}, "mirror": true})
	runConformance(t, clients, srv.Base+"/mcp/ts/conformance", ada.Key, throughToolset, true)

	// What the suite does not check: a remote tool's output schema is listed, and its structured result
	// passes through.
	t.Run("output schema", func(t *testing.T) {
		cs := sdkSession(t, srv.Base+"/mcp/ts/conformance", ada.Key)
		defer cs.Close()
		list, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var schema any
		for _, tool := range list.Tools {
			if tool.Name == "test_structured_content" {
				schema = tool.OutputSchema
			}
		}
		if b, _ := json.Marshal(schema); !strings.Contains(string(b), `"temperature"`) {
			t.Fatalf("test_structured_content is listed with outputSchema %s", b)
		}
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "test_structured_content", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := json.Marshal(res.StructuredContent); res.IsError || string(b) != `{"temperature":21.5,"unit":"celsius"}` {
			t.Fatalf("test_structured_content answered %s (isError %v)", b, res.IsError)
		}
	})

	// What the suite does not check: a subscribed resource's update reaches the client, on its GET
	// stream, under the toolset's name for it (the reference server changes a subscribed resource every
	// 200 ms); unsubscribing is answered; an empty URI is refused.
	t.Run("resource updates", func(t *testing.T) {
		updated := make(chan string, 4)
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "subscriber", Version: "1"}, &sdk.ClientOptions{
			ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) { updated <- req.Params.URI },
		}).Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: srv.Base + "/mcp/ts/conformance",
			HTTPClient: &http.Client{Transport: &bearerTransport{key: ada.Key, base: http.DefaultTransport}}, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		if caps := cs.InitializeResult().Capabilities.Resources; caps == nil || !caps.Subscribe {
			t.Fatalf("the toolset does not declare resources.subscribe: %+v", caps)
		}
		if err := cs.Subscribe(t.Context(), &sdk.SubscribeParams{URI: "test://watched-resource"}); err != nil {
			t.Fatal(err)
		}
		select {
		case uri := <-updated:
			if uri != "test://watched-resource" {
				t.Fatalf("notifications/resources/updated for %q, want test://watched-resource", uri)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no notifications/resources/updated for test://watched-resource within 30s of subscribing")
		}
		if err := cs.Unsubscribe(t.Context(), &sdk.UnsubscribeParams{URI: "test://watched-resource"}); err != nil {
			t.Fatal(err)
		}
		if err := cs.Subscribe(t.Context(), &sdk.SubscribeParams{URI: ""}); err == nil || !strings.Contains(err.Error(), "needs a uri") {
			t.Fatalf("resources/subscribe with an empty uri: %v, want -32602 saying it needs a uri", err)
		}
	})
}

// saveToolset saves a toolset through the portal's API as user (PUT /api/toolsets with the user's
// session cookie) and fails the test unless it is saved.
func saveToolset(t *testing.T, srv *e2eServer, user e2eUser, body map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPut, srv.Base+"/api/toolsets", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", srv.Base)
	cookie, err := srv.M.Sessions.Cookie(user.ID)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(cookie)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("PUT /api/toolsets (waiting up to a minute for the answer): %v", err)
	}
	defer resp.Body.Close()
	var saved bytes.Buffer
	_, _ = saved.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(saved.String(), fmt.Sprintf("/mcp/ts/%s", body["name"])) {
		t.Fatalf("save the toolset %v: %d %s", body["name"], resp.StatusCode, saved.String())
	}
}
