package plugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// File names inside a plugin folder.
const (
	ManifestFile = "manifest.json"
	ToolsFile    = "tools.json"
)

// AuthMode is how an integration connects and how its credential reaches the outbound request
// (spec, concepts: "Integration").
type AuthMode string

const (
	AuthOAuth2 AuthMode = "oauth2"
	AuthAPIKey AuthMode = "apikey"
	AuthCookie AuthMode = "cookie"
	AuthNone   AuthMode = "none"
)

// Token endpoint client authentication styles (RFC 6749 section 2.3.1).
const (
	TokenAuthBasic = "basic" // client_id and client_secret in an HTTP Basic Authorization header
	TokenAuthBody  = "body"  // client_id and client_secret as form parameters in the request body
)

// Manifest is the contents of manifest.json: one integration as its author declares it. The format is
// documented in doc.go.
type Manifest struct {
	Name        string            `json:"name"`
	Version     string            `json:"version"`
	DisplayName string            `json:"display_name"`
	Description string            `json:"description"`
	Logo        string            `json:"logo,omitempty"`
	Categories  []string          `json:"categories,omitempty"`
	BaseURL     string            `json:"base_url,omitempty"`
	Headers     map[string]string `json:"headers,omitempty"`
	Proxy       *Proxy            `json:"proxy,omitempty"`
	Auth        Auth              `json:"auth"`
	// TracePropagation lets the server send the W3C trace context (traceparent) with this integration's
	// tool requests when tracing is on; off by default, so a provider learns nothing of the server's traces.
	TracePropagation bool `json:"trace_propagation,omitempty"`
	// Policy names the tools that start Off for every agent, as a connector manifest's policy does.
	Policy *Policy `json:"policy,omitempty"`
}

// Policy holds name patterns of tools that start Off (policy.default_off): "*" matches any run of
// characters and nothing else is special ("github_delete_*").
type Policy struct {
	DefaultOff []string `json:"default_off,omitempty"`
}

// Limits on policy.default_off.
const (
	maxPolicyPatterns  = 64
	maxPolicyPatternLn = 128
)

// Proxy, when present, lets curl_session forward arbitrary requests to the integration.
type Proxy struct {
	// BaseURL is where proxied requests go; empty means the manifest's base_url.
	BaseURL string `json:"base_url,omitempty"`
}

// Auth declares the auth mode and the block that mode needs.
type Auth struct {
	Mode   AuthMode `json:"mode"`
	OAuth2 *OAuth2  `json:"oauth2,omitempty"`
	APIKey *APIKey  `json:"apikey,omitempty"`
	Cookie *Cookie  `json:"cookie,omitempty"`
}

// OAuth2 describes an authorization-code provider. PKCE (S256) is always used and cannot be turned
// off, so it has no field.
type OAuth2 struct {
	AuthorizeURL string   `json:"authorize_url"`
	TokenURL     string   `json:"token_url"`
	Scopes       []string `json:"scopes,omitempty"`
	// ScopeSeparator joins Scopes in the authorize URL; empty means a space (RFC 6749 section 3.3).
	ScopeSeparator string `json:"scope_separator,omitempty"`
	// AuthorizeParams are extra authorize-URL parameters, e.g. access_type=offline.
	AuthorizeParams map[string]string `json:"authorize_params,omitempty"`
	// TokenAuthStyle is "basic" or "body"; empty means "basic".
	TokenAuthStyle string `json:"token_auth_style,omitempty"`
	// PostConsent is a request the connect flow's callback makes with the fresh access token, to
	// learn values the integration's URLs need (Atlassian's cloud id); nil makes none.
	PostConsent *PostConsent `json:"post_consent,omitempty"`
	// TokenSource chooses which of the tokens a provider issues is injected, for providers that issue
	// more than one (Slack: a bot token in access_token, a user token in authed_user); nil means the
	// standard access_token.
	TokenSource *TokenSource `json:"token_source,omitempty"`
	// TokenTypes are token_type values besides "bearer" that the provider uses for tokens sent as
	// Bearer credentials (Slack answers "bot" and "user").
	TokenTypes []string `json:"token_types,omitempty"`
}

