package connectorcore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors/mcpclient"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/internal/redact"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// CredentialPurpose is the vault purpose of a login's sealed credentials.
const CredentialPurpose = "mcp-login-credentials"

func CredentialSubject(loginID uuid.UUID) string { return "mcp-login:" + loginID.String() }

// Creds are a login's decrypted credentials, keyed by the manifest's field names. They print as
// their field names only.
type Creds map[string]string

func (c Creds) String() string {
	names := make([]string, 0, len(c))
	for k := range c {
		names = append(names, k)
	}
	sort.Strings(names)
	return "Creds(" + strings.Join(names, ",") + ")"
}

// GoString keeps %#v from printing values.
func (c Creds) GoString() string { return c.String() }

func (s *Core) Seal(ctx context.Context, loginID uuid.UUID, c Creds) (domain.Sealed, error) {
	raw, err := json.Marshal(map[string]string(c))
	if err != nil {
		return domain.Sealed{}, err
	}
	return s.Opts.Vault.Seal(ctx, CredentialSubject(loginID), CredentialPurpose, raw)
}

func (s *Core) Open(ctx context.Context, sealed domain.Sealed) (Creds, error) {
	if sealed.IsZero() {
		return Creds{}, nil
	}
	raw, err := s.Opts.Vault.Open(ctx, sealed, CredentialPurpose)
	if err != nil {
		return nil, fmt.Errorf("open login credentials: %w", err)
	}
	var c map[string]string
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("read login credentials: %w", err)
	}
	return c, nil
}

// equal reports whether two credential sets hold the same values.
func (c Creds) Equal(o Creds) bool {
	if len(c) != len(o) {
		return false
	}
	for k, v := range c {
		if ov, ok := o[k]; !ok || ov != v {
			return false
		}
	}
	return true
}

// Token is the value that travels to the endpoint: the field named token, else the first secret
// field, else the first field.
func Token(m *connector.Manifest, c Creds) string {
	if IsOAuth(m) {
		return c[CredAccess]
	}
	fields := m.TokenFields()
	for _, f := range fields {
		if f.Name == "token" {
			return c[f.Name]
		}
	}
	for _, f := range fields {
		if f.Secret {
			return c[f.Name]
		}
	}
	if len(fields) > 0 {
		return c[fields[0].Name]
	}
	return ""
}

// Endpoint is where a login's session goes; ok is false for a connector with no endpoint.
func Endpoint(m *connector.Manifest, c Creds) (mcpclient.Endpoint, bool) {
	if m.Endpoint == nil {
		return mcpclient.Endpoint{}, false
	}
	ep := mcpclient.Endpoint{URL: m.Endpoint.URL}
	if tok := Token(m, c); tok != "" {
		h := m.TokenHeader()
		ep.HeaderName, ep.HeaderValue = h.Name, h.Prefix+tok
	}
	return ep, true
}

// AdapterContext is what an adapter method gets.
func (s *Core) AdapterContext(loginID uuid.UUID, m *connector.Manifest, c Creds, settings json.RawMessage) connector.Context {
	if len(settings) == 0 {
		settings = json.RawMessage("{}")
	}
	ac := connector.Context{Settings: settings, HTTP: s.Opts.Pool.HTTPClient()}
	if ep, ok := Endpoint(m, c); ok {
		ac.Remote = Remote{pool: s.Opts.Pool, login: loginID, ep: ep}
	}
	return ac
}

// Redactor replaces every credential value in a text (internal/redact: the value in any case, its
// URL, JSON, hex and base64 forms, split by whitespace, and Basic base64(user:pass) of two fields):
// with Redacted, or with a platform key's label (platformlogins.go).
type Redactor struct{ r *redact.Redactor }

func NewRedactor(c Creds) Redactor { return LabelledRedactor(c, nil) }

// LabelledRedactor replaces the value of field k of c with labels[k], Redacted when it has none.
func LabelledRedactor(c Creds, labels map[string]string) Redactor {
	var secrets []redact.Secret
	for k, v := range c {
		if k == CredInstallation {
			// A GitHub App installation id is a public number, not a secret: redacting it would
			// blank it wherever it appears in a result (an account name, an issue number).
			continue
		}
		with := Redacted
		if l, ok := labels[k]; ok {
			with = l
		}
		secrets = append(secrets, redact.Secret{Value: v, With: with})
	}
	// Map order is random; the forms' order decides nothing, but keep builds alike.
	sort.Slice(secrets, func(i, j int) bool { return secrets[i].Value < secrets[j].Value })
	return Redactor{redact.New(secrets, secrets)}
}

