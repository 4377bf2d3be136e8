package plugins

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// validManifest returns a manifest that passes validation; each case breaks one thing.
func validManifest() Manifest {
	return Manifest{
		Name: "acme-crm", Version: "1.0.0", DisplayName: "Acme CRM", Description: "Customers and deals.",
		BaseURL: "https://api.acme.test/v2",
		Auth: Auth{Mode: AuthOAuth2, OAuth2: &OAuth2{
			AuthorizeURL: "https://acme.test/oauth/authorize", TokenURL: "https://acme.test/oauth/token",
			Scopes: []string{"read", "write"},
		}},
	}
}

func apiKeyAuth() Auth {
	return Auth{Mode: AuthAPIKey, APIKey: &APIKey{
		Fields: []APIKeyField{{Name: "api_key", Label: "API key", Secret: true}},
		Inject: APIKeyInject{In: "header", Name: "X-Api-Key"},
	}}
}

func TestManifestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(m *Manifest)
		field  string // the field the error must name; "" means valid
		msg    string // a fragment of the message
	}{
		{"valid oauth2", func(m *Manifest) {}, "", ""},
		{"valid apikey", func(m *Manifest) { m.Auth = apiKeyAuth() }, "", ""},
		{"valid none without base url", func(m *Manifest) { m.Auth = Auth{Mode: AuthNone}; m.BaseURL = "" }, "", ""},
		{"valid cookie", func(m *Manifest) { m.Auth = Auth{Mode: AuthCookie, Cookie: &Cookie{Domains: []string{"acme.test"}}} }, "", ""},
		{"valid logo url", func(m *Manifest) { m.Logo = "https://cdn.acme.test/logo.svg" }, "", ""},
		{"missing name", func(m *Manifest) { m.Name = "" }, "name", "is required"},
		{"uppercase name", func(m *Manifest) { m.Name = "Acme" }, "name", "2 to 40 characters"},
		{"one-letter name", func(m *Manifest) { m.Name = "a" }, "name", "2 to 40 characters"},
		{"41-letter name", func(m *Manifest) { m.Name = strings.Repeat("a", 41) }, "name", "2 to 40 characters"},
		{"underscore in name", func(m *Manifest) { m.Name = "acme_crm" }, "name", "2 to 40 characters"},
		{"reserved browser", func(m *Manifest) { m.Name = "browser" }, "name", "reserved"},
		{"reserved jots", func(m *Manifest) { m.Name = "jots" }, "name", "reserved"},
		{"missing version", func(m *Manifest) { m.Version = " " }, "version", "is required"},
		{"missing display name", func(m *Manifest) { m.DisplayName = "" }, "display_name", "is required"},
		{"missing description", func(m *Manifest) { m.Description = "" }, "description", "is required"},
		{"logo not svg", func(m *Manifest) { m.Logo = "logo.png" }, "logo", ".svg file name"},
		{"logo climbs out", func(m *Manifest) { m.Logo = "../secret.svg" }, "logo", ".svg file name"},
		{"logo bad url", func(m *Manifest) { m.Logo = "ftp://acme.test/logo.svg" }, "logo", "absolute https URL"},
		{"empty category", func(m *Manifest) { m.Categories = []string{"crm", ""} }, "categories[1]", "is empty"},
		{"relative base url", func(m *Manifest) { m.BaseURL = "/v2" }, "base_url", "absolute https URL"},
		{"base url with query", func(m *Manifest) { m.BaseURL = "https://api.acme.test/?key=1" }, "base_url", "query or fragment"},
		{"base url with user info", func(m *Manifest) { m.BaseURL = "https://u:p@api.acme.test" }, "base_url", "user info"},
		{"authorization header", func(m *Manifest) { m.Headers = map[string]string{"Authorization": "x"} }, "headers.Authorization", "credentials are injected"},
		{"bad header name", func(m *Manifest) { m.Headers = map[string]string{"Bad Header": "x"} }, "headers.Bad Header", "not a valid header name"},
		{"proxy without any base url", func(m *Manifest) { m.BaseURL = ""; m.Proxy = &Proxy{} }, "proxy.base_url", "is required"},
		{"missing auth mode", func(m *Manifest) { m.Auth.Mode = "" }, "auth.mode", "is required"},
		{"unknown auth mode", func(m *Manifest) { m.Auth.Mode = "saml" }, "auth.mode", "not one of"},
		{"oauth2 mode without block", func(m *Manifest) { m.Auth.OAuth2 = nil }, "auth.oauth2", "is required when auth.mode"},
		{"block of another mode", func(m *Manifest) { m.Auth.Cookie = &Cookie{Domains: []string{"acme.test"}} }, "auth.cookie", "is set but auth.mode"},
		{"missing authorize url", func(m *Manifest) { m.Auth.OAuth2.AuthorizeURL = "" }, "auth.oauth2.authorize_url", "is required"},
		{"missing token url", func(m *Manifest) { m.Auth.OAuth2.TokenURL = "" }, "auth.oauth2.token_url", "is required"},
		{"relative token url", func(m *Manifest) { m.Auth.OAuth2.TokenURL = "/token" }, "auth.oauth2.token_url", "absolute https URL"},
		{"scope with space", func(m *Manifest) { m.Auth.OAuth2.Scopes = []string{"read write"} }, "auth.oauth2.scopes[0]", "without spaces"},
		{"bad token auth style", func(m *Manifest) { m.Auth.OAuth2.TokenAuthStyle = "jwt" }, "auth.oauth2.token_auth_style", "not one of basic, body"},
		{"authorize param overrides state", func(m *Manifest) { m.Auth.OAuth2.AuthorizeParams = map[string]string{"state": "x"} }, "auth.oauth2.authorize_params.state", "may not be overridden"},
		{"authorize param overrides pkce", func(m *Manifest) { m.Auth.OAuth2.AuthorizeParams = map[string]string{"code_challenge_method": "plain"} }, "auth.oauth2.authorize_params.code_challenge_method", "may not be overridden"},
		{"apikey without fields", func(m *Manifest) { m.Auth = apiKeyAuth(); m.Auth.APIKey.Fields = nil }, "auth.apikey.fields", "at least one field"},
		{"apikey field bad name", func(m *Manifest) { m.Auth = apiKeyAuth(); m.Auth.APIKey.Fields[0].Name = "Api Key" }, "auth.apikey.fields[0].name", "lowercase"},
		{"apikey field without label", func(m *Manifest) { m.Auth = apiKeyAuth(); m.Auth.APIKey.Fields[0].Label = "" }, "auth.apikey.fields[0].label", "is required"},
		{"apikey duplicate field", func(m *Manifest) {
			m.Auth = apiKeyAuth()
			m.Auth.APIKey.Fields = append(m.Auth.APIKey.Fields, APIKeyField{Name: "api_key", Label: "Again"})
			m.Auth.APIKey.Inject.Field = "api_key"
		}, "auth.apikey.fields[1].name", "declared twice"},
		{"apikey bad inject place", func(m *Manifest) { m.Auth = apiKeyAuth(); m.Auth.APIKey.Inject.In = "body" }, "auth.apikey.inject.in", "not one of header, query"},
		{"apikey bad header name", func(m *Manifest) { m.Auth = apiKeyAuth(); m.Auth.APIKey.Inject.Name = "" }, "auth.apikey.inject.name", "not a valid header name"},
		{"apikey query with prefix", func(m *Manifest) {
			m.Auth = apiKeyAuth()
			m.Auth.APIKey.Inject = APIKeyInject{In: "query", Name: "key", Prefix: "Bearer "}
		}, "auth.apikey.inject.prefix", "headers only"},
		{"apikey two fields without inject field", func(m *Manifest) {
			m.Auth = apiKeyAuth()
			m.Auth.APIKey.Fields = append(m.Auth.APIKey.Fields, APIKeyField{Name: "account", Label: "Account"})
		}, "auth.apikey.inject.field", "more than one field"},
		{"apikey inject unknown field", func(m *Manifest) { m.Auth = apiKeyAuth(); m.Auth.APIKey.Inject.Field = "token" }, "auth.apikey.inject.field", "not one of the declared fields"},
		{"apikey injected field optional", func(m *Manifest) { m.Auth = apiKeyAuth(); m.Auth.APIKey.Fields[0].Optional = true }, "auth.apikey.fields[0].optional", "cannot be optional"},
		{"apikey extra inject valid", func(m *Manifest) {
			m.Auth = apiKeyAuth()
			m.Auth.APIKey.Fields = append(m.Auth.APIKey.Fields, APIKeyField{Name: "app_key", Label: "Application key"})
			m.Auth.APIKey.Inject.Field = "api_key"
			m.Auth.APIKey.ExtraInject = []APIKeyInject{{In: "header", Name: "DD-APPLICATION-KEY", Field: "app_key"}}
		}, "", ""},
		{"apikey extra inject without field", func(m *Manifest) {
			m.Auth = apiKeyAuth()
			m.Auth.APIKey.ExtraInject = []APIKeyInject{{In: "header", Name: "X-Other"}}
		}, "auth.apikey.extra_inject[0].field", "is required"},
		{"apikey extra inject unknown field", func(m *Manifest) {
			m.Auth = apiKeyAuth()
			m.Auth.APIKey.ExtraInject = []APIKeyInject{{In: "header", Name: "X-Other", Field: "nope"}}
		}, "auth.apikey.extra_inject[0].field", "not one of the declared fields"},
		{"apikey extra inject bad place", func(m *Manifest) {
			m.Auth = apiKeyAuth()
			m.Auth.APIKey.ExtraInject = []APIKeyInject{{In: "body", Name: "x", Field: "api_key"}}
		}, "auth.apikey.extra_inject[0].in", "not one of header, query"},
		{"apikey extra inject same header", func(m *Manifest) {
			m.Auth = apiKeyAuth()
			m.Auth.APIKey.ExtraInject = []APIKeyInject{{In: "header", Name: strings.ToLower(m.Auth.APIKey.Inject.Name), Field: "api_key"}}
		}, "auth.apikey.extra_inject[0].name", "already injected"},
		{"apikey extra injected field optional", func(m *Manifest) {
			m.Auth = apiKeyAuth()
			m.Auth.APIKey.Fields = append(m.Auth.APIKey.Fields, APIKeyField{Name: "app_key", Label: "Application key", Optional: true})
			m.Auth.APIKey.Inject.Field = "api_key"
			m.Auth.APIKey.ExtraInject = []APIKeyInject{{In: "query", Name: "app_key", Field: "app_key"}}
		}, "auth.apikey.fields[1].optional", "cannot be optional"},
		{"apikey injects a cookie header", func(m *Manifest) { m.Auth = apiKeyAuth(); m.Auth.APIKey.Inject.Name = "Cookie" }, "auth.apikey.inject.name", "cannot carry a key"},
		{"apikey verify valid", func(m *Manifest) {
			m.Auth = apiKeyAuth()
			m.Auth.APIKey.Verify = &APIKeyVerify{Method: "POST", Path: "/graphql", Body: map[string]any{"query": "{ me }"}, ErrorPointer: "/errors"}
		}, "", ""},
		{"apikey verify bad method", func(m *Manifest) {
			m.Auth = apiKeyAuth()
			m.Auth.APIKey.Verify = &APIKeyVerify{Method: "FETCH", Path: "/me"}
		}, "auth.apikey.verify.method", "is not one of"},
		{"apikey verify path with placeholder", func(m *Manifest) {
			m.Auth = apiKeyAuth()
			m.Auth.APIKey.Verify = &APIKeyVerify{Method: "GET", Path: "/users/{id}"}
		}, "auth.apikey.verify.path", "single /"},
		{"apikey verify body on GET", func(m *Manifest) {
			m.Auth = apiKeyAuth()
			m.Auth.APIKey.Verify = &APIKeyVerify{Method: "GET", Path: "/me", Body: map[string]any{"a": 1}}
		}, "auth.apikey.verify.body", "not allowed with GET"},
		{"apikey verify without base url", func(m *Manifest) {
			m.Auth = apiKeyAuth()
			m.BaseURL, m.Proxy = "", nil
			m.Auth.APIKey.Verify = &APIKeyVerify{Method: "GET", Path: "/me"}
		}, "auth.apikey.verify", "needs the manifest's base_url"},
		{"post consent and credential placeholders", func(m *Manifest) {
			m.Auth.OAuth2.PostConsent = &PostConsent{URL: "https://api.acme.test/sites", Extra: map[string]string{"site_id": "/0/id"}}
			m.BaseURL = "https://api.acme.test/ex/{credential.site_id}"
			m.Proxy = &Proxy{BaseURL: "https://api.acme.test/ex/{credential.site_id}/v1"}
		}, "", ""},
		{"credential placeholder without post consent", func(m *Manifest) { m.BaseURL = "https://api.acme.test/ex/{credential.site_id}" }, "base_url", "is not a key of auth.oauth2.post_consent.extra"},
		{"credential placeholder in the host", func(m *Manifest) {
			m.Auth.OAuth2.PostConsent = &PostConsent{URL: "https://api.acme.test/sites", Extra: map[string]string{"site": "/0/id"}}
			m.BaseURL = "https://{credential.site}.acme.test/v2"
		}, "base_url", "only be in the path"},
		{"other placeholder in base url", func(m *Manifest) { m.BaseURL = "https://api.acme.test/{region}" }, "base_url", "only placeholders"},
		{"post consent without extra", func(m *Manifest) { m.Auth.OAuth2.PostConsent = &PostConsent{URL: "https://api.acme.test/sites"} }, "auth.oauth2.post_consent.extra", "at least one key"},
		{"post consent bad pointer", func(m *Manifest) {
			m.Auth.OAuth2.PostConsent = &PostConsent{URL: "https://api.acme.test/sites", Extra: map[string]string{"site": "0/id"}}
		}, "auth.oauth2.post_consent.extra.site", "JSON pointer"},
		{"post consent http url", func(m *Manifest) {
			m.Auth.OAuth2.PostConsent = &PostConsent{URL: "ftp://api.acme.test/sites", Extra: map[string]string{"site": "/0/id"}}
		}, "auth.oauth2.post_consent.url", "absolute https URL"},
		{"token source valid", func(m *Manifest) {
			m.Auth.OAuth2.TokenSource = &TokenSource{Default: "authed_user", Fallback: "access_token"}
			m.Auth.OAuth2.TokenTypes = []string{"bot", "user"}
		}, "", ""},
		{"token source unknown", func(m *Manifest) { m.Auth.OAuth2.TokenSource = &TokenSource{Default: "bot"} }, "auth.oauth2.token_source.default", "not one of access_token, authed_user"},
		{"token type with space", func(m *Manifest) { m.Auth.OAuth2.TokenTypes = []string{"mac token"} }, "auth.oauth2.token_types[0]", "one word"},
		{"cookie without domains", func(m *Manifest) { m.Auth = Auth{Mode: AuthCookie, Cookie: &Cookie{}} }, "auth.cookie.domains", "at least one domain"},
		{"cookie domain is a url", func(m *Manifest) {
			m.Auth = Auth{Mode: AuthCookie, Cookie: &Cookie{Domains: []string{"https://acme.test"}}}
		}, "auth.cookie.domains[0]", "not a domain name"},
		{"cookie sign-in page on the domain", func(m *Manifest) {
			m.Auth = Auth{Mode: AuthCookie, Cookie: &Cookie{Domains: []string{"acme.test"}, SignInURL: "https://acme.test/login?next=%2F"}}
		}, "", ""},
		{"cookie sign-in page under the domain", func(m *Manifest) {
			m.Auth = Auth{Mode: AuthCookie, Cookie: &Cookie{Domains: []string{"acme.test"}, SignInURL: "https://WWW.Acme.test/login"}}
		}, "", ""},
		{"cookie sign-in page elsewhere", func(m *Manifest) {
			m.Auth = Auth{Mode: AuthCookie, Cookie: &Cookie{Domains: []string{"acme.test"}, SignInURL: "https://evil-acme.test/login"}}
		}, "auth.cookie.signin_url", "not on a domain"},
		{"cookie sign-in page on a suffix trick", func(m *Manifest) {
			m.Auth = Auth{Mode: AuthCookie, Cookie: &Cookie{Domains: []string{"acme.test"}, SignInURL: "https://acme.test.evil.example/login"}}
		}, "auth.cookie.signin_url", "not on a domain"},
		{"cookie sign-in page not a URL", func(m *Manifest) {
			m.Auth = Auth{Mode: AuthCookie, Cookie: &Cookie{Domains: []string{"acme.test"}, SignInURL: "/login"}}
		}, "auth.cookie.signin_url", "absolute https URL"},
		{"cookie sign-in page of another scheme", func(m *Manifest) {
			m.Auth = Auth{Mode: AuthCookie, Cookie: &Cookie{Domains: []string{"acme.test"}, SignInURL: "javascript://acme.test/%0aalert(1)"}}
		}, "auth.cookie.signin_url", "absolute https URL"},
		{"cookie sign-in page with user info", func(m *Manifest) {
			m.Auth = Auth{Mode: AuthCookie, Cookie: &Cookie{Domains: []string{"acme.test"}, SignInURL: "https://me:pw@acme.test/login"}}
		}, "auth.cookie.signin_url", "user info"},
		{"cookie sign-in page with a control character", func(m *Manifest) {
			m.Auth = Auth{Mode: AuthCookie, Cookie: &Cookie{Domains: []string{"acme.test"}, SignInURL: "https://acme.test/log\nin"}}
		}, "auth.cookie.signin_url", "control characters"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := validManifest()
			tc.mutate(&m)
			errs := m.Validate()
			if tc.field == "" {
				if len(errs) != 0 {
					t.Fatalf("want valid, got %v", errs)
				}
				return
			}
			requireFieldError(t, errs, ManifestFile, tc.field, tc.msg)
		})
	}
}

