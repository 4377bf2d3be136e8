package jotshttp_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/workbench/workbench/app/jots"
	"github.com/workbench/workbench/app/jots/jotstest"
	"github.com/workbench/workbench/handlers/jotshttp"
)

// unreachable is a jots service whose database is away (or, with other, failing otherwise).
type unreachable struct {
	jotshttp.Service
	err error
}

func (u unreachable) Site(context.Context, string) (jots.Site, error) { return jots.Site{}, u.err }

// TestStorageFailureIsUnavailable: a jot that cannot be looked up because the database is away is 503
// with Retry-After, never a 404 (the jot exists) and not a bare 500; any other failure stays 500.
func TestStorageFailureIsUnavailable(t *testing.T) {
	e := jotstest.New(t, jots.Options{})
	for _, tt := range []struct {
		name   string
		err    error
		status int
	}{
		{"database away", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}, http.StatusServiceUnavailable},
		{"other failure", errors.New("boom"), http.StatusInternalServerError},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h, err := jotshttp.New(jotshttp.Options{Service: unreachable{e.Service, tt.err}, CookieKey: key})
			if err != nil {
				t.Fatal(err)
			}
			r := chi.NewRouter()
			h.Mount(r)
			srv := httptest.NewServer(r)
			defer srv.Close()
			resp, err := http.Get(srv.URL + "/j/site/")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status || (resp.Header.Get("Retry-After") != "") != (tt.status == http.StatusServiceUnavailable) {
				t.Fatalf("GET: %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
			}
		})
	}
}