// Token sources.
const (
	// TokenFromAccessToken is the token response's access_token (RFC 6749 section 5.1).
	TokenFromAccessToken = "access_token"
	// TokenFromAuthedUser is the access_token of the token response's authed_user object (Slack's
	// user token, https://docs.slack.dev/reference/methods/oauth.v2.access).
	TokenFromAuthedUser = "authed_user"
)

// TokenSource is the token a connection injects: Default when the provider issued it, else Fallback.
type TokenSource struct {
	Default  string `json:"default"`
	Fallback string `json:"fallback,omitempty"`
}

// Sources returns the token sources to try, in order: the default, then the fallback. A manifest
// without token_source uses access_token alone.
func (o *OAuth2) Sources() []string {
	if o == nil || o.TokenSource == nil {
		return []string{TokenFromAccessToken}
	}
	out := []string{o.TokenSource.Default}
	if f := o.TokenSource.Fallback; f != "" && f != o.TokenSource.Default {
		out = append(out, f)
	}
	return out
}

// PostConsent is a GET to URL with the new token as a Bearer credential; every Extra entry maps a
// credential key to an RFC 6901 pointer into the JSON answer, and the value found there is stored with
// the credential and fills {credential.<key>} placeholders in base_url, proxy.base_url and tool paths.
type PostConsent struct {
	URL   string            `json:"url"`
	Extra map[string]string `json:"extra"`
}

// credentialPlaceholderRE is {credential.<key>}.
var credentialPlaceholderRE = regexp.MustCompile(`\{credential\.([a-z0-9_]+)\}`)

// CredentialPrefix marks a path placeholder filled from the stored credential rather than an argument.
const CredentialPrefix = "credential."

// CredentialKeys returns the post-consent keys the connection stores (auth.oauth2.post_consent.extra),
// sorted; the caller of NewContext passes their values in ContextOptions.Credential.
func (m *Manifest) CredentialKeys() []string {
	if m.Auth.OAuth2 == nil || m.Auth.OAuth2.PostConsent == nil {
		return nil
	}
	return sortedKeys(m.Auth.OAuth2.PostConsent.Extra)
}

// credentialKeySet is CredentialKeys as a set.
func (m *Manifest) credentialKeySet() map[string]bool {
	set := map[string]bool{}
	for _, k := range m.CredentialKeys() {
		set[k] = true
	}
	return set
}

// APIKey describes the fields the portal asks for and how the credential is injected.
type APIKey struct {
	Fields []APIKeyField `json:"fields"`
	Inject APIKeyInject  `json:"inject"`
	// ExtraInject are further values injected on every request beside Inject, for providers that
	// want more than one credential (Datadog: DD-API-KEY and DD-APPLICATION-KEY). Each names its field.
	ExtraInject []APIKeyInject `json:"extra_inject,omitempty"`
	// Verify is a cheap "who am I" request the portal's connect sends with the candidate key before
	// storing it; nil stores keys unchecked.
	Verify *APIKeyVerify `json:"verify,omitempty"`
}

// APIKeyVerify is one request to the integration's base URL that succeeds only with a valid key.
type APIKeyVerify struct {
	Method string            `json:"method"`
	Path   string            `json:"path"`
	Query  map[string]string `json:"query,omitempty"`
	// Body is sent as JSON (GraphQL providers: {"query": "{ actor { user { id } } }"}).
	Body any `json:"body,omitempty"`
	// ErrorPointer names an array (GraphQL "/errors") that, when non-empty on a 2xx answer, counts as
	// a refusal of the key.
	ErrorPointer string `json:"error_pointer,omitempty"`
}

// Injections returns Inject followed by ExtraInject, each with its field name resolved (Inject's
// empty field means the only field).
func (k *APIKey) Injections() []APIKeyInject {
	first := k.Inject
	if first.Field == "" && len(k.Fields) > 0 {
		first.Field = k.Fields[0].Name
	}
	return append([]APIKeyInject{first}, k.ExtraInject...)
}

// APIKeyField is one value the portal renders a form field for.
type APIKeyField struct {
	Name        string `json:"name"`
	Label       string `json:"label"`
	Secret      bool   `json:"secret,omitempty"`
	Optional    bool   `json:"optional,omitempty"`
	Placeholder string `json:"placeholder,omitempty"`
}

