package connectorlogins

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v3"
	josejwt "github.com/go-jose/go-jose/v3/jwt"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors/connectorcore"
	"github.com/workbench/workbench/app/connectors/mcpclient"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/plugins/connector"
)

// The github_app strategy (spec connectors.md, OAuth): a login is one installation of the box's
// GitHub App, and every call acts as that installation.
//
//   - Connect sends the operator to the app's installation page,
//     <GitHubURL>/apps/<app_slug>/installations/new?state=<signed state>.
//   - GitHub sends the browser back to the app's callback with installation_id, setup_action, state
//     and, because the app requests user authorization during installation, code. An installation id
//     in a URL can be forged, so the code is exchanged for a user access token and the installation
//     must be one that user can reach (GET /user/installations), as GitHub's "About the setup URL"
//     asks. The user access token is then dropped.
//   - The login stores the installation id, sealed; its account hint is the installation's account
//     (GET /app/installations/{id} with the app's JWT).
//   - A call gets an installation access token (POST /app/installations/{id}/access_tokens), cached
//     on this replica until RefreshBefore its expiry; a 401 gets a new token and one retry; an
//     installation GitHub no longer knows (404) disconnects the login.
//
// The app is the platform key github_app: app_id, app_slug, client_id, client_secret and private_key
// (the PEM GitHub generated), read at call time and never stored on a login.

// GitHub's defaults.
const (
	DefaultGitHubURL    = "https://github.com"
	DefaultGitHubAPIURL = "https://api.github.com"
	// githubAPIVersion is the REST API version every request names.
	githubAPIVersion = "2022-11-28"
	// githubAppKey is the platform key of the GitHub App.
	githubAppKey = "github_app"
	// credInstallation is a GitHub App login's credential field.
	credInstallation = connectorcore.CredInstallation
	// maxInstallationPages bounds the pages of GET /user/installations read to find one.
	maxInstallationPages = 10
)

// githubApp is the platform key github_app.
type githubApp struct {
	AppID, Slug, ClientID, ClientSecret string
	Key                                 *rsa.PrivateKey
}

// installToken is an installation access token this replica holds.
type installToken struct {
	Installation string
	Token        string
	Expires      time.Time
}

func (s *Service) githubURL() string {
	if s.Opts.GitHubURL != "" {
		return strings.TrimRight(s.Opts.GitHubURL, "/")
	}
	return DefaultGitHubURL
}

func (s *Service) githubAPIURL() string {
	if s.Opts.GitHubAPIURL != "" {
		return strings.TrimRight(s.Opts.GitHubAPIURL, "/")
	}
	return DefaultGitHubAPIURL
}

// githubApp reads the platform key github_app; a key not set, or set without what an installation
// needs, is not set up.
func (s *Service) githubApp(ctx context.Context) (githubApp, error) {
	f, ok, err := s.readPlatformKey(ctx, githubAppKey)
	if err != nil {
		return githubApp{}, err
	}
	get := func(k string) string { return strings.TrimSpace(f[k]) }
	var missing []string
	for _, k := range []string{"app_id", "app_slug", "client_id", "client_secret", "private_key"} {
		if get(k) == "" {
			missing = append(missing, k)
		}
	}
	if !ok || len(missing) > 0 {
		msg := "the GitHub App is not set up: an instance admin enters it under Admin, Platform keys (github_app)"
		if ok {
			msg = fmt.Sprintf("the GitHub App is not set up: the platform key github_app lacks %s", strings.Join(missing, ", "))
		}
		return githubApp{}, &domain.Error{Code: domain.CodeUnprocessable, Message: msg, Err: ErrOAuthNotSetUp}
	}
	if _, err := strconv.ParseInt(get("app_id"), 10, 64); err != nil {
		return githubApp{}, &domain.Error{Code: domain.CodeUnprocessable, Message: "the GitHub App is not set up: app_id is not a number", Err: ErrOAuthNotSetUp}
	}
	key, err := parseRSAKey(get("private_key"))
	if err != nil {
		return githubApp{}, &domain.Error{Code: domain.CodeUnprocessable, Message: "the GitHub App is not set up: private_key " + err.Error(), Err: ErrOAuthNotSetUp}
	}
	return githubApp{AppID: get("app_id"), Slug: get("app_slug"), ClientID: get("client_id"), ClientSecret: get("client_secret"), Key: key}, nil
}

// parseRSAKey reads the PEM private key GitHub generates (PKCS #1), or a PKCS #8 RSA key.
func parseRSAKey(p string) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode([]byte(p))
	if block == nil {
		return nil, fmt.Errorf("is not PEM")
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("is not an RSA private key")
	}
	rk, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("is not an RSA private key")
	}
	return rk, nil
}

