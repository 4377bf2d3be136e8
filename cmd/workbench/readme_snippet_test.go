package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runREADMESnippet runs the README's TypeScript SDK snippet, as a newcomer would paste it, against the
// served binary: only the URL changes (to the test server's), and the key comes from the environment
// variable the snippet reads. It must list the nine meta-tools.
func runREADMESnippet(t *testing.T, clients string, srv *servedBinary, key string) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)\\*The TypeScript SDK\\*.*?```js\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no ```js block after *The TypeScript SDK*")
	}
	const documented = "http://localhost:8080/mcp"
	snippet := string(m[1])
	if !strings.Contains(snippet, documented) {
		t.Fatalf("the README's TypeScript snippet does not connect to %s:\n%s", documented, snippet)
	}
	file := filepath.Join(clients, "readme-snippet.generated.mjs")
	if err := os.WriteFile(file, []byte(strings.ReplaceAll(snippet, documented, srv.Base+"/mcp")), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(file) })
	out, err := runNode(t, clients, []string{"WORKBENCH_API_KEY=" + key}, filepath.Base(file))
	if err != nil {
		t.Fatalf("the README's TypeScript snippet: %v\n%s", err, out)
	}
	for _, tool := range []string{"search_tools", "get_tool_schema", "execute_tools", "whoami", "list_integrations", "connect", "wait_for_connection", "get_auth_url", "curl_session"} {
		if !strings.Contains(string(out), "'"+tool+"'") {
			t.Errorf("the README's TypeScript snippet printed %q; want %s among the tools", out, tool)
		}
	}
}
