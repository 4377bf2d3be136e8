package identitydom_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
)

// Each agent has its own live key; keys from before agents (no agent in the event) are the default
// agent's, and naming the default agent explicitly records the same event as naming none.
func TestKeysPerAgent(t *testing.T) {
	agent := uuid.MustParse("0c0c0c0c-0000-4000-8000-000000000001")
	def := identitydom.DefaultAgentID(userID)
	mintForAgent := identitydom.MintAPIKey{AgentID: agent, KeyID: keyC, Hash: hashC, Prefix: prefixC, At: t3}
	agentMinted := identitydom.APIKeyMinted{UserID: userID, AgentID: agent, KeyID: keyC, Hash: hashC, Prefix: prefixC, MintedAt: t3}

	got, err := identitydom.Decide(fold(liveA), mintForAgent)
	if err != nil {
		t.Fatalf("mint for a second agent beside the default agent's live key: %v", err)
	}
	if diff := cmp.Diff([]domain.Event{agentMinted}, got); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	s := fold(append([]domain.Event{created, mintedA}, got...))
	if k, ok := s.LiveKey(); !ok || k.KeyID != keyA || k.AgentID != def {
		t.Errorf("default agent's live key = %+v %v, want key A of the default agent", k, ok)
	}
	if k, ok := s.LiveKeyFor(agent); !ok || k.KeyID != keyC {
		t.Errorf("agent's live key = %+v %v, want key C", k, ok)
	}
	if k, ok := s.Authenticate(secretC); !ok || k.AgentID != agent {
		t.Errorf("Authenticate(C) = %+v %v", k, ok)
	}
	if k, ok := s.Authenticate(secretA); !ok || k.AgentID != def {
		t.Errorf("Authenticate(A) = %+v %v", k, ok)
	}
	if len(s.LiveKeys()) != 2 {
		t.Errorf("live keys: %d, want 2", len(s.LiveKeys()))
	}

	// A second mint for the same agent is a conflict; the default agent named explicitly is the same
	// as naming none.
	if _, err := identitydom.Decide(s, identitydom.MintAPIKey{AgentID: agent, KeyID: keyB, Hash: hashB, Prefix: prefixB, At: t3}); domain.ErrorCode(err) != domain.CodeConflict {
		t.Errorf("second mint for the agent: %v, want conflict", err)
	}
	got, err = identitydom.Decide(fold(justCreated), identitydom.MintAPIKey{AgentID: def, KeyID: keyA, Hash: hashA, Prefix: prefixA, At: t1})
	if err != nil || !cmp.Equal(got, []domain.Event{mintedA}) {
		t.Errorf("mint naming the default agent = %v, %v; want the event of a mint naming none", got, err)
	}

	// Rotate and revoke act on the named agent's key only.
	got, err = identitydom.Decide(s, identitydom.RotateAPIKey{AgentID: agent, KeyID: keyB, Hash: hashB, Prefix: prefixB, At: t3})
	want := []domain.Event{identitydom.APIKeyRotated{UserID: userID, AgentID: agent, OldKeyID: keyC, KeyID: keyB, Hash: hashB, Prefix: prefixB, RotatedAt: t3}}
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("rotate the agent's key = %v, %v; want %v", got, err, want)
	}
	got, err = identitydom.Decide(s, identitydom.RevokeAPIKey{AgentID: agent, At: t3})
	if err != nil || !cmp.Equal(got, []domain.Event{identitydom.APIKeyRevoked{UserID: userID, KeyID: keyC, RevokedAt: t3}}) {
		t.Errorf("revoke the agent's key = %v, %v", got, err)
	}
	if _, err := identitydom.Decide(fold(liveA), identitydom.RevokeAPIKey{AgentID: agent, At: t3}); domain.ErrorCode(err) != domain.CodeConflict {
		t.Errorf("revoke an agent without a key: %v, want conflict", err)
	}
}
