package oauthhttp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/ory/fosite"
	"github.com/ory/fosite/handler/oauth2"
	"github.com/ory/fosite/handler/pkce"
	fositestorage "github.com/ory/fosite/storage"

	"github.com/workbench/workbench/app/oauthclients"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/domain/oauthdom"
	"github.com/workbench/workbench/projections/oauthrm"
)

// storage is fosite's storage: it reads the oauth projection and turns fosite's writes into the
// domain's grant commands, which app/oauthclients records (and waits for the projection to apply, so a
// read right after a write, the token request right after the consent, sees it).
//
// It implements fosite's Transactional: inside a transaction, writes are collected and committed as
// one append per grant (oauthclients.CommitGrant), so a code exchange records the spent code with the
// tokens it issued, and a rotation the spent refresh token with its successor, atomically. Of two
// concurrent uses of one code or refresh token exactly one commits; the other is treated as a reuse.
type storage struct {
	clients  *oauthclients.Service
	reader   oauthrm.Reader
	audience []string // every audience a client may be granted: /mcp of the public URL and of its loopback aliases
	// issuerOf is the issuer of the access tokens of a grant for these audiences (Server.issuerOfAudience).
	issuerOf func(aud []string) string
	scopes   []string
	kid      string
	now      func() time.Time
	// catchUp is Options.CatchUp (nil: a miss is final).
	catchUp func(context.Context) error
}

// catchUpWait bounds how long a read that missed waits for the oauth read model to catch up.
const catchUpWait = 3 * time.Second

// caughtUp is called when a client, code or refresh token was not found: it may have been written a
// moment ago by another replica, whose read model is ahead of this one's. It waits, bounded, until this
// replica's oauth read model has applied everything committed so far, and says whether to read again.
func (s *storage) caughtUp(ctx context.Context) bool {
	if s.catchUp == nil {
		return false
	}
	cctx, cancel := context.WithTimeout(ctx, catchUpWait)
	defer cancel()
	return s.catchUp(cctx) == nil
}

var (
	_ fosite.Storage                = (*storage)(nil)
	_ oauth2.CoreStorage            = (*storage)(nil)
	_ oauth2.TokenRevocationStorage = (*storage)(nil)
	_ pkce.PKCERequestStorage       = (*storage)(nil)
	_ fositestorage.Transactional   = (*storage)(nil)
)

type ctxKey int

const (
	txKey ctxKey = iota
	reasonKey
	originKey
)

// reuse tells the revocation calls fosite makes why it makes them: the storage sees the reuse (a
// spent code or refresh token) before fosite asks it to revoke, and notes it here.
type reuse struct {
	mu     sync.Mutex
	reason string
}

func withReason(ctx context.Context, reason string) context.Context {
	return context.WithValue(ctx, reasonKey, &reuse{reason: reason})
}

func noteReason(ctx context.Context, reason string) {
	if r, ok := ctx.Value(reasonKey).(*reuse); ok {
		r.mu.Lock()
		r.reason = reason
		r.mu.Unlock()
	}
}

func reasonOf(ctx context.Context) string {
	if r, ok := ctx.Value(reasonKey).(*reuse); ok {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.reason != "" {
			return r.reason
		}
	}
	return oauthdom.ReasonTokenRevocation
}

// withOrigin records in ctx the request the writes of fosite's calls are made for.
func withOrigin(ctx context.Context, o oauthclients.Origin) context.Context {
	return context.WithValue(ctx, originKey, o)
}

func originOf(ctx context.Context) oauthclients.Origin {
	o, _ := ctx.Value(originKey).(oauthclients.Origin)
	return o
}

type pendingTx struct {
	mu      sync.Mutex
	streams []string
	cmds    map[string]oauthdom.Batch
}

func (t *pendingTx) add(requestID string, c oauthdom.GrantCommand) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.cmds[requestID]; !ok {
		t.streams = append(t.streams, requestID)
	}
	t.cmds[requestID] = append(t.cmds[requestID], c)
}

