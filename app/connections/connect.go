package connections

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/plugins"
)

// ConnectResult is what connect() answers the agent.
type ConnectResult struct {
	// ConnectionID is the attempt id the agent passes to wait_for_connection.
	ConnectionID uuid.UUID
	// Type is the integration's auth mode: "oauth2" or "cookie".
	Type string
	// URL is the workbench claim link <SERVER_PUBLIC_URL>/connect/<token>, never a provider URL.
	URL string
}

// Connect starts a connect attempt for an oauth2 or cookie integration and mints its claim link. The
// link expires with the attempt, after LinkTTL. While an attempt is pending and its link valid, a
// second Connect (another agent session of the same user) answers that attempt, with the same id and
// link, so both waiters complete when the user finishes the one flow; once it has expired, a new one
// starts.
//
// API-key integrations are connected from the portal only; none integrations are always connected;
// both are refused with CodeInvalid. An unknown integration is CodeNotFound naming it.
//
// account is the label of the account to connect (see Accounts): a new label adds an account, an
// existing one reconnects it, and an empty one reconnects the default account (or creates the account
// labelled connection.DefaultAccount when the user holds none).
func (s *Service) Connect(ctx context.Context, user uuid.UUID, integration, account string) (ConnectResult, error) {
	return s.ConnectFrom(ctx, user, integration, account, "")
}

// ConnectFrom is Connect asked for by an agent through the MCP client mcpClient (the OAuth client id
// or API key id it authenticated with): the connection.started event's metadata names the client
// (eventstore.Metadata.MCPClient), which is what the audit's asof ("created_via") and blast radius
// ("connections started") read. An empty mcpClient is Connect.
func (s *Service) ConnectFrom(ctx context.Context, user uuid.UUID, integration, account, mcpClient string) (ConnectResult, error) {
	in, err := s.integration(integration)
	if err != nil {
		return ConnectResult{}, err
	}
	if err := connection.CheckAccountLabel(account); err != nil {
		return ConnectResult{}, err
	}
	var mode connection.AuthMode
	switch in.Auth.Mode {
	case plugins.AuthNone:
		return ConnectResult{}, domain.Errorf(domain.CodeInvalid, "%s needs no connection: it is always connected", in.Name)
	case plugins.AuthAPIKey:
		return ConnectResult{}, domain.Errorf(domain.CodeInvalid, "%s uses an API key, and API-key integrations are connected from the workbench portal, where the user enters the key; there is no agent-side path", in.Name)
	case plugins.AuthOAuth2:
		if _, _, err := s.clientCredentials(ctx, in.Name); err != nil {
			return ConnectResult{}, err
		}
		mode = connection.AuthOAuth2
	case plugins.AuthCookie:
		mode = connection.AuthCookie
	default:
		return ConnectResult{}, domain.Errorf(domain.CodeInternal, "%s has an unknown auth mode", in.Name)
	}
	if account, err = s.accountOrDefault(ctx, user, in.Name, account); err != nil {
		return ConnectResult{}, err
	}
	now := s.clock()
	attempt := uuid.New()
	expires := now.Add(s.linkTTL)
	md := s.md(user)
	md.MCPClient = mcpClient
	res, err := s.executeWith(ctx, user, in.Name, account, connection.Start{
		AttemptID: attempt, UserID: user, Integration: in.Name, Account: account, AuthMode: mode, At: now, ExpiresAt: expires, JoinPending: true,
	}, md)
	if err != nil {
		return ConnectResult{}, fmt.Errorf("connect %s: %w", in.Name, err)
	}
	if len(res.Events) == 0 {
		// Joined the pending attempt: its link is minted from the same claim and expiry, so it is the
		// same link.
		attempt, expires = res.State.Attempt.ID, res.State.Attempt.ExpiresAt
	}
	token, err := s.mintLink(claim{Attempt: attempt, User: user, Integration: in.Name, Account: linkAccount(account)}, expires)
	if err != nil {
		return ConnectResult{}, fmt.Errorf("connect %s: mint link: %w", in.Name, err)
	}
	return ConnectResult{ConnectionID: attempt, Type: string(mode), URL: s.publicURL + "/connect/" + token}, nil
}

