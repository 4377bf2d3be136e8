package oauthdom

import (
	"errors"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/workbench/workbench/domain"
)

// ClientStreamName is the stream of one registered client: "oauth-client-<client id>".
func ClientStreamName(clientID string) string { return "oauth-client-" + clientID }

// Refusal causes of a registration, for errors.Is on the *domain.Error's cause. RFC 7591 section 3.2.2
// names the error codes a server answers with.
var (
	ErrInvalidRedirectURI    = errors.New("invalid_redirect_uri")
	ErrInvalidClientMetadata = errors.New("invalid_client_metadata")
)

// Limits on registered metadata.
const (
	MaxClientNameLen   = 100
	MaxRedirectURIs    = 10
	MaxRedirectURILen  = 2000
	GrantAuthorization = "authorization_code"
	GrantRefresh       = "refresh_token"
	ResponseCode       = "code"
)

// Client is a registered client as the log knows it. The zero Client does not exist.
type Client struct {
	ClientID      string
	ClientName    string
	RedirectURIs  []string
	GrantTypes    []string
	ResponseTypes []string
	Scopes        []string
	RegisteredAt  time.Time
}

// Exists reports whether the client was registered.
func (c Client) Exists() bool { return c.ClientID != "" }

// EvolveClient folds one event into a client.
func EvolveClient(c Client, ev domain.Event) Client {
	if e, ok := ev.(ClientRegistered); ok {
		//lint:ignore S1016 the event and the state are separate types whose fields may diverge
		c = Client{ClientID: e.ClientID, ClientName: e.ClientName, RedirectURIs: e.RedirectURIs,
			GrantTypes: e.GrantTypes, ResponseTypes: e.ResponseTypes, Scopes: e.Scopes, RegisteredAt: e.RegisteredAt}
	}
	return c
}

// InitialClient is the state of a client stream with no events.
func InitialClient() Client { return Client{} }

// RegisterClient registers a client with the metadata the registration endpoint settled on (defaults
// filled in). The id is chosen by the server, never by the client.
type RegisterClient struct {
	ClientID      string
	ClientName    string
	RedirectURIs  []string
	GrantTypes    []string
	ResponseTypes []string
	Scopes        []string
	At            time.Time
}

// DecideClient checks a registration. Every refusal is a CodeInvalid *domain.Error whose message says
// which value is wrong and why, and whose cause is ErrInvalidRedirectURI or ErrInvalidClientMetadata.
func DecideClient(c Client, cmd RegisterClient) ([]domain.Event, error) {
	if cmd.ClientID == "" {
		return nil, domain.Errorf(domain.CodeInvalid, "register client: no client id")
	}
	if cmd.At.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "register client: the command carries no time")
	}
	if len(cmd.RedirectURIs) == 0 {
		return nil, redirectErr("redirect_uris is required: register at least one redirect URI")
	}
	if len(cmd.RedirectURIs) > MaxRedirectURIs {
		return nil, redirectErr("at most %d redirect URIs may be registered", MaxRedirectURIs)
	}
	for _, u := range cmd.RedirectURIs {
		if err := ValidateRedirectURI(u); err != nil {
			return nil, err
		}
	}
	if err := checkName(cmd.ClientName); err != nil {
		return nil, err
	}
	if len(cmd.GrantTypes) == 0 || !slices.Contains(cmd.GrantTypes, GrantAuthorization) {
		return nil, metadataErr("grant_types must include authorization_code")
	}
	for _, g := range cmd.GrantTypes {
		if g != GrantAuthorization && g != GrantRefresh {
			return nil, metadataErr("grant type %q is not supported: only authorization_code and refresh_token are", g)
		}
	}
	if !slices.Equal(cmd.ResponseTypes, []string{ResponseCode}) {
		return nil, metadataErr(`response_types must be ["code"]: only the authorization code flow is supported`)
	}
	for _, s := range cmd.Scopes {
		if !validScopeToken(s) {
			return nil, metadataErr("scope %q is not a valid scope token (RFC 6749 section 3.3)", s)
		}
	}
	if c.Exists() {
		return nil, domain.Errorf(domain.CodeConflict, "register client: client id %s is taken", cmd.ClientID)
	}
	return []domain.Event{ClientRegistered{
		ClientID: cmd.ClientID, ClientName: cmd.ClientName, RedirectURIs: slices.Clone(cmd.RedirectURIs),
		GrantTypes: slices.Clone(cmd.GrantTypes), ResponseTypes: slices.Clone(cmd.ResponseTypes),
		Scopes: slices.Clone(cmd.Scopes), RegisteredAt: cmd.At.UTC(),
	}}, nil
}

