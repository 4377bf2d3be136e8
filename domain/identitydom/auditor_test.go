package identitydom

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

func TestAuditorRole(t *testing.T) {
	user := uuid.New()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	fold := func(evs ...domain.Event) AuditorRole {
		s := AuditorRole{}
		for _, e := range evs {
			s = EvolveRole(s, e)
		}
		return s
	}
	granted := AuditorGranted{UserID: user, GrantedBy: "cli", At: at}
	tests := []struct {
		name  string
		given []domain.Event
		when  RoleCommand
		then  []domain.Event
		code  domain.Code
	}{
		{"grant", nil, GrantAuditor{UserID: user, GrantedBy: "cli", At: at}, []domain.Event{granted}, ""},
		{"grant again is no change", []domain.Event{granted}, GrantAuditor{UserID: user, GrantedBy: "cli", At: at}, nil, ""},
		{"grant without time", nil, GrantAuditor{UserID: user, GrantedBy: "cli"}, nil, domain.CodeInvalid},
		{"grant without admin", nil, GrantAuditor{UserID: user, At: at}, nil, domain.CodeInvalid},
		{"revoke", []domain.Event{granted}, RevokeAuditor{UserID: user, RevokedBy: "cli", At: at},
			[]domain.Event{AuditorRevoked{UserID: user, RevokedBy: "cli", At: at}}, ""},
		{"revoke a non-auditor", nil, RevokeAuditor{UserID: user, RevokedBy: "cli", At: at}, nil, domain.CodeConflict},
		{"read without view", nil, RecordAuditRead{ReadID: uuid.New(), AuditorID: user, At: at}, nil, domain.CodeInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecideRole(fold(tc.given...), tc.when)
			if tc.code != "" {
				if domain.ErrorCode(err) != tc.code {
					t.Fatalf("err = %v, want code %s", err, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.then) {
				t.Fatalf("events = %#v, want %#v", got, tc.then)
			}
			for i := range got {
				if got[i] != tc.then[i] {
					t.Fatalf("event %d = %#v, want %#v", i, got[i], tc.then[i])
				}
			}
		})
	}
	if s := fold(granted, AuditorRevoked{UserID: user, RevokedBy: "cli", At: at}); s.Auditor {
		t.Fatal("revoked role still auditor")
	}
}
