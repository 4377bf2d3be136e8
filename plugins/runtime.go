package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/workbench/workbench/domain"
)

// Handler is a tool implemented in Go. It receives arguments already validated against the tool's
// input schema with defaults applied, and returns any JSON-encodable value (a json.RawMessage is passed
// through as is). Errors shown to the agent should be *domain.Error; any other error is reported as
// "<tool> failed: <text>".
type Handler func(ctx context.Context, rc Context, args json.RawMessage) (any, error)

// CredentialInjector adds the caller's credential to one outbound request. The caller (the MCP
// endpoint) builds one per call from the user's connection; this package never sees the vault or the
// event store.
type CredentialInjector interface {
	Inject(ctx context.Context, req *http.Request) error
}

// InjectorFunc adapts a function to CredentialInjector.
type InjectorFunc func(ctx context.Context, req *http.Request) error

// Inject calls f.
func (f InjectorFunc) Inject(ctx context.Context, req *http.Request) error { return f(ctx, req) }

// BearerInjector sets "Authorization: Bearer <token>" from getToken (which refreshes lazily), the
// injection for oauth2 integrations (RFC 6750 section 2.1).
func BearerInjector(getToken func(ctx context.Context) (string, error)) CredentialInjector {
	return InjectorFunc(func(ctx context.Context, req *http.Request) error {
		tok, err := getToken(ctx)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		return nil
	})
}

// APIKeyInjector injects an apikey integration's credential as its manifest declares (auth.apikey.inject
// and every auth.apikey.extra_inject), taking the values from the fields the user stored in the
// portal. Every injected field must have a value.
func (in *Integration) APIKeyInjector(fields map[string]string) (CredentialInjector, error) {
	k := in.Auth.APIKey
	if in.Auth.Mode != AuthAPIKey || k == nil || len(k.Fields) == 0 {
		return nil, fmt.Errorf("integration %s does not use API keys", in.Name)
	}
	type injection struct {
		APIKeyInject
		value string
	}
	var all []injection
	for _, inj := range k.Injections() {
		value := fields[inj.Field]
		if value == "" {
			return nil, &domain.Error{Code: domain.CodeNotConnected, Message: fmt.Sprintf("integration %s has no value for %s", in.Name, inj.Field)}
		}
		all = append(all, injection{inj, value})
	}
	return InjectorFunc(func(_ context.Context, req *http.Request) error {
		var q url.Values
		for _, inj := range all {
			if inj.In == "query" {
				if q == nil {
					q = req.URL.Query()
				}
				q.Set(inj.Name, inj.value)
				continue
			}
			req.Header.Set(inj.Name, inj.Prefix+inj.value)
		}
		if q != nil {
			req.URL.RawQuery = q.Encode()
		}
		return nil
	}), nil
}

// ContextOptions is what the caller supplies for one tool call.
type ContextOptions struct {
	UserID string
	// Injector adds the credential to every outbound request; nil sends requests without one.
	Injector CredentialInjector
	// GetToken returns the current access token, refreshing it when it is about to expire; nil means the
	// integration has no token.
	GetToken func(ctx context.Context) (string, error)
	Logger   *slog.Logger
	// Transport sends the requests; nil means http.DefaultTransport. (Tests point it at a fake.)
	Transport http.RoundTripper
	// Credential holds the values the connection stored after consent (auth.oauth2.post_consent),
	// by key; they fill {credential.<key>} placeholders in base_url and tool paths. Credentials'
	// Access returns them.
	Credential map[string]string
}

// Context is everything a tool handler may use: an HTTP client that can reach only its integration's
// hosts and carries the user's credential, GetToken, the user id and a logger. It never holds the event
// store, the browser or the jot store. It is made by NewContext only, so the host guard cannot be
// bypassed by building one by hand.
type Context struct {
	integration *Integration
	userID      string
	client      *http.Client
	getToken    func(ctx context.Context) (string, error)
	// logger is the caller's logger, tagged with the integration and the user only when Logger asks
	// for it: most calls never log, and tagging costs a few microseconds.
	logger *slog.Logger
	// baseURL is the integration's base URL with {credential.<key>} filled in, or baseErr why not.
	baseURL    *url.URL
	baseErr    error
	credential map[string]string
}

// NewContext builds the runtime context for one call of one of in's tools.
func NewContext(in *Integration, opts ContextOptions) Context {
	base := opts.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	gt := &guardedTransport{integration: in, injector: opts.Injector, base: base}
	client := &http.Client{
		Transport: gt,
		// Redirects are followed only within the integration's own origins, at most five times.
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("stopped after 5 redirects")
			}
			if !in.allowsOrigin(req.URL) {
				return fmt.Errorf("redirect to %s refused: integration %s may only reach %s", origin(req.URL), in.Name, strings.Join(in.origins, ", "))
			}
			return nil
		},
	}
	c := Context{integration: in, userID: opts.UserID, client: client, getToken: opts.GetToken, logger: logger, credential: opts.Credential}
	if in.BaseURL != "" {
		c.baseURL, c.baseErr = in.resolveCredentialURL(in.BaseURL, opts.Credential)
	}
	return c
}

