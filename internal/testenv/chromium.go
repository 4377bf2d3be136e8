package testenv

import (
	"os"
	"testing"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
)

// ChromiumEnvVar overrides where the Chromium binary is.
const ChromiumEnvVar = "WORKBENCH_CHROMIUM"

// DefaultChromium is where Debian installs Chromium.
const DefaultChromium = "/usr/bin/chromium"

// ChromiumBin returns the Chromium binary (ChromiumEnvVar, else DefaultChromium); when it is missing
// the test is skipped, or fails under CI=true. The binary is always named, so go-rod never downloads a
// browser.
func ChromiumBin(t testing.TB) string {
	t.Helper()
	bin := os.Getenv(ChromiumEnvVar)
	if bin == "" {
		bin = DefaultChromium
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no Chromium at %s in CI (.ci/run installs it): %v", bin, err)
		}
		t.Skipf("no Chromium at %s (install Debian's chromium or set %s): %v", bin, ChromiumEnvVar, err)
	}
	return bin
}

// LaunchChromium starts Chromium headless, off the network (no background networking, component
// updates or sync: these machines reach nothing outside), and connects go-rod to it; both are stopped
// when the test ends.
func LaunchChromium(t testing.TB) *rod.Browser {
	t.Helper()
	bin := ChromiumBin(t)
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
