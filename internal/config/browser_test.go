package config

import (
	"testing"
	"time"
)

func TestReadBrowser(t *testing.T) {
	runArea(t, readBrowser, []areaCase{
		{name: "defaults", env: map[string]string{}, check: func(t *testing.T, c Config) {
			if c.BrowserSessionTTL != 300*time.Second || c.Chromium != DefaultChromium || c.BrowserMaxSessions != 8 || c.BrowserMaxPages != 4 || c.BrowserMemoryLimitMB != 0 || c.BrowserAllowEvaluate {
				t.Errorf("got %+v", c)
			}
		}},
		{name: "settings", env: map[string]string{"BROWSER_SESSION_TTL_SECONDS": "10", "WORKBENCH_CHROMIUM": "/opt/chrome", "BROWSER_MAX_SESSIONS": "1000",
			"BROWSER_MAX_PAGES": "1", "BROWSER_MEMORY_LIMIT_MB": "64", "BROWSER_ALLOW_EVALUATE": "1"}, check: func(t *testing.T, c Config) {
			if c.BrowserSessionTTL != 10*time.Second || c.Chromium != "/opt/chrome" || c.BrowserMaxSessions != 1000 || c.BrowserMaxPages != 1 || c.BrowserMemoryLimitMB != 64 || !c.BrowserAllowEvaluate {
				t.Errorf("got %+v", c)
			}
		}},
		{name: "ttl too short", env: map[string]string{"BROWSER_SESSION_TTL_SECONDS": "9"}, wantErr: []string{"BROWSER_SESSION_TTL_SECONDS", "whole seconds from 10 to 86400"}},
		{name: "relative chromium", env: map[string]string{"WORKBENCH_CHROMIUM": "bin/chromium"}, wantErr: []string{"WORKBENCH_CHROMIUM", "absolute path"}},
		{name: "too many sessions", env: map[string]string{"BROWSER_MAX_SESSIONS": "1001"}, wantErr: []string{"BROWSER_MAX_SESSIONS", "a whole number of sessions from 1 to 1000"}},
		{name: "no pages", env: map[string]string{"BROWSER_MAX_PAGES": "0"}, wantErr: []string{"BROWSER_MAX_PAGES", "a whole number of pages from 1 to 100"}},
		{name: "memory in GB", env: map[string]string{"BROWSER_MEMORY_LIMIT_MB": "1G"}, wantErr: []string{"BROWSER_MEMORY_LIMIT_MB", "a whole number of MiB from 64 to 65536"}},
		{name: "evaluate maybe", env: map[string]string{"BROWSER_ALLOW_EVALUATE": "maybe"}, wantErr: []string{"BROWSER_ALLOW_EVALUATE", "want true or false"}},
	})
}
