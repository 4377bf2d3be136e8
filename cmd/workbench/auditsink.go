package main

import (
	"context"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workbench/workbench/app/auditsink"
	"github.com/workbench/workbench/app/compliance"
	"github.com/workbench/workbench/handlers/audithttp"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/internal/bus"
	"github.com/workbench/workbench/internal/config"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/connectorsrm"
	"github.com/workbench/workbench/projections/identityrm"
	"github.com/workbench/workbench/projections/oauthrm"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// startAuditSinks builds the configured SIEM sinks and runs them with goRun. None configured: nothing.
func (m *Main) startAuditSinks(ctx context.Context, goRun func(string, func(context.Context) error)) error {
	cfg := m.Config.AuditSink
	var dests []struct {
		name string
		d    auditsink.Destination
	}
	if cfg.URL != "" {
		wh, err := auditsink.NewWebhook(auditsink.WebhookOptions{URL: cfg.URL, Secret: []byte(cfg.Secret), AllowLoopback: m.Config.DevAllowLoopback})
		if err != nil {
			return err
		}
		dests = append(dests, struct {
			name string
			d    auditsink.Destination
		}{"webhook", wh})
	}
	if cfg.NATSSubject != "" {
		n, err := auditsink.NewNATS(ctx, cfg.NATSURL, cfg.NATSSubject)
		if err != nil {
			return err
		}
		m.closers = append(m.closers, func() error { n.Close(); return nil })
		dests = append(dests, struct {
			name string
			d    auditsink.Destination
		}{"nats", n})
	}
	for _, d := range dests {
		o := auditsink.Options{
			Store: m.Store, DB: m.DB, Name: d.name, Destination: d.d, Emails: auditrm.Reader{DB: m.DB}.EmailOf, Opener: m.Vault,
			BatchSize: cfg.Batch, RetryMin: cfg.RetryMin, RetryMax: cfg.RetryMax,
			Registerer: m.Registry, Logger: m.Logger,
		}
		if m.writeGate != nil {
			o.Gate = m.writeGate
		}
		if m.Config.Database == config.Postgres {
			o.Lock = bus.NewAdvisoryLock(m.Config.DatabaseURL, bus.AdvisoryLockKey("workbench-audit-sink-"+d.name), 5*time.Second, m.Logger)
		}
		sink, err := auditsink.New(o)
		if err != nil {
			return err
		}
		m.Logger.Info("audit sink configured", "sink", d.name)
		goRun("audit sink "+d.name, sink.Run)
	}
	return nil
}

// openCompliance builds the auditor role's service; its admins are Config.Admins (WORKBENCH_ADMINS,
// else the WORKBENCH_ADMIN_EMAIL user).
func (m *Main) openCompliance() error {
	m.Compliance = &compliance.Service{Store: m.Store, Admins: m.Config.Admins, QueryKey: m.deriveKey("audit-read-query")}
	return nil
}

// whatIf is projections/auditrm.WhatIf over the log with the organisations and connectors read models.
func (m *Main) whatIf(ctx context.Context, q auditrm.WhatIfQuery) (auditrm.WhatIfReport, error) {
	q.Opener, q.Scopes, q.Current = m.Vault, &organizationsrm.Reader{DB: m.DB}, connectorsrm.Reader{DB: m.DB}
	if m.Plugins != nil {
		q.Plugins = pluginStartRules{m.Plugins}
	}
	return auditrm.WhatIf(ctx, m.Store, q)
}

// pluginStartRules answers what-if's question about plugin tools from the registry.
type pluginStartRules struct{ reg *plugins.Registry }

func (p pluginStartRules) StartsOff(tool string) (bool, string, bool) {
	t, ok := p.reg.Tool(tool)
	if !ok {
		return false, "", false
	}
	off, rule := t.StartsOff()
	return off, rule, true
}

// mountCompliance mounts the compliance API and the usage receipts (handlers/audithttp) for portal users.
func (m *Main) mountCompliance(r chi.Router, sessions *websession.Manager) {
	store := m.Store
	audithttp.MountAdmin(r, audithttp.AdminOptions{
		UserOf: sessions.User, SameOrigin: sessions.SameOrigin,
		Users: identityrm.Reader{DB: m.DB}, Roles: m.Compliance, Records: auditrm.Reader{DB: m.DB},
		AsOf: func(ctx context.Context, q auditrm.AsOfQuery) (auditrm.AsOfResult, error) {
			q.Opener = m.Vault
			return auditrm.AsOf(ctx, store, q)
		},
		BlastRadius: func(ctx context.Context, q auditrm.BlastQuery) (auditrm.BlastReport, error) {
			q.Opener = m.Vault
			return auditrm.BlastRadius(ctx, store, q)
		},
		WhatIf:      m.whatIf,
		Credentials: auditrm.Reader{DB: m.DB},
		Names:       audithttp.CredentialNames{Agents: m.Organizations.Reader(), Keys: identityrm.Reader{DB: m.DB}, Clients: oauthrm.Reader{DB: m.DB}},
		Logger:      m.Logger,
	})
	audithttp.MountReceipts(r, sessions.User, auditrm.Reader{DB: m.DB}, m.Logger)
	audithttp.MountActivity(r, audithttp.ActivityDeps{
		Sessions: sessions, Records: auditrm.Reader{DB: m.DB}, Agents: m.Organizations.Reader(),
		Keys: identityrm.Reader{DB: m.DB}, Clients: oauthrm.Reader{DB: m.DB}, Now: m.Now, Logger: m.Logger,
	})
}
