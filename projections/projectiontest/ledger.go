package projectiontest

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections"
)

// Event types the Ledger understands. Any other type is ignored, as projections must.
const (
	Deposited = "ledger.deposited"
	Withdrawn = "ledger.withdrawn"
)

// Movement is the data of Deposited and Withdrawn events.
type Movement struct {
	Account string `json:"account"`
	Amount  int64  `json:"amount"`
}

// Deposit returns a Deposited event with a fresh id, stamped now.
func Deposit(account string, amount int64) eventstore.EventData {
	return movement(Deposited, account, amount)
}

// Withdraw returns a Withdrawn event with a fresh id, stamped now.
func Withdraw(account string, amount int64) eventstore.EventData {
	return movement(Withdrawn, account, amount)
}

func movement(typ, account string, amount int64) eventstore.EventData {
	data, _ := json.Marshal(Movement{Account: account, Amount: amount})
	return eventstore.EventData{
		ID:            uuid.New(),
		Type:          typ,
		SchemaVersion: 1,
		Data:          data,
		Metadata:      eventstore.Metadata{Actor: "test", Time: time.Now().UTC()},
	}
}

// Ledger keeps <name>_accounts (balance and number of movements per account) and <name>_applied (one
// row per event applied, with how many times it was applied: always 1 when the runner is right).
type Ledger struct {
	name string

	mu   sync.Mutex
	hook func(ctx context.Context, env eventstore.Envelope) error
	// The statements of the transaction Apply last ran in: preparing them once per batch rather than
	// once per event saves most of SQLite's per-event cost (parsing dominates a small upsert).
	tx                *sql.Tx
	upsert, recordApp *sql.Stmt
	// inlineBatches counts the ApplyInline calls that applied their events.
	inlineBatches int64
}