// ValidateRedirectURI accepts an https URI, or an http URI whose host is a loopback address or
// "localhost" (RFC 8252 section 7.3; OAuth 2.1 section 2.3.1), with no fragment (RFC 6749 section
// 3.1.2), no user information, and no wildcard. Redirect URIs are compared as exact strings, so the
// registered form is the only form that will ever match.
func ValidateRedirectURI(raw string) error {
	switch {
	case raw == "":
		return redirectErr("a redirect URI is empty")
	case len(raw) > MaxRedirectURILen:
		return redirectErr("redirect URI is longer than %d characters", MaxRedirectURILen)
	case strings.ContainsFunc(raw, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }):
		return redirectErr("redirect URI %q contains white space or control characters", raw)
	case strings.Contains(raw, "*"):
		return redirectErr("redirect URI %q contains a wildcard: register every redirect URI exactly", raw)
	case strings.Contains(raw, "#"):
		return redirectErr("redirect URI %q has a fragment, which RFC 6749 section 3.1.2 forbids", raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return redirectErr("redirect URI %q is not a URI: %v", raw, err)
	}
	if !strings.HasPrefix(raw, "https://") && !strings.HasPrefix(raw, "http://") {
		return redirectErr("redirect URI %q must be https (or http on a loopback address), written in lower case", raw)
	}
	if u.User != nil {
		return redirectErr("redirect URI %q carries user information, which is refused", raw)
	}
	if u.Host == "" || u.Hostname() == "" {
		return redirectErr("redirect URI %q has no host", raw)
	}
	if u.Scheme == "http" && !IsLoopbackHost(u.Hostname()) {
		return redirectErr("redirect URI %q uses http on a host that is not loopback: use https, or http://127.0.0.1, http://[::1] or http://localhost", raw)
	}
	return nil
}

// IsLoopbackHost reports whether host names the local machine: a loopback IP or "localhost".
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func checkName(name string) error {
	if len([]rune(name)) > MaxClientNameLen {
		return metadataErr("client_name is longer than %d characters", MaxClientNameLen)
	}
	if i := strings.IndexFunc(name, UnsafeNameRune); i >= 0 {
		r, _ := utf8.DecodeRuneInString(name[i:])
		return metadataErr("client_name contains the control or bidirectional-formatting character U+%04X; it could disguise the name on the consent page", r)
	}
	return nil
}

// UnsafeNameRune reports whether r may not appear in a client name: a control character, a line or
// paragraph separator, or a bidirectional formatting character (Unicode UAX #9: the embeddings,
// overrides and isolates U+202A–U+202E and U+2066–U+2069, and the marks U+200E, U+200F and U+061C),
// any of which can make a name display as something else, e.g. reverse "exe.tnemucod" (U+202E).
func UnsafeNameRune(r rune) bool {
	switch {
	case unicode.IsControl(r), r == '\u2028', r == '\u2029':
		return true
	case r >= '\u202A' && r <= '\u202E', r >= '\u2066' && r <= '\u2069', r == '\u200E', r == '\u200F', r == '\u061C':
		return true
	}
	return false
}

// validScopeToken reports whether s is a scope-token: 1*( %x21 / %x23-5B / %x5D-7E ).
func validScopeToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b < 0x21 || b > 0x7e || b == '"' || b == '\\' {
			return false
		}
	}
	return true
}

func redirectErr(format string, args ...any) error {
	e := domain.Errorf(domain.CodeInvalid, format, args...)
	e.Err = ErrInvalidRedirectURI
	return e
}

func metadataErr(format string, args ...any) error {
	e := domain.Errorf(domain.CodeInvalid, format, args...)
	e.Err = ErrInvalidClientMetadata
	return e
}
