package webhooks_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/webhooks"
	"github.com/workbench/workbench/domain/webhook"
	"github.com/workbench/workbench/internal/dbtime"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/projections/organizationsrm"
)

type noOrgs struct{}

func (noOrgs) Membership(context.Context, uuid.UUID, uuid.UUID) (organizationsrm.Membership, error) {
	return organizationsrm.Membership{}, organizationsrm.ErrNotFound
}

// The sender retries a failed delivery after its backoff, not before, sends a due one once when two
// replicas look at the same time, and drops the deliveries of a removed webhook.
func TestSendDue(t *testing.T) {
	for _, backend := range testenv.Backends {
		t.Run(backend.String(), func(t *testing.T) {
			n := testenv.Open(t, backend)
			ctx := context.Background()
			var status atomic.Int32
			status.Store(http.StatusInternalServerError)
			var calls atomic.Int32
			var mu sync.Mutex
			var sigs []string
			sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				mu.Lock()
				sigs = append(sigs, r.Header.Get(webhooks.SignatureHeader))
				mu.Unlock()
				w.WriteHeader(int(status.Load()))
			}))
			defer sink.Close()
			hook := uuid.New()
			sealed, err := n.Vault.Seal(ctx, webhook.SecretSubject(hook), webhooks.SecretPurpose, []byte("whsec_test"))
			if err != nil {
				t.Fatal(err)
			}
			secret, _ := json.Marshal(sealed)
			now := n.Clock.Now()
			exec := func(q string, args ...any) {
				t.Helper()
				if _, err := n.DB.ExecContext(ctx, q, args...); err != nil {
					t.Fatal(err)
				}
			}
			exec(`INSERT INTO webhooks (webhook_id, org_id, url, events, secret, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
				hook.String(), uuid.NewString(), sink.URL, "budget.exhausted", string(secret), uuid.NewString(), dbtime.Format(now))
			delivery := uuid.NewString()
			exec(`INSERT INTO webhook_deliveries (delivery_id, webhook_id, dedupe_key, event_type, body, status, next_attempt_at, created_at)
				VALUES ($1, $2, 'k', 'budget.exhausted', '{"id":"e"}', 'pending', $3, $3)`, delivery, hook.String(), dbtime.Format(now))
			newService := func() *webhooks.Service {
				s, err := webhooks.New(webhooks.Options{Store: n.Store, DB: n.DB, Vault: n.Vault, Orgs: noOrgs{}, AllowLoopback: true, Now: n.Clock.Now})
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			a, b := newService(), newService()
			row := func() (st string, attempts, last int) {
				t.Helper()
				if err := n.DB.QueryRowContext(ctx, `SELECT status, attempts, last_status FROM webhook_deliveries WHERE delivery_id = $1`, delivery).Scan(&st, &attempts, &last); err != nil {
					t.Fatal(err)
				}
				return
			}
			if err := a.SendDue(ctx); err != nil {
				t.Fatal(err)
			}
			if st, att, last := row(); st != "pending" || att != 1 || last != 500 || calls.Load() != 1 {
				t.Fatalf("after a 500: %s, %d attempts, last %d, %d calls", st, att, last, calls.Load())
			}
			n.Clock.Advance(29 * time.Second)
			if err := a.SendDue(ctx); err != nil || calls.Load() != 1 {
				t.Fatalf("retried before its backoff: %v, %d calls", err, calls.Load())
			}
			n.Clock.Advance(time.Second)
			status.Store(http.StatusNoContent)
			var wg sync.WaitGroup
			for _, s := range []*webhooks.Service{a, b} {
				wg.Add(1)
				go func() { defer wg.Done(); s.SendDue(ctx) }() //nolint:errcheck // the row says what happened
			}
			wg.Wait()
			if st, att, last := row(); st != "delivered" || att != 2 || last != 204 || calls.Load() != 2 {
				t.Fatalf("the retry with two replicas: %s, %d attempts, last %d, %d calls; want delivered once", st, att, last, calls.Load())
			}
			mu.Lock()
			if len(sigs) != 2 || sigs[1] != webhooks.Sign("whsec_test", n.Clock.Now(), []byte(`{"id":"e"}`)) {
				t.Errorf("signatures %v", sigs)
			}
			mu.Unlock()
			// A removed webhook's pending delivery is dropped, not sent.
			other := uuid.NewString()
			exec(`INSERT INTO webhook_deliveries (delivery_id, webhook_id, dedupe_key, event_type, body, status, next_attempt_at, created_at)
				VALUES ($1, $2, 'k', 'budget.exhausted', '{}', 'pending', $3, $3)`, other, uuid.NewString(), dbtime.Format(n.Clock.Now()))
			if err := a.SendDue(ctx); err != nil {
				t.Fatal(err)
			}
			var st string
			n.DB.QueryRowContext(ctx, `SELECT status FROM webhook_deliveries WHERE delivery_id = $1`, other).Scan(&st) //nolint:errcheck // checked below
			if st != "dropped" || calls.Load() != 2 {
				t.Fatalf("a removed webhook's delivery: %s, %d calls", st, calls.Load())
			}
		})
	}
}
