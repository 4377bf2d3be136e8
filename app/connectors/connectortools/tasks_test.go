package connectortools_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
)

// taskProxy forwards to the remote and marks its tool "research" as requiring task augmentation in
// every tools/list answer (the Go SDK's server cannot say so itself).
func taskProxy(t *testing.T, target string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, u.Scheme+"://"+u.Host+r.URL.Path, bytes.NewReader(body))
		req.Header = r.Header.Clone()
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if bytes.Contains(body, []byte(`"tools/list"`)) {
			out = bytes.ReplaceAll(out, []byte(`"name":"research"`), []byte(`"execution":{"taskSupport":"required"},"name":"research"`))
		}
		for k, v := range resp.Header {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(resp.StatusCode)
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + u.Path
}

// A remote tool whose listing requires task augmentation is not offered: search_tools' part lists
// it as unavailable saying why, its schema is refused, and execute_tools refuses it without calling
// the remote. Its taskSupport is kept with the listing.
func TestTaskRequiredToolIsUnavailable(t *testing.T) {
	const tok = "tok-tasks-1"
	r := newRemote(t, tok)
	var ran atomic.Int64
	mcp.AddTool(r.MCP, &mcp.Tool{Name: "research", Description: "Research a question, as a task."}, func(ctx context.Context, req *mcp.CallToolRequest, a connectorstest.EchoArgs) (*mcp.CallToolResult, any, error) {
		ran.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "researched"}}}, nil, nil
	})
	w := newWorld(t, worldOptions{FS: manifestFS(taskProxy(t, r.URL()), nil)})
	res := w.MustConnect(owner(login.ScopeAgent, agent), tok)

	if got := w.Offered(agent); slices.Contains(got, "remote_research") || !slices.Contains(got, "remote_create_issue") {
		t.Fatalf("offered = %v", got)
	}
	found, err := w.Svc.Search(w.Ctx, execCaller(agent), "research", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].Name != "remote_research" || !strings.Contains(found[0].Unavailable, "needs task augmentation") {
		t.Fatalf("search = %+v", found)
	}
	if _, _, err := w.Svc.Schema(w.Ctx, execCaller(agent), "remote_research"); codeOf(err) != domain.CodeForbidden || !strings.Contains(err.Error(), "does not support yet") {
		t.Fatalf("schema: %v", err)
	}
	o := w.Run(agent, "remote_research", `{"text":"q"}`)
	if o.Code != executions.CodeToolError || !strings.Contains(o.Message, "remote_research is unavailable: it needs task augmentation") {
		t.Fatalf("run = %+v", o)
	}
	if ran.Load() != 0 {
		t.Fatal("the refused tool reached the remote")
	}
	// The listing recorded the tool's taskSupport.
	tools, err := w.Reader.Tools(w.Ctx, res.Login.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		if want := map[bool]string{true: "required", false: ""}[tl.Remote == "research"]; tl.TaskSupport != want {
			t.Fatalf("%s: taskSupport %q, want %q", tl.Remote, tl.TaskSupport, want)
		}
	}
}