// APIKeyInject says where the key goes on every outbound request.
type APIKeyInject struct {
	// In is "header" or "query".
	In string `json:"in"`
	// Name is the header or query parameter name.
	Name string `json:"name"`
	// Prefix is put before the value (headers only), e.g. "Bearer ".
	Prefix string `json:"prefix,omitempty"`
	// Field names the APIKeyField whose value is injected; empty means the only field.
	Field string `json:"field,omitempty"`
}

// Cookie lists the domains whose cookies a capture keeps, and where a person signs in.
type Cookie struct {
	Domains []string `json:"domains"`
	// SignInURL, optional, is the service's sign-in page: the live browser opens it when a person
	// starts a cookie sign-in. An absolute https URL whose host is a declared domain or under one
	// (the registry accepts http for a loopback host only with Options.AllowInsecureHTTP). Without
	// it the live browser opens https://<the first domain>/.
	SignInURL string `json:"signin_url,omitempty"`
}

// SignInPage is where a person signs in to a cookie integration: auth.cookie.signin_url, else the
// root of its first declared domain ("" for an integration that is not a cookie one).
func (c *Cookie) SignInPage() string {
	if c == nil {
		return ""
	}
	if c.SignInURL != "" {
		return c.SignInURL
	}
	if len(c.Domains) == 0 {
		return ""
	}
	return "https://" + strings.TrimPrefix(c.Domains[0], ".") + "/"
}

// ToolSpec is one entry of tools.json.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	// HTTP is a declarative request template; exactly one of HTTP and Handler is set.
	HTTP *HTTPTemplate `json:"http,omitempty"`
	// Handler is "go": the tool runs a Go handler registered in code under the tool's name.
	Handler string `json:"handler,omitempty"`
	// Mutating says whether the tool changes anything at the provider (creates, sends, deletes, pays):
	// a mutating tool starts Off for every agent until someone who manages a scope switches it On.
	// Absent, the tool's name decides (a writing verb: StartsOff).
	Mutating *bool `json:"mutating,omitempty"`
}

// HandlerGo is the only value ToolSpec.Handler accepts.
const HandlerGo = "go"

// HTTPTemplate builds one request to the integration's base URL from a tool's arguments.
type HTTPTemplate struct {
	Method string `json:"method"`
	// Path is appended to the base URL; {arg} placeholders are replaced by the URL-escaped argument.
	Path    string           `json:"path"`
	Query   map[string]Value `json:"query,omitempty"`
	Headers map[string]Value `json:"headers,omitempty"`
	// Body is a JSON template: any object of the form {"$arg": "name"} is replaced by that argument
	// (and dropped from its parent object when the argument is absent); everything else is literal.
	Body     any            `json:"body,omitempty"`
	Response *ResponseShape `json:"response,omitempty"`
}

// Value is a query or header value: a JSON string is a literal, {"$arg": "name"} takes an argument.
// {"$arg": "name", "explode": true} (query only) sends an array argument as one parameter per element
// (statuses[]=a&statuses[]=b) instead of one comma-joined parameter.
type Value struct {
	Literal string
	Arg     string
	Explode bool
}

// UnmarshalJSON accepts "literal", {"$arg": "name"} or {"$arg": "name", "explode": true}.
func (v *Value) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*v = Value{Literal: s}
		return nil
	}
	bad := errors.New(`a value must be a string, {"$arg": "<argument name>"} or {"$arg": "<argument name>", "explode": true}`)
	var ref map[string]json.RawMessage
	if err := json.Unmarshal(b, &ref); err != nil {
		return bad
	}
	var out Value
	for k, raw := range ref {
		switch k {
		case "$arg":
			if json.Unmarshal(raw, &out.Arg) != nil || out.Arg == "" {
				return bad
			}
		case "explode":
			if json.Unmarshal(raw, &out.Explode) != nil {
				return bad
			}
		default:
			return bad
		}
	}
	if out.Arg == "" {
		return bad
	}
	*v = out
	return nil
}

// MarshalJSON writes the form UnmarshalJSON reads.
func (v Value) MarshalJSON() ([]byte, error) {
	switch {
	case v.Arg != "" && v.Explode:
		return json.Marshal(map[string]any{"$arg": v.Arg, "explode": true})
	case v.Arg != "":
		return json.Marshal(map[string]string{"$arg": v.Arg})
	}
	return json.Marshal(v.Literal)
}

