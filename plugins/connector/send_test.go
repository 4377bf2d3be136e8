package connector

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestSend(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
			return
		}
		w.Write([]byte("0123456789"))
	}))
	defer srv.Close()
	ac := Context{HTTP: srv.Client()}
	get := func(path string) *http.Request {
		req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return req
	}
	if b, err := ac.Send(get("/"), "Acme", 4); err != nil || string(b) != "0123" {
		t.Fatalf("capped answer = %q, %v", b, err)
	}
	b, err := ac.Send(get("/missing"), "Acme", 1<<10)
	var ce *Error
	if !errors.As(err, &ce) || ce.Status != 404 || ce.Message != "Acme answered 404" || string(b) != "{\"message\":\"Not Found\"}\n" {
		t.Fatalf("404 = %q, %v", b, err)
	}
	srv.Close()
	if _, err := ac.Send(get("/"), "Acme", 1<<10); !errors.As(err, &ce) || ce.Status != 0 || ce.Message != "Acme could not be reached" {
		t.Fatalf("unreachable = %v", err)
	}
}
