package identitydom

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// The auditor role (issue 15, item 4): an instance admin grants a user the right to read every user's
// audit records through /api/admin/audit, and may take it back. The role lives in its own stream per
// user, "auditor-<uuid>", apart from the user stream, so granting it never races a key rotation; and
// every read an auditor makes is recorded by an AuditRead event in a stream of its own
// ("audit-read-<uuid>"), appended before the records are served.

// Event type names of the auditor role and the reads it makes.
const (
	TypeAuditorGranted = "identity.auditor_granted"
	TypeAuditorRevoked = "identity.auditor_revoked"
	TypeAuditRead      = "identity.audit_read"
)

// AuditorStreamName is the role stream of one user: "auditor-<uuid>".
func AuditorStreamName(userID uuid.UUID) string { return "auditor-" + userID.String() }

// AuditReadStreamName is the stream of one auditor read: "audit-read-<uuid>".
func AuditReadStreamName(readID uuid.UUID) string { return "audit-read-" + readID.String() }

// AuditorGranted makes UserID an auditor. GrantedBy is the instance admin who granted it (a user id or
// "cli"). Email is set only in events written before addresses were kept out of the log (nothing
// reads it; UserID names the user).
type AuditorGranted struct {
	UserID    uuid.UUID `json:"user_id"`
	Email     string    `json:"email,omitempty"`
	GrantedBy string    `json:"granted_by"`
	At        time.Time `json:"at"`
}

// AuditorRevoked takes the role back.
type AuditorRevoked struct {
	UserID    uuid.UUID `json:"user_id"`
	RevokedBy string    `json:"revoked_by"`
	At        time.Time `json:"at"`
}

// AuditRead records one read of the compliance API by an auditor: which view (list, asof, blast_radius,
// ...) and the query as asked (filters only; the API takes no secret).
type AuditRead struct {
	ReadID    uuid.UUID `json:"read_id"`
	AuditorID uuid.UUID `json:"auditor_id"`
	View      string    `json:"view"`
	Query     string    `json:"query,omitempty"`
	At        time.Time `json:"at"`
}

func (AuditorGranted) EventType() string { return TypeAuditorGranted }
func (AuditorRevoked) EventType() string { return TypeAuditorRevoked }
func (AuditRead) EventType() string      { return TypeAuditRead }

// RoleEvents returns a zero value of each auditor event type, for a codec.
func RoleEvents() []domain.Event {
	return []domain.Event{AuditorGranted{}, AuditorRevoked{}, AuditRead{}}
}

// AuditorRole is one user's role stream folded.
type AuditorRole struct {
	UserID  uuid.UUID
	Auditor bool
	Since   time.Time
}

// EvolveRole folds one role event.
func EvolveRole(s AuditorRole, ev domain.Event) AuditorRole {
	switch e := ev.(type) {
	case AuditorGranted:
		s.UserID, s.Auditor, s.Since = e.UserID, true, e.At
	case AuditorRevoked:
		s.UserID, s.Auditor, s.Since = e.UserID, false, e.At
	}
	return s
}

// RoleCommand changes a user's auditor role: GrantAuditor, RevokeAuditor or RecordAuditRead.
type RoleCommand interface {
	decideRole(AuditorRole) ([]domain.Event, error)
}

// DecideRole turns a role command into its events, or refuses it with a *domain.Error.
func DecideRole(s AuditorRole, c RoleCommand) ([]domain.Event, error) {
	if c == nil {
		return nil, domain.Errorf(domain.CodeInvalid, "no command")
	}
	return c.decideRole(s)
}

// GrantAuditor makes a user an auditor; granting it again is no change.
type GrantAuditor struct {
	UserID    uuid.UUID
	GrantedBy string
	At        time.Time
}

func (c GrantAuditor) decideRole(s AuditorRole) ([]domain.Event, error) {
	at, err := checkTime("grant auditor", c.At)
	if err != nil {
		return nil, err
	}
	if c.UserID == uuid.Nil || c.GrantedBy == "" {
		return nil, domain.Errorf(domain.CodeInvalid, "grant auditor: the user and the granting admin are required")
	}
	if s.Auditor {
		return nil, nil
	}
	return []domain.Event{AuditorGranted{UserID: c.UserID, GrantedBy: c.GrantedBy, At: at}}, nil
}

// RevokeAuditor takes the role back; a user who is not an auditor is CodeConflict.
type RevokeAuditor struct {
	UserID    uuid.UUID
	RevokedBy string
	At        time.Time
}

func (c RevokeAuditor) decideRole(s AuditorRole) ([]domain.Event, error) {
	at, err := checkTime("revoke auditor", c.At)
	if err != nil {
		return nil, err
	}
	if c.UserID == uuid.Nil || c.RevokedBy == "" {
		return nil, domain.Errorf(domain.CodeInvalid, "revoke auditor: the user and the revoking admin are required")
	}
	if !s.Auditor {
		return nil, domain.Errorf(domain.CodeConflict, "revoke auditor: the user is not an auditor")
	}
	return []domain.Event{AuditorRevoked{UserID: c.UserID, RevokedBy: c.RevokedBy, At: at}}, nil
}

// RecordAuditRead records a read; it is decided on the read's own (empty) stream, and the caller has
// checked the role first. AuditorID is uuid.Nil for a read from the command line.
type RecordAuditRead struct {
	ReadID    uuid.UUID
	AuditorID uuid.UUID
	View      string
	Query     string
	At        time.Time
}

func (c RecordAuditRead) decideRole(AuditorRole) ([]domain.Event, error) {
	at, err := checkTime("record audit read", c.At)
	if err != nil {
		return nil, err
	}
	if c.ReadID == uuid.Nil || c.View == "" {
		return nil, domain.Errorf(domain.CodeInvalid, "record audit read: the read id and view are required")
	}
	return []domain.Event{AuditRead{ReadID: c.ReadID, AuditorID: c.AuditorID, View: c.View, Query: c.Query, At: at}}, nil
}
