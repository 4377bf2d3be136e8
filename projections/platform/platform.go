// Package platform projects the platform keys and the calls made on platform logins (spec
// connectors.md, Platform logins) into read models (migration 0730):
//
//   - Keys (platform_keys): one row per key that is set, with its field names, who set it and when,
//     and its values as the vault sealed them (opened only by app/platformkeys, at call time);
//   - Calls (connector_calls): per organisation, connector and UTC month, the calls counted on
//     platform logins, what Admin's caps usage shows against WORKBENCH_ORG_LIMITS.
//
// Both are rebuilt from the log like every read model (workbench projections rebuild).
package platform

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/platformcall"
	"github.com/workbench/workbench/domain/platformkey"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/dbtime"
	"github.com/workbench/workbench/projections"
)

// Names of the projections' checkpoints.
const (
	KeysName  = "platform_keys"
	CallsName = "connector_calls"
)

// Keys keeps platform_keys.
type Keys struct {
	codec *eventstore.JSONCodec[domain.Event]
}

// Calls keeps connector_calls.
type Calls struct {
	codec *eventstore.JSONCodec[domain.Event]
}

var (
	_ projections.Projection = (*Keys)(nil)
	_ projections.Selective  = (*Keys)(nil)
	_ projections.Projection = (*Calls)(nil)
	_ projections.Selective  = (*Calls)(nil)
)

// NewKeys returns the platform keys projection.
func NewKeys() *Keys { return &Keys{codec: eventstore.NewJSONCodec(platformkey.Events()...)} }

// NewCalls returns the platform calls projection.
func NewCalls() *Calls { return &Calls{codec: eventstore.NewJSONCodec(platformcall.Events()...)} }

func (*Keys) Name() string           { return KeysName }
func (*Keys) Handles(t string) bool  { return strings.HasPrefix(t, "platformkey.") }
func (*Calls) Name() string          { return CallsName }
func (*Calls) Handles(t string) bool { return t == platformcall.TypeCounted }
func (*Keys) Reset(ctx context.Context, tx *sql.Tx) error {
	return projections.DeleteAll(ctx, tx, "platform_keys")
}
func (*Calls) Reset(ctx context.Context, tx *sql.Tx) error {
	return projections.DeleteAll(ctx, tx, "connector_calls")
}

// Apply implements projections.Projection.
func (p *Keys) Apply(ctx context.Context, tx *sql.Tx, env eventstore.Envelope) error {
	if !p.Handles(env.Type) {
		return nil
	}
	ev, err := p.codec.Decode(env.Type, env.SchemaVersion, env.Data)
	if err != nil {
		return err
	}
	switch e := ev.(type) {
	case platformkey.Set:
		fields, _ := json.Marshal(e.Fields)
		sealed, err := json.Marshal(e.Sealed)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO platform_keys (name, fields, sealed, set_by, set_at, stream_version) VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (name) DO UPDATE SET fields = $2, sealed = $3, set_by = $4, set_at = $5, stream_version = $6`,
			e.Name, string(fields), string(sealed), e.By, dbtime.Format(e.At), env.Version)
		return err
	case platformkey.Removed:
		_, err = tx.ExecContext(ctx, `DELETE FROM platform_keys WHERE name = $1`, e.Name)
		return err
	}
	return nil
}

// Apply implements projections.Projection. The count is the event's version in its month's stream,
// which holds one event a call, so applying an event twice cannot count a call twice.
func (p *Calls) Apply(ctx context.Context, tx *sql.Tx, env eventstore.Envelope) error {
	if !p.Handles(env.Type) {
		return nil
	}
	ev, err := p.codec.Decode(env.Type, env.SchemaVersion, env.Data)
	if err != nil {
		return err
	}
	e, ok := ev.(platformcall.Counted)
	if !ok {
		return nil
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO connector_calls (org_id, server_id, slug, month, calls, last_at) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (org_id, server_id, month) DO UPDATE SET calls = $5, last_at = $6`,
		e.OrgID.String(), e.ServerID, e.Slug, e.Month, env.Version, dbtime.Format(e.At))
	return err
}

// Reader reads both read models.
type Reader struct{ DB *sql.DB }

// Key is one platform key that is set. Sealed is the vault's sealed JSON object of its values.
type Key struct {
	Name   string
	Fields []string
	Sealed domain.Sealed
	SetBy  string
	SetAt  time.Time
}

// Keys lists the keys that are set, by name.
func (r Reader) Keys(ctx context.Context) ([]Key, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT name, fields, sealed, set_by, set_at FROM platform_keys ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Key
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// Key reads one key; ok is false when it is not set.
func (r Reader) Key(ctx context.Context, name string) (Key, bool, error) {
	k, err := scanKey(r.DB.QueryRowContext(ctx, `SELECT name, fields, sealed, set_by, set_at FROM platform_keys WHERE name = $1`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return Key{}, false, nil
	}
	return k, err == nil, err
}

func scanKey(sc interface{ Scan(...any) error }) (Key, error) {
	var k Key
	var fields, sealed, at string
	if err := sc.Scan(&k.Name, &fields, &sealed, &k.SetBy, &at); err != nil {
		return k, err
	}
	if err := json.Unmarshal([]byte(fields), &k.Fields); err != nil {
		return k, err
	}
	if err := json.Unmarshal([]byte(sealed), &k.Sealed); err != nil {
		return k, err
	}
	k.SetAt, _ = dbtime.Parse(at)
	return k, nil
}

// Usage is one organisation's calls on one connector's platform login in one UTC month.
type Usage struct {
	OrgID    uuid.UUID
	ServerID string
	Slug     string
	Month    string
	Calls    int
	LastAt   time.Time
}

// Usage lists the counted calls, newest month first, then by organisation and connector.
func (r Reader) Usage(ctx context.Context) ([]Usage, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT org_id, server_id, slug, month, calls, last_at FROM connector_calls ORDER BY month DESC, org_id, server_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Usage
	for rows.Next() {
		var u Usage
		var org, at string
		if err := rows.Scan(&org, &u.ServerID, &u.Slug, &u.Month, &u.Calls, &at); err != nil {
			return nil, err
		}
		u.OrgID, _ = uuid.Parse(org)
		u.LastAt, _ = dbtime.Parse(at)
		out = append(out, u)
	}
	return out, rows.Err()
}