// BeginTX implements fositestorage.Transactional.
func (s *storage) BeginTX(ctx context.Context) (context.Context, error) {
	return context.WithValue(ctx, txKey, &pendingTx{cmds: map[string]oauthdom.Batch{}}), nil
}

// Commit implements fositestorage.Transactional: one append per grant touched. A commit that lost a race
// with another use of the same code or refresh token is a reuse, and oauthclients.CommitGrant revokes
// the grant's tokens (RFC 6749 section 4.1.2, RFC 9700 section 4.14.2).
func (s *storage) Commit(ctx context.Context) error {
	tx, ok := ctx.Value(txKey).(*pendingTx)
	if !ok {
		return errors.New("oauth storage: commit without a transaction")
	}
	tx.mu.Lock()
	streams, cmds := tx.streams, tx.cmds
	tx.streams, tx.cmds = nil, map[string]oauthdom.Batch{}
	tx.mu.Unlock()
	for _, id := range streams {
		if err := s.clients.CommitGrant(ctx, id, cmds[id], originOf(ctx)); err != nil {
			return writeError(ctx, err)
		}
	}
	return nil
}

// Rollback implements fositestorage.Transactional: nothing was written yet.
func (s *storage) Rollback(ctx context.Context) error {
	if tx, ok := ctx.Value(txKey).(*pendingTx); ok {
		tx.mu.Lock()
		tx.streams, tx.cmds = nil, map[string]oauthdom.Batch{}
		tx.mu.Unlock()
	}
	return nil
}

// grant records cmd now, or at Commit inside a transaction.
func (s *storage) grant(ctx context.Context, requestID string, cmd oauthdom.GrantCommand) error {
	if tx, ok := ctx.Value(txKey).(*pendingTx); ok {
		tx.add(requestID, cmd)
		return nil
	}
	return writeError(ctx, s.clients.RecordGrant(ctx, requestID, cmd, originOf(ctx)))
}

// writeError is what fosite is told of a failed write: a failure to reach the database is noted as
// a storage failure (unavailable.go), a refusal of the domain becomes the error fosite looks for.
func writeError(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case !oauthclients.IsRefusal(err):
		return storageFailure(ctx, err)
	}
	return fositeError(err)
}

// fositeError maps the deciders' refusals to the errors fosite's handlers look for.
func fositeError(err error) error {
	switch {
	case errors.Is(err, oauthdom.ErrCodeUsed):
		return fmt.Errorf("%w: %w", fosite.ErrInvalidatedAuthorizeCode, err)
	case errors.Is(err, oauthdom.ErrRefreshTokenSpent), errors.Is(err, oauthdom.ErrGrantRevoked):
		return fmt.Errorf("%w: %w", fosite.ErrInactiveToken, err)
	case domain.ErrorCode(err) == domain.CodeNotFound:
		return fmt.Errorf("%w: %w", fosite.ErrNotFound, err)
	}
	return err
}

// GetClient implements fosite.ClientManager. Every client is public and may only ask for the /mcp
// audience.
func (s *storage) GetClient(ctx context.Context, id string) (fosite.Client, error) {
	c, err := s.reader.Client(ctx, id)
	if errors.Is(err, oauthrm.ErrNotFound) && s.caughtUp(ctx) {
		c, err = s.reader.Client(ctx, id)
	}
	if errors.Is(err, oauthrm.ErrNotFound) {
		return nil, fosite.ErrNotFound.WithHint("No client is registered under this client_id; register with the registration endpoint first.")
	}
	if err != nil {
		return nil, storageFailure(ctx, err)
	}
	scopes := c.Scopes
	if len(scopes) == 0 {
		scopes = s.scopes
	}
	return &fosite.DefaultClient{
		ID: c.ClientID, RedirectURIs: c.RedirectURIs, GrantTypes: c.GrantTypes, ResponseTypes: c.ResponseTypes,
		Scopes: scopes, Audience: s.audience, Public: true,
	}, nil
}

