package auditrm

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/dbtime"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/profile"
)

// Name is the projection's checkpoint name.
const Name = "audit"

// Projection keeps audit_records and audit_users.
type Projection struct {
	dec *Decoder

	mu sync.Mutex
	tx *sql.Tx
	st *txState
	// inline is ApplyInline's state: statements prepared on the connection it was last given, kept
	// from one call to the next while that connection lasts.
	inline     *txState
	inlineConn *sql.Conn
}

// txState is what Apply keeps for the transaction it last ran in. The statements are prepared on its
// first event: a batch runs each many times, and preparing once per batch rather than once per event
// saves SQLite most of its per-event parsing; they close with the transaction. emails caches the
// audit_users lookups (and inserts) made in that transaction, so a batch of one user's events reads
// the user's email once; audit_users rows are only ever added, by this projection, whose batches the
// checkpoint serializes, so within a transaction a lookup's answer cannot change.
type txState struct {
	addUser, emailOf, addRecord *sql.Stmt
	emails                      map[uuid.UUID]string
}

var (
	_ projections.Projection = (*Projection)(nil)
	_ projections.Selective  = (*Projection)(nil)
	_ projections.Inline     = (*Projection)(nil)
)

// New returns the projection.
func New() *Projection { return &Projection{dec: NewDecoder()} }

// WithOpener gives the projection the vault, to read the emails newer user_created events seal. It
// returns p.
func (p *Projection) WithOpener(o profile.Opener) *Projection {
	p.dec.opener = o
	return p
}

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Handles implements projections.Selective: the audited event types, and identity.user_created for
// the emails. A batch of anything else costs the runner no write transaction.
func (*Projection) Handles(eventType string) bool {
	return eventType == identitydom.TypeUserCreated || eventType == identitydom.TypeUserErased || Audited(eventType)
}

// Reset implements projections.Projection.
func (*Projection) Reset(ctx context.Context, tx *sql.Tx) error {
	return projections.DeleteAll(ctx, tx, "audit_records", "audit_users")
}

// Apply implements projections.Projection.
func (p *Projection) Apply(ctx context.Context, tx *sql.Tx, env eventstore.Envelope) error {
	if !p.Handles(env.Type) {
		return nil
	}
	st, err := p.state(ctx, tx)
	if err != nil {
		return err
	}
	return p.apply(ctx, st, tx, env)
}

// ApplyInline implements projections.Inline: the records of a batch of events written in the
// append's own transaction (SQLite), so that a tool call's audit record costs no fsync of its own.
// The statements stay prepared on conn; the email cache is started afresh for every batch.
func (p *Projection) ApplyInline(ctx context.Context, conn *sql.Conn, envs []eventstore.Envelope) error {
	var st *txState
	for _, env := range envs {
		if !p.Handles(env.Type) {
			continue
		}
		if st == nil {
			var err error
			if st, err = p.inlineState(ctx, conn); err != nil {
				return err
			}
		}
		if err := p.apply(ctx, st, conn, env); err != nil {
			return err
		}
	}
	return nil
}

// execQuerier is the transaction (Apply) or connection (ApplyInline) an erasure rewrites records on.
type execQuerier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// apply applies one event the projection handles with the statements of st (and q, for an erasure).
func (p *Projection) apply(ctx context.Context, st *txState, q execQuerier, env eventstore.Envelope) error {
	if env.Type == identitydom.TypeUserErased {
		return st.erase(ctx, q, env)
	}
	user, email, ok, err := p.dec.UserCreated(env)
	if err != nil {
		return err
	}
	if ok {
		if _, err := st.addUser.ExecContext(ctx, user.String(), email); err != nil {
			return fmt.Errorf("add user %s: %w", user, err)
		}
		st.emails[user] = email
		return nil
	}
	rec, ok, err := p.dec.Decode(env)
	if err != nil || !ok || rec.UserID == uuid.Nil {
		return err
	}
	if rec.Email, err = st.email(ctx, rec.UserID); err != nil {
		return err
	}
	body, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	_, err = st.addRecord.ExecContext(ctx,
		rec.EventID.String(), rec.UserID.String(), encodePos(rec.Position.Commit), encodePos(rec.Position.Prepare),
		dbtime.Format(rec.Time), string(rec.Kind), rec.Integration, string(body))
	if err != nil {
		return fmt.Errorf("add the record of event %s: %w", rec.EventID, err)
	}
	return nil
}

