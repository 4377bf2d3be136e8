package shipped

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workbench/workbench/plugins"
)

func TestShippedFoldersLoad(t *testing.T) {
	cs, problems := LoadConnectors(nil)
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	got := map[string]bool{}
	for _, c := range cs {
		got[c.Manifest.Slug] = true
		if len(c.Logo) == 0 {
			t.Errorf("%s has no logo", c.Manifest.Slug)
		}
	}
	for _, want := range []string{"sentry", "github-mcp", "todoist", "github", "brave"} {
		if !got[want] {
			t.Errorf("%s did not load", want)
		}
	}
}

// Every provider folder under plugins/ is wired in: a plugin folder (it holds manifest.json) is in
// Plugins with the bytes it holds on disk and has a contract test, and every connector folder (plugins/<provider>/connectors/<slug>) is in ConnectorFS with
// the bytes it holds on disk.
func TestEveryProviderFolderIsShipped(t *testing.T) {
	inPlugins := map[string]plugins.Builtin{}
	for _, b := range Plugins() {
		inPlugins[b.Folder] = b
	}
	entries, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	connectors := 0
	for _, e := range entries {
		dir := filepath.Join("..", e.Name())
		if _, err := os.Stat(filepath.Join(dir, plugins.ManifestFile)); err == nil {
			b, ok := inPlugins[e.Name()]
			if !ok {
				t.Errorf("plugin folder %s is not in Plugins()", e.Name())
			}
			for _, f := range []string{plugins.ManifestFile, plugins.ToolsFile, "logo.svg"} {
				assertSameBytes(t, b, f, filepath.Join(dir, f))
			}
			// Every built-in plugin's tools are held to their provider's documented requests.
			if src, err := os.ReadFile(filepath.Join(dir, "contract_test.go")); err != nil || !strings.Contains(string(src), "plugintest.Contracts(") {
				t.Errorf("plugin folder %s has no contract_test.go running plugintest.Contracts", e.Name())
			}
			delete(inPlugins, e.Name())
		}
		slugs, _ := os.ReadDir(filepath.Join(dir, "connectors"))
		for _, s := range slugs {
			connectors++
			for _, f := range []string{"connector.json", "logo.svg"} {
				want, err := os.ReadFile(filepath.Join(dir, "connectors", s.Name(), f))
				if err != nil {
					t.Fatal(err)
				}
				got, err := fs.ReadFile(ConnectorFS(), s.Name()+"/"+f)
				if err != nil || string(got) != string(want) {
					t.Errorf("ConnectorFS %s/%s: %v, or not the bytes on disk", s.Name(), f, err)
				}
			}
		}
	}
	for folder := range inPlugins {
		t.Errorf("Plugins() has %s, which is no folder under plugins/", folder)
	}
	root, err := fs.ReadDir(ConnectorFS(), ".")
	if err != nil || len(root) != connectors {
		t.Errorf("ConnectorFS lists %d folders (%v), want %d", len(root), err, connectors)
	}
	r, problems := plugins.Load(context.Background(), plugins.Options{Builtins: Plugins()})
	if len(problems) > 0 || len(r.Integrations()) != len(Plugins()) {
		t.Errorf("%d of %d built-in plugins loaded; problems: %v", len(r.Integrations()), len(Plugins()), problems)
	}
}

func assertSameBytes(t *testing.T, b plugins.Builtin, name, onDisk string) {
	t.Helper()
	want, err := os.ReadFile(onDisk)
	if err != nil {
		t.Fatal(err)
	}
	if b.FS == nil {
		return
	}
	got, err := fs.ReadFile(b.FS, name)
	if err != nil || string(got) != string(want) {
		t.Errorf("%s: %s is %v, or not the bytes on disk", b.Folder, name, err)
	}
}
