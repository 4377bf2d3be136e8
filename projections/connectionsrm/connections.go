// Package connections projects connection events into two read models: connections, one row per user
// and integration with its status and sealed credential (what list_integrations and the tool-call path
// read), and connection_attempts, one row per connect attempt (what wait_for_connection and the sweep
// read). Each row's state is folded with the domain's own Evolve, so the read model can never disagree
// with the aggregate about what an event means.
package connectionsrm

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
	"github.com/workbench/workbench/projections"
)

// Name is the projection's checkpoint name.
const Name = "connections"

// Projection keeps connections and connection_attempts.
type Projection struct {
	codec *eventstore.JSONCodec[domain.Event]
}

var _ projections.Projection = (*Projection)(nil)

// New returns the projection.
func New() *Projection {
	return &Projection{codec: eventstore.NewJSONCodec(connection.Events()...)}
}

// Handles implements projections.Selective.
func (*Projection) Handles(eventType string) bool {
	return strings.HasPrefix(eventType, "connection.") || eventType == identitydom.TypeUserErased
}

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Reset implements projections.Projection.
func (*Projection) Reset(ctx context.Context, tx *sql.Tx) error {
	return projections.DeleteAll(ctx, tx, "connection_attempts", "connections")
}

// Apply implements projections.Projection.
func (p *Projection) Apply(ctx context.Context, tx *sql.Tx, env eventstore.Envelope) error {
	if env.Type == identitydom.TypeUserErased {
		return eraseAccountHints(ctx, tx, env)
	}
	if !strings.HasPrefix(env.Type, "connection.") {
		return nil
	}
	ev, err := p.codec.Decode(env.Type, env.SchemaVersion, env.Data)
	if err != nil {
		return err
	}
	user, integration := owner(ev)
	if user == uuid.Nil || integration == "" {
		return fmt.Errorf("event names no user or integration")
	}
	state, found, err := loadState(ctx, tx, user, integration)
	if err != nil {
		return err
	}
	state = connection.Evolve(state, ev)
	if err := saveState(ctx, tx, state, env, found); err != nil {
		return err
	}
	return saveAttempt(ctx, tx, ev)
}

// eraseAccountHints drops the provider account labels of an erased user's connections, in the columns
// and in the stored state. Their sealed credentials stay as they are: the user's subject key is shredded,
// so they no longer open.
func eraseAccountHints(ctx context.Context, tx *sql.Tx, env eventstore.Envelope) error {
	var e identitydom.UserErased
	if err := json.Unmarshal(env.Data, &e); err != nil || e.UserID == uuid.Nil {
		return fmt.Errorf("decode %s: %v", env.Type, err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT integration, state FROM connections WHERE user_id = $1`, e.UserID.String())
	if err != nil {
		return err
	}
	states := map[string]connection.State{}
	for rows.Next() {
		var integration, raw string
		if err := rows.Scan(&integration, &raw); err != nil {
			rows.Close()
			return err
		}
		var st connection.State
		if err := json.Unmarshal([]byte(raw), &st); err != nil {
			rows.Close()
			return fmt.Errorf("stored state of %s/%s: %w", e.UserID, integration, err)
		}
		states[integration] = st
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for integration, st := range states {
		st.AccountHint = ""
		raw, err := json.Marshal(st)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE connections SET account_hint = '', state = $1 WHERE user_id = $2 AND integration = $3`,
			string(raw), e.UserID.String(), integration); err != nil {
			return err
		}
	}
	return nil
}

func owner(ev domain.Event) (uuid.UUID, string) {
	switch e := ev.(type) {
	case connection.Started:
		return e.UserID, e.Integration
	case connection.PendingExpired:
		return e.UserID, e.Integration
	case connection.Connected:
		return e.UserID, e.Integration
	case connection.TokenRefreshed:
		return e.UserID, e.Integration
	case connection.ReauthorizationRequired:
		return e.UserID, e.Integration
	case connection.Disconnected:
		return e.UserID, e.Integration
	}
	return uuid.Nil, ""
}

func loadState(ctx context.Context, tx *sql.Tx, user uuid.UUID, integration string) (connection.State, bool, error) {
	var raw string
	err := tx.QueryRowContext(ctx, `SELECT state FROM connections WHERE user_id = $1 AND integration = $2`, user.String(), integration).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return connection.Initial(), false, nil
	}
	if err != nil {
		return connection.State{}, false, err
	}
	var s connection.State
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return connection.State{}, false, fmt.Errorf("stored state of %s/%s: %w", user, integration, err)
	}
	return s, true, nil
}

func saveState(ctx context.Context, tx *sql.Tx, s connection.State, env eventstore.Envelope, exists bool) error {
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	var cred sql.NullString
	if s.Connected() && !s.Credential.IsZero() {
		b, err := json.Marshal(s.Credential)
		if err != nil {
			return err
		}
		cred = sql.NullString{String: string(b), Valid: true}
	}
	attempt := ""
	if s.Attempt.ID != uuid.Nil {
		attempt = s.Attempt.ID.String()
	}
	args := []any{s.UserID.String(), s.Integration, string(s.Status()), string(s.AuthMode), cred, dbtime.Nullable(s.ExpiresAt),
		s.AccountHint, s.Generation, attempt, env.Version, dbtime.Format(env.Metadata.Time), string(raw)}
	if exists {
		_, err = tx.ExecContext(ctx, `UPDATE connections SET status = $3, auth_mode = $4, credential = $5, expires_at = $6,
			account_hint = $7, generation = $8, attempt_id = $9, stream_version = $10, updated_at = $11, state = $12
			WHERE user_id = $1 AND integration = $2`, args...)
	} else {
		_, err = tx.ExecContext(ctx, `INSERT INTO connections (user_id, integration, status, auth_mode, credential, expires_at,
			account_hint, generation, attempt_id, stream_version, updated_at, state) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`, args...)
	}
	return err
}

