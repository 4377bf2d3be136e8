package plugins

import (
	"fmt"
	"net/url"
	"strings"
)

// Validation of a manifest's auth block: the connect modes (OAuth 2.0, API key, cookie) and where a
// credential is injected. Manifest.Validate calls validateAuth.

// reservedAuthorizeParams are set by the connect flow and may not be overridden by a manifest.
var reservedAuthorizeParams = map[string]bool{
	"response_type": true, "client_id": true, "redirect_uri": true, "state": true, "scope": true,
	"code_challenge": true, "code_challenge_method": true,
}

func (m *Manifest) validateAuth(add func(field, format string, args ...any)) {
	a := m.Auth
	blocks := map[AuthMode]bool{AuthOAuth2: a.OAuth2 != nil, AuthAPIKey: a.APIKey != nil, AuthCookie: a.Cookie != nil}
	switch a.Mode {
	case AuthOAuth2, AuthAPIKey, AuthCookie:
		if !blocks[a.Mode] {
			add("auth."+string(a.Mode), "is required when auth.mode is %q", a.Mode)
		}
	case AuthNone:
	case "":
		add("auth.mode", "is required (oauth2, apikey, cookie or none)")
	default:
		add("auth.mode", "%q is not one of oauth2, apikey, cookie, none", a.Mode)
	}
	for _, mode := range []AuthMode{AuthOAuth2, AuthAPIKey, AuthCookie} {
		if blocks[mode] && mode != a.Mode {
			add("auth."+string(mode), "is set but auth.mode is %q", a.Mode)
		}
	}
	if o := a.OAuth2; o != nil && a.Mode == AuthOAuth2 {
		if o.AuthorizeURL == "" {
			add("auth.oauth2.authorize_url", "is required")
		} else if err := checkURL(o.AuthorizeURL, false); err != nil {
			add("auth.oauth2.authorize_url", "%v", err)
		}
		if o.TokenURL == "" {
			add("auth.oauth2.token_url", "is required")
		} else if err := checkURL(o.TokenURL, false); err != nil {
			add("auth.oauth2.token_url", "%v", err)
		}
		for i, s := range o.Scopes {
			if s == "" || strings.ContainsAny(s, " \t\n") {
				add(fmt.Sprintf("auth.oauth2.scopes[%d]", i), "%q must be one non-empty scope without spaces", s)
			}
		}
		switch o.TokenAuthStyle {
		case "", TokenAuthBasic, TokenAuthBody:
		default:
			add("auth.oauth2.token_auth_style", "%q is not one of basic, body", o.TokenAuthStyle)
		}
		for _, k := range sortedKeys(o.AuthorizeParams) {
			if reservedAuthorizeParams[k] {
				add("auth.oauth2.authorize_params."+k, "is set by the connect flow and may not be overridden")
			}
		}
		if ts := o.TokenSource; ts != nil {
			for field, v := range map[string]string{"default": ts.Default, "fallback": ts.Fallback} {
				if v == "" && field == "fallback" {
					continue
				}
				if v != TokenFromAccessToken && v != TokenFromAuthedUser {
					add("auth.oauth2.token_source."+field, "%q is not one of access_token, authed_user", v)
				}
			}
		}
		for i, tt := range o.TokenTypes {
			if tt == "" || strings.ContainsAny(tt, " \t\n") {
				add(fmt.Sprintf("auth.oauth2.token_types[%d]", i), "%q must be one word", tt)
			}
		}
		if pc := o.PostConsent; pc != nil {
			if pc.URL == "" {
				add("auth.oauth2.post_consent.url", "is required")
			} else if err := checkURL(pc.URL, false); err != nil {
				add("auth.oauth2.post_consent.url", "%v", err)
			}
			if len(pc.Extra) == 0 {
				add("auth.oauth2.post_consent.extra", "needs at least one key")
			}
			for _, k := range sortedKeys(pc.Extra) {
				if !toolNameRE.MatchString(k) {
					add("auth.oauth2.post_consent.extra."+k, "the key must be lowercase a-z, 0-9 and _")
				}
				if !strings.HasPrefix(pc.Extra[k], "/") {
					add("auth.oauth2.post_consent.extra."+k, "%q must be a JSON pointer starting with /", pc.Extra[k])
				}
			}
		}
	}
	if k := a.APIKey; k != nil && a.Mode == AuthAPIKey {
		if len(k.Fields) == 0 {
			add("auth.apikey.fields", "needs at least one field")
		}
		seen := map[string]bool{}
		for i, f := range k.Fields {
			field := fmt.Sprintf("auth.apikey.fields[%d]", i)
			switch {
			case !toolNameRE.MatchString(f.Name):
				add(field+".name", "%q must be lowercase a-z, 0-9 and _", f.Name)
			case seen[f.Name]:
				add(field+".name", "%q is declared twice", f.Name)
			}
			seen[f.Name] = true
			if strings.TrimSpace(f.Label) == "" {
				add(field+".label", "is required")
			}
		}
		validateInject(k.Inject, "auth.apikey.inject", add)
		if v := k.Verify; v != nil {
			if m.BaseURL == "" {
				add("auth.apikey.verify", "needs the manifest's base_url")
			}
			if !methods[v.Method] {
				add("auth.apikey.verify.method", "%q is not one of GET, POST, PUT, PATCH, DELETE, HEAD", v.Method)
			}
			if !strings.HasPrefix(v.Path, "/") || strings.HasPrefix(v.Path, "//") || strings.ContainsAny(v.Path, "?#{}") {
				add("auth.apikey.verify.path", "%q must start with a single / and hold no ?, #, { or }", v.Path)
			}
			if v.Body != nil && (v.Method == "GET" || v.Method == "HEAD") {
				add("auth.apikey.verify.body", "is not allowed with %s", v.Method)
			}
			if v.ErrorPointer != "" && !strings.HasPrefix(v.ErrorPointer, "/") {
				add("auth.apikey.verify.error_pointer", "%q must be a JSON pointer starting with /", v.ErrorPointer)
			}
		}
		switch {
		case k.Inject.Field == "" && len(k.Fields) > 1:
			add("auth.apikey.inject.field", "is required when there is more than one field")
		case k.Inject.Field != "" && !seen[k.Inject.Field]:
			add("auth.apikey.inject.field", "%q is not one of the declared fields", k.Inject.Field)
		}
		targets := map[string]string{}
		for i, inj := range k.Injections() {
			at := "auth.apikey.inject"
			if i > 0 {
				at = fmt.Sprintf("auth.apikey.extra_inject[%d]", i-1)
				validateInject(inj, at, add)
				switch {
				case inj.Field == "":
					add(at+".field", "is required")
				case !seen[inj.Field]:
					add(at+".field", "%q is not one of the declared fields", inj.Field)
				}
			}
			for j, f := range k.Fields {
				if f.Name == inj.Field && f.Optional {
					add(fmt.Sprintf("auth.apikey.fields[%d].optional", j), "the injected field %q cannot be optional", f.Name)
				}
			}
			target := inj.In + ":" + inj.Name
			if inj.In == "header" {
				target = inj.In + ":" + strings.ToLower(inj.Name)
			}
			if prev, dup := targets[target]; dup && inj.Name != "" {
				add(at+".name", "%s %q is already injected by %s", inj.In, inj.Name, prev)
			}
			targets[target] = at
		}
	}
	if c := a.Cookie; c != nil && a.Mode == AuthCookie {
		if len(c.Domains) == 0 {
			add("auth.cookie.domains", "needs at least one domain")
		}
		for i, d := range c.Domains {
			if d == "" || strings.ContainsAny(d, "/: ") {
				add(fmt.Sprintf("auth.cookie.domains[%d]", i), "%q is not a domain name", d)
			}
		}
		if c.SignInURL != "" {
			validateSignInURL(c.SignInURL, c.Domains, add)
		}
	}
}

