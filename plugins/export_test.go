package plugins

import "testing"

// builtinsForTest is the shipped set (plugins/shipped.Plugins()), handed in by TestMain in
// main_test.go: this package's own tests cannot import plugins/shipped, which imports the providers,
// which import this package; the external test package main_test.go belongs to can.
var builtinsForTest []Builtin

// SetBuiltinsForTest is how TestMain hands the shipped set to this package's tests.
func SetBuiltinsForTest(b []Builtin) { builtinsForTest = b }

// shippedBuiltins is the shipped set for a test that loads the real provider folders.
func shippedBuiltins(t testing.TB) []Builtin {
	t.Helper()
	if len(builtinsForTest) == 0 {
		t.Fatal("no built-in plugins: TestMain (main_test.go) hands them in from plugins/shipped")
	}
	return builtinsForTest
}