// ResponseShape keeps the useful part of a provider response.
type ResponseShape struct {
	// Pointer (RFC 6901) selects the part of the response document to return.
	Pointer string `json:"pointer,omitempty"`
	// Fields keeps only these fields of the selected object, or of each object of the selected array.
	// A dotted name ("owner.login") keeps a nested field.
	Fields []string `json:"fields,omitempty"`
	// Cursor says where the next-page cursor is; when set the result is {"items":…, "next_cursor":…}.
	Cursor *Cursor `json:"cursor,omitempty"`
	// ErrorPointer names an array in the response (GraphQL "/errors") that, when non-empty, makes the
	// call fail with its messages even on HTTP 200.
	ErrorPointer string `json:"error_pointer,omitempty"`
	// Default is the selection when Pointer finds nothing in a 2xx answer (Gmail leaves "messages"
	// out of an empty list, so its default is []). Without it a missing pointer fails the call.
	Default any `json:"default,omitempty"`
}

// Cursor sources.
const (
	CursorLinkHeader = "link_header" // RFC 8288 Link header, rel="next"; Param names its query parameter
	CursorBody       = "body"        // a JSON pointer into the full response document
)

// Cursor locates the pagination cursor.
type Cursor struct {
	From    string `json:"from"`
	Param   string `json:"param,omitempty"`
	Pointer string `json:"pointer,omitempty"`
}

// FieldError is one problem in a plugin's files, naming the file and the field.
type FieldError struct {
	File  string
	Field string
	Msg   string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.File, e.Field, e.Msg)
}

// FieldErrors is every problem found in one plugin.
type FieldErrors []*FieldError

func (es FieldErrors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

var (
	integrationNameRE = regexp.MustCompile(`^[a-z0-9-]{2,40}$`)
	toolNameRE        = regexp.MustCompile(`^[a-z0-9_]+$`)
	placeholderRE     = regexp.MustCompile(`\{([^{}]*)\}`)
	headerNameRE      = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$") // RFC 9110 token
)

// Reserved integration names: built into the server, never loadable from a plugin folder (spec, how it
// works: "The packages").
var reservedNames = map[string]bool{"browser": true, "jots": true}

// IsReserved reports whether name belongs to an integration built into the server.
func IsReserved(name string) bool { return reservedNames[name] }

// ToolPrefix is the prefix every tool of the integration must carry: its name with hyphens turned into
// underscores, then an underscore ("atlassian-jira" → "atlassian_jira_").
func ToolPrefix(integration string) string {
	return strings.ReplaceAll(integration, "-", "_") + "_"
}

// credentialHeaders may not be set by a manifest's headers: credentials are the injector's business.
var credentialHeaders = map[string]bool{"authorization": true, "cookie": true, "host": true, "proxy-authorization": true}

// decodeStrict decodes one JSON document, refusing unknown fields and trailing data.
func decodeStrict(file string, data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return &FieldError{File: file, Field: te.Field, Msg: fmt.Sprintf("must be %s, got JSON %s", te.Type, te.Value)}
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return &FieldError{File: file, Msg: "invalid JSON: the document ends early"}
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return &FieldError{File: file, Msg: fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, err)}
		}
		return &FieldError{File: file, Msg: strings.TrimPrefix(err.Error(), "json: ")}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &FieldError{File: file, Msg: "unexpected data after the JSON document"}
	}
	return nil
}

// ParseManifest decodes manifest.json strictly and validates it.
func ParseManifest(data []byte) (*Manifest, error) {
	var m Manifest
	if err := decodeStrict(ManifestFile, data, &m); err != nil {
		return nil, err
	}
	if errs := m.Validate(); len(errs) > 0 {
		return nil, errs
	}
	return &m, nil
}

// ParseTools decodes tools.json (a JSON array of tools) strictly. The tools are validated against their
// manifest by ValidateTools.
func ParseTools(data []byte) ([]ToolSpec, error) {
	var ts []ToolSpec
	if err := decodeStrict(ToolsFile, data, &ts); err != nil {
		return nil, err
	}
	return ts, nil
}

