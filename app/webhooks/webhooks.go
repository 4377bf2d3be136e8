// Package webhooks lets an organisation's owners and admins register webhooks (domain/webhook) and
// sends them what projections/webhooksrm put in the outbox: a JSON body signed with the webhook's
// secret (HMAC-SHA256), POSTed through the address-checked client (public addresses only, redirects
// not followed), retried with backoff until a 2xx answer or MaxAttempts, each attempt's outcome kept
// for the organisation's delivery log. Any replica may send: a delivery is leased before it is sent,
// so two replicas do not send it at once (a replica that dies mid-send lets its lease run out, and
// the delivery is sent again: at least once, with the same id).
package webhooks

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/domain/webhook"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/dbtime"
	"github.com/workbench/workbench/internal/ssrf"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// SecretPurpose is the vault purpose of a webhook's signing secret.
const SecretPurpose = "webhook-secret"

// SignatureHeader carries "t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the secret>".
const SignatureHeader = "Workbench-Signature"

// Vault seals, opens and shreds (*vault.Vault).
type Vault interface {
	Seal(ctx context.Context, subject, purpose string, plaintext []byte) (domain.Sealed, error)
	Open(ctx context.Context, sealed domain.Sealed, purpose string) ([]byte, error)
	Shred(ctx context.Context, subject string, md eventstore.Metadata) error
}

// Orgs reads a user's membership of an organisation (*organizationsrm.Reader).
type Orgs interface {
	Membership(ctx context.Context, orgID, userID uuid.UUID) (organizationsrm.Membership, error)
}

// Options configure the Service.
type Options struct {
	Store eventstore.Store
	DB    *sql.DB
	Vault Vault
	Orgs  Orgs
	// Projections makes the read model hold a change before it answers.
	Projections interface {
		WaitFor(ctx context.Context, pos eventstore.Position) error
	}
	// AllowLoopback lets a webhook be http on a loopback address (WORKBENCH_DEV_ALLOW_LOOPBACK).
	AllowLoopback bool
	// Transport sends the deliveries (default: the address-checked transport).
	Transport   http.RoundTripper
	Logger      *slog.Logger
	Now         func() time.Time
	Poll        time.Duration // how often Run looks for due deliveries (default 1 s)
	MaxAttempts int           // default 8
}

// Service registers webhooks and sends their deliveries.
type Service struct {
	opts   Options
	log    *slog.Logger
	client *http.Client
	actor  string
}

var aggregate = eventstore.Aggregate[webhook.State, webhook.Command, domain.Event]{
	Initial: webhook.Initial, Evolve: webhook.Evolve, Decide: webhook.Decide,
	Codec: eventstore.NewJSONCodec(webhook.Events()...),
}

