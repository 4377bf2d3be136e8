package auditrm

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/dbtime"
)

// Query selects records of every user from the read model for the compliance API (List). Zero fields
// select everything.
type Query struct {
	// Email keeps one user's records (normalised as identity does); UserID does the same by id.
	Email  string
	UserID uuid.UUID
	// Integration, Tool and Client (the MCP client: OAuth client id or API key id) match exactly.
	Integration, Tool, Client string
	// Account keeps the records of one of the user's accounts by its label ("default" matches the
	// records that name none).
	Account string
	// Outcome keeps tool runs and proxied requests by outcome: "ok", "failed" (any error), or one
	// error code (NOT_CONNECTED, ...).
	Outcome string
	// From (inclusive) and To (exclusive) bound Record.Time.
	From, To time.Time
	// After is the cursor: records strictly after this log position (Start for the first page).
	After eventstore.Position
	// Limit caps the records returned; 0 means no limit (a stream).
	Limit int
}

// Validate checks q and normalises it; its errors are CodeInvalid.
func (q *Query) Validate() error {
	if q.Email != "" {
		e, err := identitydom.NormalizeEmail(q.Email)
		if err != nil {
			return domain.Errorf(domain.CodeInvalid, "user: %s", domain.ErrorMessage(err))
		}
		q.Email = e
	}
	if !q.From.IsZero() && !q.To.IsZero() && !q.From.Before(q.To) {
		return domain.Errorf(domain.CodeInvalid, "the time range is empty: from must be before to")
	}
	if q.Limit < 0 {
		return domain.Errorf(domain.CodeInvalid, "limit must not be negative")
	}
	for _, s := range []*string{&q.Integration, &q.Tool, &q.Client, &q.Outcome} {
		*s = strings.TrimSpace(*s)
		if len(*s) > 200 {
			return domain.Errorf(domain.CodeInvalid, "a filter value is at most 200 characters long")
		}
	}
	return nil
}

// matches applies the filters the table has no column for.
func (q Query) matches(r Record) bool {
	if q.Tool != "" && r.Tool != q.Tool {
		return false
	}
	if q.Client != "" && r.ClientID != q.Client {
		return false
	}
	if q.Account != "" && connection.NormalAccount(r.Account) != q.Account {
		return false
	}
	if q.Outcome != "" {
		ok := (r.Success != nil && *r.Success) || (r.Kind == KindRequestProxied && r.ErrorCode == "")
		if r.Kind != KindToolExecuted && r.Kind != KindRequestProxied {
			return false
		}
		switch q.Outcome {
		case "ok":
			return ok
		case "failed":
			return !ok
		default:
			return r.ErrorCode == q.Outcome
		}
	}
	return true
}

// listChunk is how many rows one query of List reads.
const listChunk = 500

// List calls each with the records that pass q, in log order, from just after q.After, until q.Limit
// records were given (then more is true when the read model may hold more: the next page starts after
// the last record given) or the read model has no more. The read model keeps the records that name a
// user (see the package documentation); the access kinds are the replay's alone.
func (r Reader) List(ctx context.Context, q Query, each func(Record) error) (more bool, err error) {
	if err := q.Validate(); err != nil {
		return false, err
	}
	var where []string
	var args []any
	arg := func(v any) string { args = append(args, v); return fmt.Sprintf("$%d", len(args)) }
	if q.UserID != uuid.Nil {
		where = append(where, "user_id = "+arg(q.UserID.String()))
	}
	if q.Email != "" {
		where = append(where, "user_id IN (SELECT user_id FROM audit_users WHERE email = "+arg(q.Email)+")")
	}
	if q.Integration != "" {
		where = append(where, "integration = "+arg(q.Integration))
	}
	// at is the fixed-width UTC text of internal/dbtime, so it compares as the times do.
	if !q.From.IsZero() {
		where = append(where, "at >= "+arg(dbtime.Format(q.From)))
	}
	if !q.To.IsZero() {
		where = append(where, "at < "+arg(dbtime.Format(q.To)))
	}
	after := q.After
	given := 0
	for {
		w := append([]string(nil), where...)
		a := args
		if !after.IsZero() {
			c, p := encodePos(after.Commit), encodePos(after.Prepare)
			a = append(append([]any(nil), args...), c, p)
			n := len(a)
			w = append(w, fmt.Sprintf("(commit_pos > $%d OR (commit_pos = $%d AND prepare_pos > $%d))", n-1, n-1, n))
		}
		a = append(a, listChunk)
		stmt := "SELECT record FROM audit_records"
		if len(w) > 0 {
			stmt += " WHERE " + strings.Join(w, " AND ")
		}
		stmt += fmt.Sprintf(" ORDER BY commit_pos, prepare_pos LIMIT $%d", len(a))
		recs, err := r.scan(ctx, stmt, a...)
		if err != nil {
			return false, err
		}
		for _, rec := range recs {
			after = rec.Position
			if !q.matches(rec) {
				continue
			}
			if err := each(rec); err != nil {
				return false, err
			}
			given++
			if q.Limit > 0 && given == q.Limit {
				return true, nil
			}
		}
		if len(recs) < listChunk {
			return false, nil
		}
	}
}

func (r Reader) scan(ctx context.Context, stmt string, args ...any) ([]Record, error) {
	rows, err := r.DB.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, &domain.Error{Code: domain.CodeUnavailable, Message: "audit: the read model cannot be read now", Err: err}
	}
	defer rows.Close()
	var out []Record
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, fmt.Errorf("audit: list records: %w", err)
		}
		var rec Record
		if err := json.Unmarshal([]byte(body), &rec); err != nil {
			return nil, fmt.Errorf("audit: stored record: %w", err)
		}
		out = append(out, rec)
	}
	if err := rows.Err(); err != nil {
		return nil, &domain.Error{Code: domain.CodeUnavailable, Message: "audit: the read model cannot be read now", Err: err}
	}
	return out, nil
}

// EmailOf returns the email the audit read model knows for the user ("" when it knows none yet).
func (r Reader) EmailOf(ctx context.Context, user uuid.UUID) (string, error) {
	var email string
	err := r.DB.QueryRowContext(ctx, `SELECT email FROM audit_users WHERE user_id = $1`, user.String()).Scan(&email)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("audit: email of %s: %w", user, err)
	}
	return email, nil
}