func saveAttempt(ctx context.Context, tx *sql.Tx, ev domain.Event) error {
	var err error
	switch e := ev.(type) {
	case connection.Started:
		_, err = tx.ExecContext(ctx, `INSERT INTO connection_attempts (attempt_id, user_id, integration, auth_mode, outcome, started_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, e.AttemptID.String(), e.UserID.String(), e.Integration, string(e.AuthMode),
			string(connection.AttemptPending), dbtime.Format(e.StartedAt), dbtime.Format(e.ExpiresAt))
	case connection.PendingExpired:
		_, err = tx.ExecContext(ctx, `UPDATE connection_attempts SET outcome = $2, reason = $3, ended_at = $4 WHERE attempt_id = $1 AND outcome = $5`,
			e.AttemptID.String(), string(connection.AttemptExpired), string(e.Reason), dbtime.Format(e.At), string(connection.AttemptPending))
	case connection.Connected:
		if e.AttemptID != uuid.Nil {
			_, err = tx.ExecContext(ctx, `UPDATE connection_attempts SET outcome = $2, ended_at = $3 WHERE attempt_id = $1 AND outcome = $4`,
				e.AttemptID.String(), string(connection.AttemptConnected), dbtime.Format(e.ConnectedAt), string(connection.AttemptPending))
		}
	}
	return err
}

// Row is a connection as the read model holds it.
type Row struct {
	UserID      uuid.UUID
	Integration string
	Status      connection.Status
	State       connection.State
	Version     int64 // the stream version the row reflects
	UpdatedAt   time.Time
}

// Attempt is a connect attempt as the read model holds it.
type Attempt struct {
	ID          uuid.UUID
	UserID      uuid.UUID
	Integration string
	AuthMode    connection.AuthMode
	Outcome     connection.AttemptOutcome
	Reason      string
	StartedAt   time.Time
	ExpiresAt   time.Time
	EndedAt     time.Time
}

// ErrNotFound is returned when no row matches.
var ErrNotFound = errors.New("connections: not found")

// Reader answers connection questions from the read model.
type Reader struct{ DB *sql.DB }

// ForUser returns every connection row of a user, keyed by integration.
func (r Reader) ForUser(ctx context.Context, user uuid.UUID) (map[string]Row, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT integration, state, stream_version, updated_at FROM connections WHERE user_id = $1`, user.String())
	if err != nil {
		return nil, fmt.Errorf("connections: list: %w", err)
	}
	defer rows.Close()
	out := map[string]Row{}
	for rows.Next() {
		row, err := scanRow(rows)
		if err != nil {
			return nil, err
		}
		out[row.Integration] = row
	}
	return out, rows.Err()
}

// Get returns one connection row.
func (r Reader) Get(ctx context.Context, user uuid.UUID, integration string) (Row, error) {
	row, err := scanRow(r.DB.QueryRowContext(ctx, `SELECT integration, state, stream_version, updated_at FROM connections WHERE user_id = $1 AND integration = $2`, user.String(), integration))
	if errors.Is(err, sql.ErrNoRows) {
		return Row{}, ErrNotFound
	}
	return row, err
}

type scanner interface{ Scan(...any) error }

func scanRow(s scanner) (Row, error) {
	var row Row
	var raw, updated string
	if err := s.Scan(&row.Integration, &raw, &row.Version, &updated); err != nil {
		return Row{}, err
	}
	if err := json.Unmarshal([]byte(raw), &row.State); err != nil {
		return Row{}, fmt.Errorf("connections: stored state: %w", err)
	}
	row.UserID = row.State.UserID
	row.Status = row.State.Status()
	var err error
	row.UpdatedAt, err = dbtime.Parse(updated)
	return row, err
}

// Attempt returns one connect attempt.
func (r Reader) Attempt(ctx context.Context, id uuid.UUID) (Attempt, error) {
	var a Attempt
	var uid, mode, outcome, started, expires string
	var ended sql.NullString
	err := r.DB.QueryRowContext(ctx, `SELECT user_id, integration, auth_mode, outcome, reason, started_at, expires_at, ended_at
		FROM connection_attempts WHERE attempt_id = $1`, id.String()).Scan(&uid, &a.Integration, &mode, &outcome, &a.Reason, &started, &expires, &ended)
	if errors.Is(err, sql.ErrNoRows) {
		return Attempt{}, ErrNotFound
	}
	if err != nil {
		return Attempt{}, fmt.Errorf("connections: attempt: %w", err)
	}
	a.ID = id
	a.AuthMode, a.Outcome = connection.AuthMode(mode), connection.AttemptOutcome(outcome)
	if a.UserID, err = uuid.Parse(uid); err != nil {
		return Attempt{}, err
	}
	if a.StartedAt, err = dbtime.Parse(started); err != nil {
		return Attempt{}, err
	}
	if a.ExpiresAt, err = dbtime.Parse(expires); err != nil {
		return Attempt{}, err
	}
	a.EndedAt, err = dbtime.ParseNull(ended)
	return a, err
}