// New returns the service.
func New(o Options) (*Service, error) {
	if o.Store == nil || o.DB == nil || o.Vault == nil || o.Orgs == nil {
		return nil, errors.New("webhooks: a store, a database, a vault and the organisations are required")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 8
	}
	if o.Transport == nil {
		o.Transport = ssrf.Transport(o.AllowLoopback)
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{opts: o, log: log, actor: "system", client: &http.Client{Transport: o.Transport, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}, nil
}

// mayManage refuses a user who is not an owner or admin of org (a non-member is told there is none).
func (s *Service) mayManage(ctx context.Context, user, org uuid.UUID) error {
	m, err := s.opts.Orgs.Membership(ctx, org, user)
	if errors.Is(err, organizationsrm.ErrNotFound) {
		return domain.Errorf(domain.CodeNotFound, "no organisation %s", org)
	}
	if err != nil {
		return err
	}
	if m.Role != organization.RoleOwner && m.Role != organization.RoleAdmin {
		return domain.Errorf(domain.CodeForbidden, "only the organisation's owners and admins manage its webhooks")
	}
	return nil
}

// checkURL accepts an https URL with a host and no credentials; http only on a loopback address when
// AllowLoopback. An address written as a number is checked here; a name is checked each time a
// delivery is sent (the transport refuses a private address).
func (s *Service) checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || len(raw) > 2048 || (u.Scheme != "https" && u.Scheme != "http") {
		return domain.Errorf(domain.CodeInvalid, "the webhook URL must be an absolute https URL without credentials")
	}
	ip, ipErr := netip.ParseAddr(strings.Trim(u.Hostname(), "[]"))
	if u.Scheme == "http" && !(s.opts.AllowLoopback && ipErr == nil && ip.IsLoopback()) {
		return domain.Errorf(domain.CodeInvalid, "the webhook URL must be https")
	}
	if ipErr == nil {
		if err := ssrf.Check(ip, s.opts.AllowLoopback); err != nil {
			return domain.Errorf(domain.CodeInvalid, "the webhook URL's address is not public: %v", err)
		}
	}
	return nil
}

// View is one webhook as its organisation's admins see it: never its secret.
type View struct {
	ID         uuid.UUID  `json:"id"`
	URL        string     `json:"url"`
	Events     []string   `json:"events"`
	CreatedAt  time.Time  `json:"created_at"`
	Deliveries []Delivery `json:"deliveries"`
}

// Delivery is one delivery in the log.
type Delivery struct {
	ID          uuid.UUID  `json:"id"`
	Type        string     `json:"type"`
	Status      string     `json:"status"` // pending, delivered, failed, dropped
	Attempts    int        `json:"attempts"`
	LastStatus  int        `json:"last_status,omitempty"`
	LastError   string     `json:"last_error,omitempty"`
	CreatedAt   time.Time  `json:"created_at"`
	NextAttempt *time.Time `json:"next_attempt_at,omitempty"`
	DeliveredAt *time.Time `json:"delivered_at,omitempty"`
}

// Register adds a webhook to org and returns it with its signing secret, shown this once.
func (s *Service) Register(ctx context.Context, user, org uuid.UUID, rawURL string, events []string) (View, string, error) {
	if err := s.mayManage(ctx, user, org); err != nil {
		return View{}, "", err
	}
	if err := s.checkURL(rawURL); err != nil {
		return View{}, "", err
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return View{}, "", err
	}
	secret := "whsec_" + base64.RawURLEncoding.EncodeToString(key)
	id := uuid.Must(uuid.NewV7())
	sealed, err := s.opts.Vault.Seal(ctx, webhook.SecretSubject(id), SecretPurpose, []byte(secret))
	if err != nil {
		return View{}, "", err
	}
	now := s.opts.Now().UTC()
	res, err := eventstore.Execute(ctx, s.opts.Store, webhook.StreamName(org), aggregate, webhook.Command(webhook.Register{Event: webhook.Registered{
		WebhookID: id, OrgID: org, URL: rawURL, Events: events, Secret: sealed, By: user, At: now}}), eventstore.Metadata{Actor: user.String(), Time: now})
	if err != nil {
		return View{}, "", err
	}
	if err := s.wait(ctx, res.Position, len(res.Events)); err != nil {
		return View{}, "", err
	}
	ev := res.Events[0].(webhook.Registered)
	return View{ID: id, URL: rawURL, Events: ev.Events, CreatedAt: now, Deliveries: []Delivery{}}, secret, nil
}

func (s *Service) wait(ctx context.Context, pos eventstore.Position, n int) error {
	if n == 0 || s.opts.Projections == nil {
		return nil
	}
	return s.opts.Projections.WaitFor(ctx, pos)
}

// Remove deletes a webhook and shreds its secret; its pending deliveries are dropped when due.
func (s *Service) Remove(ctx context.Context, user, org, id uuid.UUID) error {
	if err := s.mayManage(ctx, user, org); err != nil {
		return err
	}
	now := s.opts.Now().UTC()
	md := eventstore.Metadata{Actor: user.String(), Time: now}
	res, err := eventstore.Execute(ctx, s.opts.Store, webhook.StreamName(org), aggregate, webhook.Command(webhook.Remove{WebhookID: id, By: user, At: now}), md)
	if err != nil {
		return err
	}
	if err := s.opts.Vault.Shred(ctx, webhook.SecretSubject(id), md); err != nil {
		return err
	}
	return s.wait(ctx, res.Position, len(res.Events))
}

// List is org's webhooks, each with its latest 20 deliveries.
func (s *Service) List(ctx context.Context, user, org uuid.UUID) ([]View, error) {
	if err := s.mayManage(ctx, user, org); err != nil {
		return nil, err
	}
	rows, err := s.opts.DB.QueryContext(ctx, `SELECT webhook_id, url, events, created_at FROM webhooks WHERE org_id = $1 ORDER BY created_at`, org.String())
	if err != nil {
		return nil, err
	}
	var out []View
	for rows.Next() {
		var v View
		var id, events, created string
		if err := rows.Scan(&id, &v.URL, &events, &created); err != nil {
			rows.Close()
			return nil, err
		}
		v.ID, _ = uuid.Parse(id)
		v.Events = strings.Split(events, ",")
		v.CreatedAt, _ = dbtime.Parse(created)
		out = append(out, v)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].Deliveries, err = s.deliveries(ctx, out[i].ID); err != nil {
			return nil, err
		}
	}
	if out == nil {
		out = []View{}
	}
	return out, nil
}

