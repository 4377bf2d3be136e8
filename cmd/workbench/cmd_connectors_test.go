package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConnectorsCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(folder, body string) {
		os.MkdirAll(filepath.Join(dir, folder), 0o755)
		if err := os.WriteFile(filepath.Join(dir, folder, "connector.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("good", `{"slug":"good","display_name":"Good","endpoint":{"url":"https://mcp.example.com/mcp"},"auth":{"kind":"token"}}`)
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"connectors", "check", dir}, envFunc(nil), &out, &errOut); err != nil || !strings.Contains(out.String(), "ok: 1 connector(s) would load") {
		t.Fatalf("check: %v %q %q", err, out.String(), errOut.String())
	}
	write("bad", `{"slug":"worse","display_name":"Bad","auth":{"kind":"token"}}`)
	write("sentry", `{"slug":"sentry","display_name":"Mine","endpoint":{"url":"https://mcp.example.com/mcp"},"auth":{"kind":"none"}}`)
	out.Reset()
	errOut.Reset()
	err := run(context.Background(), []string{"connectors", "check", dir}, envFunc(nil), &out, &errOut)
	for _, want := range []string{`bad: slug "worse" is not its folder's name "bad"`, "bad: a connector needs an endpoint, an adapter, or both", "sentry: a shipped connector has this slug"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if err == nil || !strings.Contains(errOut.String(), "1 connector(s) would load") {
		t.Fatalf("check: %v %q", err, errOut.String())
	}
}
