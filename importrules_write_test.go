package workbench_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// envelopeTypes are the names of the eventstore package that an adapter may use: the envelope's
// metadata and log positions. Anything else (Store, Append, Execute, EventData, an ExpectedVersion, an
// Aggregate) would let a handler write the log, which only app/ does (DESIGN.md).
var envelopeTypes = map[string]bool{"Metadata": true, "Position": true, "ParsePosition": true, "Start": true}

const eventstorePath = "github.com/workbench/workbench/eventstore"

// TestHandlersNeverWrite: no production file under handlers/ or portal/ names anything of eventstore but
// envelopeTypes.
func TestHandlersNeverWrite(t *testing.T) {
	var checked int
	for _, root := range []string{"handlers", "portal"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			checked++
			for _, use := range eventstoreUses(t, path) {
				if !envelopeTypes[use.name] {
					t.Errorf("%s: eventstore.%s (an adapter may use only the envelope's types: Metadata, Position, ParsePosition, Start; writing the log is app/'s)", use.pos, use.name)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked == 0 {
		t.Fatal("no file checked: run from the module root")
	}
}

type use struct {
	pos  token.Position
	name string
}

// eventstoreUses lists every selector X.Name in file where X is the file's name for the eventstore package.
func eventstoreUses(t *testing.T, file string) []use {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	local := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == eventstorePath {
			local = "eventstore"
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
	}
	if local == "" {
		return nil
	}
	if local == "_" || local == "." {
		return []use{{fset.Position(f.Package), "(imported as " + local + ")"}}
	}
	var uses []use
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == local {
				uses = append(uses, use{fset.Position(sel.Pos()), sel.Sel.Name})
			}
		}
		return true
	})
	return uses
}
