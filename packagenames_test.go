package workbench_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestPackageNamesUnique holds the module to one name per package (docs/architecture.md, "Package names"):
// no two importable packages share a name, so a file never needs an alias to tell two of them apart, and
// none is imported under an alias.
func TestPackageNamesUnique(t *testing.T) {
	pkgs := listPackages(t)
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	module := pkgs[0].Module.Path
	byName := map[string][]string{}
	for _, p := range pkgs {
		if p.Name == "main" {
			continue // a command is never imported
		}
		rel, _ := inModule(module, p.ImportPath)
		byName[p.Name] = append(byName[p.Name], rel)
	}
	for name, paths := range byName {
		if len(paths) > 1 {
			sort.Strings(paths)
			t.Errorf("package name %q is used by %s: give each a name of its own (a read model <name>rm, an adapter <name>http, an aggregate <name>dom)",
				name, strings.Join(paths, ", "))
		}
	}

	var checked int
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, spec := range f.Imports {
			ip, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return err
			}
			rel, ok := inModule(module, ip)
			if !ok || spec.Name == nil || spec.Name.Name == "_" {
				continue
			}
			t.Errorf("%s: %s imported as %q: import a package of this module by its own name", path, rel, spec.Name.Name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no file checked: run from the module root")
	}
}
