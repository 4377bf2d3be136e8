// Package webhooksrm keeps organisations' webhooks (domain/webhook) in the webhooks table, and fills
// the webhook_deliveries outbox from the events a webhook subscribes to, which app/webhooks sends:
//
//   - connection.needs_reauth: a plugin connection needs its user to sign in again
//     (connection.reauthorization_required); to every organisation the user belongs to.
//   - connection.disconnected: a plugin connection was disconnected (connection.disconnected), or a
//     connector login's provider refused its refresh (login.disconnected); to the user's
//     organisations, or the login owner's.
//   - approval.requested: a call waits for a person (approval.requested); to the agent's organisation
//     (the user's personal one for the user's default agent).
//   - budget.exhausted: a budget refused a call (budget.exhausted, recorded at most once a minute per
//     budget and replica); to the agent's organisation, at most once a minute per agent and tool.
//
// Only events after a webhook was registered reach it, and each at most once (a delivery's dedupe
// key is unique per webhook), so a rebuild sends nothing again. Organisation membership is read from
// the organisations read model in the same database.
package webhooksrm

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/approval"
	"github.com/workbench/workbench/domain/budget"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/domain/webhook"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/dbtime"
	"github.com/workbench/workbench/projections"
)

// Name is the projection's checkpoint name.
const Name = "webhooks"

// Projection keeps webhooks and fills webhook_deliveries.
type Projection struct {
	codec *eventstore.JSONCodec[domain.Event]
	// PortalURL is the base of the links a delivery carries (an approval's page).
	PortalURL string
}

var (
	_ projections.Projection = (*Projection)(nil)
	_ projections.Selective  = (*Projection)(nil)
)

// New returns the projection.
func New(portalURL string) *Projection {
	var evs []domain.Event
	evs = append(evs, webhook.Events()...)
	evs = append(evs, connection.ReauthorizationRequired{}, connection.Disconnected{}, login.Disconnected{}, approval.Requested{}, budget.Exhausted{})
	return &Projection{codec: eventstore.NewJSONCodec(evs...), PortalURL: portalURL}
}

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Handles implements projections.Selective.
func (*Projection) Handles(t string) bool {
	switch t {
	case webhook.TypeRegistered, webhook.TypeRemoved, connection.TypeReauthorizationRequired, connection.TypeDisconnected,
		login.TypeDisconnected, approval.TypeRequested, budget.TypeExhausted:
		return true
	}
	return false
}

// Reset implements projections.Projection: the webhooks table only; the deliveries are an outbox
// (their dedupe keys keep a rebuild from enqueueing anything twice).
func (*Projection) Reset(ctx context.Context, tx *sql.Tx) error {
	return projections.DeleteAll(ctx, tx, "webhooks")
}

// Body is what a webhook receives.
type Body struct {
	ID             string         `json:"id"` // the event's id: the same delivery retried keeps it
	Type           string         `json:"type"`
	OrganizationID uuid.UUID      `json:"organization_id"`
	CreatedAt      time.Time      `json:"created_at"`
	Data           map[string]any `json:"data"`
}

