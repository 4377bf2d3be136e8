package plugins_test

import (
	"os"
	"testing"

	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/plugins/shipped"
)

// TestMain hands the shipped plugin folders to the tests of package plugins (export_test.go), which
// exercise the runtime with the real provider manifests and handlers but cannot import
// plugins/shipped themselves.
func TestMain(m *testing.M) {
	plugins.SetBuiltinsForTest(shipped.Plugins())
	os.Exit(m.Run())
}
