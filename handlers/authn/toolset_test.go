package authn

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers/oauthhttp"
	"github.com/workbench/workbench/projections/identityrm"
)

type oneUser struct{ u identityrm.User }

func (o oneUser) UserByID(context.Context, uuid.UUID) (identityrm.User, error) { return o.u, nil }

// A token issued for one toolset's endpoint is good there alone; a token for /mcp is good everywhere.
func TestToolsetTokenIsConfinedToItsEndpoint(t *testing.T) {
	u := identityrm.User{ID: uuid.New(), Email: "ada@example.com"}
	for _, c := range []struct {
		toolset, path string
		ok            bool
	}{
		{"ops", "/mcp/ts/ops", true},
		{"ops", "/mcp", false},
		{"ops", "/mcp/ts/other", false},
		{"ops", "/mcp/ts/ops/extra", false},
		{"ops", "/api/orgs", false},
		{"", "/mcp", true},
		{"", "/mcp/ts/ops", true},
	} {
		a := AccessTokens{Verifier: verifier{claims: oauthhttp.AccessClaims{UserID: u.ID, ClientID: "c", Toolset: c.toolset}}, Users: oneUser{u}}
		r := httptest.NewRequest("POST", "http://127.0.0.1"+c.path, nil)
		r.Header.Set("Authorization", "Bearer a.b.c")
		p, err := a.Authenticate(r)
		if c.ok != (err == nil) {
			t.Fatalf("a token for toolset %q at %s: %v", c.toolset, c.path, err)
		}
		if err != nil && domain.ErrorCode(err) != domain.CodeUnauthenticated {
			t.Fatalf("a token for toolset %q at %s: code %s, want unauthenticated", c.toolset, c.path, domain.ErrorCode(err))
		}
		if err == nil && p.UserID != u.ID.String() {
			t.Fatalf("principal %+v", p)
		}
	}
}