// Validate checks the manifest on its own and returns every problem found.
func (m *Manifest) Validate() FieldErrors {
	var errs FieldErrors
	add := func(field, format string, args ...any) {
		errs = append(errs, &FieldError{File: ManifestFile, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	switch {
	case m.Name == "":
		add("name", "is required")
	case !integrationNameRE.MatchString(m.Name):
		add("name", "%q must be 2 to 40 characters of a-z, 0-9 and -", m.Name)
	case IsReserved(m.Name):
		add("name", "%q is reserved for an integration built into the server", m.Name)
	}
	if strings.TrimSpace(m.Version) == "" {
		add("version", "is required")
	}
	if strings.TrimSpace(m.DisplayName) == "" {
		add("display_name", "is required")
	}
	if strings.TrimSpace(m.Description) == "" {
		add("description", "is required")
	}
	if m.Logo != "" {
		if strings.Contains(m.Logo, "://") {
			if err := checkURL(m.Logo, false); err != nil {
				add("logo", "%v", err)
			}
		} else if strings.ContainsAny(m.Logo, `/\`) || strings.HasPrefix(m.Logo, ".") || !strings.HasSuffix(m.Logo, ".svg") {
			add("logo", "%q must be an .svg file name in the plugin folder or an https URL", m.Logo)
		}
	}
	for i, c := range m.Categories {
		if strings.TrimSpace(c) == "" {
			add(fmt.Sprintf("categories[%d]", i), "is empty")
		}
	}
	if m.Policy != nil {
		if len(m.Policy.DefaultOff) > maxPolicyPatterns {
			add("policy.default_off", "has %d patterns; at most %d are allowed", len(m.Policy.DefaultOff), maxPolicyPatterns)
		}
		for i, p := range m.Policy.DefaultOff {
			if strings.TrimSpace(p) == "" || len(p) > maxPolicyPatternLn || strings.ContainsFunc(p, unicode.IsControl) {
				add(fmt.Sprintf("policy.default_off[%d]", i), "must be a tool name pattern of 1 to %d characters without control characters", maxPolicyPatternLn)
			}
		}
	}
	keys := m.credentialKeySet()
	if m.BaseURL != "" {
		if err := checkBaseURL(m.BaseURL, keys); err != nil {
			add("base_url", "%v", err)
		}
	}
	for _, name := range sortedKeys(m.Headers) {
		if !headerNameRE.MatchString(name) {
			add("headers."+name, "is not a valid header name")
		} else if credentialHeaders[strings.ToLower(name)] {
			add("headers."+name, "may not be set by a manifest: credentials are injected by the server")
		}
	}
	if m.Proxy != nil {
		switch {
		case m.Proxy.BaseURL != "":
			if err := checkBaseURL(m.Proxy.BaseURL, keys); err != nil {
				add("proxy.base_url", "%v", err)
			}
		case m.BaseURL == "":
			add("proxy.base_url", "is required when the manifest has no base_url")
		}
	}
	m.validateAuth(add)
	return errs
}

// checkBaseURL checks a base URL that may hold {credential.<key>} placeholders: only in its path, and
// only naming declared keys, so the origin every request goes to is fixed by the manifest.
func checkBaseURL(raw string, keys map[string]bool) error {
	plain := raw
	for _, mm := range credentialPlaceholderRE.FindAllStringSubmatch(raw, -1) {
		if !keys[mm[1]] {
			return fmt.Errorf("%q: {credential.%s} is not a key of auth.oauth2.post_consent.extra", raw, mm[1])
		}
	}
	plain = credentialPlaceholderRE.ReplaceAllString(raw, "x")
	if strings.ContainsAny(plain, "{}") {
		return fmt.Errorf("%q: the only placeholders a base URL may hold are {credential.<key>}", raw)
	}
	if err := checkURL(plain, true); err != nil {
		return err
	}
	_, rest, _ := strings.Cut(raw, "://")
	if authority, _, _ := strings.Cut(rest, "/"); strings.Contains(authority, "{") {
		return fmt.Errorf("%q: placeholders may only be in the path, so the host stays fixed", raw)
	}
	return nil
}

// checkURL requires an absolute https URL without user info, query or fragment (base URLs), or any
// absolute https URL (endpoints and logos). Plain http is refused here; the registry relaxes that for
// loopback hosts when Options.AllowInsecureHTTP is set.
func checkURL(raw string, base bool) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %w", raw, err)
	}
	if u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
		return fmt.Errorf("%q must be an absolute https URL", raw)
	}
	if u.User != nil {
		return fmt.Errorf("%q may not carry user info", raw)
	}
	if base && (u.RawQuery != "" || u.Fragment != "") {
		return fmt.Errorf("%q may not have a query or fragment", raw)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
