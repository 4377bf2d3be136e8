package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestREADMEPaths: every file or folder of the repository the README names, as a Markdown link or as
// a path in code, exists; and it names nothing outside the repository.
func TestREADMEPaths(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	raw, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	var paths []string
	for _, m := range regexp.MustCompile(`\]\(([^)#\s]+)[^)]*\)`).FindAllStringSubmatch(readme, -1) {
		if !strings.Contains(m[1], "://") && !strings.HasPrefix(m[1], "mailto:") {
			paths = append(paths, m[1])
		}
	}
	top := `(?:\.\./|\.ci/|app/|cmd/|domain/|eventstore/|handlers/|internal/|migrations/|plugins/|portal/|projections/)`
	for _, m := range regexp.MustCompile("`("+top+"[A-Za-z0-9_./-]*)`").FindAllStringSubmatch(readme, -1) {
		paths = append(paths, m[1])
	}
	if len(paths) < 5 {
		t.Fatalf("found only %d paths in the README: %v", len(paths), paths)
	}
	for _, p := range paths {
		if strings.HasPrefix(filepath.Clean(p), "..") {
			t.Errorf("the README names %s, outside the repository", p)
			continue
		}
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("the README names %s, which is not in the repository", p)
		}
	}
}