// state returns Apply's statements prepared on tx, and its email cache, starting both afresh on the
// first event of a transaction (the runner gives a projection one transaction at a time).
func (p *Projection) state(ctx context.Context, tx *sql.Tx) (*txState, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tx == tx {
		return p.st, nil
	}
	p.tx, p.st = nil, nil
	st, err := prepareState(ctx, tx)
	if err != nil {
		return nil, err
	}
	p.tx, p.st = tx, st
	return st, nil
}

// inlineState returns ApplyInline's statements on conn, prepared on the first call with it, and an
// empty email cache: audit_users may have been emptied by a rebuild since the last batch.
func (p *Projection) inlineState(ctx context.Context, conn *sql.Conn) (*txState, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inlineConn != conn || p.inline == nil {
		if p.inline != nil {
			p.inline.close()
		}
		p.inline, p.inlineConn = nil, nil
		st, err := prepareState(ctx, conn)
		if err != nil {
			return nil, err
		}
		p.inline, p.inlineConn = st, conn
	}
	clear(p.inline.emails)
	return p.inline, nil
}

// preparer is a transaction or a connection.
type preparer interface {
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

func prepareState(ctx context.Context, tx preparer) (*txState, error) {
	st := &txState{emails: map[uuid.UUID]string{}}
	for _, s := range []struct {
		stmt **sql.Stmt
		sql  string
	}{
		{&st.addUser, `INSERT INTO audit_users (user_id, email) VALUES ($1, $2)`},
		{&st.emailOf, `SELECT email FROM audit_users WHERE user_id = $1`},
		{&st.addRecord, `INSERT INTO audit_records (event_id, user_id, commit_pos, prepare_pos, at, kind, integration, record)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`},
	} {
		stmt, err := tx.PrepareContext(ctx, s.sql)
		if err != nil {
			st.close()
			return nil, fmt.Errorf("prepare %q: %w", s.sql, err)
		}
		*s.stmt = stmt
	}
	return st, nil
}

// close closes the statements prepared so far.
func (st *txState) close() {
	for _, s := range []*sql.Stmt{st.addUser, st.emailOf, st.addRecord} {
		if s != nil {
			s.Close()
		}
	}
}

// email returns the user's email from audit_users ("" when the log has not named the user yet).
func (st *txState) email(ctx context.Context, user uuid.UUID) (string, error) {
	if e, ok := st.emails[user]; ok {
		return e, nil
	}
	var e string
	err := st.emailOf.QueryRowContext(ctx, user.String()).Scan(&e)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("email of user %s: %w", user, err)
	}
	st.emails[user] = e
	return e, nil
}

// encodePos writes a position part as 20 zero-padded digits (see migration 0023).
func encodePos(v uint64) string {
	s := strconv.FormatUint(v, 10)
	const width = 20
	if len(s) >= width {
		return s
	}
	return "00000000000000000000"[:width-len(s)] + s
}

// Reader lists records from the read model. It implements handlers/audithttp.Reader for the /api/audit
// handler.
type Reader struct{ DB *sql.DB }

// ForUser implements handlers/audithttp.Reader: up to limit of the user's records, newest first, strictly
// before `before` in log order (from the newest when before is the zero position).
func (r Reader) ForUser(ctx context.Context, user uuid.UUID, before eventstore.Position, limit int) ([]Record, error) {
	if limit < 1 {
		return nil, nil
	}
	var rows *sql.Rows
	var err error
	if before.IsZero() {
		rows, err = r.DB.QueryContext(ctx, `SELECT record FROM audit_records WHERE user_id = $1
			ORDER BY commit_pos DESC, prepare_pos DESC LIMIT $2`, user.String(), limit)
	} else {
		c, p := encodePos(before.Commit), encodePos(before.Prepare)
		rows, err = r.DB.QueryContext(ctx, `SELECT record FROM audit_records WHERE user_id = $1
			AND (commit_pos < $2 OR (commit_pos = $2 AND prepare_pos < $3))
			ORDER BY commit_pos DESC, prepare_pos DESC LIMIT $4`, user.String(), c, p, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("audit: list records of %s: %w", user, err)
	}
	defer rows.Close()
	var out []Record
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, fmt.Errorf("audit: list records of %s: %w", user, err)
		}
		var rec Record
		if err := json.Unmarshal([]byte(body), &rec); err != nil {
			return nil, fmt.Errorf("audit: stored record of %s: %w", user, err)
		}
		out = append(out, rec)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit: list records of %s: %w", user, err)
	}
	return out, nil
}