// Redeem errors: the HTTP layer answers them with their own codes (errors.Is).
var (
	// ErrLinkInvalid: a forged, truncated or unknown claim link (400 INVALID_LINK).
	ErrLinkInvalid = errLinkInvalid
	// ErrLinkExpired: the link's attempt has expired, was superseded or has ended (410 LINK_EXPIRED).
	ErrLinkExpired = errLinkExpired
	// ErrAccountMismatch: the signed-in user is not the user the link was minted for (403
	// ACCOUNT_MISMATCH).
	ErrAccountMismatch = errors.New("the connect link was made for another workbench account")
)

// RedeemResult is what the portal does next with a redeemed link.
type RedeemResult struct {
	Type         string // "oauth2" or "cookie"
	URL          string // oauth2: the provider's consent URL
	ConnectionID uuid.UUID
	Integration  string
	// Account is the label of the account the link connects (connection.DefaultAccount when it
	// names none); an API-key or cookie connect that goes on in the portal stores under it.
	Account string
}

// Redeem turns a claim link into the provider consent URL, for the signed-in portal user sessionUser.
// Only after the link is proven genuine, unexpired and minted for this very user is the PKCE verifier
// made (RFC 7636 section 4.1, S256) and recorded, sealed, in the log (connection.StartHandshake),
// where the callback finds it on any replica.
func (s *Service) Redeem(ctx context.Context, sessionUser uuid.UUID, token string) (RedeemResult, error) {
	now := s.clock()
	c, err := s.readLink(token)
	if errors.Is(err, errLinkInvalid) {
		return RedeemResult{}, &domain.Error{Code: domain.CodeInvalid, Message: "this connect link is not valid; ask the agent for a new one", Err: ErrLinkInvalid}
	}
	if c.User != sessionUser {
		return RedeemResult{}, &domain.Error{Code: domain.CodeForbidden, Message: "this connect link was made for another workbench account; sign in as that account, or ask the agent for a link of your own", Err: ErrAccountMismatch}
	}
	if err != nil {
		return RedeemResult{}, &domain.Error{Code: domain.CodeConflict, Message: "this connect link has expired; ask the agent to call connect again", Err: ErrLinkExpired}
	}
	in, err := s.integration(c.Integration)
	if err != nil {
		return RedeemResult{}, err
	}
	st, _, err := s.loadConnection(ctx, c.User, c.Integration, c.Account)
	if err != nil {
		return RedeemResult{}, err
	}
	a := st.Attempt
	switch {
	case a.ID != c.Attempt:
		return RedeemResult{}, &domain.Error{Code: domain.CodeConflict, Message: "a newer connect link replaced this one; use the newest link", Err: ErrLinkExpired}
	case a.Outcome == connection.AttemptConnected:
		return RedeemResult{}, &domain.Error{Code: domain.CodeConflict, Message: fmt.Sprintf("this link was already used: %s is connected", in.Name), Err: ErrLinkExpired}
	case !a.Pending() || a.ExpiredBy(now):
		return RedeemResult{}, &domain.Error{Code: domain.CodeConflict, Message: "this connect link has expired; ask the agent to call connect again", Err: ErrLinkExpired}
	}
	res := RedeemResult{Type: string(a.AuthMode), ConnectionID: a.ID, Integration: in.Name, Account: connection.NormalAccount(c.Account)}
	if a.AuthMode != connection.AuthOAuth2 {
		// An API-key or cookie connect goes on in the portal (workbench-how-it-works.md): a cookie
		// link opens the live browser view, where the user signs in and captures (ConnectCookies).
		return res, nil
	}
	if in.Auth.OAuth2 == nil {
		return RedeemResult{}, domain.Errorf(domain.CodeInternal, "%s no longer declares OAuth endpoints", in.Name)
	}
	res.URL, err = s.startHandshake(ctx, in, c.User, c.Account, a, now)
	if err != nil {
		return RedeemResult{}, err
	}
	return res, nil
}
