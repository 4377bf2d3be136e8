package oauthdom

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Event type names. They are written into the log and never change once an event has been stored.
const (
	TypeClientRegistered     = "oauth.client_registered"
	TypeCodeIssued           = "oauth.code_issued"
	TypeCodeExchanged        = "oauth.code_exchanged"
	TypeCodeRevoked          = "oauth.code_revoked"
	TypeAccessTokenIssued    = "oauth.access_token_issued"
	TypeRefreshTokenIssued   = "oauth.refresh_token_issued"
	TypeRefreshTokenRotated  = "oauth.refresh_token_rotated"
	TypeRefreshTokensRevoked = "oauth.refresh_tokens_revoked"
	TypeAccessTokensRevoked  = "oauth.access_tokens_revoked"
)

// Why a grant's tokens were revoked.
const (
	ReasonTokenRevocation   = "token_revocation"    // RFC 7009 request by the client
	ReasonCodeReuse         = "code_reuse"          // the authorization code was presented twice
	ReasonRefreshTokenReuse = "refresh_token_reuse" // a spent refresh token was presented
	ReasonUser              = "user"                // the user revoked the client in the portal
	ReasonAgentDeleted      = "agent_deleted"       // the agent the grant acts as was deleted
)

// ClientRegistered records a client registered through RFC 7591 dynamic registration. Every client is
// public (token_endpoint_auth_method "none") and proves possession with PKCE.
type ClientRegistered struct {
	ClientID      string    `json:"client_id"`
	ClientName    string    `json:"client_name"`
	RedirectURIs  []string  `json:"redirect_uris"`
	GrantTypes    []string  `json:"grant_types"`
	ResponseTypes []string  `json:"response_types"`
	Scopes        []string  `json:"scopes"`
	RegisteredAt  time.Time `json:"registered_at"`
}

// CodeIssued is the first event of a grant: the user consented, and an authorization code was issued
// for the client, bound to the redirect URI and the PKCE challenge of the request.
//
// AgentID is the agent (domain/organization) the user granted the client to act as; uuid.Nil
// (omitted) is the user's default agent, which every grant made before agents existed acts as.
type CodeIssued struct {
	RequestID           string    `json:"request_id"`
	ClientID            string    `json:"client_id"`
	UserID              uuid.UUID `json:"user_id"`
	AgentID             uuid.UUID `json:"agent_id,omitzero"`
	CodeSignature       string    `json:"code_signature"`
	Scopes              []string  `json:"scopes"`
	Audience            []string  `json:"audience"`
	RedirectURI         string    `json:"redirect_uri"`
	CodeChallenge       string    `json:"code_challenge"`
	CodeChallengeMethod string    `json:"code_challenge_method"`
	RequestedAt         time.Time `json:"requested_at"`
	ExpiresAt           time.Time `json:"expires_at"`
	IssuedAt            time.Time `json:"issued_at"`
}

// CodeExchanged records the one exchange of the grant's code at the token endpoint.
type CodeExchanged struct {
	RequestID     string    `json:"request_id"`
	CodeSignature string    `json:"code_signature"`
	ExchangedAt   time.Time `json:"exchanged_at"`
}

// CodeRevoked retires a code that was never exchanged.
type CodeRevoked struct {
	RequestID string    `json:"request_id"`
	Reason    string    `json:"reason"`
	RevokedAt time.Time `json:"revoked_at"`
}

// AccessTokenIssued records a JWT access token by its signature.
type AccessTokenIssued struct {
	RequestID string    `json:"request_id"`
	Signature string    `json:"signature"`
	ExpiresAt time.Time `json:"expires_at"`
	IssuedAt  time.Time `json:"issued_at"`
}

// RefreshTokenIssued records a refresh token of the grant's family by its signature.
type RefreshTokenIssued struct {
	RequestID       string    `json:"request_id"`
	Signature       string    `json:"signature"`
	AccessSignature string    `json:"access_signature,omitempty"`
	ExpiresAt       time.Time `json:"expires_at,omitzero"`
	IssuedAt        time.Time `json:"issued_at"`
}

// RefreshTokenRotated spends a refresh token: it was exchanged for a new one and never works again.
type RefreshTokenRotated struct {
	RequestID string    `json:"request_id"`
	Signature string    `json:"signature"`
	RotatedAt time.Time `json:"rotated_at"`
}

// RefreshTokensRevoked ends the family: no refresh token of the grant works from here on, and the grant
// issues none again.
type RefreshTokensRevoked struct {
	RequestID string    `json:"request_id"`
	Reason    string    `json:"reason"`
	RevokedAt time.Time `json:"revoked_at"`
}

// AccessTokensRevoked makes every access token of the grant stop authenticating before its expiry.
type AccessTokensRevoked struct {
	RequestID string    `json:"request_id"`
	Reason    string    `json:"reason"`
	RevokedAt time.Time `json:"revoked_at"`
}

func (ClientRegistered) EventType() string     { return TypeClientRegistered }
func (CodeIssued) EventType() string           { return TypeCodeIssued }
func (CodeExchanged) EventType() string        { return TypeCodeExchanged }
func (CodeRevoked) EventType() string          { return TypeCodeRevoked }
func (AccessTokenIssued) EventType() string    { return TypeAccessTokenIssued }
func (RefreshTokenIssued) EventType() string   { return TypeRefreshTokenIssued }
func (RefreshTokenRotated) EventType() string  { return TypeRefreshTokenRotated }
func (RefreshTokensRevoked) EventType() string { return TypeRefreshTokensRevoked }
func (AccessTokensRevoked) EventType() string  { return TypeAccessTokensRevoked }

// Events returns a zero value of every event type of this package, for building a codec.
func Events() []domain.Event {
	return []domain.Event{
		ClientRegistered{}, CodeIssued{}, CodeExchanged{}, CodeRevoked{}, AccessTokenIssued{},
		RefreshTokenIssued{}, RefreshTokenRotated{}, RefreshTokensRevoked{}, AccessTokensRevoked{},
	}
}
