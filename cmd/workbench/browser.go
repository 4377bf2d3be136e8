package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/workbench/workbench/app/browser"
	"github.com/workbench/workbench/app/browser/replicaauth"
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
	// Replica routing: the sessions this replica starts are recorded with its URL, and browser calls
	// for a session another replica holds are forwarded there, signed with a key from the root key.
	signer, err := replicaauth.New(m.deriveKey("browser-replica"), nil)
	if err != nil {
		return nil, err
	}
	opts.ReplicaURL, opts.Replicas = m.replicaURL(), signer
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

// replicaURL is this replica's base URL as the others reach it: WORKBENCH_REPLICA_URL, else the
// listen address (HOST, else this machine's host name) and PORT over http.
func (m *Main) replicaURL() string {
	if m.Config.ReplicaURL != "" {
		return m.Config.ReplicaURL
	}
	if m.Listener != nil {
		return "http://" + m.Listener.Addr().String()
	}
	host := m.Config.HTTP.Host
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		if h, err := os.Hostname(); err == nil && h != "" {
			host = h
		} else {
			host = "127.0.0.1"
		}
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(m.Config.Port))
}