// Redacted is what replaces a credential value.
const Redacted = "[REDACTED]"

func (r Redactor) Text(s string) string { return r.r.String(s) }

// json redacts a JSON text; it stays JSON, and b itself comes back when nothing matched.
func (r Redactor) JSON(b []byte) []byte { return r.r.Bytes(b) }

// ProviderError turns an adapter's or endpoint's failure into the answer: a refused key is 422, an
// address the check refuses is 422, anything else 502; messages are redacted.
func ProviderError(what string, err error, r Redactor) error {
	if errors.Is(err, mcpclient.ErrAddress) {
		return domain.Errorf(domain.CodeUnprocessable, "%s: %s", what, r.Text(err.Error()))
	}
	if Rejected(err) {
		return domain.Errorf(domain.CodeUnprocessable, "%s: the provider refused the credentials", what)
	}
	var de *domain.Error
	if errors.As(err, &de) {
		return &domain.Error{Code: de.Code, Message: r.Text(de.Message)}
	}
	var ce *connector.Error
	if errors.As(err, &ce) {
		return domain.Errorf(domain.CodeUpstream, "%s: %s", what, r.Text(ce.Error()))
	}
	var me *mcpclient.Error
	if errors.As(err, &me) {
		return domain.Errorf(domain.CodeUpstream, "%s: %s", what, r.Text(me.Error()))
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return domain.Errorf(domain.CodeUpstream, "%s: the provider did not answer in time", what)
	}
	return domain.Errorf(domain.CodeUpstream, "%s: the provider failed", what)
}

// ServerFor reads a catalog row and its manifest; CodeNotFound when there is none.
func (s *Core) ServerFor(ctx context.Context, id string) (connectorsrm.Server, *connector.Manifest, error) {
	srv, err := s.Reader.Server(ctx, id)
	if err != nil {
		return srv, nil, err
	}
	m, err := s.ManifestOf(srv)
	return srv, m, err
}

// Rejected reports whether an adapter or an endpoint refused the credentials (401 or 403).
func Rejected(err error) bool { return connector.Rejected(err) || mcpclient.Rejected(err) }

// remote is the pool's session of one login as an adapter's ctx.remote.
type Remote struct {
	pool  Pool
	login uuid.UUID
	ep    mcpclient.Endpoint
}

func (r Remote) ListTools(ctx context.Context) ([]connector.Tool, error) {
	ts, err := r.pool.ListTools(ctx, r.login, r.ep)
	return FromPool(ts), err
}

func (r Remote) CallTool(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	return r.pool.CallTool(ctx, r.login, r.ep, name, args)
}

func FromPool(ts []mcpclient.Tool) []connector.Tool {
	out := make([]connector.Tool, len(ts))
	for i, t := range ts {
		out[i] = connector.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, ReadOnlyHint: t.ReadOnlyHint, DestructiveHint: t.DestructiveHint, TaskSupport: t.TaskSupport,
			OutputSchema: t.OutputSchema}
	}
	return out
}

// IsOAuth reports whether a connector signs in with OAuth.
func IsOAuth(m *connector.Manifest) bool { return m.Auth.Kind == connector.AuthOAuth }

// Credential fields the core reads: an OAuth login's access token (it travels to the endpoint as a
// bearer token) and a GitHub App login's installation id (a public number, never redacted).
const (
	CredAccess       = "token"
	CredInstallation = "installation_id"
)

// The OAuth strategies (spec connectors.md, OAuth): auth.oauth.strategy says where a sign-in's client
// and endpoints come from. Every strategy signs in with the same machinery (oauth.go): the pending
// login holding the sealed half of the sign-in, the signed state, the callback, the tokens sealed.
const (
	// StrategyDynamic registers a public client at the server's authorization server (RFC 7591).
	StrategyDynamic = "dynamic"
	// StrategyConfigured uses a client the box holds: the integration auth.oauth.provider names (its
	// endpoints from the integration's manifest), else the connector's own platform key.
	StrategyConfigured = "configured"
	// StrategyGitHubApp installs the box's GitHub App (githubapp.go).
	StrategyGitHubApp = "github_app"
)
