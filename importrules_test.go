package workbench_test

// The import rules of the whole repository, as one test (DESIGN.md, "Import rules"). Each top-level folder is a
// layer; an arrow from a package to another package of this module is allowed only when the table below lists
// it. `make test` and `make lint` run it; a wrong-way import fails with one line per arrow:
//
//	internal/vault -> handlers (internal may import: internal/..., eventstore/..., domain/...)
//
// Decisions the table in DESIGN.md leaves open, written down here:
//
//   - Every layer may import its own folder (handlers/mcp imports handlers, eventstore/sqlite imports
//     eventstore); the rules are about arrows between layers.
//   - internal may import domain "types only": a package graph cannot tell a type from a function, so that
//     half of the rule stays with review.
//   - plugins may import the root domain package (the one application error type with its codes, which a
//     tool returns), never an aggregate under domain/.
//   - migrations imports nothing of the repository: it is SQL embedded with its dialect names. projections
//     imports it for migrations.Dialect (a read model's SQL is per dialect); cmd applies it.
//   - portal is an HTTP surface (it serves the embedded single-page app), so it follows the handlers rule.
//   - handlers (and portal) may import the eventstore root package for the envelope's types only: an audit
//     record's Metadata, a Position to wait for or page by. They never write the log: TestHandlersNeverWrite
//     reads every production file under handlers/ and portal/ and allows only the names in envelopeTypes.
//   - Test code (in-package and _test packages) may import what its package may, plus what builds a real
//     environment: the event store and its backends, migrations and the test helper packages: the test
//     environment internal/testenv, which every layer's tests share, and a package whose name ends in
//     "test", such as eventstore/storetest or projections/projectiontest. A read model's tests may also
//     import app/, to write its events the way production does. Test code never reaches up into handlers/
//     or cmd/ from below. A test helper package is itself held to its layer's test rule, since only tests
//     import it: internal/testenv may import internal/, eventstore/, domain/ and migrations, never
//     projections/ or app/. Production code never imports a test helper package.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
)

// layerRules maps a layer (the first element of a package path inside the module) to the packages it may
// import. "x/..." allows x and everything below it; "x" allows exactly x.
var layerRules = map[string][]string{
	"domain":      {"domain/..."},
	"eventstore":  {"eventstore/..."},
	"internal":    {"internal/...", "eventstore/...", "domain/..."},
	"projections": {"projections/...", "domain/...", "eventstore/...", "internal/...", "migrations"},
	"plugins":     {"plugins/...", "internal/ssrf", "internal/config", "domain"},
	"app":         {"app/...", "domain/...", "eventstore/...", "projections/...", "plugins/...", "internal/..."},
	"handlers":    {"handlers/...", "app/...", "domain/...", "projections/...", "plugins/...", "internal/...", "eventstore"},
	"portal":      {"portal/...", "handlers/...", "app/...", "domain/...", "projections/...", "plugins/...", "internal/...", "eventstore"},
	"migrations":  {"migrations/..."},
	"cmd":         {"..."},
}

// externalRules limits what a layer's production code may import from outside the module and the standard
// library. The domain is pure: the standard library and uuid, nothing else.
var externalRules = map[string][]string{
	"domain": {"github.com/google/uuid"},
}

// testExtras is what test code of any layer may import on top of its layer's rule.
var testExtras = []string{"eventstore/...", "migrations/...", testEnv}

// testEnv is the test environment every layer's tests share (a test helper package, see isTestHelper).
const testEnv = "internal/testenv"

// layerTestExtras is what test code of one layer may import on top of testExtras.
var layerTestExtras = map[string][]string{
	"projections": {"app/..."},
}

// knownViolations are the wrong-way arrows of the tree as it stands while the use cases move into app/ and
// the HTTP edge code into handlers/. The list can only shrink: the test fails when an arrow listed here no
// longer exists, so whoever removes an arrow also removes its line. Keys are "pkg -> import", with " (test)"
// for arrows that only test code draws.
var knownViolations = map[string]string{
	// app/connections' flow tests drive a connect end to end over the portal's real HTTP routes (the
	// callback, the API-key form, the claim link) with a real session cookie. They move once one shared
	// test environment builds a whole node for every package's tests.
	"app/connections -> handlers/portalhttp (test)": "its flow test serves the connect pages over HTTP",
	"app/connections -> handlers/websession (test)": "its flow test signs the user in with a real session cookie",
}

type listedPackage struct {
	ImportPath   string
	Name         string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Module       *struct{ Path string }
}