// maxSignInURL bounds auth.cookie.signin_url.
const maxSignInURL = 2048

// validateSignInURL checks auth.cookie.signin_url: an absolute http(s) URL without user info or
// fragment, at most maxSignInURL bytes, without control characters, whose host is one of domains or
// under one (so the live browser only ever opens a page of the service whose cookies it keeps). http is
// refused later, by the registry, unless the host is loopback and Options.AllowInsecureHTTP is set.
func validateSignInURL(raw string, domains []string, add func(field, format string, args ...any)) {
	const field = "auth.cookie.signin_url"
	if len(raw) > maxSignInURL || strings.ContainsFunc(raw, func(r rune) bool { return r < 0x20 || r == 0x7f || r == ' ' }) {
		add(field, "must be a URL of at most %d characters without spaces or control characters", maxSignInURL)
		return
	}
	if err := checkURL(raw, false); err != nil {
		add(field, "%v", err)
		return
	}
	u, _ := url.Parse(raw)
	if u.Fragment != "" {
		add(field, "%q may not have a fragment", raw)
		return
	}
	host := strings.ToLower(u.Hostname())
	for _, d := range domains {
		d = strings.ToLower(strings.TrimPrefix(d, "."))
		if d != "" && (host == d || strings.HasSuffix(host, "."+d)) {
			return
		}
	}
	add(field, "%q is not on a domain of auth.cookie.domains", raw)
}

// validateInject checks where one injection goes.
func validateInject(inj APIKeyInject, at string, add func(field, format string, args ...any)) {
	switch inj.In {
	case "header":
		if !headerNameRE.MatchString(inj.Name) {
			add(at+".name", "%q is not a valid header name", inj.Name)
		} else if n := strings.ToLower(inj.Name); n == "cookie" || n == "host" || n == "proxy-authorization" {
			add(at+".name", "%q cannot carry a key", inj.Name)
		}
	case "query":
		if inj.Name == "" {
			add(at+".name", "is required")
		}
		if inj.Prefix != "" {
			add(at+".prefix", "applies to headers only")
		}
	default:
		add(at+".in", "%q is not one of header, query", inj.In)
	}
}
