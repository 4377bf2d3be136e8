package projections

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
)

// transient reports whether err, returned by a projection's Apply, says the database connection or
// server failed rather than that the projection refused the event: the connection was lost or reset,
// the server is shutting down or restarting (SQLSTATE class 08 and 57P01-57P03), out of connections
// (53300), or the transaction lost a serialization race (40001, 40P01). Such an error is retried on a
// new transaction; it never stops the projection on the event.
func transient(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var st interface{ SQLState() string }
	if errors.As(err, &st) {
		code := st.SQLState()
		switch {
		case strings.HasPrefix(code, "08"), code == "57P01", code == "57P02", code == "57P03", code == "53300",
			code == "40001", code == "40P01":
			return true
		}
	}
	return false
}
