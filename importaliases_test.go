package workbench_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// aliasSuffix is the alias suffix a layer's package takes when a file imports two packages of the same name
// (docs/architecture.md, "The import rules"): the app/ package keeps its name, a read model is <name>rm, an
// adapter <name>http, an aggregate <name>dom. Packages of other layers keep their name.
var aliasSuffix = map[string]string{"projections": "rm", "handlers": "http", "domain": "dom"}

// TestImportAliases holds every Go file of the module to one import-alias convention: a package of this module
// is imported by its own name, and aliased only when the same file imports another package of this module with
// that name, then as aliasSuffix says.
func TestImportAliases(t *testing.T) {
	pkgs := listPackages(t)
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	module := pkgs[0].Module.Path
	names := map[string]string{} // import path -> package name
	for _, p := range pkgs {
		names[p.ImportPath] = p.Name
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
		type imported struct{ rel, name, alias string }
		var ims []imported
		count := map[string]int{}
		for _, spec := range f.Imports {
			ip, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return err
			}
			rel, ok := inModule(module, ip)
			if !ok {
				continue
			}
			name, ok := names[ip]
			if !ok {
				t.Errorf("%s: imports %s, which go list does not know", path, ip)
				continue
			}
			alias := ""
			if spec.Name != nil {
				alias = spec.Name.Name
			}
			if alias == "_" || alias == "." {
				continue
			}
			ims = append(ims, imported{rel, name, alias})
			count[name]++
		}
		for _, im := range ims {
			want := ""
			if count[im.name] > 1 {
				if suffix, ok := aliasSuffix[strings.SplitN(im.rel, "/", 2)[0]]; ok {
					want = im.name + suffix
				}
			}
			if im.alias != want {
				shown := map[bool]string{true: "no alias", false: "alias " + want}[want == ""]
				t.Errorf("%s: %s imported as %q, want %s", path, im.rel, im.alias, shown)
			}
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