func TestImportRules(t *testing.T) {
	pkgs := listPackages(t)
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	module := pkgs[0].Module.Path

	found := map[string]bool{}
	var report []string
	for _, p := range pkgs {
		from, ok := inModule(module, p.ImportPath)
		if !ok || from == "" {
			continue // the root holds only this test
		}
		layer, _, _ := strings.Cut(from, "/")
		rule, ok := layerRules[layer]
		if !ok {
			report = append(report, fmt.Sprintf("%s: top-level folder %q has no import rule; add it to layerRules", from, layer))
			continue
		}
		testRule := unique(slices.Concat(rule, testExtras, layerTestExtras[layer]))

		check := func(imports []string, allowed []string, test bool) {
			for _, imp := range imports {
				to, ok := inModule(module, imp)
				if !ok || to == from {
					continue
				}
				if !test && isTestHelper(to) && !isTestHelper(from) {
					report = append(report, fmt.Sprintf("%s -> %s (production code never imports a test helper package)", from, to))
					continue
				}
				if allows(allowed, to) || (test && isTestHelper(to)) {
					continue
				}
				key := from + " -> " + to
				if test {
					key += " (test)"
				}
				if found[key] {
					continue
				}
				found[key] = true
				if _, known := knownViolations[key]; known {
					continue
				}
				kind := layer + " may import"
				if test || isTestHelper(from) {
					kind = layer + " tests may import"
				}
				report = append(report, fmt.Sprintf("%s -> %s (%s: %s)", from, to, kind, strings.Join(allowed, ", ")))
			}
		}
		if ext, ok := externalRules[layer]; ok {
			for _, imp := range p.Imports {
				first, _, _ := strings.Cut(imp, "/")
				if _, mine := inModule(module, imp); mine || !strings.Contains(first, ".") || slices.Contains(ext, imp) {
					continue
				}
				report = append(report, fmt.Sprintf("%s -> %s (%s may import outside the module: the standard library, %s)", from, imp, layer, strings.Join(ext, ", ")))
			}
		}
		if isTestHelper(from) {
			check(p.Imports, testRule, false)
		} else {
			check(p.Imports, rule, false)
		}
		check(slices.Concat(p.TestImports, p.XTestImports), testRule, true)
	}

	for key := range knownViolations {
		if !found[key] {
			report = append(report, fmt.Sprintf("%s no longer exists: remove it from knownViolations", key))
		}
	}
	sort.Strings(report)
	for _, line := range report {
		t.Error(line)
	}
}

// listPackages runs `go list -json ./...` from the module root (the directory of this test).
func listPackages(t *testing.T) []listedPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var pkgs []listedPackage
	for {
		var p listedPackage
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		if p.Module == nil {
			t.Fatalf("%s: go list reports no module", p.ImportPath)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// inModule returns path relative to the module ("" for the module root) and whether it belongs to the module.
func inModule(module, path string) (string, bool) {
	if path == module {
		return "", true
	}
	rel, ok := strings.CutPrefix(path, module+"/")
	return rel, ok
}

// allows reports whether a rule lets a package import pkg.
func allows(rule []string, pkg string) bool {
	for _, r := range rule {
		if r == "..." || r == pkg {
			return true
		}
		if base, ok := strings.CutSuffix(r, "/..."); ok && (pkg == base || strings.HasPrefix(pkg, base+"/")) {
			return true
		}
	}
	return false
}

// isTestHelper reports whether pkg exists only for tests: it is the test environment, or its last path
// element ends in "test".
func isTestHelper(pkg string) bool {
	return pkg == testEnv || strings.HasSuffix(pkg[strings.LastIndex(pkg, "/")+1:], "test")
}

// unique drops repeated entries, keeping the first of each.
func unique(rule []string) []string {
	var out []string
	for _, r := range rule {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// innerRules are the arrows inside one area that the layer table cannot say: the plugin and connector
// runtimes never import a provider (plugins/shipped is where they meet), a provider imports only the
// runtimes, and the connector use cases point one way, tools → logins → catalog → core. Each entry
// names a package (or, with the key "plugins/<provider>", every provider package) and the packages of
// its area it may import; production code only (tests may reach across, to build a node).
var innerRules = []struct {
	from, area string
	may        []string
}{
	{"plugins", "plugins/...", []string{"plugins/connector"}},
	{"plugins/connector", "plugins/...", nil},
	{"plugins/<provider>", "plugins/...", []string{"plugins", "plugins/connector"}},
	{"app/connectors/mcpclient", "app/connectors/...", nil},
	{"app/connectors/connectorcore", "app/connectors/...", []string{"app/connectors/mcpclient"}},
	{"app/connectors/connectorcatalog", "app/connectors/...", []string{"app/connectors/connectorcore", "app/connectors/mcpclient"}},
	{"app/connectors/connectorlogins", "app/connectors/...", []string{"app/connectors/connectorcore", "app/connectors/connectorcatalog", "app/connectors/mcpclient"}},
	{"app/connectors/connectortools", "app/connectors/...", []string{"app/connectors/connectorcore", "app/connectors/connectorcatalog", "app/connectors/connectorlogins", "app/connectors/mcpclient"}},
}

// notProviders are the packages under plugins/ that are not a provider's.
var notProviders = []string{"plugins", "plugins/connector", "plugins/shipped", "plugins/plugintest"}

func TestInnerRules(t *testing.T) {
	pkgs := listPackages(t)
	module := pkgs[0].Module.Path
	providers := 0
	for _, p := range pkgs {
		from, _ := inModule(module, p.ImportPath)
		key := from
		if strings.HasPrefix(from, "plugins/") && !slices.Contains(notProviders, from) {
			key, providers = "plugins/<provider>", providers+1
		}
		for _, r := range innerRules {
			if r.from != key {
				continue
			}
			for _, imp := range p.Imports {
				to, ok := inModule(module, imp)
				if ok && allows([]string{r.area}, to) && !slices.Contains(r.may, to) {
					t.Errorf("%s -> %s (%s may import, of %s: %s)", from, to, r.from, r.area, strings.Join(r.may, ", "))
				}
			}
		}
	}
	if providers < 16 {
		t.Errorf("found %d provider packages under plugins/, want the sixteen shipped integrations and more", providers)
	}
}
