package oauthhttp

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/google/uuid"
	"github.com/ory/fosite"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/domain/oauthdom"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/projections/oauthrm"
)

//go:embed templates/*.html
var templateFS embed.FS

var pages = template.Must(template.ParseFS(templateFS, "templates/*.html"))

// Form fields of the consent POST that are not authorization request parameters.
const (
	fieldCSRF     = "csrf_token"
	fieldDecision = "decision"
	fieldAgent    = "agent_id" // the agent the client will act as; empty: the default agent
)

// agentChoice is one agent the consent page offers.
type agentChoice struct {
	ID, Label string
	Default   bool
}

// agentChoices lists the user's agents for the consent page, the default agent first; nil when there
// is nothing to choose (no Agents configured, or only the default agent).
func (s *Server) agentChoices(ctx context.Context, user uuid.UUID) ([]agentChoice, error) {
	if s.opts.Agents == nil {
		return nil, nil
	}
	agents, err := s.opts.Agents.AgentsOf(ctx, user)
	if err != nil {
		return nil, err
	}
	ms, err := s.opts.Agents.Memberships(ctx, user)
	if err != nil {
		return nil, err
	}
	orgNames := map[uuid.UUID]string{}
	for _, m := range ms {
		orgNames[m.ID] = m.Name
	}
	def := identitydom.DefaultAgentID(user)
	out := []agentChoice{{ID: "", Label: "Default agent (your personal organisation)", Default: true}}
	for _, a := range agents {
		if a.ID == def {
			continue
		}
		out = append(out, agentChoice{ID: a.ID.String(), Label: a.Name + " (" + orgNames[a.OrganizationID] + ")"})
	}
	if len(out) == 1 {
		return nil, nil
	}
	return out, nil
}

var scopeDescriptions = map[string]string{
	ScopeMCP:           "Use your Workbench tools and connected integrations through MCP, as you",
	ScopeOfflineAccess: "Stay connected while you are away, until you revoke it",
}

// pageHeaders make the consent page impossible to frame (clickjacking, RFC 9700 section 4.16), keep it
// out of caches and referrers, and allow it nothing but its own inline style. No form-action is set:
// the form's answer redirects to the client's origin, which form-action would block in some browsers.
func pageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Content-Type-Options", "nosniff")
}

func errorPage(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = pages.ExecuteTemplate(w, "error.html", map[string]string{"Message": message})
}