// ClientAssertionJWTValid implements fosite.ClientManager. No client authenticates with a JWT
// assertion (all are public), so no assertion id is ever known.
func (s *storage) ClientAssertionJWTValid(context.Context, string) error { return nil }

// SetClientAssertionJWT implements fosite.ClientManager; see ClientAssertionJWTValid.
func (s *storage) SetClientAssertionJWT(context.Context, string, time.Time) error { return nil }

func (s *storage) request(ctx context.Context, g oauthrm.Grant, sess *session) (*fosite.Request, error) {
	client, err := s.GetClient(ctx, g.ClientID)
	if err != nil {
		return nil, err
	}
	r := fosite.NewRequest()
	r.ID = g.RequestID
	r.RequestedAt = g.RequestedAt
	r.Client = client
	r.RequestedScope = append(fosite.Arguments{}, g.Scopes...)
	r.GrantedScope = append(fosite.Arguments{}, g.Scopes...)
	r.RequestedAudience = append(fosite.Arguments{}, g.Audience...)
	r.GrantedAudience = append(fosite.Arguments{}, g.Audience...)
	r.Form = url.Values{"redirect_uri": {g.RedirectURI}, "code_challenge": {g.CodeChallenge}, "code_challenge_method": {g.CodeChallengeMethod}}
	r.Session = sess
	return r, nil
}

func (s *storage) sessionOf(g oauthrm.Grant) *session {
	sess := &session{UserID: g.UserID.String(), ClientID: g.ClientID, GrantID: g.RequestID, KeyID: s.kid, ExpiresAt: map[fosite.TokenType]time.Time{}}
	if s.issuerOf != nil {
		sess.Issuer = s.issuerOf(g.Audience)
	}
	if g.AgentID != identitydom.DefaultAgentID(g.UserID) {
		sess.AgentID = g.AgentID.String()
	}
	return sess
}

// CreateAuthorizeCodeSession implements oauth2.AuthorizeCodeStorage: the consent becomes a grant.
func (s *storage) CreateAuthorizeCodeSession(ctx context.Context, signature string, r fosite.Requester) error {
	sess, ok := r.GetSession().(*session)
	if !ok {
		return fmt.Errorf("oauth storage: unexpected session type %T", r.GetSession())
	}
	form := r.GetRequestForm()
	return s.grant(ctx, r.GetID(), oauthdom.IssueCode{
		RequestID: r.GetID(), ClientID: r.GetClient().GetID(), UserID: parseUser(sess.UserID), AgentID: parseUser(sess.AgentID), CodeSignature: signature,
		Scopes: r.GetGrantedScopes(), Audience: r.GetGrantedAudience(), RedirectURI: form.Get("redirect_uri"),
		CodeChallenge: form.Get("code_challenge"), CodeChallengeMethod: form.Get("code_challenge_method"),
		RequestedAt: r.GetRequestedAt(), ExpiresAt: sess.GetExpiresAt(fosite.AuthorizeCode), At: s.now(),
	})
}

// GetAuthorizeCodeSession implements oauth2.AuthorizeCodeStorage. A spent code returns its request
// with fosite.ErrInvalidatedAuthorizeCode, so fosite revokes what the code issued (RFC 6749 section
// 4.1.2); a code revoked before use is not found.
func (s *storage) GetAuthorizeCodeSession(ctx context.Context, signature string, _ fosite.Session) (fosite.Requester, error) {
	g, err := s.reader.GrantByCode(ctx, signature)
	if errors.Is(err, oauthrm.ErrNotFound) && s.caughtUp(ctx) {
		g, err = s.reader.GrantByCode(ctx, signature)
	}
	if errors.Is(err, oauthrm.ErrNotFound) {
		return nil, fosite.ErrNotFound
	}
	if err != nil {
		return nil, storageFailure(ctx, err)
	}
	sess := s.sessionOf(g)
	sess.SetExpiresAt(fosite.AuthorizeCode, g.CodeExpiresAt)
	req, err := s.request(ctx, g, sess)
	if err != nil {
		return nil, err
	}
	switch {
	case g.CodeExchanged:
		noteReason(ctx, oauthdom.ReasonCodeReuse)
		return req, fosite.ErrInvalidatedAuthorizeCode
	case g.CodeRevoked:
		// Revoked before use (the portal): nothing was issued, and presenting it is no sign of theft.
		return nil, fosite.ErrNotFound.WithHint("The authorization code was revoked.")
	}
	return req, nil
}

