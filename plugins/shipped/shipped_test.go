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
// Plugins with the bytes it holds on disk and has a contract test, and every connector folder
// (plugins/<provider>/connectors/<slug>) is in ConnectorFolders once, with the bytes it holds on disk.
func TestEveryProviderFolderIsShipped(t *testing.T) {
	inPlugins := map[string]plugins.Builtin{}
	for _, b := range Plugins() {
		inPlugins[b.Folder] = b
	}
	entries, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	connectors := map[string]bool{}
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
			if connectors[s.Name()] {
				t.Errorf("two providers ship a connector %s", s.Name())
			}
			connectors[s.Name()] = true
			for _, f := range []string{"connector.json", "logo.svg"} {
				want, err := os.ReadFile(filepath.Join(dir, "connectors", s.Name(), f))
				if err != nil {
					t.Fatal(err)
				}
				found := 0
				for _, folder := range ConnectorFolders() {
					if got, err := fs.ReadFile(folder, s.Name()+"/"+f); err == nil {
						found++
						if string(got) != string(want) {
							t.Errorf("ConnectorFolders %s/%s: not the bytes on disk", s.Name(), f)
						}
					}
				}
				if found != 1 {
					t.Errorf("ConnectorFolders hold %s/%s %d times, want once", s.Name(), f, found)
				}
			}
		}
	}
	for folder := range inPlugins {
		t.Errorf("Plugins() has %s, which is no folder under plugins/", folder)
	}
	listed := 0
	for _, folder := range ConnectorFolders() {
		root, err := fs.ReadDir(folder, ".")
		if err != nil {
			t.Fatal(err)
		}
		listed += len(root)
	}
	if listed != len(connectors) {
		t.Errorf("ConnectorFolders list %d folders, want %d", listed, len(connectors))
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
