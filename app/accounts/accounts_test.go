package accounts_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/accounts"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testenv"
)

var (
	t0 = time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	md = eventstore.Metadata{Actor: "test"}
)

// fixture is a Service on a real SQLite event store and vault, with a clock the test sets.
type fixture struct {
	ctx   context.Context
	store eventstore.Store
	svc   *accounts.Service
	now   time.Time
}

func setup(t *testing.T) *fixture {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	sq := testenv.OpenSQLite(t)
	store := sq.Store
	v := testenv.Vault(t, sq.DB, store)
	f := &fixture{ctx: ctx, store: store, now: t0}
	f.svc = &accounts.Service{Store: store, Vault: v, Now: func() time.Time { return f.now }}
	return f
}

// types lists the event types of a stream, in order.
func (f *fixture) types(t *testing.T, stream string) []string {
	t.Helper()
	evs, err := f.store.Load(f.ctx, stream, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

func (f *fixture) user(t *testing.T, email string) uuid.UUID {
	t.Helper()
	u, _, _, err := f.svc.EnsureUser(f.ctx, email, "", md)
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

func TestEnsureUser(t *testing.T) {
	tests := []struct {
		name string
		// given: what the log holds before (writes through the aggregate values, as a crash would leave it)
		given func(t *testing.T, f *fixture) (want uuid.UUID)
		// when
		email, display string
		// then
		wantCreated bool
		wantEmail   string
		wantCode    domain.Code // "" means success
		wantUser    []string    // the user stream's events after
	}{
		{
			name:        "an unknown address makes a user",
			email:       " Ann@Example.COM ",
			display:     "Ann",
			wantCreated: true, wantEmail: "ann@example.com",
			wantUser: []string{identitydom.TypeUserCreated},
		},
		{
			name: "a known address in another case is the same user",
			given: func(t *testing.T, f *fixture) uuid.UUID {
				return f.user(t, "ann@example.com")
			},
			email:       "ANN@example.com",
			wantCreated: false, wantEmail: "ann@example.com",
			wantUser: []string{identitydom.TypeUserCreated},
		},
		{
			name: "a claim left without its user (a crash between the two steps) is finished",
			given: func(t *testing.T, f *fixture) uuid.UUID {
				id := uuid.New()
				if _, err := eventstore.Execute(f.ctx, f.store, identitydom.EmailStreamName("ann@example.com"), accounts.EmailClaims,
					identitydom.ClaimEmail{Email: "ann@example.com", UserID: id, At: t0}, md); err != nil {
					t.Fatal(err)
				}
				return id
			},
			email:       "ann@example.com",
			wantCreated: true, wantEmail: "ann@example.com",
			wantUser: []string{identitydom.TypeUserCreated},
		},
		{
			name:     "an address that is none is refused",
			email:    "not an address",
			wantCode: domain.CodeInvalid,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := setup(t)
			var want uuid.UUID
			if tt.given != nil {
				want = tt.given(t, f)
			}
			u, created, pos, err := f.svc.EnsureUser(f.ctx, tt.email, tt.display, md)
			if tt.wantCode != "" {
				if domain.ErrorCode(err) != tt.wantCode {
					t.Fatalf("err = %v, want code %s", err, tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if created != tt.wantCreated || u.Email != tt.wantEmail || u.DisplayName != tt.display {
				t.Fatalf("got %+v created=%v, want email %q name %q created=%v", u, created, tt.wantEmail, tt.display, tt.wantCreated)
			}
			if want != uuid.Nil && u.ID != want {
				t.Fatalf("user %s, want the claimed %s", u.ID, want)
			}
			if created == pos.IsZero() {
				t.Fatalf("created=%v but position %v", created, pos)
			}
			if got := f.types(t, identitydom.StreamName(u.ID)); !reflect.DeepEqual(got, tt.wantUser) {
				t.Fatalf("user stream %v, want %v", got, tt.wantUser)
			}
			if got := f.types(t, identitydom.EmailStreamName(tt.wantEmail)); !reflect.DeepEqual(got, []string{identitydom.TypeEmailClaimed}) {
				t.Fatalf("email stream %v, want one claim", got)
			}
			got, err := f.svc.User(f.ctx, u.ID)
			if err != nil || got.ID != u.ID || got.Email != tt.wantEmail || got.LiveKey != nil {
				t.Fatalf("User = %+v, %v", got, err)
			}
		})
	}
}

func TestUserUnknown(t *testing.T) {
	f := setup(t)
	if _, err := f.svc.User(f.ctx, uuid.New()); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("err = %v, want not found", err)
	}
}

// TestKeyLife runs the API key use cases in sequence on one user: each step is a when, and its
// then is the answer, the stream's new events and what User and RevealKey say afterwards.
func TestKeyLife(t *testing.T) {
	f := setup(t)
	user := f.user(t, "ann@example.com")
	var live accounts.Key // the key that should authenticate now (zero: none)
	steps := []struct {
		name     string
		when     func() (accounts.Key, error)
		wantCode domain.Code
		newKey   bool     // the step answers a new key that becomes the live one
		noKey    bool     // afterwards the user has no live key
		events   []string // appended by the step
	}{
		{name: "reveal before any key", when: func() (accounts.Key, error) { return f.svc.RevealKey(f.ctx, user) }, wantCode: domain.CodeNotFound, noKey: true},
		{name: "revoke before any key", when: func() (accounts.Key, error) { _, err := f.svc.RevokeKey(f.ctx, user, md); return accounts.Key{}, err }, wantCode: domain.CodeConflict, noKey: true},
		{name: "mint", when: func() (accounts.Key, error) { k, _, err := f.svc.MintKey(f.ctx, user, md); return k, err }, newKey: true, events: []string{identitydom.TypeAPIKeyMinted}},
		{name: "mint again is refused", when: func() (accounts.Key, error) { k, _, err := f.svc.MintKey(f.ctx, user, md); return k, err }, wantCode: domain.CodeConflict},
		{name: "rotate", when: func() (accounts.Key, error) { k, _, err := f.svc.RotateKey(f.ctx, user, md); return k, err }, newKey: true, events: []string{identitydom.TypeAPIKeyRotated}},
		{name: "mint or rotate with a live key rotates", when: func() (accounts.Key, error) { k, _, err := f.svc.MintOrRotate(f.ctx, user, md); return k, err }, newKey: true, events: []string{identitydom.TypeAPIKeyRotated}},
		{name: "revoke", when: func() (accounts.Key, error) { _, err := f.svc.RevokeKey(f.ctx, user, md); return accounts.Key{}, err }, noKey: true, events: []string{identitydom.TypeAPIKeyRevoked}},
		{name: "rotate without a live key is refused", when: func() (accounts.Key, error) { k, _, err := f.svc.RotateKey(f.ctx, user, md); return k, err }, wantCode: domain.CodeConflict, noKey: true},
		{name: "a user the log does not know has no key", when: func() (accounts.Key, error) { k, _, err := f.svc.MintKey(f.ctx, uuid.New(), md); return k, err }, wantCode: domain.CodeNotFound, noKey: true},
		{name: "mint or rotate without a live key mints", when: func() (accounts.Key, error) { k, _, err := f.svc.MintOrRotate(f.ctx, user, md); return k, err }, newKey: true, events: []string{identitydom.TypeAPIKeyMinted}},
	}
	for i, st := range steps {
		f.now = t0.Add(time.Duration(i+1) * time.Minute)
		before := f.types(t, identitydom.StreamName(user))
		k, err := st.when()
		if st.wantCode != "" {
			if domain.ErrorCode(err) != st.wantCode {
				t.Fatalf("%s: err = %v, want code %s", st.name, err, st.wantCode)
			}
		} else if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		after := f.types(t, identitydom.StreamName(user))
		if added := after[len(before):]; !reflect.DeepEqual(added, append([]string{}, st.events...)) {
			t.Fatalf("%s: appended %v, want %v", st.name, added, st.events)
		}
		switch {
		case st.newKey:
			if k.Secret == "" || k.ID == uuid.Nil || k.Prefix == "" || k.ID == live.ID || k.Secret == live.Secret {
				t.Fatalf("%s: key %+v is not a new key", st.name, k.Prefix)
			}
			live = k
		case st.noKey:
			live = accounts.Key{}
		}
		u, err := f.svc.User(f.ctx, user)
		if err != nil {
			t.Fatalf("%s: User: %v", st.name, err)
		}
		revealed, rerr := f.svc.RevealKey(f.ctx, user)
		if live.ID == uuid.Nil {
			if u.LiveKey != nil || domain.ErrorCode(rerr) != domain.CodeNotFound {
				t.Fatalf("%s: want no live key, got %+v and reveal err %v", st.name, u.LiveKey, rerr)
			}
			continue
		}
		if u.LiveKey == nil || u.LiveKey.ID != live.ID || u.LiveKey.Prefix != live.Prefix {
			t.Fatalf("%s: live key %+v, want %s", st.name, u.LiveKey, live.Prefix)
		}
		if st.newKey && !u.LiveKey.MintedAt.Equal(f.now) {
			t.Fatalf("%s: minted at %v, want the service clock's %v", st.name, u.LiveKey.MintedAt, f.now)
		}
		if rerr != nil || revealed != live {
			t.Fatalf("%s: reveal = %s, %v; want the live key's secret", st.name, revealed.Prefix, rerr)
		}
	}
}
