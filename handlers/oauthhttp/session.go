package oauthhttp

import (
	"maps"
	"time"

	"github.com/ory/fosite"
	"github.com/ory/fosite/handler/oauth2"
	"github.com/ory/fosite/token/jwt"
)

// session is what fosite carries with a request: who consented (the workbench user), through which
// client, under which grant, and when each token of the request expires. It builds fresh JWT claims for
// every access token, so a refreshed token never inherits the iat or jti of an earlier one.
type session struct {
	UserID string
	// AgentID is the agent the grant acts as; "" for the user's default agent (the token then carries
	// no agent claim, as tokens did before agents existed).
	AgentID  string
	ClientID string
	GrantID  string
	KeyID    string
	// Issuer is the iss of the access tokens: the issuer the grant's resource belongs to (a loopback
	// alias, see Server.issuerOfAudience); "" for the configured AccessTokenIssuer.
	Issuer    string
	ExpiresAt map[fosite.TokenType]time.Time
}

var _ oauth2.JWTSessionContainer = (*session)(nil)

// Claims beyond the registered ones (RFC 9068 section 2.2 names client_id).
const (
	claimClientID = "client_id"
	claimGrantID  = "gid"
	claimAgentID  = "agent" // the agent (domain/organization) the token acts as; absent: the default agent
)

func (s *session) GetJWTClaims() jwt.JWTClaimsContainer {
	extra := map[string]interface{}{claimClientID: s.ClientID, claimGrantID: s.GrantID}
	if s.AgentID != "" {
		extra[claimAgentID] = s.AgentID
	}
	return &jwt.JWTClaims{Subject: s.UserID, Issuer: s.Issuer, Extra: extra}
}

func (s *session) GetJWTHeader() *jwt.Headers {
	// RFC 9068 section 2.1: access tokens are typed at+jwt, so no other JWT passes for one.
	return &jwt.Headers{Extra: map[string]interface{}{"typ": "at+jwt", "kid": s.KeyID}}
}

func (s *session) SetExpiresAt(key fosite.TokenType, exp time.Time) {
	if s.ExpiresAt == nil {
		s.ExpiresAt = map[fosite.TokenType]time.Time{}
	}
	s.ExpiresAt[key] = exp
}

func (s *session) GetExpiresAt(key fosite.TokenType) time.Time {
	if s == nil || s.ExpiresAt == nil {
		return time.Time{}
	}
	return s.ExpiresAt[key]
}

func (s *session) GetUsername() string { return "" }

func (s *session) GetSubject() string {
	if s == nil {
		return ""
	}
	return s.UserID
}

func (s *session) SetSubject(subject string) { s.UserID = subject }

func (s *session) Clone() fosite.Session {
	if s == nil {
		return nil
	}
	c := *s
	c.ExpiresAt = maps.Clone(s.ExpiresAt)
	return &c
}
