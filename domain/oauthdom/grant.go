package oauthdom

import (
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// GrantStreamName is the stream of one grant (one refresh-token family): "oauth-grant-<request id>".
func GrantStreamName(requestID string) string { return "oauth-grant-" + requestID }

// Refusal causes of grant commands, for errors.Is on the *domain.Error's cause.
var (
	ErrCodeUsed          = errors.New("oauth: the authorization code was already used")
	ErrRefreshTokenSpent = errors.New("oauth: the refresh token was already used or revoked")
	ErrGrantRevoked      = errors.New("oauth: the grant was revoked")
)

// RefreshToken is one refresh token of a family.
type RefreshToken struct {
	Signature string
	IssuedAt  time.Time
	ExpiresAt time.Time
	Rotated   bool
}

// Grant is one authorization folded from its stream. The zero Grant does not exist.
type Grant struct {
	RequestID      string
	ClientID       string
	UserID         uuid.UUID
	CodeSignature  string
	CodeExpiresAt  time.Time
	CodeExchanged  bool
	CodeRevoked    bool
	RefreshRevoked bool
	AccessRevoked  bool
	// Refresh holds every refresh token of the family by signature.
	Refresh map[string]RefreshToken
	// Access holds the signature of every access token issued.
	Access map[string]bool
}

// InitialGrant is the state of a grant stream with no events.
func InitialGrant() Grant { return Grant{} }

// Exists reports whether a code was ever issued for the grant.
func (g Grant) Exists() bool { return g.RequestID != "" }

// LiveRefresh reports whether the family holds a refresh token that is neither rotated nor revoked
// (expiry is the reader's business: it needs a clock).
func (g Grant) LiveRefresh() bool {
	if g.RefreshRevoked {
		return false
	}
	for _, t := range g.Refresh {
		if !t.Rotated {
			return true
		}
	}
	return false
}

// EvolveGrant folds one event into a grant. Maps are copied before they change, so a state handed out
// earlier never sees later events.
func EvolveGrant(g Grant, ev domain.Event) Grant {
	switch e := ev.(type) {
	case CodeIssued:
		g = Grant{RequestID: e.RequestID, ClientID: e.ClientID, UserID: e.UserID, CodeSignature: e.CodeSignature,
			CodeExpiresAt: e.ExpiresAt, Refresh: map[string]RefreshToken{}, Access: map[string]bool{}}
	case CodeExchanged:
		g.CodeExchanged = true
	case CodeRevoked:
		g.CodeRevoked = true
	case AccessTokenIssued:
		g.Access = maps.Clone(g.Access)
		if g.Access == nil {
			g.Access = map[string]bool{}
		}
		g.Access[e.Signature] = true
	case RefreshTokenIssued:
		g.Refresh = maps.Clone(g.Refresh)
		if g.Refresh == nil {
			g.Refresh = map[string]RefreshToken{}
		}
		g.Refresh[e.Signature] = RefreshToken{Signature: e.Signature, IssuedAt: e.IssuedAt, ExpiresAt: e.ExpiresAt}
	case RefreshTokenRotated:
		g.Refresh = maps.Clone(g.Refresh)
		if t, ok := g.Refresh[e.Signature]; ok {
			t.Rotated = true
			g.Refresh[e.Signature] = t
		}
	case RefreshTokensRevoked:
		g.RefreshRevoked = true
	case AccessTokensRevoked:
		g.AccessRevoked = true
	}
	return g
}

// GrantCommand is a request to change a grant. The interface is sealed so that DecideGrant knows them
// all.
type GrantCommand interface {
	decide(Grant) ([]domain.Event, error)
}

// DecideGrant turns a command into the events it causes, or refuses it with a *domain.Error.
func DecideGrant(g Grant, c GrantCommand) ([]domain.Event, error) {
	if c == nil {
		return nil, domain.Errorf(domain.CodeInvalid, "no command")
	}
	return c.decide(g)
}

// Batch decides several commands in order against one grant, each seeing the events of those before
// it; it records all of their events or, if one is refused, none. The token endpoint uses it to record
// a code exchange with the tokens it issued (or a rotation with its successor) in one append.
type Batch []GrantCommand

func (b Batch) decide(g Grant) ([]domain.Event, error) {
	var out []domain.Event
	for _, c := range b {
		evs, err := DecideGrant(g, c)
		if err != nil {
			return nil, err
		}
		for _, ev := range evs {
			g = EvolveGrant(g, ev)
		}
		out = append(out, evs...)
	}
	return out, nil
}

// IssueCode starts a grant: the user consented and a code is issued.
type IssueCode struct {
	RequestID string
	ClientID  string
	UserID    uuid.UUID
	// AgentID is the agent the grant acts as (uuid.Nil: the user's default agent). That it is the
	// user's is the consent page's check: agents live in another aggregate.
	AgentID             uuid.UUID
	CodeSignature       string
	Scopes              []string
	Audience            []string
	RedirectURI         string
	CodeChallenge       string
	CodeChallengeMethod string
	RequestedAt         time.Time
	ExpiresAt           time.Time
	At                  time.Time
}

func (c IssueCode) decide(g Grant) ([]domain.Event, error) {
	const what = "issue code"
	switch {
	case c.RequestID == "" || c.ClientID == "" || c.CodeSignature == "" || c.RedirectURI == "":
		return nil, domain.Errorf(domain.CodeInvalid, "%s: request id, client id, code signature and redirect URI are required", what)
	case c.UserID == uuid.Nil:
		return nil, domain.Errorf(domain.CodeInvalid, "%s: no user", what)
	case c.CodeChallenge == "" || c.CodeChallengeMethod != "S256":
		return nil, domain.Errorf(domain.CodeInvalid, "%s: a PKCE S256 challenge is required", what)
	case c.At.IsZero() || c.ExpiresAt.IsZero():
		return nil, domain.Errorf(domain.CodeInvalid, "%s: the command carries no time", what)
	case g.Exists():
		return nil, domain.Errorf(domain.CodeConflict, "%s: request %s already has a code", what, c.RequestID)
	}
	return []domain.Event{CodeIssued{
		RequestID: c.RequestID, ClientID: c.ClientID, UserID: c.UserID, AgentID: c.AgentID, CodeSignature: c.CodeSignature,
		Scopes: slices.Clone(c.Scopes), Audience: slices.Clone(c.Audience), RedirectURI: c.RedirectURI,
		CodeChallenge: c.CodeChallenge, CodeChallengeMethod: c.CodeChallengeMethod,
		RequestedAt: c.RequestedAt.UTC(), ExpiresAt: c.ExpiresAt.UTC(), IssuedAt: c.At.UTC(),
	}}, nil
}

// ExchangeCode spends the grant's code.
type ExchangeCode struct {
	CodeSignature string
	At            time.Time
}

func (c ExchangeCode) decide(g Grant) ([]domain.Event, error) {
	if err := exists(g, "exchange code", c.At); err != nil {
		return nil, err
	}
	switch {
	case c.CodeSignature != g.CodeSignature:
		return nil, domain.Errorf(domain.CodeNotFound, "exchange code: the code does not belong to this grant")
	case g.CodeExchanged:
		return nil, &domain.Error{Code: domain.CodeConflict, Message: "the authorization code was already used", Err: ErrCodeUsed}
	case g.CodeRevoked:
		return nil, &domain.Error{Code: domain.CodeConflict, Message: "the authorization code was revoked", Err: ErrGrantRevoked}
	}
	return []domain.Event{CodeExchanged{RequestID: g.RequestID, CodeSignature: c.CodeSignature, ExchangedAt: c.At.UTC()}}, nil
}

// IssueAccessToken records an access token of the grant.
type IssueAccessToken struct {
	Signature string
	ExpiresAt time.Time
	At        time.Time
}

func (c IssueAccessToken) decide(g Grant) ([]domain.Event, error) {
	if err := exists(g, "issue access token", c.At); err != nil {
		return nil, err
	}
	switch {
	case c.Signature == "":
		return nil, domain.Errorf(domain.CodeInvalid, "issue access token: no signature")
	case !g.CodeExchanged:
		return nil, domain.Errorf(domain.CodeConflict, "issue access token: the code has not been exchanged")
	case g.AccessRevoked:
		return nil, &domain.Error{Code: domain.CodeConflict, Message: "the grant's access was revoked", Err: ErrGrantRevoked}
	case g.Access[c.Signature]:
		return nil, domain.Errorf(domain.CodeConflict, "issue access token: signature already recorded")
	}
	return []domain.Event{AccessTokenIssued{RequestID: g.RequestID, Signature: c.Signature, ExpiresAt: c.ExpiresAt.UTC(), IssuedAt: c.At.UTC()}}, nil
}

// IssueRefreshToken records a refresh token of the family.
type IssueRefreshToken struct {
	Signature       string
	AccessSignature string
	ExpiresAt       time.Time // zero: no expiry
	At              time.Time
}

func (c IssueRefreshToken) decide(g Grant) ([]domain.Event, error) {
	if err := exists(g, "issue refresh token", c.At); err != nil {
		return nil, err
	}
	switch {
	case c.Signature == "":
		return nil, domain.Errorf(domain.CodeInvalid, "issue refresh token: no signature")
	case !g.CodeExchanged:
		return nil, domain.Errorf(domain.CodeConflict, "issue refresh token: the code has not been exchanged")
	case g.RefreshRevoked:
		return nil, &domain.Error{Code: domain.CodeConflict, Message: "the grant's refresh tokens were revoked", Err: ErrGrantRevoked}
	}
	if _, dup := g.Refresh[c.Signature]; dup {
		return nil, domain.Errorf(domain.CodeConflict, "issue refresh token: signature already recorded")
	}
	return []domain.Event{RefreshTokenIssued{RequestID: g.RequestID, Signature: c.Signature, AccessSignature: c.AccessSignature,
		ExpiresAt: c.ExpiresAt.UTC(), IssuedAt: c.At.UTC()}}, nil
}

// RotateRefreshToken spends a live refresh token (its successor is issued in the same batch).
type RotateRefreshToken struct {
	Signature string
	At        time.Time
}

func (c RotateRefreshToken) decide(g Grant) ([]domain.Event, error) {
	if err := exists(g, "rotate refresh token", c.At); err != nil {
		return nil, err
	}
	t, ok := g.Refresh[c.Signature]
	switch {
	case !ok:
		return nil, domain.Errorf(domain.CodeNotFound, "rotate refresh token: no such refresh token in this grant")
	case t.Rotated || g.RefreshRevoked:
		return nil, &domain.Error{Code: domain.CodeConflict, Message: "the refresh token was already used or revoked", Err: ErrRefreshTokenSpent}
	}
	return []domain.Event{RefreshTokenRotated{RequestID: g.RequestID, Signature: c.Signature, RotatedAt: c.At.UTC()}}, nil
}

// RevokeRefreshTokens ends the family. Revoking a revoked family records nothing.
type RevokeRefreshTokens struct {
	Reason string
	At     time.Time
}

func (c RevokeRefreshTokens) decide(g Grant) ([]domain.Event, error) {
	if err := exists(g, "revoke refresh tokens", c.At); err != nil {
		return nil, err
	}
	if err := checkReason(c.Reason); err != nil {
		return nil, err
	}
	if g.RefreshRevoked {
		return nil, nil
	}
	return []domain.Event{RefreshTokensRevoked{RequestID: g.RequestID, Reason: c.Reason, RevokedAt: c.At.UTC()}}, nil
}

// RevokeAccessTokens stops the grant's access tokens. Revoking twice records nothing.
type RevokeAccessTokens struct {
	Reason string
	At     time.Time
}

func (c RevokeAccessTokens) decide(g Grant) ([]domain.Event, error) {
	if err := exists(g, "revoke access tokens", c.At); err != nil {
		return nil, err
	}
	if err := checkReason(c.Reason); err != nil {
		return nil, err
	}
	if g.AccessRevoked {
		return nil, nil
	}
	return []domain.Event{AccessTokensRevoked{RequestID: g.RequestID, Reason: c.Reason, RevokedAt: c.At.UTC()}}, nil
}

// RevokeForUser is the portal's revocation of a client: the grant's refresh tokens and its code, if
// still outstanding, stop working. Access tokens are left to lapse at their expiry (spec "What the
// portal is for"). Only the grant's own user may revoke it; to anyone else it does not exist.
type RevokeForUser struct {
	UserID uuid.UUID
	At     time.Time
}

func (c RevokeForUser) decide(g Grant) ([]domain.Event, error) {
	if err := exists(g, "revoke client", c.At); err != nil {
		return nil, err
	}
	if g.UserID != c.UserID {
		return nil, domain.Errorf(domain.CodeNotFound, "revoke client: no such grant")
	}
	var out []domain.Event
	if !g.CodeExchanged && !g.CodeRevoked {
		out = append(out, CodeRevoked{RequestID: g.RequestID, Reason: ReasonUser, RevokedAt: c.At.UTC()})
	}
	if !g.RefreshRevoked {
		out = append(out, RefreshTokensRevoked{RequestID: g.RequestID, Reason: ReasonUser, RevokedAt: c.At.UTC()})
	}
	return out, nil
}

func exists(g Grant, what string, at time.Time) error {
	if at.IsZero() {
		return domain.Errorf(domain.CodeInvalid, "%s: the command carries no time", what)
	}
	if !g.Exists() {
		return domain.Errorf(domain.CodeNotFound, "%s: no such grant", what)
	}
	return nil
}

func checkReason(r string) error {
	switch r {
	case ReasonTokenRevocation, ReasonCodeReuse, ReasonRefreshTokenReuse, ReasonUser, ReasonAgentDeleted:
		return nil
	}
	return domain.Errorf(domain.CodeInvalid, "revoke: unknown reason %q", r)
}
