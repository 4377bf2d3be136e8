package handlers

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"

	"github.com/workbench/workbench/domain"
)

// pgError and liteError carry the methods of the PostgreSQL and SQLite drivers' errors.
type pgError struct{ state string }

func (e pgError) Error() string    { return "pg " + e.state }
func (e pgError) SQLState() string { return e.state }

type liteError struct{ code int }

func (e liteError) Error() string { return fmt.Sprintf("sqlite %d", e.code) }
func (e liteError) Code() int     { return e.code }

func TestIsStorageFailure(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"connection refused", fmt.Errorf("identity: key lookup: %w", refused), true},
		{"bad connection", fmt.Errorf("q: %w", driver.ErrBadConn), true},
		{"deadline", fmt.Errorf("q: %w", context.DeadlineExceeded), true},
		{"admin shutdown 57P01", pgError{"57P01"}, true},
		{"cannot connect now 57P03", pgError{"57P03"}, true},
		{"connection exception 08006", pgError{"08006"}, true},
		{"too many connections 53300", pgError{"53300"}, true},
		{"sqlite busy", liteError{5}, true},
		{"sqlite busy snapshot (extended code)", liteError{5 | 2<<8}, true},
		{"unique violation 23505", pgError{"23505"}, false},
		{"syntax error 42601", pgError{"42601"}, false},
		{"sqlite constraint", liteError{19}, false},
		{"plain error", errors.New("boom"), false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsStorageFailure(tt.err); got != tt.want {
				t.Fatalf("IsStorageFailure(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

// TestWriteErrorStorageFailure: an uncoded error that is a storage failure is 503 unavailable with
// Retry-After (the cause stays in the log); any other uncoded error stays a 500.
func TestWriteErrorStorageFailure(t *testing.T) {
	tests := []struct {
		err        error
		status     int
		code       string
		retryAfter bool
	}{
		{fmt.Errorf("list: %w", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}), http.StatusServiceUnavailable, "unavailable", true},
		{domain.Errorf(domain.CodeUnavailable, "provider down"), http.StatusServiceUnavailable, "unavailable", true},
		{errors.New("a bug"), http.StatusInternalServerError, "internal", false},
		{domain.Errorf(domain.CodeUnauthenticated, "no"), http.StatusUnauthorized, "unauthenticated", false},
	}
	for _, tt := range tests {
		w := httptest.NewRecorder()
		WriteError(w, httptest.NewRequest("GET", "/api/x", nil), nil, tt.err)
		var body ErrorBody
		_ = json.Unmarshal(w.Body.Bytes(), &body)
		if w.Code != tt.status || body.Error != tt.code || (w.Header().Get("Retry-After") != "") != tt.retryAfter {
			t.Errorf("%v: %d %q Retry-After %q", tt.err, w.Code, body.Error, w.Header().Get("Retry-After"))
		}
	}
}