func requireFieldError(t *testing.T, err error, file, field, msg string) {
	t.Helper()
	var errs FieldErrors
	var one *FieldError
	switch {
	case errors.As(err, &errs):
	case errors.As(err, &one):
		errs = FieldErrors{one}
	default:
		t.Fatalf("want a FieldError on %s %s, got %v", file, field, err)
	}
	for _, e := range errs {
		if e.File == file && e.Field == field && strings.Contains(e.Msg, msg) {
			if !strings.HasPrefix(e.Error(), file+": "+field) && field != "" {
				t.Errorf("error text %q does not start with the file and field", e.Error())
			}
			return
		}
	}
	t.Fatalf("want an error on %s %s containing %q, got %v", file, field, msg, errs)
}

func TestParseManifestStrict(t *testing.T) {
	tests := []struct {
		name, json, field, msg string
	}{
		{"unknown field", `{"name":"acme","pkce":false}`, "", `unknown field "pkce"`},
		{"wrong type", `{"name":"acme","categories":"crm"}`, "categories", "must be []string"},
		{"nested wrong type", `{"name":"acme","auth":{"mode":"oauth2","oauth2":{"scopes":"repo"}}}`, "auth.oauth2.scopes", "must be []string"},
		{"not json", `{"name":`, "", "invalid JSON: the document ends early"},
		{"trailing data", `{"name":"acme"} {}`, "", "unexpected data after"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseManifest([]byte(tc.json))
			requireFieldError(t, err, ManifestFile, tc.field, tc.msg)
		})
	}
}