// erase applies identity.user_erased: the user's email becomes the pseudonym in audit_users and in every
// record already stored, and the records lose the provider account label. What the records count (kinds,
// times, tools, outcomes) stays.
func (st *txState) erase(ctx context.Context, tx execQuerier, env eventstore.Envelope) error {
	var e identitydom.UserErased
	if err := json.Unmarshal(env.Data, &e); err != nil || e.UserID == uuid.Nil {
		return fmt.Errorf("decode %s: %v", env.Type, err)
	}
	var old string
	rows, err := tx.QueryContext(ctx, `SELECT email FROM audit_users WHERE user_id = $1`, e.UserID.String())
	if err != nil {
		return err
	}
	for rows.Next() {
		if err := rows.Scan(&old); err != nil {
			rows.Close()
			return err
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if err := withholdQueriesFor(ctx, tx, old); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE audit_users SET email = $1 WHERE user_id = $2`, e.Pseudonym, e.UserID.String()); err != nil {
		return err
	}
	st.emails[e.UserID] = e.Pseudonym
	bodies, err := recordBodies(ctx, tx, `SELECT event_id, record FROM audit_records WHERE user_id = $1`, e.UserID.String())
	if err != nil {
		return err
	}
	for id, body := range bodies {
		var rec Record
		if err := json.Unmarshal([]byte(body), &rec); err != nil {
			return fmt.Errorf("stored record of event %s: %w", id, err)
		}
		rec.Email, rec.AccountHint = e.Pseudonym, ""
		out, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE audit_records SET record = $1 WHERE event_id = $2`, string(out), id); err != nil {
			return err
		}
	}
	return nil
}

// recordBodies reads the stored records a query selects (event_id, record), keyed by event id: read
// whole before they are rewritten, as one transaction may not hold a cursor open across its updates.
func recordBodies(ctx context.Context, tx execQuerier, query string, args ...any) (map[string]string, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	bodies := map[string]string{}
	for rows.Next() {
		var id, body string
		if err := rows.Scan(&id, &body); err != nil {
			return nil, err
		}
		bodies[id] = body
	}
	return bodies, rows.Err()
}

// withholdQueriesFor replaces email, where an auditor's recorded read filtered on it (the "user"
// parameter of an identity.audit_read's query, written in clear before reads recorded a keyed hash),
// by "withheld": the erased address leaves the auditors' records too.
func withholdQueriesFor(ctx context.Context, tx execQuerier, email string) error {
	if email == "" || !strings.Contains(email, "@") {
		return nil
	}
	bodies, err := recordBodies(ctx, tx, `SELECT event_id, record FROM audit_records WHERE kind = $1`, string(KindAuditRead))
	if err != nil {
		return err
	}
	for id, body := range bodies {
		var rec Record
		if err := json.Unmarshal([]byte(body), &rec); err != nil {
			return fmt.Errorf("stored record of event %s: %w", id, err)
		}
		v, err := url.ParseQuery(rec.Path)
		if err != nil {
			continue
		}
		changed := false
		for i, u := range v["user"] {
			if strings.EqualFold(strings.TrimSpace(u), email) {
				v["user"][i], changed = "withheld", true
			}
		}
		if !changed {
			continue
		}
		rec.Path = v.Encode()
		out, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE audit_records SET record = $1 WHERE event_id = $2`, string(out), id); err != nil {
			return err
		}
	}
	return nil
}
