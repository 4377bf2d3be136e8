package auditrm

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/oauthdom"
	"github.com/workbench/workbench/domain/signindom"
	"github.com/workbench/workbench/eventstore"
)

// The kinds of record about access to Workbench itself: who was let in to the portal, which MCP
// clients registered, which user granted which client, and when a grant's tokens were revoked. Only
// Replay emits them (see accessTrail).
const (
	KindSigninLinkIssued      Kind = "signin_link_issued"      // signin_link.issued
	KindSignedIn              Kind = "signed_in"               // signin_link.redeemed
	KindOAuthClientRegistered Kind = "oauth_client_registered" // oauth.client_registered
	KindOAuthGranted          Kind = "oauth_granted"           // oauth.code_issued: the user consented
	KindOAuthTokensRevoked    Kind = "oauth_tokens_revoked"    // oauth.refresh_tokens_revoked: the token family ended
)

var accessKindOf = map[string]Kind{
	signindom.TypeLinkIssued:          KindSigninLinkIssued,
	signindom.TypeLinkRedeemed:        KindSignedIn,
	oauthdom.TypeClientRegistered:     KindOAuthClientRegistered,
	oauthdom.TypeCodeIssued:           KindOAuthGranted,
	oauthdom.TypeRefreshTokensRevoked: KindOAuthTokensRevoked,
}

// accessTrail turns access events into records during a replay. Unlike the other kinds, these need
// what came before them in the log: a revocation names its grant only, so the grant's user and client
// are remembered from its code_issued event; and a client's name from its registration, which is also
// written beside the client id of every later record that names the client (tool runs through OAuth,
// curl sessions). That is why they are a replay's and not the per-user read model's (Projection
// sees events one at a time and keeps records by user).
type accessTrail struct {
	codec   *eventstore.JSONCodec[domain.Event]
	clients map[string]string // client id → client name
	grants  map[string]grant  // request id → grant
}

type grant struct {
	client string
	user   uuid.UUID
	agent  uuid.UUID
}

func newAccessTrail() *accessTrail {
	var events []domain.Event
	events = append(events, signindom.Events()...)
	events = append(events, oauthdom.Events()...)
	return &accessTrail{codec: eventstore.NewJSONCodec(events...), clients: map[string]string{}, grants: map[string]grant{}}
}

// record returns the record of an access event; ok is false for any other event type.
func (a *accessTrail) record(env eventstore.Envelope) (rec Record, ok bool, err error) {
	kind, ok := accessKindOf[env.Type]
	if !ok {
		return Record{}, false, nil
	}
	ev, err := a.codec.Decode(env.Type, env.SchemaVersion, env.Data)
	if err != nil {
		return Record{}, false, decodeError(env, err)
	}
	rec = Record{EventID: env.ID, Position: env.Position, Kind: kind, Actor: env.Metadata.Actor}
	var at time.Time
	switch e := ev.(type) {
	case signindom.LinkIssued:
		rec.UserID, rec.Reason, rec.ExpiresAt, at = e.UserID, e.Purpose, e.ExpiresAt.UTC(), e.IssuedAt
	case signindom.LinkRedeemed:
		rec.UserID, rec.Via, at = e.UserID, "signin_link", e.RedeemedAt
	case oauthdom.ClientRegistered:
		a.clients[e.ClientID] = e.ClientName
		rec.ClientID, rec.Scopes, at = e.ClientID, e.Scopes, e.RegisteredAt
	case oauthdom.CodeIssued:
		a.grants[e.RequestID] = grant{client: e.ClientID, user: e.UserID, agent: e.AgentID}
		rec.UserID, rec.ClientID, rec.Scopes, rec.AgentID, at = e.UserID, e.ClientID, e.Scopes, e.AgentID, e.IssuedAt
	case oauthdom.RefreshTokensRevoked:
		g := a.grants[e.RequestID]
		rec.UserID, rec.ClientID, rec.Reason, rec.AgentID, at = g.user, g.client, e.Reason, g.agent, e.RevokedAt
	}
	if at.IsZero() {
		at = env.Metadata.Time
	}
	rec.Time = at.UTC()
	return rec, true, nil
}

// name fills in the client name of a record that names a registered OAuth client.
func (a *accessTrail) name(rec *Record) {
	if rec.ClientID != "" {
		rec.ClientName = a.clients[rec.ClientID]
	}
}
