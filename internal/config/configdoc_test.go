package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigurationDocIsGenerated keeps docs/configuration.md what the table of variables generates.
func TestConfigurationDocIsGenerated(t *testing.T) {
	path := filepath.Join(moduleRoot(t), DocPath)
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v (generate it: go generate ./internal/config)", DocPath, err)
	}
	want := Markdown()
	if string(got) == want {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(want, "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("%s differs from what internal/config/variables.go generates, first at line %d:\n have %q\n want %q\nregenerate it: go generate ./internal/config", DocPath, i+1, g, w)
		}
	}
}

func TestMarkdownHasEveryAreaAndVariable(t *testing.T) {
	doc := Markdown()
	for _, a := range Areas {
		if !strings.Contains(doc, "\n## "+string(a)+"\n") {
			t.Errorf("no section for area %q", a)
		}
	}
	for _, v := range Variables {
		if !strings.Contains(doc, "| `"+v.Name+"` |") {
			t.Errorf("no row for %s", v.Name)
		}
	}
	if !strings.Contains(doc, "| `BROWSER_MAX_PAGES` | `4` | pages (tabs, popups) one session keeps open; at each tool call the pages beyond it, other than the one the tools drive, are closed; a whole number of pages from 1 to 100 |") {
		t.Errorf("a whole-number row does not state its bounds:\n%s", doc)
	}
}

// moduleRoot is the directory holding go.mod, above the package's directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}