func (s *Service) deliveries(ctx context.Context, hook uuid.UUID) ([]Delivery, error) {
	rows, err := s.opts.DB.QueryContext(ctx, `SELECT delivery_id, event_type, status, attempts, last_status, last_error, created_at, next_attempt_at, delivered_at
		FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY created_at DESC, delivery_id DESC LIMIT 20`, hook.String())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Delivery{}
	for rows.Next() {
		var d Delivery
		var id, created, next string
		var delivered sql.NullString
		if err := rows.Scan(&id, &d.Type, &d.Status, &d.Attempts, &d.LastStatus, &d.LastError, &created, &next, &delivered); err != nil {
			return nil, err
		}
		d.ID, _ = uuid.Parse(id)
		d.CreatedAt, _ = dbtime.Parse(created)
		if d.Status == "pending" {
			if t, err := dbtime.Parse(next); err == nil {
				d.NextAttempt = &t
			}
		}
		if t, err := dbtime.ParseNull(delivered); err == nil && !t.IsZero() {
			d.DeliveredAt = &t
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// Sign is the signature header value of body at t with secret.
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// Run sends due deliveries until ctx ends.
func (s *Service) Run(ctx context.Context) error {
	t := time.NewTicker(s.opts.Poll)
	defer t.Stop()
	for {
		if err := s.SendDue(ctx); err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "webhook deliveries", "err", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// lease is how long a replica holds a delivery it is sending.
const lease = time.Minute

// SendDue sends the deliveries that are due, each leased first.
func (s *Service) SendDue(ctx context.Context) error {
	now := s.opts.Now().UTC()
	rows, err := s.opts.DB.QueryContext(ctx, `SELECT delivery_id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= $1
		AND (lease_until IS NULL OR lease_until < $1) ORDER BY next_attempt_at LIMIT 20`, dbtime.Format(now))
	if err != nil {
		return err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range ids {
		res, err := s.opts.DB.ExecContext(ctx, `UPDATE webhook_deliveries SET lease_until = $2 WHERE delivery_id = $1 AND status = 'pending'
			AND (lease_until IS NULL OR lease_until < $3)`, id, dbtime.Format(now.Add(lease)), dbtime.Format(now))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			continue // another replica has it
		}
		if err := s.send(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// send makes one attempt at a leased delivery and records its outcome.
func (s *Service) send(ctx context.Context, id string) error {
	var hook, typ, body, rawURL, secretJSON string
	var attempts int
	err := s.opts.DB.QueryRowContext(ctx, `SELECT d.webhook_id, d.event_type, d.body, d.attempts, COALESCE(w.url, ''), COALESCE(w.secret, '')
		FROM webhook_deliveries d LEFT JOIN webhooks w ON w.webhook_id = d.webhook_id WHERE d.delivery_id = $1`, id).Scan(&hook, &typ, &body, &attempts, &rawURL, &secretJSON)
	if err != nil {
		return err
	}
	if rawURL == "" {
		_, err := s.opts.DB.ExecContext(ctx, `UPDATE webhook_deliveries SET status = 'dropped', last_error = 'the webhook was removed', lease_until = NULL WHERE delivery_id = $1`, id)
		return err
	}
	var sealed domain.Sealed
	if err := json.Unmarshal([]byte(secretJSON), &sealed); err != nil {
		return fmt.Errorf("webhook %s: stored secret: %w", hook, err)
	}
	secret, err := s.opts.Vault.Open(ctx, sealed, SecretPurpose)
	if err != nil {
		return fmt.Errorf("webhook %s: open its secret: %w", hook, err)
	}
	status, sendErr := s.post(ctx, rawURL, id, typ, []byte(body), string(secret))
	attempts++
	now := s.opts.Now().UTC()
	switch {
	case sendErr == nil && status >= 200 && status < 300:
		_, err = s.opts.DB.ExecContext(ctx, `UPDATE webhook_deliveries SET status = 'delivered', attempts = $2, last_status = $3, last_error = '', delivered_at = $4, lease_until = NULL
			WHERE delivery_id = $1`, id, attempts, status, dbtime.Format(now))
		return err
	default:
		msg := ""
		if sendErr != nil {
			msg = sendErr.Error()
		} else {
			msg = fmt.Sprintf("answered %d", status)
		}
		if len(msg) > 300 {
			msg = msg[:300]
		}
		next, state := now.Add(backoff(attempts)), "pending"
		if attempts >= s.opts.MaxAttempts {
			state = "failed"
		}
		s.log.WarnContext(ctx, "webhook delivery failed", "webhook", hook, "delivery", id, "attempt", attempts, "err", msg)
		_, err = s.opts.DB.ExecContext(ctx, `UPDATE webhook_deliveries SET status = $2, attempts = $3, last_status = $4, last_error = $5, next_attempt_at = $6, lease_until = NULL
			WHERE delivery_id = $1`, id, state, attempts, status, msg, dbtime.Format(next))
		return err
	}
}

// backoff is the wait after the nth failed attempt: 30 s, doubling, at most an hour.
func backoff(n int) time.Duration {
	d := 30 * time.Second
	for i := 1; i < n && d < time.Hour; i++ {
		d *= 2
	}
	return min(d, time.Hour)
}

func (s *Service) post(ctx context.Context, rawURL, id, typ string, body []byte, secret string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Workbench-Webhooks/1")
	req.Header.Set("Workbench-Event", typ)
	req.Header.Set("Workbench-Delivery", id)
	req.Header.Set(SignatureHeader, Sign(secret, s.opts.Now(), body))
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) //nolint:errcheck // the status decides
	return resp.StatusCode, nil
}
