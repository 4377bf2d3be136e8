package connections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/plugins"
)

// Limits on what a provider's token endpoint may send back. Its answer is untrusted input.
const (
	maxTokenResponse = 1 << 20
	maxTokenLen      = 16 << 10
	maxScopeLen      = 4 << 10
	// maxExpiresIn caps expires_in at ten years, so an absurd value cannot overflow a time.
	maxExpiresIn = 10 * 365 * 24 * 3600
)

// tokenResponse is a successful token endpoint answer (RFC 6749 section 5.1).
type tokenResponse struct {
	AccessToken  string
	RefreshToken string
	TokenType    string
	Scope        string
	ExpiresIn    int64 // seconds; 0 when the provider gave none
	Extra        map[string]json.RawMessage
	// AuthedUser is Slack's user token (the authed_user object), when the answer carries one.
	AuthedUser *tokenResponse
}

// document is the credential document of a fresh grant, received at now.
func (t tokenResponse) document(now time.Time) Document {
	d := Document{AccessToken: t.AccessToken, RefreshToken: t.RefreshToken, TokenType: t.TokenType, Scope: t.Scope, Extra: t.Extra}
	if t.ExpiresIn > 0 {
		d.ExpiresAt = now.Add(time.Duration(t.ExpiresIn) * time.Second)
	}
	if u := t.AuthedUser; u != nil {
		d.AuthedUser = &Token{AccessToken: u.AccessToken, RefreshToken: u.RefreshToken, Scope: u.Scope}
		if u.ExpiresIn > 0 {
			d.AuthedUser.ExpiresAt = now.Add(time.Duration(u.ExpiresIn) * time.Second)
		}
	}
	return d
}

// token is the answer's token for the slot a connection injects.
func (t tokenResponse) token(s slot) tokenResponse {
	if s == slotAuthedUser && t.AuthedUser != nil {
		return *t.AuthedUser
	}
	return t
}

// scopes splits the granted scope: by the manifest's separator, by spaces (RFC 6749 section 3.3)
// and by commas (GitHub answers "repo,read:user").
func (t tokenResponse) scopes(sep string) []string {
	f := func(r rune) bool { return r == ' ' || r == ',' || (sep != "" && strings.ContainsRune(sep, r)) }
	var out []string
	for _, s := range strings.FieldsFunc(t.Scope, f) {
		if len(s) <= 256 && len(out) < 64 {
			out = append(out, s)
		}
	}
	return out
}

// OAuthError is an error response of a token endpoint (RFC 6749 section 5.2). Code and Description
// are the provider's, cleaned of anything but printable ASCII.
type OAuthError struct {
	Status      int
	Code        string
	Description string
}

func (e *OAuthError) Error() string {
	msg := "the token endpoint answered " + strconv.Itoa(e.Status)
	if e.Code != "" {
		msg += ": " + e.Code
	}
	if e.Description != "" {
		msg += " (" + e.Description + ")"
	}
	return msg
}

