package connectorstest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
)

// TodoistFake answers as Todoist's REST API v2 and Sync API v9 document, checking method, path,
// the bearer token and the body.
func TodoistFake(t testing.TB, token string) (*httptest.Server, *atomic.Int64) {
	var created atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "Forbidden", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/sync/v9/sync":
			body, _ := io.ReadAll(r.Body)
			form, _ := url.ParseQuery(string(body))
			if r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" || form.Get("sync_token") != "*" || form.Get("resource_types") != `["user"]` {
				http.Error(w, "bad sync request", http.StatusBadRequest)
				return
			}
			io.WriteString(w, `{"user":{"email":"ada@example.com","full_name":"Ada"},"sync_token":"x"}`)
		case r.Method == http.MethodGet && r.URL.Path == "/rest/v2/projects":
			io.WriteString(w, `[{"id":"220474322","name":"Inbox"},{"id":"220474323","name":"Work"}]`)
		case r.Method == http.MethodGet && r.URL.Path == "/rest/v2/tasks":
			if r.URL.Query().Get("project_id") != "220474323" {
				http.Error(w, "unknown project", http.StatusBadRequest)
				return
			}
			io.WriteString(w, `[{"id":"2995104339","content":"Buy milk","project_id":"220474323"}]`)
		case r.Method == http.MethodPost && r.URL.Path == "/rest/v2/tasks":
			var b map[string]string
			if json.NewDecoder(r.Body).Decode(&b) != nil || b["content"] == "" || r.Header.Get("Content-Type") != "application/json" {
				http.Error(w, "bad task", http.StatusBadRequest)
				return
			}
			created.Add(1)
			json.NewEncoder(w).Encode(map[string]string{"id": "2995104340", "content": b["content"], "project_id": b["project_id"]})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &created
}
