// Package organizations projects the organisation events (domain/organization) into the read models
// the HTTP layer and the connector scopes read: organizations, org_members, org_invitations, guilds,
// guild_members and agents. Its Reader answers the one question every request asks, which scopes an
// agent acts in (Chain), and the listings of the organisation and guild pages.
package organizationsrm

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/dbtime"
	"github.com/workbench/workbench/projections"
)

// Name is the projection's checkpoint name.
const Name = "organizations"

// Projection keeps the organisation read models.
type Projection struct {
	codec      *eventstore.JSONCodec[domain.Event]
	inviteeKey []byte
}

// WithInviteeKey sets the key of organization.InviteeHash (what app/organizations.Options.InviteeKey
// is), with which identity.user_erased drops the invitations of the erased address that the read
// model holds in clear.
func (p *Projection) WithInviteeKey(key []byte) *Projection {
	p.inviteeKey = key
	return p
}

var _ projections.Projection = (*Projection)(nil)

// New returns the projection.
func New() *Projection {
	return &Projection{codec: eventstore.NewJSONCodec(append(organization.Events(), identitydom.UserErased{})...)}
}

// Handles implements projections.Selective. An erased user's address leaves the member rows with
// identity.user_erased.
func (*Projection) Handles(eventType string) bool {
	return strings.HasPrefix(eventType, "organization.") || eventType == identitydom.TypeUserErased
}

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Reset implements projections.Projection.
func (*Projection) Reset(ctx context.Context, tx *sql.Tx) error {
	return projections.DeleteAll(ctx, tx, "agents", "guild_members", "guilds", "org_invitations", "org_members", "organizations")
}

func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nullID stores uuid.Nil as NULL.
func nullID(id uuid.UUID) sql.NullString {
	if id == uuid.Nil {
		return sql.NullString{}
	}
	return sql.NullString{String: id.String(), Valid: true}
}