// jwt is the app's JSON Web Token (GitHub, "Generating a JSON Web Token (JWT) for a GitHub App"):
// RS256, iss the app id, iat a minute in the past against clock drift, exp nine minutes ahead (GitHub
// refuses more than ten).
func (a githubApp) jwt(now time.Time) (string, error) {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: a.Key}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", fmt.Errorf("github app jwt: %w", err)
	}
	return josejwt.Signed(signer).Claims(josejwt.Claims{Issuer: a.AppID, IssuedAt: josejwt.NewNumericDate(now.Add(-time.Minute)),
		Expiry: josejwt.NewNumericDate(now.Add(9 * time.Minute))}).CompactSerialize()
}

// planGitHubApp is the plan of a github_app connector: the app's installation page.
func (s *Service) planGitHubApp(ctx context.Context, _ *connector.Manifest) (signInPlan, error) {
	app, err := s.githubApp(ctx)
	if err != nil {
		return signInPlan{}, err
	}
	// Both of GitHub's bases are reached from the server later (the user authorization's token
	// exchange, the REST API): they pass the address check now.
	for _, u := range []string{s.githubURL(), s.githubAPIURL()} {
		if err := mcpclient.CheckURL(ctx, u, s.Opts.AllowLoopback, s.Opts.Resolver); err != nil {
			return signInPlan{}, domain.Errorf(domain.CodeUnprocessable, "github: %s", err.Error())
		}
	}
	return signInPlan{Strategy: StrategyGitHubApp, AuthorizeURL: s.githubURL() + "/apps/" + url.PathEscape(app.Slug) + "/installations/new",
		TokenURL: s.githubURL() + "/login/oauth/access_token", Client: oauthClient{ID: app.ClientID, Key: githubAppKey}}, nil
}

// installURL is the installation page carrying the signed state, which GitHub sends back.
func (p signInPlan) installURL(state string) string {
	return p.AuthorizeURL + "?" + url.Values{"state": {state}}.Encode()
}

// githubDo sends one REST API request as GitHub documents them (Accept application/vnd.github+json,
// X-GitHub-Api-Version, a bearer token) and decodes a 2xx reply into v.
func (s *Service) githubDo(ctx context.Context, method, path, bearer string, v any) (int, error) {
	resp, raw, err := s.oauthDo(ctx, method, s.githubAPIURL()+path, nil, "", func(r *http.Request) {
		r.Header.Set("Accept", "application/vnd.github+json")
		r.Header.Set("X-GitHub-Api-Version", githubAPIVersion)
		r.Header.Set("Authorization", "Bearer "+bearer)
	})
	if err != nil {
		return 0, err
	}
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return resp.StatusCode, domain.Errorf(domain.CodeUpstream, "github: %s %s answered no JSON", method, path)
	}
	return resp.StatusCode, nil
}

// completeInstallation completes a github_app sign-in (see the top of this file).
func (s *Service) completeInstallation(ctx context.Context, user uuid.UUID, st oauthState, cur login.State, p pendingOAuth, m *connector.Manifest, cb Callback,
	abandon func(reason string) error) (CallbackResult, error) {
	res := CallbackResult{LoginID: st.Login}
	fail := func(reason string, err error) (CallbackResult, error) {
		if aerr := abandon(reason); aerr != nil {
			s.Log.ErrorContext(ctx, "close a failed installation", "login", st.Login, "err", aerr)
		}
		res.Denied = true
		return res, err
	}
	id := cb.InstallationID
	if n, err := strconv.ParseInt(id, 10, 64); err != nil || n <= 0 {
		if cb.SetupAction == "request" {
			return fail("the installation awaits approval", domain.Errorf(domain.CodeUnprocessable, "an owner of the GitHub account must approve the installation request; connect again once they have"))
		}
		return fail("no installation", domain.Errorf(domain.CodeUnprocessable, "GitHub sent back no installation id"))
	}
	if cb.Code == "" {
		return fail("the installation was not authorized", domain.Errorf(domain.CodeUnprocessable,
			"GitHub sent the installation back without a user authorization, so it cannot be checked as yours: the GitHub App must request user authorization (OAuth) during installation"))
	}
	app, err := s.githubApp(ctx)
	if err != nil {
		return fail("the GitHub App is not set up", err)
	}
	// The installation id is the browser's word: the user who authorized must reach the installation.
	tok, err := s.tokenRequest(ctx, p.TokenURL, url.Values{"code": {cb.Code}}, oauthClient{ID: app.ClientID, Secret: app.ClientSecret, Auth: tokenAuthPost})
	if err != nil {
		return fail("the user authorization failed", err)
	}
	yours, err := s.userReaches(ctx, tok.AccessToken, id)
	if err != nil {
		return fail("the installations could not be read", err)
	}
	if !yours {
		return fail("the installation is not the user's", domain.Errorf(domain.CodeForbidden, "installation %s is not one your GitHub account can reach", id))
	}
	jwt, err := app.jwt(s.Opts.Now())
	if err != nil {
		return res, err
	}
	var inst struct {
		Account struct {
			Login string `json:"login"`
		} `json:"account"`
	}
	status, err := s.githubDo(ctx, http.MethodGet, "/app/installations/"+id, jwt, &inst)
	switch {
	case err != nil:
		return fail("the installation could not be read", err)
	case status == http.StatusNotFound:
		return fail("the installation is gone", domain.Errorf(domain.CodeUnprocessable, "GitHub knows no installation %s of this app", id))
	case status/100 != 2:
		return fail("the installation could not be read", domain.Errorf(domain.CodeUpstream, "github: reading installation %s answered %d", id, status))
	}
	return s.finishSignIn(ctx, user, st, cur, Creds{credInstallation: id}, inst.Account.Login)
}