// tokenRequest posts a grant to the integration's token endpoint with the client's credentials: a
// public client (no secret) sends its client_id in the body and no authentication (RFC 6749 section
// 2.3, RFC 7636); a confidential one authenticates by the manifest's style, HTTP Basic with the
// form-encoded id and secret (section 2.3.1, the default) or client_id and client_secret in the body.
func (s *Service) tokenRequest(ctx context.Context, in *plugins.Integration, form url.Values) (tokenResponse, error) {
	id, secret, err := s.clientCredentials(ctx, in.Name)
	if err != nil {
		return tokenResponse{}, err
	}
	o := in.Auth.OAuth2
	basic := false
	switch {
	case secret == "":
		form.Set("client_id", id)
	case o.TokenAuthStyle == plugins.TokenAuthBody:
		form.Set("client_id", id)
		form.Set("client_secret", secret)
	default:
		basic = true
	}
	ctx, cancel := context.WithTimeout(ctx, tokenRequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.TokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return tokenResponse{}, fmt.Errorf("token request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic {
		req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	}
	resp, err := s.client.Do(req)
	if err != nil {
		// The URL error names the token URL only; the body (with the code or refresh token) is not in it.
		return tokenResponse{}, &domain.Error{Code: domain.CodeUnavailable, Message: "the token endpoint could not be reached", Err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenResponse+1))
	if err != nil {
		return tokenResponse{}, &domain.Error{Code: domain.CodeUnavailable, Message: "the token endpoint's answer could not be read", Err: err}
	}
	if len(body) > maxTokenResponse {
		return tokenResponse{}, domain.Errorf(domain.CodeUnavailable, "the token endpoint's answer is larger than %d bytes", maxTokenResponse)
	}
	return parseTokenResponse(resp.StatusCode, resp.Header.Get("Content-Type"), body, o.TokenTypes)
}

// parseTokenResponse reads a token endpoint's answer as JSON (RFC 6749 section 5.1), or as a form
// when the provider says so (GitHub without an Accept header). Nothing of the body reaches an error
// but the provider's error code and description, cleaned.
//
// tokenTypes are the manifest's token_type values besides bearer (Slack's "bot" and "user"). Slack's
// authed_user object, when it holds an access_token, is parsed by the same rules into AuthedUser, and
// then the top-level access_token may be absent (a user-scopes-only install).
func parseTokenResponse(status int, contentType string, body []byte, tokenTypes []string) (tokenResponse, error) {
	fields := map[string]json.RawMessage{}
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt == "application/x-www-form-urlencoded" || mt == "text/plain" && !strings.HasPrefix(strings.TrimSpace(string(body)), "{") {
		vals, err := url.ParseQuery(string(body))
		if err != nil {
			return tokenResponse{}, &OAuthError{Status: status, Code: "invalid_response", Description: "the answer is neither JSON nor a form"}
		}
		for k, v := range vals {
			if len(v) > 0 {
				raw, _ := json.Marshal(v[0])
				fields[k] = raw
			}
		}
	} else if err := json.Unmarshal(body, &fields); err != nil {
		return tokenResponse{}, &OAuthError{Status: status, Code: "invalid_response", Description: "the answer is not a JSON object"}
	}
	str := func(k string) (string, bool) {
		raw, ok := fields[k]
		if !ok || string(raw) == "null" {
			return "", true
		}
		var v string
		if json.Unmarshal(raw, &v) != nil {
			return "", false
		}
		return v, true
	}
	if code, _ := str("error"); code != "" || status < 200 || status > 299 {
		desc, _ := str("error_description")
		return tokenResponse{}, &OAuthError{Status: status, Code: cleanCode(code), Description: cleanText(desc, 200)}
	}
	bad := func(what string) (tokenResponse, error) {
		return tokenResponse{}, &OAuthError{Status: status, Code: "invalid_response", Description: what}
	}
	var user *tokenResponse
	if raw, ok := fields["authed_user"]; ok && string(raw) != "null" {
		var nested map[string]json.RawMessage
		if json.Unmarshal(raw, &nested) != nil {
			return bad("authed_user is not an object")
		}
		if _, has := nested["access_token"]; has {
			u, err := tokenFields(status, nested, tokenTypes, true)
			if err != nil {
				var oe *OAuthError
				if errors.As(err, &oe) {
					oe.Description = "authed_user: " + oe.Description
				}
				return tokenResponse{}, err
			}
			user = &u
			// The user token's secrets live in AuthedUser; Extra keeps the rest (the user id).
			delete(nested, "access_token")
			delete(nested, "refresh_token")
			fields["authed_user"], _ = json.Marshal(nested)
		}
	}
	_, hasTop := fields["access_token"]
	t, err := tokenFields(status, fields, tokenTypes, hasTop || user == nil)
	if err != nil {
		return tokenResponse{}, err
	}
	t.AuthedUser = user
	if user != nil && t.AccessToken == "" {
		// Only a user token was issued: the main fields are the user token's, so a provider
		// without token_source still injects it.
		nested := t.Extra
		t = *user
		t.Extra, t.AuthedUser = nested, user
	}
	return t, nil
}

// tokenFields reads the standard members of one token object (RFC 6749 section 5.1); the rest go to
// Extra. requireAccess: the access_token must be present.
func tokenFields(status int, fields map[string]json.RawMessage, tokenTypes []string, requireAccess bool) (tokenResponse, error) {
	str := func(k string) (string, bool) {
		raw, ok := fields[k]
		if !ok || string(raw) == "null" {
			return "", true
		}
		var v string
		if json.Unmarshal(raw, &v) != nil {
			return "", false
		}
		return v, true
	}
	var t tokenResponse
	var ok bool
	bad := func(what string) (tokenResponse, error) {
		return tokenResponse{}, &OAuthError{Status: status, Code: "invalid_response", Description: what}
	}
	if t.AccessToken, ok = str("access_token"); !ok || (requireAccess || t.AccessToken != "") && !validToken(t.AccessToken) {
		return bad("access_token is missing or malformed")
	}
	if t.RefreshToken, ok = str("refresh_token"); !ok || (t.RefreshToken != "" && !validToken(t.RefreshToken)) {
		return bad("refresh_token is malformed")
	}
	if t.TokenType, ok = str("token_type"); !ok {
		return bad("token_type is not a string")
	}
	// Bearer is the only type this layer can inject (RFC 6750); the type is case-insensitive (RFC
	// 6749 section 5.1). A provider that omits it is taken to mean bearer.
	if t.TokenType == "" {
		t.TokenType = "bearer"
	} else if !strings.EqualFold(t.TokenType, "bearer") && !slices.ContainsFunc(tokenTypes, func(tt string) bool { return strings.EqualFold(tt, t.TokenType) }) {
		return bad("token_type " + cleanCode(t.TokenType) + " is not supported (only bearer and the manifest's token_types)")
	}
	if t.Scope, ok = str("scope"); !ok || len(t.Scope) > maxScopeLen || cleanText(t.Scope, maxScopeLen) != t.Scope {
		return bad("scope is malformed")
	}
	if raw, present := fields["expires_in"]; present && string(raw) != "null" {
		n, err := parseExpiresIn(raw)
		if err != nil {
			return bad("expires_in is not a number of seconds")
		}
		t.ExpiresIn = n
	}
	for k, v := range fields {
		switch k {
		case "access_token", "refresh_token", "token_type", "scope", "expires_in", "ok":
		default:
			if t.Extra == nil {
				t.Extra = map[string]json.RawMessage{}
			}
			t.Extra[k] = v
		}
	}
	return t, nil
}

// parseExpiresIn accepts a JSON number or a numeric string (some providers quote it). Zero or less
// means no expiry was given; values are capped at ten years.
func parseExpiresIn(raw json.RawMessage) (int64, error) {
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, errors.New("not a number")
		}
		if f, err = strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
			return 0, errors.New("not a number")
		}
	}
	switch {
	case f != f: // NaN
		return 0, errors.New("not a number")
	case f <= 0:
		return 0, nil
	case f > maxExpiresIn:
		return maxExpiresIn, nil
	}
	return int64(f), nil
}

// validToken accepts what can travel in an Authorization header: 1 to 16 KiB of visible ASCII
// (RFC 6749 appendix A.12 allows VSCHAR; a space or a control character could split a header).
func validToken(s string) bool {
	if s == "" || len(s) > maxTokenLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// cleanCode keeps an error code's characters as RFC 6749 section 5.2 allows them (%x20-21 / %x23-5B /
// %x5D-7E), without spaces, at most 64.
func cleanCode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < 64; i++ {
		c := s[i]
		if c > 0x20 && c < 0x7f && c != '"' && c != '\\' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// cleanText keeps printable ASCII, at most max bytes.
func cleanText(s string, max int) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < max; i++ {
		if c := s[i]; c >= 0x20 && c < 0x7f {
			b.WriteByte(c)
		}
	}
	return b.String()
}
