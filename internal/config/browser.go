package config

import (
	"fmt"
	"path/filepath"
)

// readBrowser reads the browser session settings (app/browserpool).
func readBrowser(r reader, c *Config) error {
	var err error
	if c.BrowserSessionTTL, err = r.seconds("BROWSER_SESSION_TTL_SECONDS", DefaultBrowserTTL); err != nil {
		return err
	}
	c.Chromium = DefaultChromium
	if v := r.text("WORKBENCH_CHROMIUM"); v != "" {
		if !filepath.IsAbs(v) {
			return fmt.Errorf("WORKBENCH_CHROMIUM=%q: want the absolute path of the Chromium executable, e.g. /usr/bin/chromium", v)
		}
		c.Chromium = v
	}
	if c.BrowserMaxSessions, err = r.wholeInt("BROWSER_MAX_SESSIONS", DefaultBrowserMaxSessions); err != nil {
		return err
	}
	if c.BrowserMaxPages, err = r.wholeInt("BROWSER_MAX_PAGES", DefaultBrowserMaxPages); err != nil {
		return err
	}
	// Zero leaves the pool's default (1 GiB).
	if c.BrowserMemoryLimitMB, err = r.wholeInt("BROWSER_MEMORY_LIMIT_MB", 0); err != nil {
		return err
	}
	c.BrowserAllowEvaluate, err = r.boolean("BROWSER_ALLOW_EVALUATE")
	return err
}
