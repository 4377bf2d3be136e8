package main

// Toolsets in the portal, in real headless Chromium at a phone's width (390×844, no sideways scroll):
// ada opens the Toolsets page, whose scope chooser starts at her default agent; a name the server
// cannot take is refused with its message; she creates "ops" with remote_* and utils_echo, and the
// page shows version 1 with its endpoint and the snippet an MCP client takes. The Go SDK's client
// (her API key) lists exactly those tools at /mcp/ts/ops. A raw client holds the endpoint's GET
// stream; she edits ops in the page, removing utils_echo, the page shows version 2, the stream
// receives notifications/tools/list_changed and the list no longer holds utils_echo. She deletes
// ops after confirming, and the endpoint answers that there is no such toolset.

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
)

func TestToolsetsInChromium(t *testing.T) {
	t.Parallel()
	browser := launchChromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const tok = "tok-toolsets-browser-0123"
	remote := connectorstest.NewRemote(t, tok)
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{"CONNECTORS_DIR": writeRemoteConnector(t, remote), "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"}, slog.LevelWarn)
	ada := srv.user(t, "ada@example.com")
	signedIn(t, srv, ada)
	agent := organization.DefaultAgentID(ada.ID)
	if _, err := srv.M.Connectors.Connect(ctx, ada.ID, connectors.ConnectRequest{ServerID: "mcp_remote", Owner: login.Owner{Scope: login.ScopeAgent, ID: agent},
		Fields: map[string]string{"token": tok}}); err != nil {
		t.Fatal(err)
	}
	endpoint := srv.Base + "/mcp/ts/ops"

	tb := openTab(t, browser, srv.Base)
	tb.phone()
	tb.signIn(srv, ada.ID)
	const card = `article[data-toolset=ops]`
	const form = `form[data-testid=toolset-form]`
	row := func(i int, field string) string {
		return form + ` [data-testid=toolset-rows] > li:nth-child(` + strconv.Itoa(i) + `) [data-testid=toolset-entry-` + field + `]`
	}

	t.Run("create ops for the default agent", func(t *testing.T) {
		tb.t = t
		tb.open("/toolsets")
		tb.el(`main h1`, `^Toolsets$`)
		tb.waitJS("the scope chooser never settled on the default agent",
			`(v) => document.querySelector('[data-testid=toolsets-scope]')?.value === v`, "agent:"+agent.String())
		tb.el(`[data-testid=toolsets] .empty`, `No toolsets yet`)
		// The picker offers the connector's prefix and the plugin tools.
		tb.waitJS("the tool picker does not offer remote_* and utils_echo",
			`() => { const s = document.querySelector('[data-testid=toolset-picker]'); return !!s && [...s.options].some((o) => o.value === 'remote_*') && [...s.options].some((o) => o.value === 'utils_echo') }`)
		tb.el(form+` label`, `Remote`) // the connector checkbox of the login the agent holds
		tb.fits("the Toolsets page with the new-toolset form")

		// A name the server cannot take: its message shows, nothing is created.
		tb.fill(form+` [data-testid=toolset-name]`, "Bad Name")
		tb.fill(row(1, "tool"), "remote_*")
		tb.click(form+` [data-testid=toolset-add-row]`, `Add tool`)
		tb.fill(row(2, "tool"), "utils_echo")
		tb.click(form+` [data-testid=toolset-save]`, ``)
		tb.el(form+` [data-testid=toolset-form-error] .notice-error`, `not a toolset name`)
		if !tb.evalBool(`() => document.querySelector('[data-testid=toolset-name]').getAttribute('aria-invalid') === 'true'`) {
			t.Error("the refused name is not marked aria-invalid")
		}
		tb.fits("the form with the server's error")

		tb.fill(form+` [data-testid=toolset-name]`, "ops")
		tb.fill(form+` [data-testid=toolset-description-input]`, "What ops needs.")
		tb.click(form+` [data-testid=toolset-save]`, ``)
		tb.el(`[data-testid=toolsets-status] .notice-success`, `^ops saved: version 1`)
		tb.el(card+` [data-testid=toolset-version]`, `^version 1$`)
		tb.el(card+` [data-testid=toolset-description]`, `What ops needs\.`)
		tb.el(card+` li[data-entry="remote_*"]`, ``)
		tb.el(card+` li[data-entry="utils_echo"]`, ``)
		if got := tb.value(card + ` [data-testid=toolset-endpoint]`); got != endpoint {
			t.Errorf("the endpoint shown is %q, want %q", got, endpoint)
		}
		tb.click(card+` details.toolset-hint summary`, `Add it to your MCP client`)
		if got := tb.text(card + ` [data-testid=toolset-snippet]`); !strings.Contains(got, `"mcpServers"`) || !strings.Contains(got, `"url": "`+endpoint+`"`) {
			t.Errorf("the client snippet is %q", got)
		}
		// The form is back to a new toolset.
		tb.el(form+` h2`, `^New toolset$`)
		tb.fits("the toolset's card with its snippet")
		tb.shot("toolsets-phone")
	})

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "toolsets-browser", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint,
		HTTPClient: &http.Client{Transport: bearer{key: ada.Key, next: http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	names := func(t *testing.T) []string {
		t.Helper()
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatalf("tools/list of ops: %v", err)
		}
		var out []string
		for _, tool := range res.Tools {
			out = append(out, tool.Name)
		}
		return out
	}

	t.Run("the SDK client lists the set's tools", func(t *testing.T) {
		tb.t = t
		// The remote's On tools (its destructive one starts Off) and utils_echo; nothing else.
		if got := names(t); !slices.Equal(got, []string{"remote_create_issue", "remote_echo", "remote_whoami", "utils_echo"}) &&
			!slices.Equal(got, []string{"remote_echo", "remote_whoami", "utils_echo"}) {
			t.Fatalf("tools/list of ops: %v", got)
		}
	})

	t.Run("an edit in the page reaches a client holding the stream", func(t *testing.T) {
		tb.t = t
		notified := holdToolsetStream(t, ctx, endpoint, ada.Key)

		tb.click(card+` [data-testid=toolset-edit]`, `Edit`)
		tb.el(form+` h2`, `^Edit ops$`)
		if !tb.evalBool(`() => document.querySelector('[data-testid=toolset-name]').readOnly`) {
			t.Error("the name of the toolset being edited can be changed")
		}
		tb.fits("the edit form")
		tb.click(form+` button[aria-label="Remove utils_echo"]`, `Remove`)
		if has, _, _ := tb.p.Has(form + ` button[aria-label="Remove utils_echo"]`); has {
			t.Fatal("utils_echo's row is still in the form after Remove")
		}
		tb.click(form+` [data-testid=toolset-save]`, `Save new version`)
		tb.el(`[data-testid=toolsets-status] .notice-success`, `^ops saved: version 2`)
		tb.el(card+` [data-testid=toolset-version]`, `^version 2$`)
		if has, _, _ := tb.p.Has(card + ` li[data-entry="utils_echo"]`); has {
			t.Error("the card still lists utils_echo after the edit")
		}
		select {
		case got := <-notified:
			if !strings.Contains(got, `"method":"notifications/tools/list_changed"`) {
				t.Fatalf("the GET stream ended without list_changed: %q", got)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no notifications/tools/list_changed within 30 s of the edit in the page")
		}
		if got := names(t); slices.Contains(got, "utils_echo") || !slices.Contains(got, "remote_echo") {
			t.Fatalf("tools/list after the edit: %v", got)
		}
		tb.fits("the card after the edit")
	})

	t.Run("delete after confirming", func(t *testing.T) {
		tb.t = t
		tb.click(card+` [data-testid=toolset-delete]`, `Delete`)
		tb.click(`dialog [data-testid=dialog-confirm]`, `Delete toolset`)
		tb.el(`[data-testid=toolsets-status] .notice-success`, `^ops deleted`)
		tb.el(`[data-testid=toolsets] .empty`, `No toolsets yet`)
		if _, err := cs.ListTools(ctx, nil); err == nil || !strings.Contains(err.Error(), "no toolset") {
			t.Fatalf("tools/list of a deleted toolset: %v", err)
		}
	})

	t.Run("a mirror toolset serves the connector under its own names", func(t *testing.T) {
		tb.t = t
		tb.fill(form+` [data-testid=toolset-name]`, "whole")
		tb.click(form+` [data-testid=toolset-connector]`, ``)
		tb.click(form+` [data-testid=toolset-mirror]`, ``)
		tb.fits("the form with a mirror")
		tb.click(form+` [data-testid=toolset-save]`, ``)
		tb.el(`[data-testid=toolsets-status] .notice-success`, `^whole saved: version 1`)
		tb.el(`article[data-toolset=whole] [data-testid=toolset-connectors]`, `^Mirrors, under its own names`)
		whole, err := mcp.NewClient(&mcp.Implementation{Name: "toolsets-browser", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
			Endpoint: srv.Base + "/mcp/ts/whole", HTTPClient: &http.Client{Transport: bearer{key: ada.Key, next: http.DefaultTransport}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer whole.Close()
		res, err := whole.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tool := range res.Tools {
			got = append(got, tool.Name)
		}
		if !slices.Contains(got, "echo") || slices.ContainsFunc(got, func(n string) bool { return strings.HasPrefix(n, "remote_") }) {
			t.Fatalf("tools/list of the mirror: %v, want the remote's own names (echo, …)", got)
		}
		called, err := whole.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
		if err != nil || called.IsError {
			t.Fatalf("tools/call echo through the mirror: %v %+v", err, called)
		}
	})
	tb.t = t
}

// holdToolsetStream opens an MCP session at endpoint with key and holds its GET stream; the channel
// gets what the stream said once it carries notifications/tools/list_changed (or ends). The stream's
// answer headers come once its baseline is read, so an edit made after it returns is a change.
func holdToolsetStream(t *testing.T, ctx context.Context, endpoint, key string) <-chan string {
	t.Helper()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(init))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	initBody := make([]byte, 4096)
	n, _ := resp.Body.Read(initBody)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" || !strings.Contains(string(initBody[:n]), `"listChanged":true`) {
		t.Fatalf("initialize: %d %s", resp.StatusCode, initBody[:n])
	}
	streamCtx, stop := context.WithCancel(ctx)
	t.Cleanup(stop)
	get, _ := http.NewRequestWithContext(streamCtx, http.MethodGet, endpoint, nil)
	get.Header.Set("Authorization", "Bearer "+key)
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set("Mcp-Session-Id", sid)
	get.Header.Set("MCP-Protocol-Version", "2025-06-18")
	stream, err := http.DefaultClient.Do(get)
	if err != nil {
		t.Fatalf("the GET stream: %v", err)
	}
	if stream.StatusCode != http.StatusOK {
		stream.Body.Close()
		t.Fatalf("the GET stream answered %d", stream.StatusCode)
	}
	t.Cleanup(func() { stream.Body.Close() })
	notified := make(chan string, 1)
	go func() {
		buf := make([]byte, 4096)
		var got strings.Builder
		for {
			n, err := stream.Body.Read(buf)
			got.Write(buf[:n])
			if strings.Contains(got.String(), "notifications/tools/list_changed") || err != nil {
				notified <- got.String()
				return
			}
		}
	}()
	return notified
}
