// Package chromiumtest gives tests the machine's Chromium: the binary, or a headless browser driven by
// go-rod. Without Chromium a test is skipped, and under CI=true it fails (.ci/run installs Debian's
// chromium package). The binary is always named, so rod never downloads a browser; the flags keep
// Chromium off the network, which these machines do not reach.
package chromiumtest

import (
	"os"
	"testing"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
)

// EnvVar overrides where the Chromium binary is.
const EnvVar = "WORKBENCH_CHROMIUM"

// DefaultBin is where Debian installs Chromium.
const DefaultBin = "/usr/bin/chromium"

// Bin returns the Chromium binary (WORKBENCH_CHROMIUM, else DefaultBin); when it is missing the test
// is skipped, or fails under CI=true.
func Bin(t testing.TB) string {
	t.Helper()
	bin := os.Getenv(EnvVar)
	if bin == "" {
		bin = DefaultBin
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no Chromium at %s in CI (.ci/run installs it): %v", bin, err)
		}
		t.Skipf("no Chromium at %s (install Debian's chromium or set %s): %v", bin, EnvVar, err)
	}
	return bin
}

// Launch starts Chromium headless and connects rod to it; both are stopped when the test ends.
func Launch(t testing.TB) *rod.Browser {
	t.Helper()
	bin := Bin(t)
	l := launcher.New().Bin(bin).NoSandbox(true).Headless(true).Leakless(false).
		Set("disable-background-networking").Set("disable-component-update").Set("disable-sync")
	u, err := l.Launch()
	if err != nil {
		t.Fatalf("launch %s: %v", bin, err)
	}
	t.Cleanup(func() { l.Kill(); l.Cleanup() })
	b := rod.New().ControlURL(u)
	if err := b.Connect(); err != nil {
		t.Fatalf("connect to Chromium: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}
