package brave_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/workbench/workbench/plugins/brave-search"
	"github.com/workbench/workbench/plugins/connector"
)

// The adapter calls the web search as Brave documents it and maps a refused key to a rejection.
func TestWebSearch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.Method != http.MethodGet || r.URL.Path != "/res/v1/web/search" || q.Get("q") != "golang" || q.Get("count") != "5" {
			t.Errorf("request %s %s", r.Method, r.URL)
		}
		if r.Header.Get("X-Subscription-Token") != "good" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte(`{"web":{"results":[{"title":"The Go Programming Language","url":"https://go.dev/","description":"Go is","age":"x"}]}}`))
	}))
	defer srv.Close()
	a := brave.New(srv.URL)
	ac := connector.Context{HTTP: srv.Client()}
	out, err := a.Call(context.Background(), "web_search", json.RawMessage(`{"query":"golang","count":5}`), map[string]string{"api_key": "good"}, ac)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Results []brave.Result `json:"results"`
	}
	if err := json.Unmarshal(out, &r); err != nil || len(r.Results) != 1 || r.Results[0].URL != "https://go.dev/" {
		t.Fatalf("out = %s, %v", out, err)
	}
	_, err = a.Call(context.Background(), "web_search", json.RawMessage(`{"query":"golang","count":5}`), map[string]string{"api_key": "bad"}, ac)
	if !connector.Rejected(err) {
		t.Fatalf("a refused key: %v", err)
	}
}