// InvalidateAuthorizeCodeSession implements oauth2.AuthorizeCodeStorage.
func (s *storage) InvalidateAuthorizeCodeSession(ctx context.Context, signature string) error {
	g, err := s.reader.GrantByCode(ctx, signature)
	if errors.Is(err, oauthrm.ErrNotFound) {
		return fosite.ErrNotFound
	}
	if err != nil {
		return storageFailure(ctx, err)
	}
	return s.grant(ctx, g.RequestID, oauthdom.ExchangeCode{CodeSignature: signature, At: s.now()})
}

// CreatePKCERequestSession implements pkce.PKCERequestStorage. The challenge was recorded with the
// code (CodeIssued), so there is nothing more to write; the code must exist.
func (s *storage) CreatePKCERequestSession(ctx context.Context, signature string, _ fosite.Requester) error {
	if tx, ok := ctx.Value(txKey).(*pendingTx); ok && tx != nil {
		return nil
	}
	_, err := s.reader.GrantByCode(ctx, signature)
	if errors.Is(err, oauthrm.ErrNotFound) {
		return fosite.ErrNotFound
	}
	if err != nil {
		return storageFailure(ctx, err)
	}
	return nil
}

// GetPKCERequestSession implements pkce.PKCERequestStorage: the code's request carries the challenge.
func (s *storage) GetPKCERequestSession(ctx context.Context, signature string, _ fosite.Session) (fosite.Requester, error) {
	g, err := s.reader.GrantByCode(ctx, signature)
	if errors.Is(err, oauthrm.ErrNotFound) {
		return nil, fosite.ErrNotFound
	}
	if err != nil {
		return nil, storageFailure(ctx, err)
	}
	return s.request(ctx, g, s.sessionOf(g))
}

// DeletePKCERequestSession implements pkce.PKCERequestStorage. The challenge lives and dies with the
// code, which is single-use and short-lived; nothing is recorded.
func (s *storage) DeletePKCERequestSession(context.Context, string) error { return nil }

// CreateAccessTokenSession implements oauth2.AccessTokenStorage: the JWT's signature is recorded so
// that RFC 7009 revocation can find its grant.
func (s *storage) CreateAccessTokenSession(ctx context.Context, signature string, r fosite.Requester) error {
	return s.grant(ctx, r.GetID(), oauthdom.IssueAccessToken{Signature: signature, ExpiresAt: r.GetSession().GetExpiresAt(fosite.AccessToken), At: s.now()})
}

// GetAccessTokenSession implements oauth2.AccessTokenStorage.
func (s *storage) GetAccessTokenSession(ctx context.Context, signature string, _ fosite.Session) (fosite.Requester, error) {
	g, exp, err := s.reader.GrantByAccess(ctx, signature)
	if errors.Is(err, oauthrm.ErrNotFound) {
		return nil, fosite.ErrNotFound
	}
	if err != nil {
		return nil, storageFailure(ctx, err)
	}
	sess := s.sessionOf(g)
	sess.SetExpiresAt(fosite.AccessToken, exp)
	req, err := s.request(ctx, g, sess)
	if err != nil {
		return nil, err
	}
	if g.AccessRevoked {
		return req, fosite.ErrInactiveToken
	}
	return req, nil
}

// DeleteAccessTokenSession implements oauth2.AccessTokenStorage. Access tokens are self-contained; the
// handlers composed here never delete one, and a grant's access is revoked with RevokeAccessToken.
func (s *storage) DeleteAccessTokenSession(context.Context, string) error { return nil }

