package handlers

import (
	"encoding/json"
	"log/slog"
	"net/http"

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
}

// StatusOf returns the HTTP status for err's application code.
func StatusOf(err error) int {
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
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	status := StatusOf(err)
	code := domain.ErrorCode(err)
	msg := domain.ErrorMessage(err)
	if status >= 500 && log != nil {
		log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
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
