package config

import (
	"fmt"
	"strings"
	"time"
)

// The SIEM feed's settings (app/auditsink).
const (
	EnvAuditSinkURL         = "AUDIT_SINK_URL"
	EnvAuditSinkSecret      = "AUDIT_SINK_SECRET"
	EnvAuditSinkNATSSubject = "AUDIT_SINK_NATS_SUBJECT"
	EnvAuditSinkNATSURL     = "AUDIT_SINK_NATS_URL"
	EnvAuditSinkBatch       = "AUDIT_SINK_BATCH"
	EnvAuditSinkRetryMin    = "AUDIT_SINK_RETRY_MIN_SECONDS"
	EnvAuditSinkRetryMax    = "AUDIT_SINK_RETRY_MAX_SECONDS"
)

// AuditSink is where the SIEM feed delivers the audit records, and how: AUDIT_SINK_URL (an https
// webhook; app/auditsink checks the URL and the secret) with AUDIT_SINK_SECRET (the HMAC key), and/or
// AUDIT_SINK_NATS_SUBJECT on AUDIT_SINK_NATS_URL (default BUS_URL when that is nats://).
// AUDIT_SINK_BATCH (records per batch, default 100), AUDIT_SINK_RETRY_MIN_SECONDS (1) and
// AUDIT_SINK_RETRY_MAX_SECONDS (300) tune delivery.
type AuditSink struct {
	URL, Secret          string
	NATSSubject, NATSURL string
	Batch                int
	RetryMin, RetryMax   time.Duration
}

// readAuditSink reads the SIEM feed's settings; busURL is the already-read BUS_URL.
func readAuditSink(getenv func(string) string, busURL string) (AuditSink, error) {
	r := reader(getenv)
	s := AuditSink{
		URL: r.text(EnvAuditSinkURL), Secret: r.raw(EnvAuditSinkSecret),
		NATSSubject: r.text(EnvAuditSinkNATSSubject), NATSURL: r.text(EnvAuditSinkNATSURL),
	}
	var err error
	if s.Batch, err = r.wholeInt(EnvAuditSinkBatch, 100); err != nil {
		return s, err
	}
	if s.RetryMin, err = r.seconds(EnvAuditSinkRetryMin, time.Second); err != nil {
		return s, err
	}
	if s.RetryMax, err = r.seconds(EnvAuditSinkRetryMax, 300*time.Second); err != nil {
		return s, err
	}
	if s.RetryMax < s.RetryMin {
		return s, fmt.Errorf("%s=%d is below %s=%d", EnvAuditSinkRetryMax, s.RetryMax/time.Second, EnvAuditSinkRetryMin, s.RetryMin/time.Second)
	}
	if s.NATSSubject != "" && s.NATSURL == "" {
		if !strings.HasPrefix(busURL, "nats://") {
			return s, fmt.Errorf("%s is set but neither %s nor BUS_URL names a NATS server", EnvAuditSinkNATSSubject, EnvAuditSinkNATSURL)
		}
		s.NATSURL = busURL
	}
	return s, nil
}

// readAudit reads the audit area: the SIEM feed.
func readAudit(r reader, c *Config) error {
	var err error
	c.AuditSink, err = readAuditSink(r, c.BusURL)
	return err
}
