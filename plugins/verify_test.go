package plugins

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/workbench/workbench/domain"
)

// The catalog's key checks send the documented "who am I" request with every injected credential.
func TestCatalogKeyChecks(t *testing.T) {
	r := builtinRegistry(t)
	tests := []struct {
		integration string
		method      string
		path        string
		header      map[string]string
		body        string
	}{
		{integration: "newrelic", method: "POST", path: "/graphql", header: map[string]string{"Api-Key": "NRAK-contract", "Content-Type": "application/json"},
			body: `{"query":"{ actor { user { id } } }"}`},
		{integration: "pagerduty", method: "GET", path: "/abilities", header: map[string]string{"Authorization": "Token token=" + testAPIKeys["pagerduty"]["api_key"],
			"Accept": "application/vnd.pagerduty+json;version=2"}},
		{integration: "datadog", method: "GET", path: "/api/v2/validate_keys", header: map[string]string{"DD-API-KEY": datadogAPIKey, "DD-APPLICATION-KEY": datadogAppKey}},
	}
	for _, tc := range tests {
		t.Run(tc.integration, func(t *testing.T) {
			in, _ := r.Integration(tc.integration)
			if !in.HasKeyCheck() {
				t.Fatal("no auth.apikey.verify")
			}
			fake, seen := newFakeProvider(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
				writeJSON(w, 200, map[string]any{"status": "ok"})
			})
			if err := in.VerifyAPIKey(t.Context(), testAPIKeys[tc.integration], fake.transport); err != nil {
				t.Fatal(err)
			}
			if len(*seen) != 1 {
				t.Fatalf("%d requests", len(*seen))
			}
			got := (*seen)[0]
			if got.Method != tc.method || got.Path != tc.path || got.Host != in.baseURL.Host || got.RawQuery != "" {
				t.Errorf("request %s %s%s?%s", got.Method, got.Host, got.Path, got.RawQuery)
			}
			for k, v := range tc.header {
				if got.Header.Get(k) != v {
					t.Errorf("header %s = %q, want %q", k, got.Header.Get(k), v)
				}
			}
			if tc.body == "" && len(got.Body) != 0 || tc.body != "" && !cmp.Equal(mustJSON(t, []byte(tc.body)), mustJSON(t, got.Body)) {
				t.Errorf("body %s, want %s", got.Body, tc.body)
			}
		})
	}
	brave, _ := r.Integration("brave-search")
	if brave.HasKeyCheck() {
		t.Error("brave-search declares a key check, but every Brave Search call is billed against the plan's quota")
	}
}

func TestVerifyAPIKeyOutcomes(t *testing.T) {
	r := builtinRegistry(t)
	newrelic, _ := r.Integration("newrelic")
	key := map[string]string{"api_key": "NRAK-candidate-secret"}
	tests := []struct {
		name     string
		status   int
		respond  any
		down     bool
		wantCode domain.Code
		wantMsg  string
	}{
		{name: "accepted", status: 200, respond: map[string]any{"data": map[string]any{"actor": map[string]any{"user": map[string]any{"id": 1}}}}},
		{name: "401", status: 401, respond: map[string]any{"errors": []any{map[string]any{"message": "Invalid API key NRAK-candidate-secret"}}},
			wantCode: domain.CodeInvalid, wantMsg: "New Relic refused this key: HTTP 401: Invalid API key [redacted]"},
		{name: "403", status: 403, respond: map[string]any{"error": "forbidden"}, wantCode: domain.CodeInvalid, wantMsg: "New Relic refused this key: HTTP 403: forbidden"},
		{name: "GraphQL errors on 200", status: 200, respond: map[string]any{"errors": []any{map[string]any{"message": "Unauthorized"}}},
			wantCode: domain.CodeInvalid, wantMsg: "New Relic refused this key: Unauthorized"},
		{name: "500", status: 500, respond: map[string]any{"message": "boom"}, wantCode: domain.CodeUnavailable, wantMsg: "New Relic could not check this key: it answered HTTP 500: boom"},
		{name: "429", status: 429, respond: map[string]any{"message": "slow down"}, wantCode: domain.CodeUnavailable, wantMsg: "HTTP 429"},
		{name: "unreachable", down: true, wantCode: domain.CodeUnavailable, wantMsg: "New Relic could not be reached to check this key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake, _ := newFakeProvider(t, func(w http.ResponseWriter, r *http.Request, body []byte) { writeJSON(w, tc.status, tc.respond) })
			if tc.down {
				fake.srv.Close()
			}
			err := newrelic.VerifyAPIKey(t.Context(), key, fake.transport)
			if tc.wantCode == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if domain.ErrorCode(err) != tc.wantCode || !strings.Contains(domain.ErrorMessage(err), tc.wantMsg) {
				t.Fatalf("got %v (%s), want %s containing %q", err, domain.ErrorCode(err), tc.wantCode, tc.wantMsg)
			}
			if strings.Contains(err.Error(), "NRAK-candidate-secret") {
				t.Fatalf("the key leaks into the error: %v", err)
			}
		})
	}
}
