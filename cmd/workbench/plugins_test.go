package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPluginsCheck(t *testing.T) {
	t.Parallel()
	// The README's example plugin is valid.
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"plugins", "check", "../../plugins/examples/jsonplaceholder"}, envFunc(nil), &out, &errOut); err != nil {
		t.Fatalf("example plugin: %v\n%s%s", err, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "ok: 1 integration(s) with 3 tool(s)") {
		t.Fatalf("output %q", out.String())
	}

	// A directory of broken plugins: every problem is printed with its location.
	dir := t.TempDir()
	write := func(folder, file, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, folder), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, folder, file), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("acme", "manifest.json", `{"name":"acme","version":"1","display_name":"Acme","description":"d","base_url":"http://acme.example","auth":{"mode":"oauth2"}}`)
	write("acme", "tools.json", `[]`)
	write("clash", "manifest.json", `{"name":"clash","version":"1","display_name":"Clash","description":"d","auth":{"mode":"none"}}`)
	write("clash", "tools.json", `[{"name":"clash_x","description":"d","input_schema":{"type":"object"},"handler":"go"}]`)
	write("jots", "manifest.json", `{"name":"jots","version":"1","display_name":"J","description":"d","auth":{"mode":"none"}}`)
	write("jots", "tools.json", `[]`)
	out.Reset()
	err := run(context.Background(), []string{"plugins", "check", dir}, envFunc(nil), &out, &errOut)
	if !errors.Is(err, errProblems) {
		t.Fatalf("err = %v, want problems", err)
	}
	for _, want := range []string{
		filepath.Join(dir, "acme") + ": manifest.json: auth.oauth2: is required",
		filepath.Join(dir, "clash") + ": tools.json: [0](clash_x).handler",
		filepath.Join(dir, "jots") + ": folder name \"jots\" is reserved",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if err := run(context.Background(), []string{"plugins", "check", filepath.Join(dir, "absent")}, envFunc(nil), &out, &errOut); err == nil {
		t.Fatal("a missing directory passed")
	}
}

// TestPluginsCheckEveryProblem: one run reports every problem of a plugin (its manifest, its auth
// block and each tool), counts problems rather than plugins, honours WORKBENCH_DEV_ALLOW_LOOPBACK as
// serve does; and serve logs a skipped plugin once.
func TestPluginsCheckEveryProblem(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	folder := filepath.Join(dir, "trio")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	// Three problems: no description, oauth2 without its block, a Go handler that does not exist. The
	// base URL is on loopback over http: a fourth problem unless WORKBENCH_DEV_ALLOW_LOOPBACK is set.
	for file, body := range map[string]string{
		"manifest.json": `{"name":"trio","version":"1","display_name":"Trio","description":" ","base_url":"http://127.0.0.1:9","auth":{"mode":"oauth2"}}`,
		"tools.json":    `[{"name":"trio_get","description":"d","input_schema":{"type":"object"},"http":{"method":"GET","path":"/x"}},{"name":"trio_go","description":"d","input_schema":{"type":"object"},"handler":"go"}]`,
	} {
		if err := os.WriteFile(filepath.Join(folder, file), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		folder + ": manifest.json: description: is required",
		folder + ": manifest.json: auth.oauth2: is required",
		folder + ": tools.json: [1](trio_go).handler: no Go handler is registered",
	}
	check := func(env map[string]string) (lines []string, summary string) {
		t.Helper()
		var out, errOut bytes.Buffer
		if err := run(context.Background(), []string{"plugins", "check", dir}, envFunc(env), &out, &errOut); !errors.Is(err, errProblems) {
			t.Fatalf("err = %v, want problems\n%s%s", err, out.String(), errOut.String())
		}
		return strings.Split(strings.TrimSpace(out.String()), "\n"), errOut.String()
	}

	lines, summary := check(map[string]string{"WORKBENCH_DEV_ALLOW_LOOPBACK": "true"})
	if len(lines) != len(want) {
		t.Errorf("%d lines, want %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i, w := range want {
		if i >= len(lines) || !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d lacks %q:\n%s", i, w, strings.Join(lines, "\n"))
		}
	}
	if !strings.HasPrefix(summary, "3 problem(s) in 1 plugin(s)") {
		t.Errorf("summary %q", summary)
	}

	lines, summary = check(nil)
	if len(lines) != 4 || !strings.Contains(strings.Join(lines, "\n"), `base_url: "http://127.0.0.1:9" must use https`) || !strings.HasPrefix(summary, "4 problem(s)") {
		t.Errorf("without WORKBENCH_DEV_ALLOW_LOOPBACK:\n%s\n%s", strings.Join(lines, "\n"), summary)
	}
	var errOut bytes.Buffer
	if err := run(context.Background(), []string{"plugins", "check", dir}, envFunc(map[string]string{"WORKBENCH_DEV_ALLOW_LOOPBACK": "maybe"}), io.Discard, &errOut); err == nil || !strings.Contains(err.Error(), "WORKBENCH_DEV_ALLOW_LOOPBACK") {
		t.Errorf("a malformed WORKBENCH_DEV_ALLOW_LOOPBACK: %v", err)
	}

	// serve skips the plugin and says so once.
	s := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{"PLUGINS_DIR": dir}, slog.LevelInfo)
	logs := s.logs.tail(1 << 20)
	if n := strings.Count(logs, folder); n != 1 {
		t.Errorf("the skipped plugin is logged %d times, want once:\n%s", n, logs)
	}
}
