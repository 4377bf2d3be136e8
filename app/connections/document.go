package connections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/internal/vault"
	"github.com/workbench/workbench/plugins"
)

// Document is the credential a connection's domain.Sealed seals, under the user's data key
// (subject = user id) and the purpose Purpose(integration). Which fields are set depends on the
// integration's auth mode: the token fields for oauth2, Fields for apikey, Cookies for cookie.
//
// It is a secret. It never appears in a log line or an error: its String, GoString, Format and
// LogValue print only "connections.Document{redacted}".
type Document struct {
	AccessToken  string `json:"access_token,omitempty"`
	RefreshToken string `json:"refresh_token,omitempty"`
	TokenType    string `json:"token_type,omitempty"`
	// Scope is the scope the provider granted, as it sent it.
	Scope string `json:"scope,omitempty"`
	// ExpiresAt is the access token's expiry; zero when the provider gave none.
	ExpiresAt time.Time `json:"expires_at,omitzero"`
	// Fields are an API key's values by manifest field name.
	Fields map[string]string `json:"fields,omitempty"`
	// Cookies are a captured cookie bundle (captured in the user's live browser session,
	// workbench-concepts.md "Browser session"; ConnectCookies stores it).
	Cookies []Cookie `json:"cookies,omitempty"`
	// AuthedUser is the second token some providers issue beside the main one: Slack's user token,
	// from the token response's authed_user object (its own refresh token and expiry when token
	// rotation is on). auth.oauth2.token_source says which of the two is injected.
	AuthedUser *Token `json:"authed_user,omitempty"`
	// Extra keeps provider quirks: token-response members this layer does not interpret, and the
	// values of auth.oauth2.post_consent.
	Extra map[string]json.RawMessage `json:"extra,omitempty"`
}

// Token is one access token with its refresh token and expiry.
type Token struct {
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Scope        string    `json:"scope,omitempty"`
	ExpiresAt    time.Time `json:"expires_at,omitzero"`
}

// slot is where the token a connection injects lives in its document: the main token fields, or
// AuthedUser.
type slot string

const (
	slotMain       slot = plugins.TokenFromAccessToken
	slotAuthedUser slot = plugins.TokenFromAuthedUser
)

// source picks the token to inject by the manifest's token_source: its default when the document
// holds that token, else its fallback; the main token when the manifest names no source.
func source(in *plugins.Integration, d Document) slot {
	for _, src := range in.Auth.OAuth2.Sources() {
		switch slot(src) {
		case slotMain:
			if d.AccessToken != "" {
				return slotMain
			}
		case slotAuthedUser:
			if d.AuthedUser != nil && d.AuthedUser.AccessToken != "" {
				return slotAuthedUser
			}
		}
	}
	return slotMain
}

// token returns the token of a slot.
func (d Document) token(s slot) Token {
	if s == slotAuthedUser && d.AuthedUser != nil {
		return *d.AuthedUser
	}
	return Token{AccessToken: d.AccessToken, RefreshToken: d.RefreshToken, Scope: d.Scope, ExpiresAt: d.ExpiresAt}
}

// withToken returns d with the slot's token replaced.
func (d Document) withToken(s slot, t Token) Document {
	if s == slotAuthedUser {
		d.AuthedUser = &t
		return d
	}
	d.AccessToken, d.RefreshToken, d.Scope, d.ExpiresAt = t.AccessToken, t.RefreshToken, t.Scope, t.ExpiresAt
	return d
}

// Cookie is one captured cookie.
type Cookie struct {
	Name     string    `json:"name"`
	Value    string    `json:"value"`
	Domain   string    `json:"domain"`
	Path     string    `json:"path,omitempty"`
	Expires  time.Time `json:"expires,omitzero"`
	Secure   bool      `json:"secure,omitempty"`
	HTTPOnly bool      `json:"http_only,omitempty"`
}

const redacted = "connections.Document{redacted}"

func (Document) String() string             { return redacted }
func (Document) GoString() string           { return redacted }
func (Document) LogValue() slog.Value       { return slog.StringValue(redacted) }
func (Document) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(redacted)) }

// Purpose is the vault purpose a connection's credential is sealed for.
func Purpose(integration string) string { return "connection:" + integration + ":credential" }

// verifierPurpose is the vault purpose of a handshake's PKCE verifier.
func verifierPurpose(integration string) string {
	return "connection:" + integration + ":pkce_verifier"
}

// Sealer is the part of the vault this package uses.
type Sealer interface {
	Seal(ctx context.Context, subject, purpose string, plaintext []byte) (domain.Sealed, error)
	Open(ctx context.Context, sealed domain.Sealed, purpose string) ([]byte, error)
}

func (s *Service) sealDocument(ctx context.Context, user uuid.UUID, integration string, doc Document) (domain.Sealed, error) {
	raw, err := json.Marshal(doc)
	if err != nil {
		return domain.Sealed{}, fmt.Errorf("encode credential: %w", err)
	}
	sealed, err := s.vault.Seal(ctx, user.String(), Purpose(integration), raw)
	if err != nil {
		return domain.Sealed{}, fmt.Errorf("seal credential: %w", err)
	}
	return sealed, nil
}

// openDocument opens a connection's credential, checking first that it is sealed for the user who
// owns the connection (the vault trusts Sealed.Subject to pick the key).
func (s *Service) openDocument(ctx context.Context, user uuid.UUID, integration string, sealed domain.Sealed) (Document, error) {
	if sealed.Subject != user.String() {
		return Document{}, fmt.Errorf("credential of %s is sealed for another subject", integration)
	}
	raw, err := s.vault.Open(ctx, sealed, Purpose(integration))
	if err != nil {
		return Document{}, credentialUnreadable(integration, err)
	}
	var doc Document
	if err := json.Unmarshal(raw, &doc); err != nil {
		// The JSON error could quote the plaintext; never wrap it.
		return Document{}, fmt.Errorf("credential of %s is not a credential document", integration)
	}
	return doc, nil
}

// credentialUnreadable is the caller-safe error for a stored credential the vault would not open. It
// is a *domain.Error, so the plugin runtime passes it through as the injector's own error instead of
// reporting a failed request: no request was made. A key problem (a master key missing, a blob that
// does not authenticate, a data key gone) is for the operator and retrying cannot help; anything else
// (the key table unreachable) is a storage failure worth retrying.
func credentialUnreadable(integration string, err error) error {
	switch {
	case errors.Is(err, vault.ErrShredded):
		return &domain.Error{Code: domain.CodeNotConnected, Err: err,
			Message: fmt.Sprintf("the stored credential of %s was destroyed; connect %s again", integration, integration)}
	case errors.Is(err, vault.ErrMasterKeyMissing), errors.Is(err, vault.ErrTampered), errors.Is(err, vault.ErrNoDataKey):
		return &domain.Error{Code: domain.CodeInternal, Err: err,
			Message: fmt.Sprintf("the stored credential of %s cannot be decrypted with this server's encryption key, so nothing was sent to %s; "+
				"the Workbench administrator must check ENCRYPTION_KEY and ENCRYPTION_KEY_PREVIOUS", integration, integration)}
	default:
		return &domain.Error{Code: domain.CodeUnavailable, Err: err,
			Message: fmt.Sprintf("the stored credential of %s could not be read from storage, so nothing was sent to %s; try again shortly", integration, integration)}
	}
}
