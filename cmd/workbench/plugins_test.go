package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPluginsCheck(t *testing.T) {
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