// BaseURL is the integration's base URL for this call, with {credential.<key>} placeholders filled,
// or an error when a value is missing (the connection predates the post-consent step).
func (c Context) BaseURL() (*url.URL, error) {
	if c.baseErr != nil {
		return nil, c.baseErr
	}
	if c.baseURL == nil {
		return nil, fmt.Errorf("integration %s has no base_url", c.integration.Name)
	}
	u := *c.baseURL
	return &u, nil
}

// ResolveProxyBaseURL is ProxyBaseURL with {credential.<key>} placeholders filled from credential
// (connections.Access returns the values), for curl_session's proxy. The origin never changes:
// placeholders may only sit in the path, and each value is path-escaped.
func (in *Integration) ResolveProxyBaseURL(credential map[string]string) (*url.URL, error) {
	raw := in.ProxyBaseURL()
	if raw == "" {
		return nil, fmt.Errorf("integration %s has no proxy block", in.Name)
	}
	return in.resolveCredentialURL(raw, credential)
}

// resolveCredentialURL fills the {credential.<key>} placeholders of a base URL with the path-escaped
// values, and checks that the origin is the manifest's.
func (in *Integration) resolveCredentialURL(raw string, credential map[string]string) (*url.URL, error) {
	if raw == "" {
		return nil, nil
	}
	var err error
	filled := credentialPlaceholderRE.ReplaceAllStringFunc(raw, func(ph string) string {
		key := credentialPlaceholderRE.FindStringSubmatch(ph)[1]
		v, verr := credentialValue(in, key, credential)
		if verr != nil && err == nil {
			err = verr
		}
		return url.PathEscape(v)
	})
	if err != nil {
		return nil, err
	}
	u, perr := url.Parse(filled)
	if perr != nil {
		return nil, fmt.Errorf("integration %s: base URL: %w", in.Name, perr)
	}
	if !in.allowsOrigin(u) {
		return nil, fmt.Errorf("integration %s: the resolved base URL left its origins", in.Name)
	}
	return u, nil
}

// credentialValue is one stored post-consent value; missing or unusable, it is NOT_CONNECTED with a
// message that says to reconnect.
func credentialValue(in *Integration, key string, credential map[string]string) (string, error) {
	v := credential[key]
	if v == "" || v == "." || v == ".." || strings.IndexFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return "", &domain.Error{Code: domain.CodeNotConnected,
			Message: fmt.Sprintf("the %s connection has no usable %s; reconnect it with connect('%s')", in.Name, key, in.Name)}
	}
	return v, nil
}

// HTTP returns the client for outbound calls. Requests to any origin other than the integration's base
// URL (and proxy base URL) fail before they leave the process.
func (c Context) HTTP() *http.Client { return c.client }

// UserID is the workbench user the call is made for.
func (c Context) UserID() string { return c.userID }

// Logger is a logger tagged with the integration and the user.
func (c Context) Logger() *slog.Logger {
	if c.logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.logger.With("integration", c.integration.Name, "user", c.userID)
}

// Integration is the integration the context was made for.
func (c Context) Integration() *Integration { return c.integration }

// GetToken returns the user's current access token for the integration.
func (c Context) GetToken(ctx context.Context) (string, error) {
	if c.getToken == nil {
		name := ""
		if c.integration != nil {
			name = c.integration.Name
		}
		return "", &domain.Error{Code: domain.CodeNotConnected, Message: fmt.Sprintf("integration %s has no token", name)}
	}
	return c.getToken(ctx)
}

// guardedTransport refuses requests off the integration's origins and injects the credential into a
// clone of each request it lets through (a RoundTripper must not modify its request).
type guardedTransport struct {
	integration *Integration
	injector    CredentialInjector
	base        http.RoundTripper
}

func (t *guardedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	in := t.integration
	if len(in.origins) == 0 {
		closeBody(req)
		return nil, fmt.Errorf("integration %s declares no base_url, so it may make no outbound requests", in.Name)
	}
	if !in.allowsOrigin(req.URL) {
		closeBody(req)
		return nil, fmt.Errorf("request to %s refused: integration %s may only reach %s", origin(req.URL), in.Name, strings.Join(in.origins, ", "))
	}
	out := req.Clone(req.Context())
	if t.injector != nil {
		if err := t.injector.Inject(req.Context(), out); err != nil {
			closeBody(req)
			return nil, err
		}
	}
	return t.base.RoundTrip(out)
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// origin is scheme://host[:port], lowercased, with the default port dropped.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host
}

func (in *Integration) allowsOrigin(u *url.URL) bool {
	o := origin(u)
	for _, allowed := range in.origins {
		if o == allowed {
			return true
		}
	}
	return false
}
