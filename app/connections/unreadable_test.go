package connections_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/internal/vault"
	"github.com/workbench/workbench/plugins"
)

// A credential the vault will not open (here: a replica started with another master key) fails the
// call before any request, with its own message for the caller, and not as a failed request: the
// plugin runtime passes a *domain.Error from the injector through unchanged.
func TestUnreadableCredentialIsNotAFailedRequest(t *testing.T) {
	e := newEnv(t, "basic")
	user := uuid.New()
	e.node(true).connectOAuth(e.ctx, user)

	other, err := vault.GenerateMasterKey()
	if err != nil {
		t.Fatal(err)
	}
	e.key = other
	n := e.node(false)
	acme, _ := e.catalog.Integration("acme")
	acc, err := n.svc.Access(e.ctx, user, acme, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = acc.GetToken(e.ctx)
	var de *domain.Error
	if !errors.As(err, &de) || de.Code != domain.CodeInternal || !errors.Is(err, vault.ErrMasterKeyMissing) {
		t.Fatalf("GetToken: want an internal *domain.Error caused by the missing master key, got %#v", err)
	}
	msg := domain.ErrorMessage(err)
	if !strings.Contains(msg, "acme") || !strings.Contains(msg, "ENCRYPTION_KEY") || strings.Contains(msg, "request") {
		t.Fatalf("message: %q", msg)
	}

	// Through the runtime's client, as a tool call makes its request: the same error, and nothing sent.
	rc := plugins.NewContext(acme, plugins.ContextOptions{UserID: user.String(), Injector: acc.Injector, GetToken: acc.GetToken})
	before := e.provider.resourceCalls()
	req, _ := http.NewRequestWithContext(e.ctx, http.MethodGet, e.provider.srv.URL+"/resources", nil)
	resp, err := rc.HTTP().Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatal("the request was sent without a credential")
	}
	if !errors.As(err, &de) || domain.ErrorMessage(err) != msg {
		t.Fatalf("through the runtime: %v", err)
	}
	if e.provider.resourceCalls() != before {
		t.Fatal("a request reached the provider")
	}
}