func validTool() ToolSpec {
	return ToolSpec{
		Name:        "acme_crm_get_deal",
		Description: "Get one deal.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"},"expand":{"type":"boolean"},"note":{"type":"string"}},"required":["id"]}`),
		HTTP:        &HTTPTemplate{Method: "GET", Path: "/deals/{id}"},
	}
}

func TestValidateTools(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(m *Manifest, ts *ToolSpec)
		field  string
		msg    string
	}{
		{"valid", func(m *Manifest, ts *ToolSpec) {}, "", ""},
		{"valid go handler", func(m *Manifest, ts *ToolSpec) { ts.HTTP = nil; ts.Handler = "go" }, "", ""},
		{"valid body template", func(m *Manifest, ts *ToolSpec) {
			ts.HTTP = &HTTPTemplate{Method: "POST", Path: "/deals/{id}/notes", Body: map[string]any{"text": map[string]any{"$arg": "note"}}}
		}, "", ""},
		{"missing name", func(m *Manifest, ts *ToolSpec) { ts.Name = "" }, "[0].name", "is required"},
		{"name with hyphen", func(m *Manifest, ts *ToolSpec) { ts.Name = "acme-crm_get" }, "[0].name", "lowercase a-z, 0-9 and _"},
		{"name without prefix", func(m *Manifest, ts *ToolSpec) { ts.Name = "get_deal" }, "[0].name", `integration prefix "acme_crm_"`},
		{"name is only the prefix", func(m *Manifest, ts *ToolSpec) { ts.Name = "acme_crm_" }, "[0].name", "integration prefix"},
		{"missing description", func(m *Manifest, ts *ToolSpec) { ts.Description = "" }, "[0](acme_crm_get_deal).description", "is required"},
		{"missing schema", func(m *Manifest, ts *ToolSpec) { ts.InputSchema = nil }, "[0](acme_crm_get_deal).input_schema", "is required"},
		{"schema not an object schema", func(m *Manifest, ts *ToolSpec) { ts.InputSchema = json.RawMessage(`{"type":"string"}`) }, "[0](acme_crm_get_deal).input_schema", `"type": "object"`},
		{"both http and handler", func(m *Manifest, ts *ToolSpec) { ts.Handler = "go" }, "[0](acme_crm_get_deal)", "both http and handler"},
		{"neither http nor handler", func(m *Manifest, ts *ToolSpec) { ts.HTTP = nil }, "[0](acme_crm_get_deal)", "needs either http"},
		{"unknown handler kind", func(m *Manifest, ts *ToolSpec) { ts.HTTP = nil; ts.Handler = "js" }, "[0](acme_crm_get_deal).handler", `must be "go"`},
		{"http without base url", func(m *Manifest, ts *ToolSpec) { m.BaseURL = "" }, "[0](acme_crm_get_deal).http", "needs the manifest's base_url"},
		{"bad method", func(m *Manifest, ts *ToolSpec) { ts.HTTP.Method = "get" }, "[0](acme_crm_get_deal).http.method", "not one of"},
		{"relative path", func(m *Manifest, ts *ToolSpec) { ts.HTTP.Path = "deals/{id}" }, "[0](acme_crm_get_deal).http.path", "single /"},
		{"protocol-relative path", func(m *Manifest, ts *ToolSpec) { ts.HTTP.Path = "//evil.test/{id}" }, "[0](acme_crm_get_deal).http.path", "single /"},
		{"query in path", func(m *Manifest, ts *ToolSpec) { ts.HTTP.Path = "/deals/{id}?x=1" }, "[0](acme_crm_get_deal).http.path", "may not contain ? or #"},
		{"dot-dot in path", func(m *Manifest, ts *ToolSpec) { ts.HTTP.Path = "/deals/../admin/{id}" }, "[0](acme_crm_get_deal).http.path", ". or .. segments"},
		{"unbalanced brace", func(m *Manifest, ts *ToolSpec) { ts.HTTP.Path = "/deals/{id" }, "[0](acme_crm_get_deal).http.path", "unbalanced"},
		{"undeclared placeholder", func(m *Manifest, ts *ToolSpec) { ts.HTTP.Path = "/deals/{deal}" }, "[0](acme_crm_get_deal).http.path", "{deal} is not a property"},
		{"optional placeholder", func(m *Manifest, ts *ToolSpec) { ts.HTTP.Path = "/deals/{id}/{note}" }, "[0](acme_crm_get_deal).http.path", "{note} must be listed in input_schema.required"},
		{"undeclared query arg", func(m *Manifest, ts *ToolSpec) { ts.HTTP.Query = map[string]Value{"q": {Arg: "search"}} }, "[0](acme_crm_get_deal).http.query.q", `"search" is not a property`},
		{"credential header in tool", func(m *Manifest, ts *ToolSpec) { ts.HTTP.Headers = map[string]Value{"Cookie": {Literal: "a=b"}} }, "[0](acme_crm_get_deal).http.headers.Cookie", "credentials are injected"},
		{"undeclared header arg", func(m *Manifest, ts *ToolSpec) { ts.HTTP.Headers = map[string]Value{"X-Trace": {Arg: "trace"}} }, "[0](acme_crm_get_deal).http.headers.X-Trace", `"trace" is not a property`},
		{"undeclared credential placeholder", func(m *Manifest, ts *ToolSpec) { ts.HTTP.Path = "/sites/{credential.site}/deals/{id}" }, "[0](acme_crm_get_deal).http.path", "not a key of the manifest's auth.oauth2.post_consent.extra"},
		{"explode in a header", func(m *Manifest, ts *ToolSpec) {
			ts.HTTP.Headers = map[string]Value{"X-Id": {Arg: "id", Explode: true}}
		}, "[0](acme_crm_get_deal).http.headers.X-Id", "query parameters only"},
		{"default without pointer", func(m *Manifest, ts *ToolSpec) { ts.HTTP.Response = &ResponseShape{Default: []any{}} }, "[0](acme_crm_get_deal).http.response.default", "only with a pointer"},
		{"body on GET", func(m *Manifest, ts *ToolSpec) { ts.HTTP.Body = map[string]any{"a": "b"} }, "[0](acme_crm_get_deal).http.body", "not allowed with GET"},
		{"undeclared body arg", func(m *Manifest, ts *ToolSpec) {
			ts.HTTP.Method = "POST"
			ts.HTTP.Body = map[string]any{"deal": map[string]any{"owner": map[string]any{"$arg": "owner"}}}
		}, "[0](acme_crm_get_deal).http.body.deal.owner", `"owner" is not a property`},
		{"relative response pointer", func(m *Manifest, ts *ToolSpec) { ts.HTTP.Response = &ResponseShape{Pointer: "data"} }, "[0](acme_crm_get_deal).http.response.pointer", "JSON pointer"},
		{"bad field path", func(m *Manifest, ts *ToolSpec) { ts.HTTP.Response = &ResponseShape{Fields: []string{"owner..login"}} }, "[0](acme_crm_get_deal).http.response.fields[0]", "dotted path"},
		{"unknown cursor source", func(m *Manifest, ts *ToolSpec) { ts.HTTP.Response = &ResponseShape{Cursor: &Cursor{From: "header"}} }, "[0](acme_crm_get_deal).http.response.cursor.from", "not one of"},
		{"link cursor without param", func(m *Manifest, ts *ToolSpec) {
			ts.HTTP.Response = &ResponseShape{Cursor: &Cursor{From: CursorLinkHeader}}
		}, "[0](acme_crm_get_deal).http.response.cursor.param", "is required"},
		{"body cursor without pointer", func(m *Manifest, ts *ToolSpec) { ts.HTTP.Response = &ResponseShape{Cursor: &Cursor{From: CursorBody}} }, "[0](acme_crm_get_deal).http.response.cursor.pointer", "JSON pointer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := validManifest()
			ts := validTool()
			tc.mutate(&m, &ts)
			errs := ValidateTools(&m, []ToolSpec{ts})
			if tc.field == "" {
				if len(errs) != 0 {
					t.Fatalf("want valid, got %v", errs)
				}
				return
			}
			requireFieldError(t, errs, ToolsFile, tc.field, tc.msg)
		})
	}

	t.Run("duplicate tool name", func(t *testing.T) {
		m := validManifest()
		errs := ValidateTools(&m, []ToolSpec{validTool(), validTool()})
		requireFieldError(t, errs, ToolsFile, "[1].name", "declared twice")
	})
}

func TestParseToolsStrict(t *testing.T) {
	tests := []struct{ name, json, field, msg string }{
		{"unknown tool field", `[{"name":"a_b","descripton":"typo"}]`, "", `unknown field "descripton"`},
		{"object instead of array", `{"tools":[]}`, "", "must be []plugins.ToolSpec"},
		{"bad query value", `[{"name":"a_b","http":{"query":{"q":7}}}]`, "", `{"$arg"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTools([]byte(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), ToolsFile+": ") {
				t.Fatalf("want a tools.json error containing %q, got %v", tc.msg, err)
			}
		})
	}
}
