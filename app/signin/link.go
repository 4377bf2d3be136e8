package signin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/signindom"
	"github.com/workbench/workbench/eventstore"
)

// LinkPath is the path prefix of one-time sign-in links: <SERVER_PUBLIC_URL>/auth/link/<token>.
const LinkPath = "/auth/link/"

func linkHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// IssueStartupLink issues the one-time sign-in link `serve` prints at start when no SSO provider is
// configured. It signs in the user of WORKBENCH_ADMIN_EMAIL (Settings.AdminEmail, default
// DefaultAdminEmail), created when missing; it works once, on any replica, for signin.LinkTTL (15
// minutes); every start issues a new one (an earlier link stays good until it is used or expires).
// The URL is a secret: print it to the operator's terminal, never to a log shipped elsewhere.
func (s *Service) IssueStartupLink(ctx context.Context) (url string, err error) {
	return s.IssueLink(ctx, s.cfg.AdminEmail, "startup")
}

// IssueLink issues a one-time sign-in link for the user of email (created when missing); purpose says
// why, in the log. Only an operator may ask for one: whoever holds the link signs in as that user.
func (s *Service) IssueLink(ctx context.Context, email, purpose string) (string, error) {
	now := s.clock()
	u, _, pos, err := s.cfg.Users.EnsureUser(ctx, email, "", md(ctx, "system", now))
	if err != nil {
		return "", fmt.Errorf("sign-in link: ensure user %s: %w", email, err)
	}
	if err := s.signedIn(ctx, u, md(ctx, "system", now)); err != nil {
		return "", fmt.Errorf("sign-in link: %w", err)
	}
	token, err := randomToken()
	if err != nil {
		return "", err
	}
	h := linkHash(token)
	var sealed domain.Sealed
	if s.cfg.Vault != nil {
		if sealed, err = s.cfg.Vault.Seal(ctx, u.ID.String(), signindom.EmailPurpose, []byte(u.Email)); err != nil {
			return "", fmt.Errorf("sign-in link: seal the address: %w", err)
		}
	}
	res, err := eventstore.Execute(ctx, s.cfg.Store, signindom.StreamName(h), Links, signindom.Command(signindom.IssueLink{
		LinkHash: h, UserID: u.ID, Email: u.Email, SealedEmail: sealed, Purpose: purpose, At: now, ExpiresAt: now.Add(signindom.LinkTTL),
	}), md(ctx, "system", now))
	if err != nil {
		return "", fmt.Errorf("sign-in link: %w", err)
	}
	if res.Position.Less(pos) {
		res.Position = pos
	}
	// The user must be in the read models before the link can be used here.
	if err := s.cfg.Projections.WaitFor(ctx, res.Position); err != nil {
		return "", fmt.Errorf("sign-in link: wait for the read models: %w", err)
	}
	return s.publicURL + LinkPath + token, nil
}

// RedeemLink uses a one-time sign-in link and returns the user it signs in, whose personal
// organisation it makes when missing (Organizations.SignedIn). A link works once across
// every replica: its redemption is appended with the stream's expected version, so a concurrent
// second redemption loses the race, re-decides and is refused. An unknown, used or expired link is a
// *domain.Error caused by signin.ErrUnknownLink, ErrLinkUsed or ErrLinkExpired.
func (s *Service) RedeemLink(ctx context.Context, token string) (uuid.UUID, error) {
	if !wellFormedToken(token) {
		return uuid.Nil, &domain.Error{Code: domain.CodeNotFound, Message: "this sign-in link is not valid", Err: signindom.ErrUnknownLink}
	}
	now := s.clock()
	stream := signindom.StreamName(linkHash(token))
	// Redeeming is where a link's sign-in completes, whoever issued the link (the server's startup
	// link, `workbench signin-link`, which runs without the organisations service, or a server of an
	// earlier version): the user's personal organisation is made here, before the link is spent, so
	// that a failure leaves the link usable. A link that cannot be redeemed is refused below.
	if s.cfg.Organizations != nil {
		l, _, err := eventstore.LoadState(ctx, s.cfg.Store, stream, Links)
		if err != nil {
			return uuid.Nil, err
		}
		if l.Issued() && !l.Redeemed && now.Before(l.ExpiresAt) {
			u, err := s.cfg.Users.User(ctx, l.UserID)
			if err != nil {
				return uuid.Nil, fmt.Errorf("sign-in link: the user %s: %w", l.UserID, err)
			}
			if err := s.signedIn(ctx, u, md(ctx, "system", now)); err != nil {
				return uuid.Nil, fmt.Errorf("sign-in link: %w", err)
			}
		}
	}
	res, err := eventstore.Execute(ctx, s.cfg.Store, stream, Links, signindom.Command(signindom.RedeemLink{At: now}), md(ctx, "system", now))
	if err != nil {
		return uuid.Nil, err
	}
	s.log.InfoContext(ctx, "signed in with a one-time link", "user", res.State.UserID)
	return res.State.UserID, nil
}

// wellFormedToken accepts what randomToken makes: 43 base64url characters.
func wellFormedToken(t string) bool {
	if len(t) != 43 {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