var validName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,40}$`)

// NewLedger returns a ledger named name, which also prefixes its tables (lower-case letters, digits and
// underscores).
func NewLedger(name string) (*Ledger, error) {
	if !validName.MatchString(name) {
		return nil, fmt.Errorf("projectiontest: ledger name %q is not a plain lower-case identifier", name)
	}
	return &Ledger{name: name}, nil
}

// Tables returns the names of the ledger's tables.
func (l *Ledger) Tables() []string { return []string{l.name + "_accounts", l.name + "_applied"} }

// CreateTables creates the ledger's tables if they do not exist. The SQL is the same on SQLite and
// PostgreSQL.
func (l *Ledger) CreateTables(ctx context.Context, db *sql.DB) error {
	for _, stmt := range []string{
		`CREATE TABLE IF NOT EXISTS ` + l.name + `_accounts (
			account TEXT PRIMARY KEY,
			balance BIGINT NOT NULL,
			movements BIGINT NOT NULL,
			last_event TEXT NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS ` + l.name + `_applied (
			event_id TEXT PRIMARY KEY,
			stream TEXT NOT NULL,
			version BIGINT NOT NULL,
			event_type TEXT NOT NULL,
			position TEXT NOT NULL,
			applications BIGINT NOT NULL)`,
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("projectiontest: create tables of %s: %w", l.name, err)
		}
	}
	return nil
}

// SetHook installs a function called before each event is applied, inside the batch's transaction;
// an error it returns becomes Apply's error. nil removes it. Tests use it to inject faults, to pause
// the projection, or to stop the runner at a chosen event.
func (l *Ledger) SetHook(h func(ctx context.Context, env eventstore.Envelope) error) {
	l.mu.Lock()
	l.hook = h
	l.mu.Unlock()
}

// Name implements projections.Projection.
func (l *Ledger) Name() string { return l.name }

// Apply implements projections.Projection.
func (l *Ledger) Apply(ctx context.Context, tx *sql.Tx, env eventstore.Envelope) error {
	return l.apply(ctx, env, func() (*sql.Stmt, *sql.Stmt, error) { return l.statements(ctx, tx) })
}

// ApplyInline implements projections.Inline: the same writes as Apply, through the connection of the
// append's transaction (statements prepared for each call).
func (l *Ledger) ApplyInline(ctx context.Context, conn *sql.Conn, envs []eventstore.Envelope) error {
	var upsert, recordApp *sql.Stmt
	defer func() {
		for _, st := range []*sql.Stmt{upsert, recordApp} {
			if st != nil {
				st.Close()
			}
		}
	}()
	for _, env := range envs {
		err := l.apply(ctx, env, func() (*sql.Stmt, *sql.Stmt, error) {
			if upsert == nil {
				var err error
				if upsert, recordApp, err = l.prepare(ctx, conn); err != nil {
					return nil, nil, err
				}
			}
			return upsert, recordApp, nil
		})
		if err != nil {
			return err
		}
	}
	l.mu.Lock()
	l.inlineBatches++
	l.mu.Unlock()
	return nil
}

// InlineBatches returns how many batches ApplyInline has applied.
func (l *Ledger) InlineBatches() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.inlineBatches
}

func (l *Ledger) apply(ctx context.Context, env eventstore.Envelope, statements func() (*sql.Stmt, *sql.Stmt, error)) error {
	l.mu.Lock()
	hook := l.hook
	l.mu.Unlock()
	if hook != nil {
		if err := hook(ctx, env); err != nil {
			return err
		}
	}
	var sign int64
	switch env.Type {
	case Deposited:
		sign = 1
	case Withdrawn:
		sign = -1
	default:
		return nil
	}
	var m Movement
	if err := json.Unmarshal(env.Data, &m); err != nil {
		return fmt.Errorf("decode %s: %w", env.Type, err)
	}
	if m.Account == "" {
		return fmt.Errorf("%s without an account", env.Type)
	}
	upsert, recordApp, err := statements()
	if err != nil {
		return err
	}
	if _, err := upsert.ExecContext(ctx, m.Account, sign*m.Amount, env.ID.String()); err != nil {
		return fmt.Errorf("update account %s: %w", m.Account, err)
	}
	if _, err := recordApp.ExecContext(ctx, env.ID.String(), env.Stream, env.Version, env.Type, env.Position.String()); err != nil {
		return fmt.Errorf("record event %s: %w", env.ID, err)
	}
	return nil
}

// statements returns Apply's statements prepared on tx, preparing them on the first event of a
// transaction. They close with tx.
func (l *Ledger) statements(ctx context.Context, tx *sql.Tx) (upsert, recordApp *sql.Stmt, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tx == tx {
		return l.upsert, l.recordApp, nil
	}
	l.tx, l.upsert, l.recordApp = nil, nil, nil
	if upsert, recordApp, err = l.prepare(ctx, tx); err != nil {
		return nil, nil, err
	}
	l.tx, l.upsert, l.recordApp = tx, upsert, recordApp
	return upsert, recordApp, nil
}

// prepare prepares Apply's statements on tx (a transaction or a connection).
func (l *Ledger) prepare(ctx context.Context, tx interface {
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}) (upsert, recordApp *sql.Stmt, err error) {
	upsert, err = tx.PrepareContext(ctx, `INSERT INTO `+l.name+`_accounts (account, balance, movements, last_event) VALUES ($1, $2, 1, $3)
		ON CONFLICT (account) DO UPDATE SET balance = `+l.name+`_accounts.balance + excluded.balance,
		movements = `+l.name+`_accounts.movements + 1, last_event = excluded.last_event`)
	if err != nil {
		return nil, nil, fmt.Errorf("prepare account update: %w", err)
	}
	recordApp, err = tx.PrepareContext(ctx, `INSERT INTO `+l.name+`_applied (event_id, stream, version, event_type, position, applications) VALUES ($1, $2, $3, $4, $5, 1)
		ON CONFLICT (event_id) DO UPDATE SET applications = `+l.name+`_applied.applications + 1`)
	if err != nil {
		upsert.Close()
		return nil, nil, fmt.Errorf("prepare event record: %w", err)
	}
	return upsert, recordApp, nil
}

// Reset implements projections.Projection.
func (l *Ledger) Reset(ctx context.Context, tx *sql.Tx) error {
	return projections.DeleteAll(ctx, tx, l.Tables()...)
}

// Dump returns every row of the ledger's tables, keyed by table name without the ledger's prefix,
// each row's columns as text, rows in primary-key order: two ledgers built from the same log dump
// equal.
func (l *Ledger) Dump(ctx context.Context, db *sql.DB) (map[string][][]string, error) {
	out := map[string][][]string{}
	for _, t := range l.Tables() {
		rows, err := DumpTable(ctx, db, t)
		if err != nil {
			return nil, err
		}
		out[strings.TrimPrefix(t, l.name+"_")] = rows
	}
	return out, nil
}

// DumpTable returns every row of table, ordered by its first column, each column as text ("NULL" for
// NULL).
func DumpTable(ctx context.Context, db *sql.DB, table string) ([][]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT * FROM `+table+` ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("dump %s: %w", table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("dump %s: %w", table, err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = "NULL"
			if v.Valid {
				row[i] = v.String
			}
		}
		out = append(out, row)
	}
	return out, rows.Err()
}
