package authn

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/handlers/mcp"
	"github.com/workbench/workbench/handlers/oauthhttp"
	"github.com/workbench/workbench/projections/identityrm"
)

// keyOwners is a fake read model: a fixed answer for every lookup.
type keyOwners struct {
	user identityrm.User
	err  error
}

func (k keyOwners) OwnerByKeyHash(context.Context, string) (identityrm.KeyOwner, error) {
	return identityrm.KeyOwner{User: k.user, KeyID: uuid.New(), AgentID: uuid.New()}, k.err
}

type verifier struct {
	claims oauthhttp.AccessClaims
	err    error
}

func (v verifier) VerifyAccessToken(context.Context, string) (oauthhttp.AccessClaims, error) {
	return v.claims, v.err
}

type failingUsers struct{ err error }

func (f failingUsers) UserByID(context.Context, uuid.UUID) (identityrm.User, error) {
	return identityrm.User{}, f.err
}

// TestStorageFailureIsUnavailable: when the read model cannot be read, every authenticator answers
// CodeUnavailable (503), never CodeUnauthenticated (401); and in a chain that outranks the other
// authenticators' refusals.
func TestStorageFailureIsUnavailable(t *testing.T) {
	down := errors.New("dial tcp 127.0.0.1:5432: connect: connection refused")
	key, _, _ := identitydom.NewAPIKey()
	ada := uuid.New()
	tests := []struct {
		name  string
		auth  mcp.Authenticator
		token string
		want  domain.Code
	}{
		{"API key, database down", APIKeys{Reader: keyOwners{err: down}}, key, domain.CodeUnavailable},
		{"API key, unknown", APIKeys{Reader: keyOwners{err: identityrm.ErrNotFound}}, key, domain.CodeUnauthenticated},
		{"access token, grant unreadable", AccessTokens{Verifier: verifier{err: down}, Users: fakeUsers{}}, "a.b.c", domain.CodeUnavailable},
		{"access token, user unreadable", AccessTokens{Verifier: verifier{claims: oauthhttp.AccessClaims{UserID: ada}}, Users: failingUsers{down}}, "a.b.c", domain.CodeUnavailable},
		{"access token, refused", AccessTokens{Verifier: verifier{err: domain.Errorf(domain.CodeUnauthenticated, "expired")}, Users: fakeUsers{}}, "a.b.c", domain.CodeUnauthenticated},
		{"access token, wrong scope", AccessTokens{Verifier: verifier{err: &oauthhttp.InsufficientScopeError{Scope: "mcp"}}, Users: fakeUsers{}}, "a.b.c", domain.CodeForbidden},
		{"chain: the key lookup failed, the token authenticator does not know the credential",
			Chain{APIKeys{Reader: keyOwners{err: down}}, AccessTokens{Verifier: verifier{err: oauthhttp.ErrNotAccessToken}, Users: fakeUsers{}}}, key, domain.CodeUnavailable},
		{"chain: a refusal after a failure does not hide it",
			Chain{AccessTokens{Verifier: verifier{err: down}, Users: fakeUsers{}}, APIKeys{Reader: keyOwners{err: identityrm.ErrNotFound}}}, "a.b.c", domain.CodeUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/mcp", nil)
			r.Header.Set("Authorization", "Bearer "+tt.token)
			_, err := tt.auth.Authenticate(r)
			if got := domain.ErrorCode(err); got != tt.want {
				t.Fatalf("code %s (%v), want %s", got, err, tt.want)
			}
		})
	}
	t.Run("portal session, user unreadable", func(t *testing.T) {
		r := httptest.NewRequest("POST", "/mcp", nil)
		_, err := PortalSessions{Sessions: fakeSessions{user: ada, sameOrigin: true}, Users: failingUsers{down}}.Authenticate(r)
		if domain.ErrorCode(err) != domain.CodeUnavailable {
			t.Fatalf("err = %v", err)
		}
	})
}
