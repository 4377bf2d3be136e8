package curlsession_test

import (
	"go/build"
	"strings"
	"testing"
)

// The domain is pure: it imports the standard library, uuid and the domain package, nothing else
// (DESIGN.md, import rules).
func TestImportsArePure(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		first, _, _ := strings.Cut(imp, "/")
		if strings.Contains(first, ".") && imp != "github.com/google/uuid" && imp != "github.com/workbench/workbench/domain" {
			t.Errorf("the domain imports %s", imp)
		}
	}
}
