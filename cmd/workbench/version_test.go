package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionCommand(t *testing.T) {
	t.Parallel()
	want := "workbench " + binaryVersion() + "\n"
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), args, envFunc(nil), &stdout, &stderr); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if stdout.String() != want || stderr.Len() != 0 {
			t.Fatalf("%v printed %q (stderr %q), want %q", args, stdout.String(), stderr.String(), want)
		}
	}
	if binaryVersion() == "" {
		t.Fatal("empty version")
	}
}

func TestResolveVersion(t *testing.T) {
	t.Parallel()
	vcs := func(rev, modified string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/workbench/workbench", Version: "(devel)"}}
		if rev != "" {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: "vcs.revision", Value: rev})
		}
		if modified != "" {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: "vcs.modified", Value: modified})
		}
		return bi
	}
	tagged := vcs("0123456789abcdef0123", "false")
	tagged.Main.Version = "v1.4.0"
	cases := []struct {
		name, linked string
		bi           *debug.BuildInfo
		want         string
	}{
		{"link-time version wins", "v9.9.9", tagged, "v9.9.9"},
		{"module version", "", tagged, "v1.4.0"},
		{"clean revision", "", vcs("0123456789abcdef0123", "false"), "0123456789ab"},
		{"dirty revision", "", vcs("0123456789abcdef0123", "true"), "0123456789ab-dirty"},
		{"devel without vcs", "", vcs("", ""), "dev"},
		{"no build info", "", nil, "dev"},
	}
	for _, tc := range cases {
		if got := resolveVersion(tc.linked, tc.bi); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestMCPServerInfoVersion: a served instance names its version in initialize, as the protocol's
// schema requires (clients built on the TypeScript SDK refuse an initialize result without it).
func TestMCPServerInfoVersion(t *testing.T) {
	// Serial: it sets the package-level version that every served instance reports.
	// As if linked with -ldflags "-X main.version=v0.0.0-linked".
	defer func(v string) { version = v }(version)
	version = "v0.0.0-linked"
	s := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), nil, slog.LevelWarn)
	u := s.user(t, "ada@example.com")
	req, _ := http.NewRequest("POST", s.Base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+u.Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var got struct {
		Result struct {
			ProtocolVersion string
			ServerInfo      struct{ Name, Version string }
		}
	}
	if err := json.Unmarshal(b, &got); err != nil || resp.StatusCode != 200 {
		t.Fatalf("initialize: %d %s", resp.StatusCode, b)
	}
	if got.Result.ServerInfo.Name != "workbench" || got.Result.ServerInfo.Version != "v0.0.0-linked" || got.Result.ProtocolVersion != "2025-03-26" {
		t.Fatalf("initialize result %+v, want version v0.0.0-linked", got.Result)
	}
}
