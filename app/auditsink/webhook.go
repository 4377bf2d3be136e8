package auditsink

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/workbench/workbench/internal/ssrf"
)

// Headers of a webhook delivery.
const (
	HeaderSignature = "X-Workbench-Signature"
	HeaderBatch     = "X-Workbench-Batch"
)

// Sign returns the X-Workbench-Signature value of body sent at t: "t=UNIX,v1=HEX", HEX being
// HMAC-SHA256(secret, "UNIX." + body).
func Sign(secret []byte, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(ts))
	mac.Write([]byte("."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// Verify checks a signature header against body, in constant time, and that its time is within
// tolerance of now. Receivers written in Go can use it; it is what the tests' receiver does.
func Verify(secret []byte, header string, body []byte, now time.Time, tolerance time.Duration) error {
	var ts, sig string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sig = v
		}
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || sig == "" {
		return errors.New("auditsink: malformed signature header")
	}
	if d := now.Sub(time.Unix(unix, 0)); d > tolerance || d < -tolerance {
		return errors.New("auditsink: signature too old or from the future")
	}
	_, want, _ := strings.Cut(Sign(secret, time.Unix(unix, 0), body), ",v1=")
	if !hmac.Equal([]byte(sig), []byte(want)) {
		return errors.New("auditsink: signature does not match")
	}
	return nil
}

// WebhookOptions configures a Webhook.
type WebhookOptions struct {
	URL    string
	Secret []byte
	// AllowLoopback is WORKBENCH_DEV_ALLOW_LOOPBACK: the URL may then name a loopback address, over
	// plain http too. Without it the URL must be https and every dial reaches public addresses only.
	AllowLoopback bool
	// Resolver answers the transport's lookups (nil: the system resolver); tests inject one.
	Resolver ssrf.Resolver
	// Timeout bounds one delivery (default 30s).
	Timeout time.Duration
	Now     func() time.Time
}

// Webhook delivers batches by HTTPS POST, signed with HMAC-SHA256.
type Webhook struct {
	o      WebhookOptions
	client *http.Client
}

// NewWebhook checks the URL and secret and returns the destination.
func NewWebhook(o WebhookOptions) (*Webhook, error) {
	u, err := url.Parse(o.URL)
	if err != nil || u.Host == "" || u.User != nil {
		return nil, fmt.Errorf("AUDIT_SINK_URL: %q is not an absolute URL without credentials", o.URL)
	}
	switch u.Scheme {
	case "https":
	case "http":
		ip, err := netip.ParseAddr(u.Hostname())
		if !o.AllowLoopback || err != nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("AUDIT_SINK_URL must be https (plain http only to a loopback address with WORKBENCH_DEV_ALLOW_LOOPBACK)")
		}
	default:
		return nil, fmt.Errorf("AUDIT_SINK_URL must be https, not %q", u.Scheme)
	}
	if len(o.Secret) < 16 {
		return nil, errors.New("AUDIT_SINK_SECRET must be set, at least 16 bytes, to sign the webhook's batches")
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	client := &http.Client{
		Transport:     ssrf.NewTransport(ssrf.Options{AllowLoopback: o.AllowLoopback, Resolver: o.Resolver}),
		Timeout:       o.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &Webhook{o: o, client: client}, nil
}

// Deliver implements Destination: nil only on a 2xx answer.
func (w *Webhook) Deliver(ctx context.Context, b Batch) error {
	body, err := json.Marshal(b)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.o.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderBatch, b.ID)
	req.Header.Set(HeaderSignature, Sign(w.o.Secret, w.o.Now(), body))
	resp, err := w.client.Do(req)
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("webhook answered %s", resp.Status)
	}
	return nil
}
