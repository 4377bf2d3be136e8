package config

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/workbench/workbench/domain/identitydom"
)

// Environment variables of portal sign-in (Config.SignIn). The OIDC names carry "_OIDC_" so that
// they cannot collide with a plugin's client credentials (<PLUGIN>_CLIENT_ID: a plugin named
// "keycloak" owns KEYCLOAK_CLIENT_ID).
const (
	EnvGoogleClientID       = "GOOGLE_OIDC_CLIENT_ID"
	EnvGoogleClientSecret   = "GOOGLE_OIDC_CLIENT_SECRET"
	EnvKeycloakIssuer       = "KEYCLOAK_OIDC_ISSUER"
	EnvKeycloakClientID     = "KEYCLOAK_OIDC_CLIENT_ID"
	EnvKeycloakClientSecret = "KEYCLOAK_OIDC_CLIENT_SECRET"
	EnvAllowedDomains       = "SIGNIN_ALLOWED_DOMAINS"
	EnvAdminEmail           = "WORKBENCH_ADMIN_EMAIL"
)

// GoogleIssuer is Google's OpenID issuer (its discovery document is under it).
const GoogleIssuer = "https://accounts.google.com"

// DefaultAdminEmail is the user the startup link signs in when WORKBENCH_ADMIN_EMAIL is unset. The
// .localhost top-level domain is reserved (RFC 6761 section 6.3), so the address can belong to no one
// else; identity.NormalizeEmail wants a dot in the domain, so "admin@localhost" would not do.
const DefaultAdminEmail = "admin@workbench.localhost"

// OIDCProvider is one OpenID provider the portal signs in through.
type OIDCProvider struct {
	// ID names the provider in the routes (/api/auth/{id}/login): "google" or "keycloak".
	ID string
	// Name is what the sign-in page shows.
	Name string
	// Issuer is the OpenID issuer URL; discovery is <Issuer>/.well-known/openid-configuration.
	Issuer       string
	ClientID     string
	ClientSecret string // empty: a public client (PKCE only)
	// Scopes are requested besides "openid"; nil means email and profile.
	Scopes []string
}

// SignIn is how people sign in to the portal (app/signin).
type SignIn struct {
	// Providers are the configured SSO providers, in the order the sign-in page lists them.
	Providers []OIDCProvider
	// AllowedDomains, when not empty, limits SSO sign-in to addresses in these domains (lower case).
	AllowedDomains []string
	// AdminEmail is the user the one-time startup link signs in (normalised).
	AdminEmail string
}

// readSignIn reads the sign-in settings:
//
//   - GOOGLE_OIDC_CLIENT_ID and GOOGLE_OIDC_CLIENT_SECRET (both, or neither) configure Google;
//   - KEYCLOAK_OIDC_ISSUER (the realm URL, https://host/realms/<realm>) and KEYCLOAK_OIDC_CLIENT_ID
//     configure Keycloak; KEYCLOAK_OIDC_CLIENT_SECRET is optional (empty: a public client);
//   - SIGNIN_ALLOWED_DOMAINS, a comma-separated list of email domains, limits who may sign in by SSO;
//   - WORKBENCH_ADMIN_EMAIL names the user of the startup link (default DefaultAdminEmail).
//
// A half-configured provider is an error that names the missing variable.
func readSignIn(getenv func(string) string) (SignIn, error) {
	r := reader(getenv)
	var s SignIn
	for _, read := range []func(reader) (*OIDCProvider, error){readGoogle, readKeycloak} {
		p, err := read(r)
		if err != nil {
			return SignIn{}, err
		}
		if p != nil {
			s.Providers = append(s.Providers, *p)
		}
	}
	var err error
	if s.AllowedDomains, err = readAllowedDomains(r); err != nil {
		return SignIn{}, err
	}
	admin := r.text(EnvAdminEmail)
	if admin == "" {
		admin = DefaultAdminEmail
	}
	if s.AdminEmail, err = identitydom.NormalizeEmail(admin); err != nil {
		return SignIn{}, fmt.Errorf("%s: %w", EnvAdminEmail, err)
	}
	return s, nil
}

// readGoogle reads Google's client: both variables, or neither (nil).
func readGoogle(r reader) (*OIDCProvider, error) {
	id, secret := r.text(EnvGoogleClientID), r.text(EnvGoogleClientSecret)
	switch {
	case id != "" && secret != "":
		return &OIDCProvider{ID: "google", Name: "Google", Issuer: GoogleIssuer, ClientID: id, ClientSecret: secret}, nil
	case id != "":
		return nil, fmt.Errorf("%s is set but %s is not: Google sign-in needs both (a web application client of the Google Cloud console)", EnvGoogleClientID, EnvGoogleClientSecret)
	case secret != "":
		return nil, fmt.Errorf("%s is set but %s is not", EnvGoogleClientSecret, EnvGoogleClientID)
	}
	return nil, nil
}

// readKeycloak reads the Keycloak realm and client: the issuer and the client id, or neither (nil).
func readKeycloak(r reader) (*OIDCProvider, error) {
	issuer, id, secret := r.text(EnvKeycloakIssuer), r.text(EnvKeycloakClientID), r.text(EnvKeycloakClientSecret)
	switch {
	case issuer != "" && id != "":
		if err := checkIssuer(issuer); err != nil {
			return nil, fmt.Errorf("%s: %w", EnvKeycloakIssuer, err)
		}
		return &OIDCProvider{ID: "keycloak", Name: "Keycloak", Issuer: strings.TrimSuffix(issuer, "/"), ClientID: id, ClientSecret: secret}, nil
	case issuer != "":
		return nil, fmt.Errorf("%s is set but %s is not", EnvKeycloakIssuer, EnvKeycloakClientID)
	case id != "" || secret != "":
		return nil, fmt.Errorf("%s is set but %s is not: set it to the realm URL, e.g. https://sso.example.com/realms/acme", EnvKeycloakClientID, EnvKeycloakIssuer)
	}
	return nil, nil
}

// readAllowedDomains reads SIGNIN_ALLOWED_DOMAINS into lower-case domains (a leading @ is dropped).
func readAllowedDomains(r reader) ([]string, error) {
	var out []string
	for _, d := range strings.Split(r.text(EnvAllowedDomains), ",") {
		d = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(d), "@")))
		if d == "" {
			continue
		}
		if strings.ContainsAny(d, "@/ ") || !strings.Contains(d, ".") {
			return nil, fmt.Errorf("%s: %q is not an email domain such as example.com", EnvAllowedDomains, d)
		}
		out = append(out, d)
	}
	return out, nil
}

// readSignInArea reads the sign-in area: portal sign-in, the instance admins and the lifetime of the
// access tokens issued to MCP clients.
func readSignInArea(r reader, c *Config) error {
	var err error
	if c.SignIn, err = readSignIn(r); err != nil {
		return err
	}
	if c.Admins, err = readAdmins(r, c.SignIn.AdminEmail); err != nil {
		return err
	}
	c.OAuthAccessTokenTTL, err = r.seconds("OAUTH_ACCESS_TOKEN_TTL_SECONDS", 0)
	return err
}

// checkIssuer wants an absolute https URL (http only on a loopback host, for development and tests)
// with no query or fragment (OpenID Connect Discovery 1.0, section 2).
func checkIssuer(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("%q is not an issuer URL such as https://sso.example.com/realms/acme", raw)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if ip := net.ParseIP(u.Hostname()); (ip != nil && ip.IsLoopback()) || u.Hostname() == "localhost" {
			return nil
		}
	}
	return fmt.Errorf("%q must be an https URL", raw)
}
