package auditrm

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Writer writes records in one export format. Call Flush at the end.
type Writer interface {
	Write(Record) error
	Flush() error
}

// The export formats NewWriter accepts.
const (
	FormatJSONL = "jsonl"
	FormatCSV   = "csv"
)

// NewWriter returns the writer of the named format, FormatJSONL or FormatCSV.
func NewWriter(format string, w io.Writer) (Writer, error) {
	switch format {
	case FormatJSONL:
		return NewJSONLWriter(w), nil
	case FormatCSV:
		return NewCSVWriter(w), nil
	}
	return nil, fmt.Errorf("unknown format %q (want %s or %s)", format, FormatJSONL, FormatCSV)
}

// JSONLWriter writes JSON Lines (https://jsonlines.org): one Record as a JSON object per line, fields
// that do not apply left out.
type JSONLWriter struct {
	bw  *bufio.Writer
	enc *json.Encoder
}

// NewJSONLWriter returns a JSONLWriter on w.
func NewJSONLWriter(w io.Writer) *JSONLWriter {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &JSONLWriter{bw: bw, enc: enc}
}

// Write implements Writer.
func (j *JSONLWriter) Write(r Record) error { return j.enc.Encode(r) }

// Flush implements Writer.
func (j *JSONLWriter) Flush() error { return j.bw.Flush() }

// CSVHeader is the CSV export's header row, in column order. It never changes order; new columns are
// only ever added at the end.
var CSVHeader = []string{
	"time", "event_id", "position", "kind", "user_id", "email", "actor",
	"integration", "tool", "execution_id", "success", "error_code", "duration_ms",
	"via", "client_id", "key_id", "old_key_id", "connection_version", "attempt_id", "auth_mode",
	"reason", "scopes", "account_hint", "args_size", "args_sha256", "result_size", "result_sha256", "subject",
	"session_id", "integrations", "expires_at", "method", "path", "query_keys", "status", "request_bytes", "response_bytes",
	"request_id",
	"client_name",
	"account",
}

// CSVWriter writes RFC 4180 CSV with the CSVHeader row first (written even when there are no
// records). Empty cells are fields that do not apply; scopes, integrations and query keys are joined
// with spaces; positions are COMMIT/PREPARE. Cells that a spreadsheet would read as a formula are prefixed with a single quote
// (see the package documentation on CSV injection).
type CSVWriter struct {
	cw     *csv.Writer
	header bool
	row    []string
}

// NewCSVWriter returns a CSVWriter on w.
func NewCSVWriter(w io.Writer) *CSVWriter {
	return &CSVWriter{cw: csv.NewWriter(w), row: make([]string, len(CSVHeader))}
}

func (c *CSVWriter) writeHeader() error {
	if c.header {
		return nil
	}
	c.header = true
	return c.cw.Write(CSVHeader)
}

// Write implements Writer.
func (c *CSVWriter) Write(r Record) error {
	if err := c.writeHeader(); err != nil {
		return err
	}
	row := c.row[:0]
	row = append(row,
		r.Time.UTC().Format(time.RFC3339Nano), uuidCell(r.EventID), r.Position.String(), string(r.Kind),
		uuidCell(r.UserID), r.Email, r.Actor,
		r.Integration, r.Tool, uuidCell(r.ExecutionID), boolCell(r.Success), r.ErrorCode, int64Cell(r.DurationMS),
		r.Via, r.ClientID, uuidCell(r.KeyID), uuidCell(r.OldKeyID), versionCell(r.ConnectionVersion), uuidCell(r.AttemptID), r.AuthMode,
		r.Reason, strings.Join(r.Scopes, " "), r.AccountHint, intCell(r.ArgsSize), r.ArgsSHA256, intCell(r.ResultSize), r.ResultSHA256, r.Subject,
		uuidCell(r.SessionID), strings.Join(r.Integrations, " "), timeCell(r.ExpiresAt), r.Method, r.Path, strings.Join(r.QueryKeys, " "),
		statusCell(r.Status), int64Cell(r.RequestBytes), int64Cell(r.ResponseBytes),
		uuidCell(r.RequestID),
		r.ClientName,
		r.Account,
	)
	for i, cell := range row {
		row[i] = DefuseCell(cell)
	}
	return c.cw.Write(row)
}

// Flush implements Writer.
func (c *CSVWriter) Flush() error {
	if err := c.writeHeader(); err != nil {
		return err
	}
	c.cw.Flush()
	return c.cw.Error()
}

// DefuseCell prefixes a cell that starts with = + - @, a tab or a carriage return with a single quote,
// so that a spreadsheet shows it as text instead of evaluating it (OWASP, CSV Injection).
func DefuseCell(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}

func uuidCell(id uuid.UUID) string {
	if id == uuid.Nil {
		return ""
	}
	return id.String()
}

func timeCell(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func statusCell(s int) string {
	if s == 0 {
		return ""
	}
	return strconv.Itoa(s)
}

func boolCell(b *bool) string {
	if b == nil {
		return ""
	}
	return strconv.FormatBool(*b)
}

func int64Cell(n *int64) string {
	if n == nil {
		return ""
	}
	return strconv.FormatInt(*n, 10)
}

func intCell(n *int) string {
	if n == nil {
		return ""
	}
	return strconv.Itoa(*n)
}

func versionCell(v int64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatInt(v, 10)
}