// invitationKey is the email column of an invitation's row: the hash when the log names the address
// by it.
func invitationKey(email, hash string) string {
	if hash != "" {
		return hash
	}
	return email
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
	exec := func(q string, args ...any) {
		if err == nil {
			_, err = tx.ExecContext(ctx, q, args...)
		}
	}
	switch e := ev.(type) {
	case organization.OrganizationCreated:
		exec(`INSERT INTO organizations (org_id, name, personal, created_by, created_at) VALUES ($1, $2, $3, $4, $5)`,
			e.OrganizationID.String(), e.Name, flag(e.Personal), e.CreatedBy.String(), dbtime.Format(e.CreatedAt))
	case organization.OrganizationRenamed:
		exec(`UPDATE organizations SET name = $1 WHERE org_id = $2`, e.Name, e.OrganizationID.String())
	case organization.MemberInvited:
		key, sealed := invitationKey(e.Email, e.EmailHash), ""
		if !e.SealedEmail.IsZero() {
			b, merr := json.Marshal(e.SealedEmail)
			if merr != nil {
				return merr
			}
			sealed = string(b)
		}
		exec(`DELETE FROM org_invitations WHERE org_id = $1 AND email = $2`, e.OrganizationID.String(), key)
		exec(`INSERT INTO org_invitations (org_id, email, role, invited_by, invited_at, email_hash, sealed_email) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			e.OrganizationID.String(), key, string(e.Role), e.InvitedBy.String(), dbtime.Format(e.At), e.EmailHash, sealed)
	case organization.InvitationRevoked:
		exec(`DELETE FROM org_invitations WHERE org_id = $1 AND email = $2`, e.OrganizationID.String(), invitationKey(e.Email, e.EmailHash))
	case organization.InvitationDeclined:
		exec(`DELETE FROM org_invitations WHERE org_id = $1 AND email = $2`, e.OrganizationID.String(), invitationKey(e.Email, e.EmailHash))
	case organization.MemberAdded:
		exec(`DELETE FROM org_invitations WHERE org_id = $1 AND email IN ($2, $3)`, e.OrganizationID.String(), e.Email, e.InvitationHash)
		exec(`INSERT INTO org_members (org_id, user_id, email, role, added_at) VALUES ($1, $2, $3, $4, $5)`,
			e.OrganizationID.String(), e.UserID.String(), e.Email, string(e.Role), dbtime.Format(e.At))
	case identitydom.UserErased:
		exec(`UPDATE org_members SET email = $1 WHERE user_id = $2`, e.Pseudonym, e.UserID.String())
		if err == nil && e.InviteeHash != "" && len(p.inviteeKey) > 0 {
			err = p.dropClearInvitations(ctx, tx, e.InviteeHash)
		}
	case organization.MemberRoleChanged:
		exec(`UPDATE org_members SET role = $1 WHERE org_id = $2 AND user_id = $3`, string(e.Role), e.OrganizationID.String(), e.UserID.String())
	case organization.MemberRemoved:
		exec(`DELETE FROM org_members WHERE org_id = $1 AND user_id = $2`, e.OrganizationID.String(), e.UserID.String())
		exec(`DELETE FROM guild_members WHERE org_id = $1 AND user_id = $2`, e.OrganizationID.String(), e.UserID.String())
	case organization.GuildCreated:
		exec(`INSERT INTO guilds (guild_id, org_id, name, created_at) VALUES ($1, $2, $3, $4)`,
			e.GuildID.String(), e.OrganizationID.String(), e.Name, dbtime.Format(e.At))
	case organization.GuildRenamed:
		exec(`UPDATE guilds SET name = $1 WHERE guild_id = $2`, e.Name, e.GuildID.String())
	case organization.GuildDeleted:
		exec(`UPDATE agents SET guild_id = NULL WHERE guild_id = $1`, e.GuildID.String())
		exec(`DELETE FROM guild_members WHERE guild_id = $1`, e.GuildID.String())
		exec(`DELETE FROM guilds WHERE guild_id = $1`, e.GuildID.String())
	case organization.GuildMemberAdded:
		exec(`INSERT INTO guild_members (guild_id, user_id, org_id, added_at) VALUES ($1, $2, $3, $4)`,
			e.GuildID.String(), e.UserID.String(), e.OrganizationID.String(), dbtime.Format(e.At))
	case organization.GuildMemberRemoved:
		exec(`DELETE FROM guild_members WHERE guild_id = $1 AND user_id = $2`, e.GuildID.String(), e.UserID.String())
	case organization.AgentCreated:
		exec(`INSERT INTO agents (agent_id, org_id, guild_id, owner_id, name, is_default, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			e.AgentID.String(), e.OrganizationID.String(), nullID(e.GuildID), e.OwnerID.String(), e.Name, flag(e.Default), dbtime.Format(e.At))
	case organization.AgentRenamed:
		exec(`UPDATE agents SET name = $1 WHERE agent_id = $2`, e.Name, e.AgentID.String())
	case organization.AgentMoved:
		exec(`UPDATE agents SET guild_id = $1 WHERE agent_id = $2`, nullID(e.GuildID), e.AgentID.String())
	case organization.AgentDeleted:
		exec(`DELETE FROM agents WHERE agent_id = $1`, e.AgentID.String())
	}
	return err
}

// dropClearInvitations deletes the rows of invitations recorded in clear whose address has hash h.
func (p *Projection) dropClearInvitations(ctx context.Context, tx *sql.Tx, h string) error {
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT email FROM org_invitations WHERE email_hash = ''`)
	if err != nil {
		return err
	}
	var drop []string
	for rows.Next() {
		var email string
		if err := rows.Scan(&email); err != nil {
			rows.Close()
			return err
		}
		if organization.InviteeHash(p.inviteeKey, email) == h {
			drop = append(drop, email)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, email := range drop {
		if _, err := tx.ExecContext(ctx, `DELETE FROM org_invitations WHERE email_hash = '' AND email = $1`, email); err != nil {
			return err
		}
	}
	return nil
}
