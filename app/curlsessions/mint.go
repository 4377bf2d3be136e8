package curlsessions

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/domain/curlsession"
)

// MintRequest is one curl_session call.
type MintRequest struct {
	UserID uuid.UUID
	// Via and ClientID say how the agent authenticated (mcp.Principal's Method and ClientID).
	Via, ClientID string
	Integrations  []string
	// Account is the label of the account the session uses for every integration it names; empty
	// for the user's default account of each.
	Account string
}

// Session is a minted token and where to use it.
type Session struct {
	SessionID uuid.UUID
	Token     string
	ExpiresAt time.Time
	// Integrations are in the order asked, without duplicates.
	Integrations []SessionIntegration
}

// SessionIntegration is one integration a token reaches.
type SessionIntegration struct {
	Name string `json:"name"`
	// BaseURL is <PublicURL>/c/<name>/: a request to BaseURL + path goes to Upstream + path.
	BaseURL  string `json:"base_url"`
	Upstream string `json:"upstream"`
}

// Problem is why one named integration cannot be in a session.
type Problem struct {
	Integration string `json:"integration"`
	// Reason is UNKNOWN_INTEGRATION, PROXY_DISABLED, NOT_CONNECTED, or TOOLS_OFF (the integration has
	// a tool switched Off for the agent: curl_session refuses it before minting).
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// RefusedError is a curl_session call refused as a whole: nothing was minted. Its message names
// every offending integration and why; errors.As finds a *domain.Error (CodeInvalid) in it.
type RefusedError struct {
	Problems []Problem
}

func (e *RefusedError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, pr := range e.Problems {
		parts[i] = pr.Message
	}
	return "No curl session was minted: " + strings.Join(parts, " ")
}

// Unwrap makes the refusal an application error the caller may show.
func (e *RefusedError) Unwrap() error {
	return &domain.Error{Code: domain.CodeInvalid, Message: e.Error()}
}

// Mint validates every named integration and, only if all pass, issues a token for them and
// records the mint (all-or-nothing, spec: "Curl session"). An integration passes when it is in the
// catalog, its manifest has a proxy block, and the user has a usable credential for it (auth mode
// none always does). The record is appended before the token is returned: no token leaves without
// its audit event.
func (s *Service) Mint(ctx context.Context, req MintRequest) (Session, error) {
	if req.UserID == uuid.Nil {
		return Session{}, domain.Errorf(domain.CodeUnauthenticated, "curl_session needs an authenticated user")
	}
	var names []string
	seen := map[string]bool{}
	for _, n := range req.Integrations {
		n = strings.TrimSpace(n)
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return Session{}, domain.Errorf(domain.CodeInvalid, "name at least one integration")
	}
	if err := connection.CheckAccountLabel(req.Account); err != nil {
		return Session{}, err
	}
	var problems []Problem
	out := make([]SessionIntegration, 0, len(names))
	for _, name := range names {
		in, ok := s.catalog.Integration(name)
		if !ok {
			problems = append(problems, Problem{name, "UNKNOWN_INTEGRATION", fmt.Sprintf("%q is not an integration of this server (list_integrations names them).", name)})
			continue
		}
		upstream := in.ProxyBaseURL()
		if upstream == "" {
			problems = append(problems, Problem{name, "PROXY_DISABLED", fmt.Sprintf("%s has no proxy block in its manifest, so curl_session cannot reach it; use its tools through execute_tools.", name)})
			continue
		}
		if _, err := s.creds.Access(ctx, req.UserID, in, req.Account); err != nil {
			if domain.ErrorCode(err) != domain.CodeNotConnected {
				return Session{}, fmt.Errorf("curl_session: credential of %s: %w", name, err)
			}
			msg := fmt.Sprintf("%s is not connected for this user: call connect({\"integration\":%q}), give the user the URL, then wait_for_connection.", name, name)
			if req.Account != "" {
				msg = domain.ErrorMessage(err)
			}
			problems = append(problems, Problem{name, "NOT_CONNECTED", msg})
			continue
		}
		out = append(out, SessionIntegration{Name: name, BaseURL: s.publicURL + "/c/" + name + "/", Upstream: strings.TrimRight(upstream, "/") + "/"})
	}
	if len(problems) > 0 {
		return Session{}, &RefusedError{Problems: problems}
	}

	now := s.now().UTC()
	sess := Session{SessionID: uuid.New(), ExpiresAt: now.Add(s.ttl).Truncate(time.Second), Integrations: out}
	tok, err := s.tokens.Issue(Grant{SessionID: sess.SessionID, UserID: req.UserID, Integrations: names, Account: req.Account, ExpiresAt: sess.ExpiresAt})
	if err != nil {
		return Session{}, fmt.Errorf("curl_session: sign: %w", err)
	}
	ev := curlsession.SessionMinted{
		SessionID: sess.SessionID, UserID: req.UserID, Via: req.Via, ClientID: req.ClientID,
		Integrations: names, Account: req.Account, ExpiresAt: sess.ExpiresAt, At: now,
	}
	if err := s.appendEvent(ctx, curlsession.SessionStreamName(sess.SessionID), ev, req.UserID, req.ClientID, sess.SessionID, now); err != nil {
		return Session{}, fmt.Errorf("curl_session: record the mint: %w", err)
	}
	sess.Token = tok
	return sess, nil
}
