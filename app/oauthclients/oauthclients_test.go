package oauthclients_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/workbench/workbench/app/oauthclients"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/oauthdom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/oauthrm"
)

// node is the service over a real store and the oauth read model, kept up to date by a running
// projection runner.
type node struct {
	t       *testing.T
	store   *failingStore
	reader  oauthrm.Reader
	clients *oauthclients.Service
	// failWait makes the service's waits for the read model fail, as when the database stops right
	// after an append.
	failWait atomic.Bool
	now      time.Time
}

// failingStore is the store with appends that fail, while failAppend is true, as a lost database does.
type failingStore struct {
	eventstore.Store
	failAppend atomic.Bool
}

var errDatabaseGone = errors.New("connection refused: the database is gone")

func (s *failingStore) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.Position, error) {
	if s.failAppend.Load() {
		return eventstore.Position{}, errDatabaseGone
	}
	return s.Store.Append(ctx, stream, expected, events...)
}

type waiter struct {
	n      *node
	runner *projections.Runner
}

func (w waiter) WaitForProjection(ctx context.Context, name string, pos eventstore.Position) error {
	if w.n.failWait.Load() {
		return errors.New("read model unreachable")
	}
	return w.runner.WaitForProjection(ctx, name, pos)
}

func newNode(t *testing.T, pg bool) *node {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	backend := testenv.SQLite
	if pg {
		backend = testenv.Postgres
	}
	env := testenv.Open(t, backend)
	db, store, dialect := env.DB, env.Store, env.Dialect
	runner, err := projections.NewRunner(store, db, dialect, &projections.Options{
		Projections: []projections.Projection{oauthrm.New()}, PollInterval: 20 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = runner.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	n := &node{t: t, store: &failingStore{Store: store}, reader: oauthrm.Reader{DB: db}, now: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	n.clients, err = oauthclients.New(oauthclients.Options{Store: n.store, Projections: waiter{n, runner}, Grants: n.reader,
		Now: func() time.Time { return n.now }})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

var (
	ada    = uuid.MustParse("11111111-1111-4111-8111-111111111111")
	origin = oauthclients.Origin{Actor: "oauth-client:c1", ClientID: "c1", CorrelationID: "req-1"}
)

// consented records client c1 (once) and a grant of ada's to it under requestID, with its code issued.
func (n *node) consented(requestID string) {
	n.t.Helper()
	ctx := context.Background()
	if _, err := n.reader.Client(ctx, "c1"); errors.Is(err, oauthrm.ErrNotFound) {
		if _, err := n.clients.Register(ctx, registration("c1"), origin); err != nil {
			n.t.Fatal(err)
		}
	}
	err := n.clients.RecordGrant(ctx, requestID, oauthdom.IssueCode{RequestID: requestID, ClientID: "c1", UserID: ada,
		CodeSignature: "code-" + requestID, Scopes: []string{"mcp"}, Audience: []string{"https://wb.test/mcp"},
		RedirectURI: "http://127.0.0.1:9/cb", CodeChallenge: "challenge", CodeChallengeMethod: "S256",
		RequestedAt: n.now, ExpiresAt: n.now.Add(5 * time.Minute), At: n.now}, origin)
	if err != nil {
		n.t.Fatal(err)
	}
}

func registration(id string) oauthdom.RegisterClient {
	return oauthdom.RegisterClient{ClientID: id, ClientName: "Test Client", RedirectURIs: []string{"http://127.0.0.1:9/cb"},
		GrantTypes: []string{oauthdom.GrantAuthorization, oauthdom.GrantRefresh}, ResponseTypes: []string{oauthdom.ResponseCode},
		Scopes: []string{"mcp"}, At: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
}

func exchange(requestID, access, refresh string, at time.Time) oauthdom.Batch {
	return oauthdom.Batch{oauthdom.ExchangeCode{CodeSignature: "code-" + requestID, At: at},
		oauthdom.IssueAccessToken{Signature: access, ExpiresAt: at.Add(10 * time.Minute), At: at},
		oauthdom.IssueRefreshToken{Signature: refresh, AccessSignature: access, ExpiresAt: at.Add(time.Hour), At: at}}
}

func rotate(spent, access, refresh string, at time.Time) oauthdom.Batch {
	return oauthdom.Batch{oauthdom.RotateRefreshToken{Signature: spent, At: at},
		oauthdom.IssueAccessToken{Signature: access, ExpiresAt: at.Add(10 * time.Minute), At: at},
		oauthdom.IssueRefreshToken{Signature: refresh, AccessSignature: access, ExpiresAt: at.Add(time.Hour), At: at}}
}

// revocations returns the revocation events of a grant's stream, as "refresh:<reason>" and
// "access:<reason>".
func (n *node) revocations(requestID string) []string {
	n.t.Helper()
	envs, err := n.store.Load(context.Background(), oauthdom.GrantStreamName(requestID), 1)
	if err != nil {
		n.t.Fatal(err)
	}
	codec := eventstore.NewJSONCodec(oauthdom.Events()...)
	var out []string
	for _, env := range envs {
		ev, err := codec.Decode(env.Type, env.SchemaVersion, env.Data)
		if err != nil {
			n.t.Fatal(err)
		}
		switch e := ev.(type) {
		case oauthdom.RefreshTokensRevoked:
			out = append(out, "refresh:"+e.Reason)
		case oauthdom.AccessTokensRevoked:
			out = append(out, "access:"+e.Reason)
		case oauthdom.CodeRevoked:
			out = append(out, "code:"+e.Reason)
		}
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRegister(t *testing.T) {
	n := newNode(t, false)
	ctx := context.Background()

	// Given a valid registration, when it is recorded, then the read model has the client on return.
	c, err := n.clients.Register(ctx, registration("c1"), origin)
	if err != nil || c.ClientID != "c1" {
		t.Fatalf("Register = %+v, %v", c, err)
	}
	if got, err := n.reader.Client(ctx, "c1"); err != nil || got.ClientName != "Test Client" {
		t.Fatalf("read model: %+v, %v", got, err)
	}

	// Given a redirect URI that is not exact, then the domain's refusal comes back as it is.
	bad := registration("c2")
	bad.RedirectURIs = []string{"http://evil.example/*"}
	_, err = n.clients.Register(ctx, bad, origin)
	if !errors.Is(err, oauthdom.ErrInvalidRedirectURI) || !oauthclients.IsRefusal(err) {
		t.Fatalf("Register(bad redirect) = %v; want ErrInvalidRedirectURI, a refusal", err)
	}

	// Given a read model that cannot be reached, then the registration is recorded and says it is
	// not readable yet.
	n.failWait.Store(true)
	_, err = n.clients.Register(ctx, registration("c3"), origin)
	if !errors.Is(err, oauthclients.ErrNotYetReadable) {
		t.Fatalf("Register with the read model down = %v; want ErrNotYetReadable", err)
	}
	if envs, err := n.store.Load(ctx, oauthdom.ClientStreamName("c3"), 1); err != nil || len(envs) != 1 {
		t.Fatalf("c3's stream: %d events, %v; want the registration recorded", len(envs), err)
	}

	// Given the database gone, then the failure is no refusal (callers answer 503).
	n.failWait.Store(false)
	n.store.failAppend.Store(true)
	_, err = n.clients.Register(ctx, registration("c4"), origin)
	if err == nil || oauthclients.IsRefusal(err) {
		t.Fatalf("Register with the database gone = %v; want a failure that is no refusal", err)
	}
}

// A recorded exchange returns its tokens: once appended, a failed wait for the read model is no
// failure of the write.
func TestRecordedExchangeIsNotAFailure(t *testing.T) {
	n := newNode(t, false)
	ctx := context.Background()
	n.consented("r1")
	n.failWait.Store(true)
	if err := n.clients.CommitGrant(ctx, "r1", exchange("r1", "at1", "rt1", n.now), origin); err != nil {
		t.Fatalf("CommitGrant with the read model down = %v; want nil (the exchange is recorded)", err)
	}
	n.failWait.Store(false)
	// The read model catches up.
	deadline := time.Now().Add(10 * time.Second)
	for {
		g, err := n.reader.Grant(ctx, "r1")
		if err == nil && g.CodeExchanged {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the read model never applied the exchange: %+v, %v", g, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Of two uses of one code or refresh token, the one that commits second lost a race with a use of the
// same credential: a reuse, which ends the grant's refresh tokens and access tokens.
func TestLostRaceIsAReuse(t *testing.T) {
	for _, pg := range []bool{false, true} {
		name := map[bool]string{false: "sqlite", true: "postgres"}[pg]
		t.Run(name, func(t *testing.T) {
			n := newNode(t, pg)
			ctx := context.Background()

			// Given an exchanged code, when a second exchange of it commits, then it is refused as a
			// used code and the family is revoked for code reuse.
			n.consented("r1")
			if err := n.clients.CommitGrant(ctx, "r1", exchange("r1", "at1", "rt1", n.now), origin); err != nil {
				t.Fatal(err)
			}
			err := n.clients.CommitGrant(ctx, "r1", exchange("r1", "at2", "rt2", n.now), origin)
			if !errors.Is(err, oauthdom.ErrCodeUsed) || !oauthclients.IsRefusal(err) {
				t.Fatalf("second exchange = %v; want ErrCodeUsed, a refusal", err)
			}
			if got, want := n.revocations("r1"), []string{"refresh:" + oauthdom.ReasonCodeReuse, "access:" + oauthdom.ReasonCodeReuse}; !equal(got, want) {
				t.Errorf("revocations %v, want %v", got, want)
			}
			if g, err := n.reader.Grant(ctx, "r1"); err != nil || !g.RefreshRevoked || !g.AccessRevoked {
				t.Errorf("read model after the reuse: %+v, %v; want refresh and access revoked", g, err)
			}

			// Given a rotated refresh token, when a second rotation of it commits, then it is refused as
			// spent and the family is revoked for refresh-token reuse.
			n.consented("r2")
			if err := n.clients.CommitGrant(ctx, "r2", exchange("r2", "at3", "rt3", n.now), origin); err != nil {
				t.Fatal(err)
			}
			if err := n.clients.CommitGrant(ctx, "r2", rotate("rt3", "at4", "rt4", n.now), origin); err != nil {
				t.Fatal(err)
			}
			err = n.clients.CommitGrant(ctx, "r2", rotate("rt3", "at5", "rt5", n.now), origin)
			if !errors.Is(err, oauthdom.ErrRefreshTokenSpent) {
				t.Fatalf("second rotation = %v; want ErrRefreshTokenSpent", err)
			}
			if got, want := n.revocations("r2"), []string{"refresh:" + oauthdom.ReasonRefreshTokenReuse, "access:" + oauthdom.ReasonRefreshTokenReuse}; !equal(got, want) {
				t.Errorf("revocations %v, want %v", got, want)
			}

			// Given a refusal that is no reuse (an unknown code), then nothing is revoked.
			n.consented("r3")
			err = n.clients.CommitGrant(ctx, "r3", oauthdom.Batch{oauthdom.ExchangeCode{CodeSignature: "not-this-one", At: n.now}}, origin)
			if domain.ErrorCode(err) != domain.CodeNotFound {
				t.Fatalf("exchange of an unknown code = %v; want not found", err)
			}
			if got := n.revocations("r3"); len(got) != 0 {
				t.Errorf("revocations %v after a refusal that is no reuse", got)
			}
		})
	}
}

// When the revocation that answers a reuse cannot be recorded for want of the database, the caller is
// told of the failure, not of the reuse alone: the request must end in 503, and the client may retry.
func TestReuseRevocationFailureIsReported(t *testing.T) {
	n := newNode(t, false)
	ctx := context.Background()
	n.consented("r1")
	if err := n.clients.CommitGrant(ctx, "r1", exchange("r1", "at1", "rt1", n.now), origin); err != nil {
		t.Fatal(err)
	}
	n.store.failAppend.Store(true)
	err := n.clients.CommitGrant(ctx, "r1", exchange("r1", "at2", "rt2", n.now), origin)
	if !errors.Is(err, errDatabaseGone) || oauthclients.IsRefusal(err) {
		t.Fatalf("CommitGrant = %v; want the database failure, no refusal", err)
	}
}

func TestRevokeClient(t *testing.T) {
	n := newNode(t, false)
	ctx := context.Background()
	portal := oauthclients.Origin{Actor: ada.String(), ClientID: "c1", CorrelationID: "req-9"}

	// Given no grant of ada's to the client, then there is nothing to revoke.
	if err := n.clients.RevokeClient(ctx, ada, "c1", portal); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("RevokeClient with no grants = %v; want not found", err)
	}

	// Given an exchanged grant and an outstanding code, when ada revokes the client, then both lose
	// what they hold, for the user, and the read model shows it on return.
	n.consented("r1")
	if err := n.clients.CommitGrant(ctx, "r1", exchange("r1", "at1", "rt1", n.now), origin); err != nil {
		t.Fatal(err)
	}
	n.consented("r2")
	if err := n.clients.RevokeClient(ctx, ada, "c1", portal); err != nil {
		t.Fatal(err)
	}
	if got, want := n.revocations("r1"), []string{"refresh:" + oauthdom.ReasonUser}; !equal(got, want) {
		t.Errorf("r1 revocations %v, want %v", got, want)
	}
	if got := n.revocations("r2"); len(got) == 0 || got[0] != "code:"+oauthdom.ReasonUser {
		t.Errorf("r2 revocations %v, want the code revoked for the user", got)
	}
	if left, err := n.reader.RevocableGrants(ctx, ada, "c1"); err != nil || len(left) != 0 {
		t.Errorf("revocable grants after the revocation: %v, %v", left, err)
	}
	envs, err := n.store.Load(ctx, oauthdom.GrantStreamName("r1"), 1)
	if err != nil {
		t.Fatal(err)
	}
	if md := envs[len(envs)-1].Metadata; md.Actor != ada.String() || md.MCPClient != "c1" || md.CorrelationID != "req-9" {
		t.Errorf("metadata %+v, want the portal request's", md)
	}

	// Given everything revoked, then a second revocation finds nothing.
	if err := n.clients.RevokeClient(ctx, ada, "c1", portal); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("second RevokeClient = %v; want not found", err)
	}
}
