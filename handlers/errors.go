package handlers

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/workbench/workbench/domain"
)

// statusByCode is the one table from application error codes to HTTP statuses.
var statusByCode = map[domain.Code]int{
	domain.CodeInvalid:         http.StatusBadRequest,
	domain.CodeNotFound:        http.StatusNotFound,
	domain.CodeConflict:        http.StatusConflict,
	domain.CodeUnauthenticated: http.StatusUnauthorized,
	domain.CodeForbidden:       http.StatusForbidden,
	domain.CodeNotConnected:    http.StatusConflict,
	domain.CodeUnavailable:     http.StatusServiceUnavailable,
	domain.CodeInternal:        http.StatusInternalServerError,
	domain.CodeUnprocessable:   http.StatusUnprocessableEntity,
	domain.CodeUpstream:        http.StatusBadGateway,
}

// RetryAfterSeconds is the Retry-After of every 503 caused by an unavailable dependency.
const RetryAfterSeconds = "5"

// StatusOf returns the HTTP status for err's application code. An error without one that is a
// failure to reach the database (IsStorageFailure) is 503, not 500; a body over a route's cap
// (http.MaxBytesError in the chain) is 413.
func StatusOf(err error) int {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return http.StatusRequestEntityTooLarge
	}
	if domain.ErrorCode(err) == domain.CodeInternal && IsStorageFailure(err) {
		return http.StatusServiceUnavailable
	}
	if s, ok := statusByCode[domain.ErrorCode(err)]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// ErrorBody is the JSON shape of every API error.
type ErrorBody struct {
	Error   string `json:"error"`   // the application code, e.g. "not_found"
	Message string `json:"message"` // safe to show to a person
}

// WriteError answers err as JSON with the mapped status. Internal errors are logged with their cause and
// answered with a generic message.
//
// A storage failure is 503 unavailable with Retry-After: the caller's request and credential may be
// fine, and retrying may work; it is never mistaken for a refusal.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	status := StatusOf(err)
	code := domain.ErrorCode(err)
	msg := domain.ErrorMessage(err)
	if status == http.StatusServiceUnavailable && code == domain.CodeInternal {
		code, msg = domain.CodeUnavailable, "the server cannot reach its database or another service it depends on; retry shortly"
	}
	if status >= 500 && log != nil {
		log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", RetryAfterSeconds)
	}
	WriteJSON(w, status, ErrorBody{Error: string(code), Message: msg})
}

// WriteJSON answers v as JSON with the given status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// IsStorageFailure reports whether err is a failure to reach or use the database, as opposed to an
// answer from it: a network error or timeout, a connection the driver gave up on, PostgreSQL's
// connection-exception, shutdown and resource SQLSTATEs, SQLite's busy, locked, I/O and full codes.
// Drivers are recognised by the methods their errors carry, so this package imports none of them.
func IsStorageFailure(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) {
		st := pg.SQLState()
		return strings.HasPrefix(st, "08") || strings.HasPrefix(st, "53") || strings.HasPrefix(st, "58") ||
			st == "57P01" || st == "57P02" || st == "57P03"
	}
	var retry interface{ SafeToRetry() bool } // pgconn: the query never reached the server
	if errors.As(err, &retry) && retry.SafeToRetry() {
		return true
	}
	var lite interface{ Code() int }
	if errors.As(err, &lite) {
		switch lite.Code() & 0xff {
		case 5, 6, 10, 13, 14: // SQLITE_BUSY, SQLITE_LOCKED, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN
			return true
		}
	}
	return false
}