// userReaches reports whether a user access token reaches an installation (GET /user/installations).
func (s *Service) userReaches(ctx context.Context, userToken, id string) (bool, error) {
	for page := 1; page <= maxInstallationPages; page++ {
		var list struct {
			Installations []struct {
				ID int64 `json:"id"`
			} `json:"installations"`
		}
		status, err := s.githubDo(ctx, http.MethodGet, "/user/installations?per_page=100&page="+strconv.Itoa(page), userToken, &list)
		if err != nil {
			return false, err
		}
		if status/100 != 2 {
			return false, domain.Errorf(domain.CodeUpstream, "github: listing your installations answered %d", status)
		}
		for _, in := range list.Installations {
			if strconv.FormatInt(in.ID, 10) == id {
				return true, nil
			}
		}
		if len(list.Installations) < 100 {
			return false, nil
		}
	}
	return false, nil
}

// installationCreds gives a GitHub App login's credentials an installation access token: the one this
// replica holds while it is good for RefreshBefore more, else (or with force, after a 401) a new one.
// An installation GitHub no longer knows disconnects the login.
func (s *Service) installationCreds(ctx context.Context, l login.State, creds Creds, force bool) (Creds, error) {
	id := creds[credInstallation]
	if id == "" {
		return nil, domain.Errorf(domain.CodeUnprocessable, "the login holds no GitHub App installation; sign in again")
	}
	with := func(t installToken) Creds {
		out := Creds{}
		for k, v := range creds {
			out[k] = v
		}
		out[credAccess] = t.Token
		return out
	}
	good := func() (installToken, bool) {
		s.mu.Lock()
		defer s.mu.Unlock()
		t, ok := s.installTokens[l.LoginID]
		return t, ok && t.Installation == id && s.Opts.Now().Add(RefreshBefore).Before(t.Expires)
	}
	if t, ok := good(); ok && !force {
		return with(t), nil
	}
	mu := s.refreshLock(l.LoginID)
	mu.Lock()
	defer mu.Unlock()
	// Another call may have got a new token while this one waited.
	if t, ok := good(); ok && (!force || t.Token != creds[credAccess]) {
		return with(t), nil
	}
	app, err := s.githubApp(ctx)
	if err != nil {
		return nil, err
	}
	jwt, err := app.jwt(s.Opts.Now())
	if err != nil {
		return nil, err
	}
	var reply struct {
		Token     string    `json:"token"`
		ExpiresAt time.Time `json:"expires_at"`
	}
	status, err := s.githubDo(ctx, http.MethodPost, "/app/installations/"+id+"/access_tokens", jwt, &reply)
	switch {
	case err != nil:
		return nil, err
	case status == http.StatusNotFound:
		s.forgetInstallToken(l.LoginID)
		return nil, s.disconnect(ctx, l, "the GitHub App installation was removed")
	case status == http.StatusUnauthorized:
		return nil, domain.Errorf(domain.CodeUpstream, "github: the GitHub App's token was refused; check app_id and private_key under Admin, Platform keys")
	case status != http.StatusCreated || reply.Token == "" || reply.ExpiresAt.IsZero():
		return nil, domain.Errorf(domain.CodeUpstream, "github: the installation access token request answered %d", status)
	}
	t := installToken{Installation: id, Token: reply.Token, Expires: reply.ExpiresAt}
	s.mu.Lock()
	if s.installTokens == nil {
		s.installTokens = map[uuid.UUID]installToken{}
	}
	s.installTokens[l.LoginID] = t
	s.mu.Unlock()
	s.Opts.Pool.Drop(l.LoginID)
	return with(t), nil
}

func (s *Service) forgetInstallToken(id uuid.UUID) {
	s.mu.Lock()
	delete(s.installTokens, id)
	s.mu.Unlock()
}