// csrfToken binds the consent form to the portal session that displayed it: an HMAC of the session
// cookie, so only a page rendered for this browser's session can post a decision, and signing out or a
// new session voids every form shown before.
func (s *Server) csrfToken(r *http.Request) string {
	c, err := r.Cookie(websession.CookieName)
	if err != nil {
		return ""
	}
	mac := hmac.New(sha256.New, s.keys.csrf)
	mac.Write([]byte("consent\x00"))
	mac.Write([]byte(c.Value))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// toPublicHost sends a browser that opened the authorization endpoint on a loopback alias of the
// public URL (http://127.0.0.1:P when it says http://localhost:P) to the same request on the public
// host, where its portal session cookie lives, naming the alias's /mcp as the resource when the client
// named none, so that the code's iss and the tokens' iss and audience are the alias's.
func (s *Server) toPublicHost(w http.ResponseWriter, r *http.Request) bool {
	base, ok := s.loop.Base(r.Host)
	if !ok || base == s.issuer {
		return false
	}
	q := r.URL.Query()
	if q.Get("resource") == "" {
		q.Set("resource", base+"/mcp")
	}
	http.Redirect(w, r, s.issuer+"/oauth/authorize?"+q.Encode(), http.StatusFound)
	return true
}

// authorizeGet shows the consent page, or sends a signed-out browser to sign in and come back.
func (s *Server) authorizeGet(w http.ResponseWriter, r *http.Request) {
	r = withFailureNote(r)
	pageHeaders(w)
	if s.toPublicHost(w, r) {
		return
	}
	user, ok := s.opts.Sessions.User(r)
	if !ok {
		http.Redirect(w, r, "/signin?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusFound)
		return
	}
	ar, client, ok := s.authorizeRequest(w, r)
	if !ok {
		return
	}
	email := ""
	if u, err := s.opts.Users.UserByID(r.Context(), user); err == nil {
		email = u.Email
	}
	type param struct{ Name, Value string }
	var params []param
	keys := make([]string, 0, len(r.Form))
	for k := range r.Form {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k != fieldCSRF && k != fieldDecision && k != fieldAgent {
			params = append(params, param{k, r.Form.Get(k)})
		}
	}
	type scope struct{ Name, Description string }
	var scopes []scope
	for _, sc := range grantedScopes(ar) {
		scopes = append(scopes, scope{sc, scopeDescriptions[sc]})
	}
	redirect := ar.GetRedirectURI()
	name := displayName(client.ClientName)
	if name == "" {
		name = "An unnamed app"
	}
	agents, err := s.agentChoices(r.Context(), user)
	if err != nil {
		s.log.ErrorContext(r.Context(), "consent page: list agents", "err", err)
		errorPage(w, http.StatusServiceUnavailable, "Your agents could not be read just now. Try again in a moment.")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	err = pages.ExecuteTemplate(w, "consent.html", map[string]any{
		"ClientName": name, "ClientID": client.ClientID, "Email": email, "Scopes": scopes,
		"RedirectHost": redirect.Host, "Loopback": oauthdom.IsLoopbackHost(redirect.Hostname()),
		"Params": params, "CSRF": s.csrfToken(r), "Agents": agents,
	})
	if err != nil {
		s.log.ErrorContext(r.Context(), "consent page", "err", err)
	}
}

// authorizePost records the user's decision: on allow, a code is issued (an oauth.code_issued event)
// and the browser is sent to the client's redirect URI with it; on deny, with access_denied.
func (s *Server) authorizePost(w http.ResponseWriter, r *http.Request) {
	r = withFailureNote(r)
	pageHeaders(w)
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		errorPage(w, http.StatusBadRequest, "The consent form could not be read.")
		return
	}
	user, ok := s.opts.Sessions.User(r)
	if !ok {
		errorPage(w, http.StatusUnauthorized, "Your Workbench session has ended. Sign in to the portal and start the connection again from the app.")
		return
	}
	// The form must come from the page this server rendered for this session: a cross-site post carries
	// another Origin, and cannot know the session-bound token.
	// A form POST may carry "Origin: null" (Chromium sends it for this page's navigation-initiated
	// POST); the session-bound token below is then the whole defence, as it is for browsers that send
	// no Origin at all. Any real foreign origin is refused outright.
	if o := r.Header.Get("Origin"); o != "" && o != "null" && !s.opts.Sessions.SameOrigin(r) {
		errorPage(w, http.StatusForbidden, "This consent did not come from the Workbench consent page (foreign origin).")
		return
	}
	want := s.csrfToken(r)
	got := r.PostForm.Get(fieldCSRF)
	if want == "" || !hmac.Equal([]byte(got), []byte(want)) {
		errorPage(w, http.StatusForbidden, "This consent form expired or did not come from the Workbench consent page (CSRF token missing or wrong).")
		return
	}
	decision := r.PostForm.Get(fieldDecision)
	agentField := r.PostForm.Get(fieldAgent)
	for _, f := range []string{fieldCSRF, fieldDecision, fieldAgent} {
		r.Form.Del(f)
		r.PostForm.Del(f)
	}
	ar, client, ok := s.authorizeRequest(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	if decision != "allow" {
		s.writeAuthorizeError(ctx, w, ar, fosite.ErrAccessDenied.WithHint("The user denied the request."))
		return
	}
	for _, sc := range grantedScopes(ar) {
		ar.GrantScope(sc)
	}
	// The resource the client named: the canonical /mcp, or /mcp of the loopback alias it reached.
	aud := s.resource
	if res := r.Form.Get("resource"); res != "" {
		aud = res
	}
	ar.GrantAudience(aud)
	agent, err := s.chosenAgent(ctx, user, agentField)
	if err != nil {
		if domain.ErrorCode(err) == domain.CodeInvalid {
			errorPage(w, http.StatusBadRequest, domain.ErrorMessage(err))
		} else {
			s.log.ErrorContext(ctx, "consent: check the agent", "err", err)
			errorPage(w, http.StatusServiceUnavailable, "Your agents could not be read just now. Try again in a moment.")
		}
		return
	}
	sess := &session{UserID: user.String(), AgentID: agent, ClientID: client.ClientID, GrantID: ar.GetID(), KeyID: s.keys.kid, Issuer: s.issuerOfResource(aud)}
	ctx = withOrigin(ctx, s.origin(r, user.String(), client.ClientID))
	resp, err := s.provider.NewAuthorizeResponse(ctx, ar, sess)
	if err != nil {
		s.writeAuthorizeError(ctx, w, ar, err)
		return
	}
	s.writeAuthorizeResponse(ctx, w, ar, resp)
}

// chosenAgent checks the agent the consent form names: empty is the default agent (""), anything
// else must be one of the user's agents (CodeInvalid otherwise).
func (s *Server) chosenAgent(ctx context.Context, user uuid.UUID, field string) (string, error) {
	if field == "" {
		return "", nil
	}
	id, err := uuid.Parse(field)
	if err != nil {
		return "", domain.Errorf(domain.CodeInvalid, "The consent form names an agent that is not one of yours.")
	}
	if id == identitydom.DefaultAgentID(user) {
		return "", nil
	}
	choices, err := s.agentChoices(ctx, user)
	if err != nil {
		return "", err
	}
	for _, c := range choices {
		if c.ID == id.String() {
			return c.ID, nil
		}
	}
	return "", domain.Errorf(domain.CodeInvalid, "The consent form names an agent that is not one of yours.")
}

// grantedScopes are the requested scopes, or the mcp scope when none was requested.
func grantedScopes(ar fosite.AuthorizeRequester) []string {
	if sc := ar.GetRequestedScopes(); len(sc) > 0 {
		return sc
	}
	return []string{ScopeMCP}
}

// authorizeRequest checks an authorization request. Until the client and its redirect URI are
// established, errors are shown on a page (never redirected: RFC 6749 section 4.1.2.1); after that
// they go back to the client's redirect URI. It enforces what fosite leaves open: one value per
// parameter, a redirect URI that is present and exactly registered (no loopback port leeway), PKCE with
// S256, the query response mode, and a resource (RFC 8707), if any, that is the canonical /mcp URL.
func (s *Server) authorizeRequest(w http.ResponseWriter, r *http.Request) (fosite.AuthorizeRequester, consentClient, bool) {
	var none consentClient
	if err := r.ParseForm(); err != nil {
		errorPage(w, http.StatusBadRequest, "The authorization request could not be read.")
		return nil, none, false
	}
	for k, v := range r.Form {
		if len(v) > 1 {
			errorPage(w, http.StatusBadRequest, "The parameter "+k+" appears more than once (RFC 6749 section 3.1).")
			return nil, none, false
		}
	}
	clientID := r.Form.Get("client_id")
	if clientID == "" {
		errorPage(w, http.StatusBadRequest, "The request names no client (client_id is missing).")
		return nil, none, false
	}
	client, err := s.reader.Client(r.Context(), clientID)
	if err != nil {
		if !errors.Is(err, oauthrm.ErrNotFound) {
			s.unavailablePage(r.Context(), w, storageFailure(r.Context(), err))
			return nil, none, false
		}
		errorPage(w, http.StatusBadRequest, "The app is not registered with this Workbench (unknown client_id). It must register again.")
		return nil, none, false
	}
	redirect := r.Form.Get("redirect_uri")
	if redirect == "" {
		errorPage(w, http.StatusBadRequest, "The request has no redirect_uri; it is required.")
		return nil, none, false
	}
	if !slices.Contains(client.RedirectURIs, redirect) {
		errorPage(w, http.StatusBadRequest, "The redirect_uri does not exactly match any redirect URI the app registered, so the request is refused.")
		return nil, none, false
	}
	ctx := r.Context()
	ar, err := s.provider.NewAuthorizeRequest(ctx, r)
	// state is optional (OAuth 2.1 section 4.1.1; see doc.go): fosite's last check refuses a state
	// shorter than its minimum entropy, and cannot be configured to accept none. PKCE S256, enforced
	// below, is what binds the code to the client instance here; state is echoed back opaque.
	if errors.Is(err, fosite.ErrInvalidState) {
		err = nil
	}
	if err != nil {
		if !ar.IsRedirectURIValid() && s.unavailablePage(ctx, w, err) {
			return nil, none, false
		}
		s.writeAuthorizeError(ctx, w, ar, err)
		return nil, none, false
	}
	if rm := r.Form.Get("response_mode"); rm != "" && rm != "query" {
		s.writeAuthorizeError(ctx, w, ar, fosite.ErrInvalidRequest.WithHint("Only response_mode=query is supported."))
		return nil, none, false
	}
	challenge, method := r.Form.Get("code_challenge"), r.Form.Get("code_challenge_method")
	switch {
	case challenge == "":
		s.writeAuthorizeError(ctx, w, ar, fosite.ErrInvalidRequest.WithHint("PKCE is required: send code_challenge with code_challenge_method=S256."))
		return nil, none, false
	case method != "S256":
		s.writeAuthorizeError(ctx, w, ar, fosite.ErrInvalidRequest.WithHint("code_challenge_method must be S256; plain and a missing method are refused."))
		return nil, none, false
	case !validChallenge(challenge):
		s.writeAuthorizeError(ctx, w, ar, fosite.ErrInvalidRequest.WithHint("code_challenge must be the 43-character base64url SHA-256 of the code verifier."))
		return nil, none, false
	}
	if res := r.Form.Get("resource"); res != "" && !s.isResource(res) {
		s.writeAuthorizeError(ctx, w, ar, invalidTarget(s.resource))
		return nil, none, false
	}
	return ar, consentClient{ClientID: client.ClientID, ClientName: client.ClientName}, true
}

type consentClient struct{ ClientID, ClientName string }

// displayName is a client name as the consent page shows it: any control or bidirectional-formatting
// character (registration refuses them, but a name may predate that rule) is written out as a visible
// <U+202E>, so it cannot reorder or hide what the page says. html/template escapes the rest.
func displayName(name string) string {
	if !strings.ContainsFunc(name, oauthdom.UnsafeNameRune) {
		return name
	}
	var b strings.Builder
	for _, r := range name {
		if oauthdom.UnsafeNameRune(r) {
			fmt.Fprintf(&b, "<U+%04X>", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func invalidTarget(resource string) *fosite.RFC6749Error {
	return &fosite.RFC6749Error{ErrorField: "invalid_target", CodeField: http.StatusBadRequest,
		DescriptionField: "The requested resource is not served by this authorization server: the only resource is " + resource + " (RFC 8707)."}
}

func validChallenge(c string) bool {
	if len(c) != 43 {
		return false
	}
	return !strings.ContainsFunc(c, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	})
}
