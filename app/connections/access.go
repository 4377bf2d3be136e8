package connections

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/projections/connectionsrm"
)

// Access is what a tool call of one integration needs from the user's connection.
type Access struct {
	// Injector adds the credential to every outbound request; nil for auth mode none.
	Injector plugins.CredentialInjector
	// GetToken returns the current access token, refreshing it lazily; nil unless oauth2.
	GetToken func(ctx context.Context) (string, error)
	// Account is the label of the account whose credential is used ("" for auth mode none).
	Account string
	// ConnectionVersion is the version of the connection stream whose credential is used (0 for none).
	ConnectionVersion int64
	// Credential holds the values stored after consent (auth.oauth2.post_consent: Atlassian's
	// cloud_id) that fill {credential.<key>} placeholders; pass it as plugins.ContextOptions.Credential
	// and to Integration.ResolveProxyBaseURL. Nil when the manifest declares none.
	Credential map[string]string

	// held records the credential's secret values (see Redactor); nil for auth mode none.
	held *held
}

// Access resolves the user's credential for a tool call of in, from the account labelled account
// (empty: the user's default account of in). An integration with auth mode none needs nothing.
// Without a usable credential (never connected, disconnected, needing re-authorization, a cookie
// bundle whose cookies have all expired, or no account under that label) it is a CodeNotConnected
// error whose message names what to do.
func (s *Service) Access(ctx context.Context, user uuid.UUID, in *plugins.Integration, account string) (Access, error) {
	if in.Auth.Mode == plugins.AuthNone {
		return Access{}, nil
	}
	st, version, err := s.callAccount(ctx, user, in, account)
	if err != nil {
		return Access{}, err
	}
	acc, err := s.access(ctx, user, in, st, version)
	acc.Account = st.Label()
	return acc, err
}

// access builds the Access of one usable account.
func (s *Service) access(ctx context.Context, user uuid.UUID, in *plugins.Integration, st connection.State, version int64) (Access, error) {
	switch in.Auth.Mode {
	case plugins.AuthAPIKey:
		doc, err := s.openDocument(ctx, user, in.Name, st.Credential)
		if err != nil {
			return Access{}, err
		}
		inj, err := in.APIKeyInjector(doc.Fields)
		if err != nil {
			return Access{}, err
		}
		h := &held{cache: s.redactors}
		apiKeySecrets(h, in, doc.Fields)
		return Access{Injector: inj, ConnectionVersion: version, held: h}, nil
	case plugins.AuthOAuth2:
		h := &held{cache: s.redactors}
		if id, secret, err := s.clientCredentials(ctx, in.Name); err == nil {
			h.add(secret)
			h.pair(secret, id)
		}
		// Every token handed out is recorded: the one injected may be refreshed during the call.
		getToken := func(ctx context.Context) (string, error) {
			tok, err := s.token(ctx, user, in, st, h)
			if err == nil {
				h.add(tok)
			}
			return tok, err
		}
		acc := Access{Injector: plugins.BearerInjector(getToken), GetToken: getToken, ConnectionVersion: version, held: h}
		if len(in.CredentialKeys()) > 0 {
			doc, err := s.openDocument(ctx, user, in.Name, st.Credential)
			if err != nil {
				return Access{}, err
			}
			if acc.Credential, err = credentialValues(in, doc); err != nil {
				return Access{}, err
			}
			h.document(doc)
		}
		return acc, nil
	case plugins.AuthCookie:
		doc, err := s.openDocument(ctx, user, in.Name, st.Credential)
		if err != nil {
			return Access{}, err
		}
		h := &held{cache: s.redactors}
		cookieSecrets(h, doc.Cookies)
		return Access{Injector: cookieInjector(doc.Cookies, s.now), ConnectionVersion: version, held: h}, nil
	}
	return Access{}, domain.Errorf(domain.CodeInternal, "%s has an unknown auth mode", in.Name)
}

// Connected reports, for every integration of the catalog, whether the user's default account counts
// as connected by the spec's rule per auth mode (spec, Connection): none always; cookie with a stored
// bundle holding an unexpired cookie; oauth2 and apikey with a stored credential (an expired token is
// refreshed on use, so it still counts). A call without an account label uses that account.
func (s *Service) Connected(ctx context.Context, user uuid.UUID) (map[string]bool, error) {
	rows, err := s.reader.ForUser(ctx, user)
	if err != nil {
		return nil, fmt.Errorf("list connections: %w", err)
	}
	now := s.clock()
	out := map[string]bool{}
	for _, in := range s.catalog.Integrations() {
		if in.Auth.Mode == plugins.AuthNone {
			out[in.Name] = true
			continue
		}
		d, ok := connectionsrm.Default(rows[in.Name])
		out[in.Name] = ok && d.State.Usable(now)
	}
	return out, nil
}

// notConnected is the error of a tool call without a usable credential; its message names what to do.
func notConnected(in *plugins.Integration, st connection.State) error {
	name := in.Name
	next := fmt.Sprintf("connect it with connect('%s')", name)
	if in.Auth.Mode == plugins.AuthAPIKey {
		next = "add its API key in the workbench portal"
	}
	reconnect := fmt.Sprintf("reconnect it with connect('%s')", name)
	if label := st.Label(); label != connection.DefaultAccount {
		// Another account than the default: the message names it and how to reconnect that one.
		name = fmt.Sprintf("%s account %q", in.Name, label)
		next = connectNext(in, label)
		reconnect = "re" + next
	}
	switch st.CredentialStatus {
	case connection.StatusNeedsReauth:
		if in.Auth.Mode != plugins.AuthAPIKey {
			next = reconnect
		}
		return domain.Errorf(domain.CodeNotConnected, "%s needs re-authorization (the provider refused the stored credential); %s", name, next)
	case connection.StatusConnected:
		return domain.Errorf(domain.CodeNotConnected, "%s's stored session has expired; %s", name, next)
	}
	return domain.Errorf(domain.CodeNotConnected, "%s is not connected; %s", name, next)
}

// cookieInjector sends the unexpired cookies whose domain matches the request's host (RFC 6265
// section 5.1.3 domain matching).
func cookieInjector(cookies []Cookie, now func() time.Time) plugins.CredentialInjector {
	return plugins.InjectorFunc(func(_ context.Context, req *http.Request) error {
		host := strings.ToLower(req.URL.Hostname())
		t := now()
		for _, c := range cookies {
			d := strings.TrimPrefix(strings.ToLower(c.Domain), ".")
			if (!c.Expires.IsZero() && !t.Before(c.Expires)) || (c.Secure && req.URL.Scheme != "https") {
				continue
			}
			if host == d || strings.HasSuffix(host, "."+d) {
				req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
			}
		}
		return nil
	})
}
