// Package connectionsrm projects connection events into two read models: connections, one row per
// user, integration and account with its status and sealed credential (what list_integrations and the
// tool-call path read), and connection_attempts, one row per connect attempt (what wait_for_connection and the sweep
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
	user, integration, account := owner(ev)
	if user == uuid.Nil || integration == "" {
		return fmt.Errorf("event names no user or integration")
	}
	state, found, err := loadState(ctx, tx, user, integration, account)
	if err != nil {
		return err
	}
	state = connection.Evolve(state, ev)
	if err := saveState(ctx, tx, state, env, found); err != nil {
		return err
	}
	return saveAttempt(ctx, tx, ev, account)
}

// eraseAccountHints drops the provider account labels of an erased user's connections, in the columns
// and in the stored state. Their sealed credentials stay as they are: the user's subject key is shredded,
// so they no longer open.
func eraseAccountHints(ctx context.Context, tx *sql.Tx, env eventstore.Envelope) error {
	var e identitydom.UserErased
	if err := json.Unmarshal(env.Data, &e); err != nil || e.UserID == uuid.Nil {
		return fmt.Errorf("decode %s: %v", env.Type, err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT integration, account, state FROM connections WHERE user_id = $1`, e.UserID.String())
	if err != nil {
		return err
	}
	type key struct{ integration, account string }
	states := map[key]connection.State{}
	for rows.Next() {
		var k key
		var raw string
		if err := rows.Scan(&k.integration, &k.account, &raw); err != nil {
			rows.Close()
			return err
		}
		var st connection.State
		if err := json.Unmarshal([]byte(raw), &st); err != nil {
			rows.Close()
			return fmt.Errorf("stored state of %s/%s/%s: %w", e.UserID, k.integration, k.account, err)
		}
		states[k] = st
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for k, st := range states {
		st.AccountHint = ""
		raw, err := json.Marshal(st)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE connections SET account_hint = '', state = $1 WHERE user_id = $2 AND integration = $3 AND account = $4`,
			string(raw), e.UserID.String(), k.integration, k.account); err != nil {
			return err
		}
	}
	return nil
}

// owner is the user, integration and account label (DefaultAccount for events that name none) an
// event belongs to.
func owner(ev domain.Event) (uuid.UUID, string, string) {
	switch e := ev.(type) {
	case connection.Started:
		return e.UserID, e.Integration, connection.NormalAccount(e.Account)
	case connection.PendingExpired:
		return e.UserID, e.Integration, connection.NormalAccount(e.Account)
	case connection.Connected:
		return e.UserID, e.Integration, connection.NormalAccount(e.Account)
	case connection.TokenRefreshed:
		return e.UserID, e.Integration, connection.NormalAccount(e.Account)
	case connection.ReauthorizationRequired:
		return e.UserID, e.Integration, connection.NormalAccount(e.Account)
	case connection.Disconnected:
		return e.UserID, e.Integration, connection.NormalAccount(e.Account)
	case connection.DefaultChosen:
		return e.UserID, e.Integration, connection.NormalAccount(e.Account)
	}
	return uuid.Nil, "", ""
}

func loadState(ctx context.Context, tx *sql.Tx, user uuid.UUID, integration, account string) (connection.State, bool, error) {
	var raw string
	err := tx.QueryRowContext(ctx, `SELECT state FROM connections WHERE user_id = $1 AND integration = $2 AND account = $3`, user.String(), integration, account).Scan(&raw)
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
		s.AccountHint, s.Generation, attempt, env.Version, dbtime.Format(env.Metadata.Time), string(raw), s.Label()}
	if exists {
		_, err = tx.ExecContext(ctx, `UPDATE connections SET status = $3, auth_mode = $4, credential = $5, expires_at = $6,
			account_hint = $7, generation = $8, attempt_id = $9, stream_version = $10, updated_at = $11, state = $12
			WHERE user_id = $1 AND integration = $2 AND account = $13`, args...)
	} else {
		_, err = tx.ExecContext(ctx, `INSERT INTO connections (user_id, integration, status, auth_mode, credential, expires_at,
			account_hint, generation, attempt_id, stream_version, updated_at, state, account) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`, args...)
	}
	return err
}

func saveAttempt(ctx context.Context, tx *sql.Tx, ev domain.Event, account string) error {
	var err error
	switch e := ev.(type) {
	case connection.Started:
		_, err = tx.ExecContext(ctx, `INSERT INTO connection_attempts (attempt_id, user_id, integration, account, auth_mode, outcome, started_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, e.AttemptID.String(), e.UserID.String(), e.Integration, account, string(e.AuthMode),
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

// Row is one account of a connection as the read model holds it.
type Row struct {
	UserID      uuid.UUID
	Integration string
	Account     string // the label: connection.DefaultAccount or the one the user chose
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
	Account     string
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

// ForUser returns every account row of a user, by integration, each integration's rows ordered by
// label.
func (r Reader) ForUser(ctx context.Context, user uuid.UUID) (map[string][]Row, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT integration, state, stream_version, updated_at FROM connections WHERE user_id = $1 ORDER BY integration, account`, user.String())
	if err != nil {
		return nil, fmt.Errorf("connections: list: %w", err)
	}
	defer rows.Close()
	out := map[string][]Row{}
	for rows.Next() {
		row, err := scanRow(rows)
		if err != nil {
			return nil, err
		}
		out[row.Integration] = append(out[row.Integration], row)
	}
	return out, rows.Err()
}

// Accounts returns a user's account rows of one integration, ordered by label.
func (r Reader) Accounts(ctx context.Context, user uuid.UUID, integration string) ([]Row, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT integration, state, stream_version, updated_at FROM connections WHERE user_id = $1 AND integration = $2 ORDER BY account`, user.String(), integration)
	if err != nil {
		return nil, fmt.Errorf("connections: accounts: %w", err)
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		row, err := scanRow(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// Get returns one account's row.
func (r Reader) Get(ctx context.Context, user uuid.UUID, integration, account string) (Row, error) {
	row, err := scanRow(r.DB.QueryRowContext(ctx, `SELECT integration, state, stream_version, updated_at FROM connections WHERE user_id = $1 AND integration = $2 AND account = $3`,
		user.String(), integration, connection.NormalAccount(account)))
	if errors.Is(err, sql.ErrNoRows) {
		return Row{}, ErrNotFound
	}
	return row, err
}

// Default returns the row of the account a call without a label uses (connection.DefaultOf), from
// rows of one integration; ok is false when none holds a credential.
func Default(rows []Row) (Row, bool) {
	states := make([]connection.State, len(rows))
	for i, r := range rows {
		states[i] = r.State
	}
	if i := connection.DefaultOf(states); i >= 0 {
		return rows[i], true
	}
	return Row{}, false
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
	row.Account = row.State.Label()
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
	err := r.DB.QueryRowContext(ctx, `SELECT user_id, integration, account, auth_mode, outcome, reason, started_at, expires_at, ended_at
		FROM connection_attempts WHERE attempt_id = $1`, id.String()).Scan(&uid, &a.Integration, &a.Account, &mode, &outcome, &a.Reason, &started, &expires, &ended)
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
