package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workbench/workbench/app/auditsink"
	"github.com/workbench/workbench/app/compliance"
	audithttp "github.com/workbench/workbench/handlers/audit"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/internal/bus"
	"github.com/workbench/workbench/internal/config"
	auditrm "github.com/workbench/workbench/projections/audit"
	"github.com/workbench/workbench/projections/connectors"
	"github.com/workbench/workbench/projections/identity"
	"github.com/workbench/workbench/projections/organizations"
)

// The SIEM feed's settings (app/auditsink): AUDIT_SINK_URL (https webhook) with AUDIT_SINK_SECRET (HMAC
// key, at least 16 bytes), and/or AUDIT_SINK_NATS_SUBJECT on AUDIT_SINK_NATS_URL (default BUS_URL when
// that is nats://). AUDIT_SINK_BATCH (records per batch, default 100), AUDIT_SINK_RETRY_MIN_SECONDS (1)
// and AUDIT_SINK_RETRY_MAX_SECONDS (300) tune delivery.
const (
	envAuditSinkURL         = "AUDIT_SINK_URL"
	envAuditSinkSecret      = "AUDIT_SINK_SECRET"
	envAuditSinkNATSSubject = "AUDIT_SINK_NATS_SUBJECT"
	envAuditSinkNATSURL     = "AUDIT_SINK_NATS_URL"
	envAuditSinkBatch       = "AUDIT_SINK_BATCH"
	envAuditSinkRetryMin    = "AUDIT_SINK_RETRY_MIN_SECONDS"
	envAuditSinkRetryMax    = "AUDIT_SINK_RETRY_MAX_SECONDS"
)

// startAuditSinks builds the configured SIEM sinks and runs them with goRun. None configured: nothing.
func (m *Main) startAuditSinks(ctx context.Context, getenv func(string) string, goRun func(string, func(context.Context) error)) error {
	num := func(name string, def int) (int, error) {
		v := getenv(name)
		if v == "" {
			return def, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return 0, fmt.Errorf("%s must be a whole number of at least 1, not %q", name, v)
		}
		return n, nil
	}
	batch, err := num(envAuditSinkBatch, 100)
	if err != nil {
		return err
	}
	rmin, err := num(envAuditSinkRetryMin, 1)
	if err != nil {
		return err
	}
	rmax, err := num(envAuditSinkRetryMax, 300)
	if err != nil {
		return err
	}
	var dests []struct {
		name string
		d    auditsink.Destination
	}
	if u := getenv(envAuditSinkURL); u != "" {
		wh, err := auditsink.NewWebhook(auditsink.WebhookOptions{URL: u, Secret: []byte(getenv(envAuditSinkSecret)), AllowLoopback: m.Config.DevAllowLoopback})
		if err != nil {
			return err
		}
		dests = append(dests, struct {
			name string
			d    auditsink.Destination
		}{"webhook", wh})
	}
	if subj := getenv(envAuditSinkNATSSubject); subj != "" {
		u := getenv(envAuditSinkNATSURL)
		if u == "" && strings.HasPrefix(m.Config.BusURL, "nats://") {
			u = m.Config.BusURL
		}
		if u == "" {
			return fmt.Errorf("%s is set but neither %s nor BUS_URL names a NATS server", envAuditSinkNATSSubject, envAuditSinkNATSURL)
		}
		n, err := auditsink.NewNATS(ctx, u, subj)
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
			BatchSize: batch, RetryMin: time.Duration(rmin) * time.Second, RetryMax: time.Duration(rmax) * time.Second,
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

// getenv is m.Getenv, or os.Getenv when unset.
func (m *Main) getenv() func(string) string {
	if m.Getenv != nil {
		return m.Getenv
	}
	return os.Getenv
}

// openCompliance builds the auditor role's service; its admins are Config.Admins (WORKBENCH_ADMINS,
// else the WORKBENCH_ADMIN_EMAIL user).
func (m *Main) openCompliance() error {
	m.Compliance = &compliance.Service{Store: m.Store, Admins: m.Config.Admins}
	return nil
}

// whatIf is projections/audit.WhatIf over the log with the organisations and connectors read models.
func (m *Main) whatIf(ctx context.Context, q auditrm.WhatIfQuery) (auditrm.WhatIfReport, error) {
	q.Opener, q.Scopes, q.Current = m.Vault, &organizations.Reader{DB: m.DB}, connectors.Reader{DB: m.DB}
	return auditrm.WhatIf(ctx, m.Store, q)
}

// mountCompliance mounts the compliance API and the usage receipts (handlers/audit) for portal users.
func (m *Main) mountCompliance(r chi.Router, sessions *websession.Manager) {
	store := m.Store
	audithttp.MountAdmin(r, audithttp.AdminOptions{
		UserOf: sessions.User, SameOrigin: sessions.SameOrigin,
		Users: identity.Reader{DB: m.DB}, Roles: m.Compliance, Records: auditrm.Reader{DB: m.DB},
		AsOf: func(ctx context.Context, q auditrm.AsOfQuery) (auditrm.AsOfResult, error) {
			q.Opener = m.Vault
			return auditrm.AsOf(ctx, store, q)
		},
		BlastRadius: func(ctx context.Context, q auditrm.BlastQuery) (auditrm.BlastReport, error) {
			q.Opener = m.Vault
			return auditrm.BlastRadius(ctx, store, q)
		},
		WhatIf: m.whatIf,
		Logger: m.Logger,
	})
	audithttp.MountReceipts(r, sessions.User, auditrm.Reader{DB: m.DB}, m.Logger)
}
