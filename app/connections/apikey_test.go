package connections_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// keyProvider is an API whose "who am I" call answers with a status the test sets, and records the
// credentials it received.
type keyProvider struct {
	srv    *httptest.Server
	mu     sync.Mutex
	status int
	seen   []http.Header
}

func newKeyProvider(t *testing.T) *keyProvider {
	k := &keyProvider{status: http.StatusOK}
	k.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k.mu.Lock()
		status := k.status
		k.seen = append(k.seen, r.Header.Clone())
		k.mu.Unlock()
		if r.URL.Path != "/v1/me" || r.Method != http.MethodGet {
			t.Errorf("key check %s %s, want GET /v1/me", r.Method, r.URL.Path)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"message":"status %d"}`, status)
	}))
	t.Cleanup(k.srv.Close)
	return k
}

func (k *keyProvider) set(status int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.status = status
}

func (k *keyProvider) requests() []http.Header {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]http.Header(nil), k.seen...)
}

// An API key is checked with the provider before it is stored, carrying every injected field; a
// refusal or a failure stores nothing.
func TestAPIKeyCheckedBeforeStoring(t *testing.T) {
	kp := newKeyProvider(t)
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	manifest := func(name, base string) string {
		return fmt.Sprintf(`{"name":%q,"version":"1","display_name":"Checked","description":"test","base_url":%q,
		"auth":{"mode":"apikey","apikey":{"fields":[{"name":"api_key","label":"API key","secret":true},{"name":"app_key","label":"Application key","secret":true}],
		"inject":{"in":"header","name":"X-Api-Key","field":"api_key"},
		"extra_inject":[{"in":"header","name":"X-App-Key","field":"app_key"}],
		"verify":{"method":"GET","path":"/me"}}}}`, name, base)
	}
	e := newEnvWith(t, "basic", envOptions{extra: func(dir string, _ *provider) {
		writePlugin(t, dir, "checked", manifest("checked", kp.srv.URL+"/v1"))
		writePlugin(t, dir, "offline", manifest("offline", down.URL+"/v1"))
	}})
	n := e.node(true)
	user := uuid.New()
	checked, _ := e.catalog.Integration("checked")
	offline, _ := e.catalog.Integration("offline")
	good := map[string]string{"api_key": "key-one", "app_key": "app-one"}

	tests := []struct {
		name        string
		integration string
		status      int
		fields      map[string]string
		wantCode    domain.Code
		wantMsg     string
	}{
		{name: "401 refused", integration: "checked", status: 401, fields: good, wantCode: domain.CodeInvalid, wantMsg: "Checked refused this key: HTTP 401: status 401"},
		{name: "403 refused", integration: "checked", status: 403, fields: good, wantCode: domain.CodeInvalid, wantMsg: "Checked refused this key: HTTP 403"},
		{name: "500 is not a verdict", integration: "checked", status: 500, fields: good, wantCode: domain.CodeUnavailable, wantMsg: "could not check this key: it answered HTTP 500"},
		{name: "unreachable", integration: "offline", fields: good, wantCode: domain.CodeUnavailable, wantMsg: "could not be reached to check this key"},
		{name: "the extra injected field is required", integration: "checked", status: 200, fields: map[string]string{"api_key": "key-one"},
			wantCode: domain.CodeInvalid, wantMsg: "is required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			kp.set(tc.status)
			before := len(kp.requests())
			err := n.svc.ConnectAPIKey(e.ctx, user, tc.integration, "", tc.fields)
			if domain.ErrorCode(err) != tc.wantCode || !strings.Contains(domain.ErrorMessage(err), tc.wantMsg) {
				t.Fatalf("got %v, want %s containing %q", err, tc.wantCode, tc.wantMsg)
			}
			if strings.Contains(err.Error(), "key-one") || strings.Contains(err.Error(), "app-one") {
				t.Fatalf("the key leaks into the error: %v", err)
			}
			for _, in := range []string{"checked", "offline"} {
				integ := checked
				if in == "offline" {
					integ = offline
				}
				if _, err := n.svc.Access(e.ctx, user, integ, ""); domain.ErrorCode(err) != domain.CodeNotConnected {
					t.Fatalf("%s was stored after a failed check: %v", in, err)
				}
			}
			if tc.name == "the extra injected field is required" && len(kp.requests()) != before {
				t.Fatal("an incomplete key was sent to the provider")
			}
		})
	}

	t.Run("accepted and stored", func(t *testing.T) {
		kp.set(200)
		if err := n.svc.ConnectAPIKey(e.ctx, user, "checked", "", good); err != nil {
			t.Fatal(err)
		}
		reqs := kp.requests()
		last := reqs[len(reqs)-1]
		if last.Get("X-Api-Key") != "key-one" || last.Get("X-App-Key") != "app-one" {
			t.Fatalf("the check carried %v", last)
		}
		acc, err := n.svc.Access(e.ctx, user, checked, "")
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodGet, kp.srv.URL+"/v1/x", nil)
		if err := acc.Injector.Inject(e.ctx, req); err != nil || req.Header.Get("X-Api-Key") != "key-one" || req.Header.Get("X-App-Key") != "app-one" {
			t.Fatalf("injected %v: %v", req.Header, err)
		}
		assertNotStored(t, n, "app-one")
	})
	t.Run("a refused replacement keeps the stored key", func(t *testing.T) {
		kp.set(401)
		err := n.svc.ConnectAPIKey(e.ctx, user, "checked", "", map[string]string{"api_key": "key-two", "app_key": "app-two"})
		if domain.ErrorCode(err) != domain.CodeInvalid {
			t.Fatalf("got %v", err)
		}
		acc, err := n.svc.Access(e.ctx, user, checked, "")
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodGet, kp.srv.URL+"/v1/x", nil)
		if err := acc.Injector.Inject(e.ctx, req); err != nil || req.Header.Get("X-Api-Key") != "key-one" {
			t.Fatalf("injected %v: %v", req.Header, err)
		}
	})
}
