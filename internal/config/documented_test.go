package config

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestEveryVariableReadIsDocumented parses every non-test Go file of the module and collects the
// variables it reads: the constant first argument of getenv(...), os.Getenv(...), os.LookupEnv(...),
// any .Getenv(...) method, and, in this package, of the reader's methods. Every name read must be in
// Variables, and every entry of Variables must be read somewhere. Reads in _test.go files are not
// collected: a test's own switches (benchmark scales, golden-file updates) are documented where they
// are read; the test-support packages' variables are, being non-test files, in the Tests area.
func TestEveryVariableReadIsDocumented(t *testing.T) {
	reads, unresolved := scanEnvReads(t, moduleRoot(t))
	for _, u := range unresolved {
		t.Errorf("%s: reads a variable whose name is not a constant; read it by a constant name (or through the config package's reader) so this test can check it", u)
	}
	if len(reads) < 20 {
		t.Fatalf("found only %d variables read in the module; the scan is broken: %v", len(reads), reads)
	}
	missing, stale := compareWithTable(reads, Variables)
	for _, name := range missing {
		t.Errorf("%s is read (%s) but is not in the table of variables (internal/config/variables.go); add it there and run go generate ./internal/config", name, strings.Join(reads[name], ", "))
	}
	for _, name := range stale {
		t.Errorf("%s is in the table of variables (internal/config/variables.go) but no code of the module reads it; remove it and run go generate ./internal/config", name)
	}
}

// TestCompareWithTableFindsGaps shows that the check above can fail: a table short of one entry
// reports that variable missing, and an entry nothing reads is stale.
func TestCompareWithTableFindsGaps(t *testing.T) {
	reads := map[string][]string{"PORT": {"a.go:1"}, "HOST": {"b.go:2"}}
	table := []Var{{Name: "PORT"}, {Name: "LOG_LEVEL"}}
	missing, stale := compareWithTable(reads, table)
	if !slices.Equal(missing, []string{"HOST"}) || !slices.Equal(stale, []string{"LOG_LEVEL"}) {
		t.Fatalf("missing %v, stale %v; want [HOST] and [LOG_LEVEL]", missing, stale)
	}
	withoutPort := slices.DeleteFunc(slices.Clone(Variables), func(v Var) bool { return v.Name == "PORT" })
	real, _ := scanEnvReads(t, moduleRoot(t))
	if missing, _ := compareWithTable(real, withoutPort); !slices.Contains(missing, "PORT") {
		t.Fatalf("with PORT left out of the table, missing is %v; want PORT in it", missing)
	}
}

// compareWithTable returns the names read but not in table, and the table's names not read, sorted.
func compareWithTable(reads map[string][]string, table []Var) (missing, stale []string) {
	known := make(map[string]bool, len(table))
	for _, v := range table {
		known[v.Name] = true
		if _, ok := reads[v.Name]; !ok {
			stale = append(stale, v.Name)
		}
	}
	for name := range reads {
		if !known[name] {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	slices.Sort(stale)
	return missing, stale
}

// scanEnvReads returns, for each variable name read by the module's non-test code, where it is read,
// and the places that read a variable by a name it cannot resolve to a constant.
func scanEnvReads(t *testing.T, root string) (reads map[string][]string, unresolved []string) {
	t.Helper()
	modPath := modulePath(t, root)
	fset := token.NewFileSet()
	files := map[string][]*ast.File{} // by directory
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "node_modules" || name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files[filepath.Dir(path)] = append(files[filepath.Dir(path)], f)
		return nil
	})
	if err != nil {
		t.Fatalf("walking the module: %v", err)
	}
	consts := map[string]map[string]string{} // directory -> constant -> string value
	for dir, fs := range files {
		consts[dir] = stringConsts(fs)
	}
	configDir := filepath.Join(root, "internal", "config")
	readerMethods := methodsOf(files[configDir], "reader")
	if len(readerMethods) == 0 {
		t.Fatalf("no methods of reader found in %s; the scan is out of date", configDir)
	}
	reads = map[string][]string{}
	for dir, fs := range files {
		for _, f := range fs {
			s := &fileScan{fset: fset, root: root, modPath: modPath, dir: dir, consts: consts, imports: importsOf(f)}
			if dir == configDir {
				s.methods = readerMethods
			}
			s.scan(f, reads, &unresolved)
		}
	}
	return reads, unresolved
}

