package main

import (
	"context"
	"fmt"

	"github.com/workbench/workbench/app/browser"
)

// openBrowser builds the browser service and registers the built-in "browser" integration whose nine
// tools close over it (plugins never see the browser). No Chromium starts until a user's session is
// first used; the sessions are closed, and their stops recorded, when Serve's background work stops.
func (m *Main) openBrowser(goRun func(name string, f func(context.Context) error)) (*browser.Service, error) {
	opts := browser.Options{
		Store: m.Store, AllowEvaluate: m.Config.BrowserAllowEvaluate,
		PublicURL: m.Config.ServerPublicURL, LiveKey: m.deriveKey("browser-live"), Logger: m.Logger,
	}
	opts.Pool.Bin = m.Config.Chromium
	opts.Pool.DataDir = m.Config.DataDir
	opts.Pool.IdleTTL = m.Config.BrowserSessionTTL
	opts.Pool.MaxSessions = m.Config.BrowserMaxSessions
	opts.Pool.MaxPages = m.Config.BrowserMaxPages
	opts.Pool.MemoryLimitBytes = int64(m.Config.BrowserMemoryLimitMB) << 20
	opts.Pool.AllowLoopback = m.Config.DevAllowLoopback
	svc, err := browser.New(opts)
	if err != nil {
		return nil, err
	}
	if err := m.Plugins.AddInternal(svc.Integration()); err != nil {
		svc.Close()
		return nil, fmt.Errorf("register the browser integration: %w", err)
	}
	goRun("browser sessions", func(bg context.Context) error {
		<-bg.Done()
		return svc.Close()
	})
	return svc, nil
}
