package auditrm

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/domain/jot"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/profile"
)

// The credentials a blast-radius report can be about.
const (
	CredentialAPIKey      = "api_key"      // a workbench API key (its key id)
	CredentialOAuthClient = "oauth_client" // an MCP client registered over OAuth (its client id)
	CredentialCurlSession = "session"      // a curl session (its session id)
	CredentialAgent       = "agent"        // an agent (its id): all its API keys and OAuth grants
)

// BlastQuery names one credential.
type BlastQuery struct {
	Kind string // CredentialAPIKey, CredentialOAuthClient or CredentialCurlSession
	ID   string
	// Opener opens the sealed profiles of newer user_created events (the vault), for the owner's email.
	Opener profile.Opener
}

// Validate checks the kind and the id's form; its errors are CodeInvalid.
func (q *BlastQuery) Validate() error {
	q.ID = strings.TrimSpace(q.ID)
	switch q.Kind {
	case CredentialAPIKey, CredentialCurlSession, CredentialAgent:
		id, err := uuid.Parse(q.ID)
		if err != nil || id == uuid.Nil {
			return domain.Errorf(domain.CodeInvalid, "%s: %q is not an id (a UUID)", q.Kind, q.ID)
		}
		q.ID = id.String()
	case CredentialOAuthClient:
		if q.ID == "" || len(q.ID) > 200 {
			return domain.Errorf(domain.CodeInvalid, "oauth_client: a client id is required")
		}
	default:
		return domain.Errorf(domain.CodeInvalid, "name one credential: api_key, oauth_client, session or agent")
	}
	return nil
}

// IntegrationTotals counts one integration's use by the credential.
type IntegrationTotals struct {
	Integration string `json:"integration"`
	ToolRuns    int64  `json:"tool_runs"`
	Succeeded   int64  `json:"succeeded"`
	// Outcomes counts the tool runs by error code ("ok" for a success).
	Outcomes        map[string]int64 `json:"outcomes"`
	ProxiedRequests int64            `json:"proxied_requests"`
	// Accounts counts the tool runs and proxied requests by the label of the user's account they used
	// ("default" for records that name none).
	Accounts map[string]int64 `json:"accounts"`
}

// BlastTotals are the report's totals.
type BlastTotals struct {
	ToolRuns            int64 `json:"tool_runs"`
	ToolFailures        int64 `json:"tool_failures"`
	ProxiedRequests     int64 `json:"proxied_requests"`
	CurlSessions        int64 `json:"curl_sessions"`
	JotsDeployed        int64 `json:"jots_deployed"`
	ConnectsStarted     int64 `json:"connections_started"`
	Users               int64 `json:"users"`
	LostRequestOutcomes int64 `json:"requests_without_outcome"`
}

// BlastReport is everything one credential did from issue to revocation, from the log (BlastRadius).
type BlastReport struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
	// Name is the OAuth client's registered name.
	Name string `json:"name,omitempty"`
	// IssuedAt and RevokedAt bound the credential's life as the log records it (zero when the log holds
	// no such event: a curl session ends at ExpiresAt instead).
	IssuedAt  time.Time `json:"issued_at,omitzero"`
	RevokedAt time.Time `json:"revoked_at,omitzero"`
	ExpiresAt time.Time `json:"expires_at,omitzero"`
	// Owner is the user the credential belongs to (API keys, curl sessions and agents).
	Owner         uuid.UUID           `json:"owner,omitzero"`
	OwnerEmail    string              `json:"owner_email,omitempty"`
	Totals        BlastTotals         `json:"totals"`
	ByIntegration []IntegrationTotals `json:"by_integration"`
	// Records are the credential's own records in log order (tool runs, curl sessions and requests,
	// the key's mint/rotation/revocation, the client's registration and grants).
	Records []Record `json:"records"`
	Scanned int64    `json:"events_scanned"`
}

