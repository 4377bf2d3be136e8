package authn

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/uuid"

	"github.com/workbench/workbench/projections/identityrm"
)

// fakeSessions and fakeUsers are hand-written fakes with function fields' worth of behaviour: the real
// cookie and CSRF rules are websession's, tested there.
type fakeSessions struct {
	user       uuid.UUID
	sameOrigin bool
}

func (f fakeSessions) User(*http.Request) (uuid.UUID, bool) { return f.user, f.user != uuid.Nil }
func (f fakeSessions) SameOrigin(*http.Request) bool        { return f.sameOrigin }

type fakeUsers map[uuid.UUID]identityrm.User

func (f fakeUsers) UserByID(_ context.Context, id uuid.UUID) (identityrm.User, error) {
	if u, ok := f[id]; ok {
		return u, nil
	}
	return identityrm.User{}, identityrm.ErrNotFound
}

func TestPortalSessions(t *testing.T) {
	ada := uuid.New()
	users := fakeUsers{ada: {ID: ada, Email: "ada@example.com"}}
	tests := []struct {
		name     string
		sessions fakeSessions
		auth     string
		wantUser bool
		noCred   bool
	}{
		{"same-origin session", fakeSessions{user: ada, sameOrigin: true}, "", true, false},
		{"no session", fakeSessions{sameOrigin: true}, "", false, true},
		{"cross-site session", fakeSessions{user: ada, sameOrigin: false}, "", false, false},
		{"bearer present: left to the token authenticators", fakeSessions{user: ada, sameOrigin: true}, "Bearer x", false, true},
		{"unknown user", fakeSessions{user: uuid.New(), sameOrigin: true}, "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/mcp", nil)
			if tt.auth != "" {
				r.Header.Set("Authorization", tt.auth)
			}
			p, err := PortalSessions{Sessions: tt.sessions, Users: users}.Authenticate(r)
			if tt.wantUser != (err == nil) {
				t.Fatalf("err = %v", err)
			}
			if tt.wantUser && (p.UserID != ada.String() || p.Method != "session" || p.Email != "ada@example.com") {
				t.Fatalf("principal %+v", p)
			}
			if !tt.wantUser && errors.Is(err, ErrNoCredential) != tt.noCred {
				t.Fatalf("err = %v, want no-credential %v", err, tt.noCred)
			}
		})
	}
}
