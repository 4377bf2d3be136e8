package domain

import (
	"errors"
	"fmt"
)

// Code classifies an application error. Handlers map codes to HTTP statuses and MCP results in one
// table; the domain never speaks HTTP.
type Code string

const (
	CodeInvalid         Code = "invalid"         // bad input from outside
	CodeNotFound        Code = "not_found"       // no such thing (or not visible to the caller)
	CodeConflict        Code = "conflict"        // the state does not allow this now
	CodeUnauthenticated Code = "unauthenticated" // no or bad credential
	CodeForbidden       Code = "forbidden"       // authenticated, not allowed
	CodeNotConnected    Code = "not_connected"   // the integration has no usable credential
	CodeUnavailable     Code = "unavailable"     // a dependency is down; retrying may work
	CodeInternal        Code = "internal"        // a bug or an unexpected failure
	CodeUnprocessable   Code = "unprocessable"   // well-formed input the request cannot act on (a refused key, a missing field)
	CodeUpstream        Code = "upstream"        // a provider or remote server failed
)

// Error is the one application error type. Message is safe to show to the caller; Err, when set, is the
// cause kept for logs and errors.Is/As.
type Error struct {
	Code    Code
	Message string
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an *Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, or CodeInternal.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// ErrorMessage returns the caller-safe message of the first *Error in err's chain, or a generic text.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}
