package jots_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path"
	"strings"
	"testing"

	"github.com/workbench/workbench/app/jots"
	"github.com/workbench/workbench/app/jots/jotstest"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/plugins"
)

// The four tools, registered as the reserved jots integration and run through the registry the way
// execute_tools runs them.
func TestToolsThroughTheRegistry(t *testing.T) {
	e := jotstest.New(t, jots.Options{})
	reg, _ := plugins.Load(context.Background(), plugins.Options{})
	if err := reg.AddInternal(e.Service.Integration()); err != nil {
		t.Fatal(err)
	}
	call := func(user, tool, args string) (json.RawMessage, error) {
		tl, ok := reg.Tool(tool)
		if !ok {
			t.Fatalf("no tool %s", tool)
		}
		valid, err := plugins.ValidateArgs(tl, json.RawMessage(args))
		if err != nil {
			return nil, err
		}
		return reg.Execute(e.Ctx, tl, plugins.NewContext(tl.Owner(), plugins.ContextOptions{UserID: user}), valid)
	}
	a, b := alice.String(), bob.String()

	out, err := call(a, "deploy_jot", `{"name":"tooled"}`)
	if err != nil {
		t.Fatal(err)
	}
	var ticket struct {
		UploadURL string `json:"upload_url"`
	}
	json.Unmarshal(out, &ticket)
	if _, err := e.Service.Upload(e.Ctx, "tooled", path.Base(ticket.UploadURL), bytes.NewReader(jotstest.Archive(t, jotstest.File{Path: "index.html", Body: "hi"})), md); err != nil {
		t.Fatal(err)
	}
	if out, err = call(a, "update_jot", `{"name":"tooled","path":"data.json","content":"[1]"}`); err != nil || !strings.Contains(string(out), `"data.json"`) {
		t.Fatalf("update_jot: %s %v", out, err)
	}
	if out, err = call(a, "update_jot", `{"name":"tooled","path":"img.bin","content_base64":"AAEC"}`); err != nil || !strings.Contains(string(out), `"size":3`) {
		t.Fatalf("update_jot base64: %s %v", out, err)
	}
	if out, err = call(a, "list_jot_files", `{"name":"tooled"}`); err != nil || !strings.Contains(string(out), `"total_bytes":8`) {
		t.Fatalf("list_jot_files: %s %v", out, err)
	}
	for _, tc := range []struct{ user, tool, args, want string }{
		{b, "deploy_jot", `{"name":"tooled"}`, "belongs to another user"},
		{b, "delete_jot", `{"name":"tooled"}`, "belongs to another user"},
		{a, "update_jot", `{"name":"tooled","content":"x"}`, "content needs a path"},
		{a, "update_jot", `{"name":"tooled","path":"a","content":"x","content_base64":"eA=="}`, "not both"},
		{a, "deploy_jot", `{"name":"Bad Name"}`, "Invalid arguments"},
	} {
		_, err := call(tc.user, tc.tool, tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) && !strings.Contains(domain.ErrorMessage(err), tc.want) {
			t.Errorf("%s %s: got %v, want %q", tc.tool, tc.args, err, tc.want)
		}
	}
	if out, err = call(a, "delete_jot", `{"name":"tooled"}`); err != nil || string(out) != `{"deleted":true,"name":"tooled"}` {
		t.Fatalf("delete_jot: %s %v", out, err)
	}
}