// BlastRadius replays the log (Replay: the log itself, not a read model) and gathers what the
// credential did: a record belongs to it when its client (the API key id or OAuth client id the agent
// came through) is the credential, when it is the key's own event, or when it was made under a curl
// session the credential minted (or is, for CredentialCurlSession). Jots deployed are counted from the
// jots integration's deploy_jot tool runs and from jot.deployed events whose metadata names the client.
// Connections started are counted when the connection.started event names the client in its
// metadata (app/connections records the MCP client of a connect made over MCP).
//
// For CredentialAgent a record is the agent's when it names the agent (tool runs, API key mints and
// rotations, OAuth grants: uuid.Nil there is the user's default agent), when its client is one of the
// agent's API keys or an OAuth client the same user granted to the agent, or when it was made under a
// curl session one of those minted. A tool run that names neither an agent nor a known client (a
// record from before executions named their agent) is the user's default agent's.
func BlastRadius(ctx context.Context, store eventstore.Store, q BlastQuery) (BlastReport, error) {
	if err := q.Validate(); err != nil {
		return BlastReport{}, err
	}
	rep := BlastReport{Kind: q.Kind, ID: q.ID, Records: []Record{}, ByIntegration: []IntegrationTotals{}}
	sessions := map[uuid.UUID]bool{}
	if q.Kind == CredentialCurlSession {
		sessions[uuid.MustParse(q.ID)] = true
	}
	by := map[string]*IntegrationTotals{}
	users := map[uuid.UUID]bool{}
	forwarded := map[uuid.UUID]bool{}
	integration := func(name string) *IntegrationTotals {
		t := by[name]
		if t == nil {
			t = &IntegrationTotals{Integration: name, Outcomes: map[string]int64{}, Accounts: map[string]int64{}}
			by[name] = t
		}
		return t
	}
	var agent uuid.UUID
	if q.Kind == CredentialAgent {
		agent = uuid.MustParse(q.ID)
	}
	keyAgent := map[string]uuid.UUID{}   // API key id → agent
	grantAgent := map[string]uuid.UUID{} // OAuth client id + user → agent
	effective := func(id, user uuid.UUID) uuid.UUID {
		if id == uuid.Nil && user != uuid.Nil {
			return identitydom.DefaultAgentID(user)
		}
		return id
	}
	agentOf := func(r Record) uuid.UUID {
		switch r.Kind {
		case KindAPIKeyMinted, KindAPIKeyRotated:
			a := effective(r.AgentID, r.UserID)
			keyAgent[r.KeyID.String()] = a
			return a
		case KindAPIKeyRevoked:
			return keyAgent[r.KeyID.String()]
		case KindOAuthGranted:
			a := effective(r.AgentID, r.UserID)
			grantAgent[r.ClientID+"\x00"+r.UserID.String()] = a
			return a
		case KindOAuthTokensRevoked:
			return effective(r.AgentID, r.UserID)
		}
		if r.AgentID != uuid.Nil {
			return r.AgentID
		}
		if a, ok := keyAgent[r.ClientID]; ok {
			return a
		}
		if a, ok := grantAgent[r.ClientID+"\x00"+r.UserID.String()]; ok {
			return a
		}
		if r.Kind == KindToolExecuted {
			return effective(uuid.Nil, r.UserID)
		}
		return uuid.Nil
	}
	mine := func(r Record) bool {
		switch q.Kind {
		case CredentialAgent:
			if agentOf(r) == agent {
				return true
			}
			return r.SessionID != uuid.Nil && sessions[r.SessionID]
		case CredentialAPIKey:
			if r.KeyID.String() == q.ID || r.OldKeyID.String() == q.ID {
				return true
			}
		case CredentialOAuthClient:
			if r.Kind == KindOAuthClientRegistered || r.Kind == KindOAuthGranted || r.Kind == KindOAuthTokensRevoked {
				return r.ClientID == q.ID
			}
		}
		if r.SessionID != uuid.Nil && sessions[r.SessionID] {
			return true
		}
		return r.ClientID == q.ID && r.Kind != KindAPIKeyMinted
	}
	err := replayEnvelopes(ctx, store, q.Opener, func(env eventstore.Envelope) {
		rep.Scanned++
		if env.Type == jot.TypeDeployed && env.Metadata.MCPClient != "" && (env.Metadata.MCPClient == q.ID ||
			(q.Kind == CredentialAgent && keyAgent[env.Metadata.MCPClient] == agent)) {
			rep.Totals.JotsDeployed++
		}
	}, func(r Record) error {
		if !mine(r) {
			return nil
		}
		if r.UserID != uuid.Nil {
			users[r.UserID] = true
		}
		switch r.Kind {
		case KindAPIKeyMinted:
			if q.Kind == CredentialAgent {
				rep.Owner, rep.OwnerEmail = r.UserID, r.Email
				break
			}
			rep.IssuedAt, rep.Owner, rep.OwnerEmail = r.Time, r.UserID, r.Email
		case KindAPIKeyRotated:
			if q.Kind == CredentialAgent {
				break
			}
			if r.KeyID.String() == q.ID {
				rep.IssuedAt, rep.Owner, rep.OwnerEmail = r.Time, r.UserID, r.Email
			} else {
				rep.RevokedAt = r.Time
			}
		case KindAPIKeyRevoked:
			if q.Kind != CredentialAgent {
				rep.RevokedAt = r.Time
			}
		case KindOAuthClientRegistered:
			rep.IssuedAt, rep.Name = r.Time, r.ClientName
		case KindOAuthTokensRevoked:
			if q.Kind != CredentialAgent {
				rep.RevokedAt = r.Time
			}
		case KindCurlSessionMinted:
			sessions[r.SessionID] = true
			rep.Totals.CurlSessions++
			if q.Kind == CredentialCurlSession {
				rep.IssuedAt, rep.ExpiresAt, rep.Owner, rep.OwnerEmail = r.Time, r.ExpiresAt, r.UserID, r.Email
			}
		case KindToolExecuted:
			t := integration(r.Integration)
			t.ToolRuns++
			rep.Totals.ToolRuns++
			outcome := "ok"
			if r.Success != nil && *r.Success {
				t.Succeeded++
				if r.Integration == "jots" && r.Tool == "deploy_jot" {
					rep.Totals.JotsDeployed++
				}
			} else {
				rep.Totals.ToolFailures++
				outcome = r.ErrorCode
				if outcome == "" {
					outcome = "failed"
				}
			}
			t.Outcomes[outcome]++
			t.Accounts[connection.NormalAccount(r.Account)]++
		case KindRequestForwarded:
			forwarded[r.RequestID] = true
		case KindRequestProxied:
			delete(forwarded, r.RequestID)
			t := integration(r.Integration)
			t.ProxiedRequests++
			t.Accounts[connection.NormalAccount(r.Account)]++
			rep.Totals.ProxiedRequests++
		case KindConnectStarted:
			rep.Totals.ConnectsStarted++
		}
		rep.Records = append(rep.Records, r)
		return nil
	})
	if err != nil {
		return BlastReport{}, fmt.Errorf("audit blast radius: %w", err)
	}
	rep.Totals.LostRequestOutcomes = int64(len(forwarded))
	rep.Totals.Users = int64(len(users))
	for _, t := range by {
		rep.ByIntegration = append(rep.ByIntegration, *t)
	}
	slices.SortFunc(rep.ByIntegration, func(a, b IntegrationTotals) int { return strings.Compare(a.Integration, b.Integration) })
	return rep, nil
}