// fileScan resolves the names read in one file.
type fileScan struct {
	fset          *token.FileSet
	root, modPath string
	dir           string
	consts        map[string]map[string]string
	imports       map[string]string // local name -> import path
	methods       map[string]bool   // the reader's methods, in the config package only
}

func (s *fileScan) scan(f *ast.File, reads map[string][]string, unresolved *[]string) {
	for _, decl := range f.Decls {
		if fd, ok := decl.(*ast.FuncDecl); ok && s.methods != nil && receiverIs(fd, "reader") {
			continue // the reader's own methods pass names through
		}
		ast.Inspect(decl, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 || !s.readsEnv(call.Fun) {
				return true
			}
			pos := s.fset.Position(call.Pos())
			where := fmt.Sprintf("%s:%d", relPath(s.root, pos.Filename), pos.Line)
			if name, ok := s.resolve(call.Args[0]); ok {
				reads[name] = append(reads[name], where)
			} else {
				*unresolved = append(*unresolved, where)
			}
			return true
		})
	}
}

// readsEnv reports whether a call of fun reads the environment.
func (s *fileScan) readsEnv(fun ast.Expr) bool {
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name == "getenv"
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok && x.Name == "os" && (f.Sel.Name == "Getenv" || f.Sel.Name == "LookupEnv") {
			return true
		}
		return f.Sel.Name == "Getenv" || s.methods[f.Sel.Name]
	}
	return false
}

// resolve evaluates a constant string expression: a literal, a constant of this or another package of
// the module, or a sum of them.
func (s *fileScan) resolve(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		v, err := strconv.Unquote(e.Value)
		return v, err == nil
	case *ast.Ident:
		v, ok := s.consts[s.dir][e.Name]
		return v, ok
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		if !ok {
			return "", false
		}
		path, ok := s.imports[x.Name]
		if !ok || !strings.HasPrefix(path, s.modPath+"/") {
			return "", false
		}
		dir := filepath.Join(s.root, filepath.FromSlash(strings.TrimPrefix(path, s.modPath+"/")))
		v, ok := s.consts[dir][e.Sel.Name]
		return v, ok
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		a, ok1 := s.resolve(e.X)
		b, ok2 := s.resolve(e.Y)
		return a + b, ok1 && ok2
	case *ast.ParenExpr:
		return s.resolve(e.X)
	}
	return "", false
}

// stringConsts collects the package-level constants given as string literals.
func stringConsts(files []*ast.File) map[string]string {
	out := map[string]string{}
	for _, f := range files {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if v, err := strconv.Unquote(lit.Value); err == nil {
							out[name.Name] = v
						}
					}
				}
			}
		}
	}
	return out
}

// methodsOf names the methods declared on the type named recv.
func methodsOf(files []*ast.File, recv string) map[string]bool {
	out := map[string]bool{}
	for _, f := range files {
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && receiverIs(fd, recv) {
				out[fd.Name.Name] = true
			}
		}
	}
	return out
}

func receiverIs(fd *ast.FuncDecl, recv string) bool {
	if fd.Recv == nil || len(fd.Recv.List) != 1 {
		return false
	}
	typ := fd.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	id, ok := typ.(*ast.Ident)
	return ok && id.Name == recv
}

// importsOf maps each import's local name to its path.
func importsOf(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		out[name] = path
	}
	return out
}

// modulePath reads the module line of go.mod.
func modulePath(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.TrimSpace(rest)
		}
	}
	t.Fatal("go.mod has no module line")
	return ""
}

func relPath(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil {
		return r
	}
	return path
}
