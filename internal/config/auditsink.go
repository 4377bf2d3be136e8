package config

import (
	"fmt"
	"strconv"
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
	s := AuditSink{
		URL: strings.TrimSpace(getenv(EnvAuditSinkURL)), Secret: getenv(EnvAuditSinkSecret),
		NATSSubject: strings.TrimSpace(getenv(EnvAuditSinkNATSSubject)), NATSURL: strings.TrimSpace(getenv(EnvAuditSinkNATSURL)),
	}
	num := func(name string, def int) (int, error) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return def, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return 0, fmt.Errorf("%s=%q: want a whole number of at least 1", name, v)
		}
		return n, nil
	}
	var err error
	if s.Batch, err = num(EnvAuditSinkBatch, 100); err != nil {
		return s, err
	}
	rmin, err := num(EnvAuditSinkRetryMin, 1)
	if err != nil {
		return s, err
	}
	rmax, err := num(EnvAuditSinkRetryMax, 300)
	if err != nil {
		return s, err
	}
	if rmax < rmin {
		return s, fmt.Errorf("%s=%d is below %s=%d", EnvAuditSinkRetryMax, rmax, EnvAuditSinkRetryMin, rmin)
	}
	s.RetryMin, s.RetryMax = time.Duration(rmin)*time.Second, time.Duration(rmax)*time.Second
	if s.NATSSubject != "" && s.NATSURL == "" {
		if !strings.HasPrefix(busURL, "nats://") {
			return s, fmt.Errorf("%s is set but neither %s nor BUS_URL names a NATS server", EnvAuditSinkNATSSubject, EnvAuditSinkNATSURL)
		}
		s.NATSURL = busURL
	}
	return s, nil
}