// CreateRefreshTokenSession implements oauth2.RefreshTokenStorage.
func (s *storage) CreateRefreshTokenSession(ctx context.Context, signature, accessSignature string, r fosite.Requester) error {
	return s.grant(ctx, r.GetID(), oauthdom.IssueRefreshToken{Signature: signature, AccessSignature: accessSignature,
		ExpiresAt: r.GetSession().GetExpiresAt(fosite.RefreshToken), At: s.now()})
}

// GetRefreshTokenSession implements oauth2.RefreshTokenStorage. A spent (rotated) refresh token
// returns its request with fosite.ErrInactiveToken, so fosite revokes the family and its access tokens
// (RFC 9700 section 4.14.2); one of a revoked family is not found.
func (s *storage) GetRefreshTokenSession(ctx context.Context, signature string, _ fosite.Session) (fosite.Requester, error) {
	g, t, err := s.reader.GrantByRefresh(ctx, signature)
	if errors.Is(err, oauthrm.ErrNotFound) && s.caughtUp(ctx) {
		g, t, err = s.reader.GrantByRefresh(ctx, signature)
	}
	if errors.Is(err, oauthrm.ErrNotFound) {
		return nil, fosite.ErrNotFound
	}
	if err != nil {
		return nil, storageFailure(ctx, err)
	}
	sess := s.sessionOf(g)
	sess.SetExpiresAt(fosite.RefreshToken, t.ExpiresAt)
	req, err := s.request(ctx, g, sess)
	if err != nil {
		return nil, err
	}
	switch {
	case t.Rotated:
		noteReason(ctx, oauthdom.ReasonRefreshTokenReuse)
		return req, fosite.ErrInactiveToken
	case g.RefreshRevoked:
		// The family was revoked (RFC 7009, the portal, an earlier reuse): the token is simply no longer
		// valid. Only a spent token is evidence of theft that must also end the grant's access tokens.
		return nil, fosite.ErrNotFound.WithHint("The refresh token was revoked.")
	}
	return req, nil
}

// DeleteRefreshTokenSession implements oauth2.RefreshTokenStorage. fosite calls it on a spent token
// when it detects reuse, right before revoking the family; a spent token needs nothing more. A live
// one is never deleted alone: its family is revoked.
func (s *storage) DeleteRefreshTokenSession(ctx context.Context, signature string) error {
	g, t, err := s.reader.GrantByRefresh(ctx, signature)
	if errors.Is(err, oauthrm.ErrNotFound) {
		return nil
	}
	if err != nil {
		return storageFailure(ctx, err)
	}
	if t.Rotated || g.RefreshRevoked {
		return nil
	}
	return s.grant(ctx, g.RequestID, oauthdom.RevokeRefreshTokens{Reason: reasonOf(ctx), At: s.now()})
}

// RotateRefreshToken implements oauth2.RefreshTokenStorage: the presented token is spent; its
// successor is created in the same transaction.
func (s *storage) RotateRefreshToken(ctx context.Context, requestID, signature string) error {
	return s.grant(ctx, requestID, oauthdom.RotateRefreshToken{Signature: signature, At: s.now()})
}

// RevokeRefreshToken implements oauth2.TokenRevocationStorage: the whole family.
func (s *storage) RevokeRefreshToken(ctx context.Context, requestID string) error {
	return s.grant(ctx, requestID, oauthdom.RevokeRefreshTokens{Reason: reasonOf(ctx), At: s.now()})
}

// RevokeAccessToken implements oauth2.TokenRevocationStorage: every access token of the grant stops
// authenticating at /mcp (handlers/authn checks the grant).
func (s *storage) RevokeAccessToken(ctx context.Context, requestID string) error {
	return s.grant(ctx, requestID, oauthdom.RevokeAccessTokens{Reason: reasonOf(ctx), At: s.now()})
}