// Apply implements projections.Projection.
func (p *Projection) Apply(ctx context.Context, tx *sql.Tx, env eventstore.Envelope) error {
	if !p.Handles(env.Type) {
		return nil
	}
	ev, err := p.codec.Decode(env.Type, env.SchemaVersion, env.Data)
	if err != nil {
		return err
	}
	switch e := ev.(type) {
	case webhook.Registered:
		secret, err := json.Marshal(e.Secret)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO webhooks (webhook_id, org_id, url, events, secret, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (webhook_id) DO NOTHING`, e.WebhookID.String(), e.OrgID.String(), e.URL, strings.Join(e.Events, ","), string(secret), e.By.String(), dbtime.Format(e.At))
		return err
	case webhook.Removed:
		_, err := tx.ExecContext(ctx, `DELETE FROM webhooks WHERE webhook_id = $1`, e.WebhookID.String())
		return err
	case connection.ReauthorizationRequired:
		orgs, err := userOrgs(ctx, tx, e.UserID)
		if err != nil {
			return err
		}
		return p.enqueue(ctx, tx, env, webhook.EventNeedsReauth, orgs, env.ID.String(), e.At, map[string]any{
			"user_id": e.UserID, "integration": e.Integration, "account": connection.NormalAccount(e.Account), "reason": e.Reason,
			"reconnect": p.PortalURL + "/integrations"})
	case connection.Disconnected:
		orgs, err := userOrgs(ctx, tx, e.UserID)
		if err != nil {
			return err
		}
		return p.enqueue(ctx, tx, env, webhook.EventDisconnected, orgs, env.ID.String(), e.At, map[string]any{
			"user_id": e.UserID, "integration": e.Integration, "account": connection.NormalAccount(e.Account), "reason": e.Reason})
	case login.Disconnected:
		org, err := ownerOrg(ctx, tx, e.Owner)
		if err != nil || org == uuid.Nil {
			return err
		}
		return p.enqueue(ctx, tx, env, webhook.EventDisconnected, []uuid.UUID{org}, env.ID.String(), e.At, map[string]any{
			"login_id": e.LoginID, "integration": e.ServerID, "owner_scope": e.Owner.Scope, "owner_id": e.Owner.ID, "reason": e.Reason,
			"reconnect": p.PortalURL + "/connectors"})
	case approval.Requested:
		org, err := callerOrg(ctx, tx, e.UserID, e.AgentID)
		if err != nil {
			return err
		}
		account := e.Account
		if account == "" {
			account = connection.DefaultAccount
		}
		return p.enqueue(ctx, tx, env, webhook.EventApprovalRequested, []uuid.UUID{org}, env.ID.String(), e.At, map[string]any{
			"approval_id": e.ApprovalID, "user_id": e.UserID, "agent_id": e.AgentID, "tool": e.Tool, "integration": e.Integration,
			"account": account, "expires_at": e.ExpiresAt, "url": p.PortalURL + "/approvals/" + e.ApprovalID.String()})
	case budget.Exhausted:
		org, err := callerOrg(ctx, tx, e.UserID, e.AgentID)
		if err != nil {
			return err
		}
		key := "budget:" + e.AgentID.String() + ":" + e.Called + ":" + e.At.UTC().Format("2006-01-02T15:04")
		return p.enqueue(ctx, tx, env, webhook.EventBudgetExhausted, []uuid.UUID{org}, key, e.At, map[string]any{
			"user_id": e.UserID, "agent_id": e.AgentID, "tool": e.Called, "budget_scope": e.Owner.Scope, "budget_tool": e.Tool, "limit": e.Limit})
	}
	return nil
}

// enqueue adds a delivery of kind to every webhook of orgs that subscribes to it (and so was
// registered before the event, in the log's order).
func (p *Projection) enqueue(ctx context.Context, tx *sql.Tx, env eventstore.Envelope, kind string, orgs []uuid.UUID, key string, at time.Time, data map[string]any) error {
	if at.IsZero() {
		at = env.Metadata.Time
	}
	for _, org := range orgs {
		rows, err := tx.QueryContext(ctx, `SELECT webhook_id, events FROM webhooks WHERE org_id = $1`, org.String())
		if err != nil {
			return err
		}
		type hook struct{ id, events string }
		var hooks []hook
		for rows.Next() {
			var h hook
			if err := rows.Scan(&h.id, &h.events); err != nil {
				rows.Close()
				return err
			}
			hooks = append(hooks, h)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, h := range hooks {
			// Only events after the webhook's registration reach it: the projection applies the log in
			// order, so the webhook's row is here only for events after its webhook.registered (in a
			// rebuild too).
			if !slices.Contains(strings.Split(h.events, ","), kind) {
				continue
			}
			body, err := json.Marshal(Body{ID: env.ID.String(), Type: kind, OrganizationID: org, CreatedAt: at.UTC(), Data: data})
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries (delivery_id, webhook_id, dedupe_key, event_type, body, status, next_attempt_at, created_at)
				VALUES ($1, $2, $3, $4, $5, 'pending', $6, $6) ON CONFLICT (webhook_id, dedupe_key) DO NOTHING`,
				uuid.Must(uuid.NewV7()).String(), h.id, key, kind, string(body), dbtime.Format(at)); err != nil {
				return err
			}
		}
	}
	return nil
}

// userOrgs are the organisations a user belongs to, the personal one included.
func userOrgs(ctx context.Context, tx *sql.Tx, user uuid.UUID) ([]uuid.UUID, error) {
	out := []uuid.UUID{organization.PersonalOrganizationID(user)}
	rows, err := tx.QueryContext(ctx, `SELECT org_id FROM org_members WHERE user_id = $1`, user.String())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		if id, err := uuid.Parse(s); err == nil && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, rows.Err()
}

// callerOrg is the organisation of the agent a call acted as: the agent's, or the user's personal one
// (the user's default agent, which the read model may not hold yet).
func callerOrg(ctx context.Context, tx *sql.Tx, user, agent uuid.UUID) (uuid.UUID, error) {
	if agent != uuid.Nil {
		org, err := agentOrg(ctx, tx, agent)
		if err != nil || org != uuid.Nil {
			return org, err
		}
	}
	return organization.PersonalOrganizationID(user), nil
}

func agentOrg(ctx context.Context, tx *sql.Tx, agent uuid.UUID) (uuid.UUID, error) {
	return lookupOrg(ctx, tx, `SELECT org_id FROM agents WHERE agent_id = $1`, agent)
}

func ownerOrg(ctx context.Context, tx *sql.Tx, o login.Owner) (uuid.UUID, error) {
	switch o.Scope {
	case login.ScopeOrganization:
		return o.ID, nil
	case login.ScopeGuild:
		return lookupOrg(ctx, tx, `SELECT org_id FROM guilds WHERE guild_id = $1`, o.ID)
	case login.ScopeAgent:
		return agentOrg(ctx, tx, o.ID)
	}
	return uuid.Nil, nil
}

func lookupOrg(ctx context.Context, tx *sql.Tx, q string, id uuid.UUID) (uuid.UUID, error) {
	var s string
	switch err := tx.QueryRowContext(ctx, q, id.String()).Scan(&s); {
	case err == sql.ErrNoRows:
		return uuid.Nil, nil // not projected (yet), or deleted: nobody to tell
	case err != nil:
		return uuid.Nil, err
	}
	return uuid.Parse(s)
}
