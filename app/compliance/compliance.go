package compliance

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/eventstore"
)

// Roles is the auditor role's aggregate: one "auditor-<uuid>" stream per user, and one
// "audit-read-<uuid>" stream per recorded read.
var Roles = eventstore.Aggregate[identitydom.AuditorRole, identitydom.RoleCommand, domain.Event]{
	Initial: func() identitydom.AuditorRole { return identitydom.AuditorRole{} },
	Evolve:  identitydom.EvolveRole,
	Decide:  identitydom.DecideRole,
	Codec:   eventstore.NewJSONCodec(identitydom.RoleEvents()...),
}

// Principal is who asks: a signed-in user (ID and Email), or the command line (CLI set).
type Principal struct {
	ID    uuid.UUID
	Email string
	CLI   bool
}

func (p Principal) actor() string {
	if p.CLI {
		return "cli"
	}
	return p.ID.String()
}

// Service runs the role's use cases.
type Service struct {
	Store eventstore.Store
	// Admins are the instance admins' normalised emails (internal/config Config.Admins, WORKBENCH_ADMINS).
	Admins []string
	// QueryKey keys the HMAC that replaces a user's address in a recorded read's query (the "user"
	// filter), so the log holds no address an erasure could not reach, while whoever holds the key can
	// still tell which address was asked for. Without one the address is withheld.
	QueryKey []byte
	// Now is the clock (default time.Now).
	Now func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// IsAdmin reports whether p may grant and revoke the role: the command line always, a user when their
// email is an instance admin's.
func (s *Service) IsAdmin(p Principal) bool {
	return p.CLI || (p.ID != uuid.Nil && p.Email != "" && slices.Contains(s.Admins, strings.ToLower(p.Email)))
}

func (s *Service) requireAdmin(p Principal, what string) error {
	if !s.IsAdmin(p) {
		return domain.Errorf(domain.CodeForbidden, "%s: only an instance admin (WORKBENCH_ADMINS) may do this", what)
	}
	return nil
}

// Grant makes the user an auditor; p must be an admin. Granting it again changes nothing. The
// user's email is not recorded (the user id names them).
func (s *Service) Grant(ctx context.Context, p Principal, user uuid.UUID, _ string) (eventstore.Position, error) {
	if err := s.requireAdmin(p, "grant the auditor role"); err != nil {
		return eventstore.Start, err
	}
	res, err := eventstore.Execute(ctx, s.Store, identitydom.AuditorStreamName(user), Roles,
		identitydom.RoleCommand(identitydom.GrantAuditor{UserID: user, GrantedBy: p.actor(), At: s.now()}),
		eventstore.Metadata{Actor: p.actor()})
	if err != nil {
		return eventstore.Start, fmt.Errorf("grant the auditor role: %w", err)
	}
	return res.Position, nil
}

// Revoke takes the role back; p must be an admin.
func (s *Service) Revoke(ctx context.Context, p Principal, user uuid.UUID) (eventstore.Position, error) {
	if err := s.requireAdmin(p, "revoke the auditor role"); err != nil {
		return eventstore.Start, err
	}
	res, err := eventstore.Execute(ctx, s.Store, identitydom.AuditorStreamName(user), Roles,
		identitydom.RoleCommand(identitydom.RevokeAuditor{UserID: user, RevokedBy: p.actor(), At: s.now()}),
		eventstore.Metadata{Actor: p.actor()})
	if err != nil {
		return eventstore.Start, fmt.Errorf("revoke the auditor role: %w", err)
	}
	return res.Position, nil
}

// IsAuditor folds the user's role stream (the log, not a read model: a revocation takes effect on the
// next read, on every replica).
func (s *Service) IsAuditor(ctx context.Context, user uuid.UUID) (bool, error) {
	if user == uuid.Nil {
		return false, nil
	}
	st, _, err := eventstore.LoadState(ctx, s.Store, identitydom.AuditorStreamName(user), Roles)
	if err != nil {
		return false, &domain.Error{Code: domain.CodeUnavailable, Message: "read the auditor role", Err: err}
	}
	return st.Auditor, nil
}

// AuthorizeRead checks that p is an auditor (CodeForbidden when not) and records the read
// (identity.audit_read) before returning: the caller serves records only after a nil error. view names
// what is read (list, asof, blast_radius, receipts, ...), query the filters as asked. The command line
// reads the log directly and is recorded too (CLI principal, no role check: whoever runs the binary
// holds the database).
func (s *Service) AuthorizeRead(ctx context.Context, p Principal, view, query string) (eventstore.Position, error) {
	if !p.CLI {
		ok, err := s.IsAuditor(ctx, p.ID)
		if err != nil {
			return eventstore.Start, err
		}
		if !ok {
			return eventstore.Start, domain.Errorf(domain.CodeForbidden, "the compliance API is for auditors; an instance admin grants the role")
		}
	}
	readID := uuid.Must(uuid.NewV7())
	auditor := p.ID
	res, err := eventstore.Execute(ctx, s.Store, identitydom.AuditReadStreamName(readID), Roles,
		identitydom.RoleCommand(identitydom.RecordAuditRead{ReadID: readID, AuditorID: auditor, View: view, Query: s.recordedQuery(query), At: s.now()}),
		eventstore.Metadata{Actor: p.actor()})
	if err != nil {
		return eventstore.Start, fmt.Errorf("record the audit read: %w", err)
	}
	return res.Position, nil
}

// recordedQuery is query as a read records it: each "user" filter (an address) becomes "hmac-" and 16
// hex digits of an HMAC of the normalised address under QueryKey ("withheld" without a key).
func (s *Service) recordedQuery(query string) string {
	v, err := url.ParseQuery(query)
	if err != nil {
		return "unparsable query withheld"
	}
	users, ok := v["user"]
	if !ok {
		return query
	}
	for i, u := range users {
		if len(s.QueryKey) == 0 {
			users[i] = "withheld"
			continue
		}
		norm, err := identitydom.NormalizeEmail(u)
		if err != nil {
			norm = strings.ToLower(strings.TrimSpace(u))
		}
		m := hmac.New(sha256.New, s.QueryKey)
		m.Write([]byte(norm))
		users[i] = "hmac-" + hex.EncodeToString(m.Sum(nil)[:8])
	}
	return v.Encode()
}
