package platformkeyshttp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/platformkey"
	"github.com/workbench/workbench/handlers/platformkeyshttp"
	"github.com/workbench/workbench/projections/identityrm"
)

var (
	adminID = uuid.MustParse("aaaaaaaa-0000-4000-8000-000000000001")
	userID  = uuid.MustParse("bbbbbbbb-0000-4000-8000-000000000002")
)

// The admin API over real HTTP: a non-admin is 403 on every route, an admin sets, lists (never a
// value), removes; bad names and fields are 422 naming the problem; a cross-origin write is 403.
func TestAdminRoutes(t *testing.T) {
	e := connectorstest.Open(t, connectorstest.Options{FS: connectorstest.ManifestFS("https://mcp.example.test/mcp", nil), Admins: []string{"admin@example.com"}})
	r := chi.NewRouter()
	platformkeyshttp.Mount(r, platformkeyshttp.Deps{
		UserOf: func(r *http.Request) (uuid.UUID, bool) {
			id, err := uuid.Parse(r.Header.Get("X-Test-User"))
			return id, err == nil
		},
		SameOrigin: func(r *http.Request) bool { return r.Header.Get("X-Cross") == "" },
		Email: func(_ *http.Request, id uuid.UUID) (string, error) {
			switch id {
			case adminID:
				return "admin@example.com", nil
			case userID:
				return "user@example.com", nil
			}
			return "", identityrm.ErrNotFound
		},
		Keys: e.Keys,
	})
	srv := httptest.NewServer(r)
	defer srv.Close()
	do := func(who uuid.UUID, method, path, body string, hdr ...string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("X-Test-User", who.String())
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	const secret = "BSA-0123456789abcdef"
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/api/admin/platform-keys", ""},
		{"PUT", "/api/admin/platform-keys/integration:brave-search", `{"fields":{"api_key":"x"}}`},
		{"DELETE", "/api/admin/platform-keys/integration:brave-search", ""},
		{"GET", "/api/admin/connector-calls", ""},
	} {
		if st, body := do(userID, c.method, c.path, c.body); st != http.StatusForbidden {
			t.Errorf("%s %s as non-admin: %d %s", c.method, c.path, st, body)
		}
	}
	if st, _ := do(uuid.New(), "GET", "/api/admin/platform-keys", ""); st != http.StatusUnauthorized {
		t.Errorf("unknown user: %d", st)
	}
	if st, _ := do(adminID, "PUT", "/api/admin/platform-keys/integration:brave-search", `{"fields":{"api_key":"x"}}`, "X-Cross", "1"); st != http.StatusForbidden {
		t.Errorf("cross-origin write: %d", st)
	}
	for _, c := range []struct{ path, body, want string }{
		{"/api/admin/platform-keys/brave", `{"fields":{"api_key":"x"}}`, `platform key name \"brave\" is not integration:`},
		{"/api/admin/platform-keys/connector:missing", `{"fields":{"token":"x"}}`, `no connector \"missing\"`},
		{"/api/admin/platform-keys/integration:brave-search", `{"fields":{"apikey":"x"}}`, "fields.apikey is not a field"},
		{"/api/admin/platform-keys/integration:brave-search", `{"values":{}}`, "the body must be"},
	} {
		if st, body := do(adminID, "PUT", c.path, c.body); st != http.StatusUnprocessableEntity || !strings.Contains(body, c.want) {
			t.Errorf("PUT %s %s: %d %s, want 422 naming %q", c.path, c.body, st, body, c.want)
		}
	}
	if st, body := do(adminID, "PUT", "/api/admin/platform-keys/integration:brave-search", `{"fields":{"api_key":"`+secret+`"}}`); st != http.StatusOK || strings.Contains(body, secret) {
		t.Fatalf("set: %d %s", st, body)
	}
	st, body := do(adminID, "GET", "/api/admin/platform-keys", "")
	if st != http.StatusOK || strings.Contains(body, secret) {
		t.Fatalf("list: %d %s", st, body)
	}
	var list struct {
		Keys []struct {
			Name   string   `json:"name"`
			Set    bool     `json:"set"`
			Fields []string `json:"fields"`
			SetBy  string   `json:"set_by"`
		} `json:"keys"`
	}
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, k := range list.Keys {
		if k.Name == "integration:brave-search" {
			found = k.Set && k.SetBy == "admin@example.com" && len(k.Fields) == 1 && k.Fields[0] == "api_key"
		}
		if k.Name == platformkey.GitHubApp && k.Set {
			t.Errorf("github_app shows set")
		}
	}
	if !found {
		t.Fatalf("brave-search key not listed as set: %s", body)
	}
	if st, _ := do(adminID, "DELETE", "/api/admin/platform-keys/integration%3Abrave-search", ""); st != http.StatusNoContent {
		t.Fatalf("delete: %d", st)
	}
	if st, _ := do(adminID, "DELETE", "/api/admin/platform-keys/integration:brave-search", ""); st != http.StatusNotFound {
		t.Fatalf("second delete: %d", st)
	}
	if st, body := do(adminID, "GET", "/api/admin/connector-calls", ""); st != http.StatusOK || !strings.Contains(body, `"usage":[]`) {
		t.Fatalf("usage: %d %s", st, body)
	}
}
