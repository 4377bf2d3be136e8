package oauthclients

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/workbench/workbench/domain/oauthdom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/oauthrm"
)

// projectionWait bounds how long a grant write waits for the oauth read model to apply it.
const projectionWait = 5 * time.Second

// RecordGrant runs cmd on the grant's stream (GrantStreamName(requestID)) and waits, up to 5 s, until
// the oauth read model has applied what it appended. Once the append is done the write is done: a
// failed or slow wait is logged, not returned (see the package documentation).
func (s *Service) RecordGrant(ctx context.Context, requestID string, cmd oauthdom.GrantCommand, o Origin) error {
	res, err := eventstore.Execute(ctx, s.store, oauthdom.GrantStreamName(requestID), grantAgg, cmd, o.metadata())
	if err != nil {
		return err
	}
	if len(res.Events) > 0 {
		wctx, cancel := context.WithTimeout(ctx, projectionWait)
		err := s.wait.WaitForProjection(wctx, oauthrm.Name, res.Position)
		cancel()
		if err != nil {
			// The append is done: the code is spent, or the refresh token rotated. Reporting a failure
			// now would have the client retry with what is spent, which reads as theft and revokes the
			// grant (RFC 9700 section 4.14.2). So the write succeeds; the read model catches up when the
			// database answers again.
			s.log.WarnContext(ctx, "oauth storage: recorded, but the read model has not applied it yet", "stream", oauthdom.GrantStreamName(requestID), "err", err)
		}
	}
	return nil
}

// CommitGrant records the commands one fosite transaction collected for a grant as one append. When
// the append is refused because the code or refresh token it spends was spent in the meantime, the
// commit lost a race with another use of the same credential: a reuse, so the grant's refresh tokens
// and access tokens are revoked before the refusal is returned (RFC 6749 section 4.1.2, RFC 9700
// section 4.14.2). If that revocation cannot be recorded for want of the database, its failure is
// returned instead, so the caller answers 503.
func (s *Service) CommitGrant(ctx context.Context, requestID string, batch oauthdom.Batch, o Origin) error {
	err := s.RecordGrant(ctx, requestID, batch, o)
	if err == nil || !IsRefusal(err) {
		return err
	}
	var reason string
	switch {
	case errors.Is(err, oauthdom.ErrRefreshTokenSpent), errors.Is(err, oauthdom.ErrGrantRevoked):
		reason = oauthdom.ReasonRefreshTokenReuse
	case errors.Is(err, oauthdom.ErrCodeUsed):
		reason = oauthdom.ReasonCodeReuse
	default:
		return err
	}
	if rerr := s.RevokeFamily(ctx, requestID, reason, o); rerr != nil && !IsRefusal(rerr) {
		return fmt.Errorf("revoke the grant's tokens after a reuse (%v): %w", err, rerr)
	}
	return err
}

// RevokeFamily ends a grant's refresh-token family and its access tokens at once, for reason (one of
// domain/oauthdom's Reason* values), in one append.
func (s *Service) RevokeFamily(ctx context.Context, requestID, reason string, o Origin) error {
	at := s.now()
	return s.RecordGrant(ctx, requestID, oauthdom.Batch{oauthdom.RevokeRefreshTokens{Reason: reason, At: at}, oauthdom.RevokeAccessTokens{Reason: reason, At: at}}, o)
}
