// Package plugins owns the plugin system: the manifest format, the registry built at boot, argument
// validation against each tool's JSON Schema, the runtime context a tool handler sees, and the
// declarative HTTP executor. It is the plugin runtime only: each provider has one folder beside it,
// plugins/<provider>/, a Go package holding its plugin folder (manifest.json, tools.json, logo.svg,
// embedded there), its Go handlers, its connector folders (connectors/<slug>/ with the adapter) and its
// contract test; plugins/connector is the connector runtime, plugins/shipped hands the built-in set to
// Load (Options.Builtins) and plugins/plugintest holds the contract-test machinery.
//
// A Go handler ("handler": "go") is a Handler in its provider's package; the API it uses is Context
// (HTTP, BaseURL, Integration, GetToken, UserID, Logger), DecodeArgs, Send, ProviderHTTPError and the
// response helpers ScalarString, JSONPointer, Project, ErrorMessages, Truncate and MaxErrorMessage.
//
// It implements the spec's "Integration", "Plugin", "Tool" and "Registry" (workbench-concepts.md) and
// the tool-call path of workbench-how-it-works.md, in Go: JSON manifests instead of TypeScript modules,
// JSON Schema instead of Zod. It never sees the vault, the event store, the browser or the jot store:
// the caller (the MCP endpoint) resolves connections and hands each call a credential injector and a
// token getter through NewContext.
//
// # Plugin folder
//
// A plugin is a folder named after its integration holding:
//
//	manifest.json   the integration (required)
//	tools.json      a JSON array of its tools (required; tools live in their own file so a manifest
//	                stays short and reviewable)
//	logo.svg        optional; any .svg file name the manifest's "logo" names
//
// Built-ins are embedded by their provider packages (plugins/<name>/) and handed to Load through
// Options.Builtins (plugins/shipped.Plugins()); PLUGINS_DIR is a directory of such folders, loaded after
// the built-ins. Both files are decoded strictly: an unknown field is an error, so a typo never passes
// silently.
//
// # manifest.json
//
//	{
//	  "name": "github",                 // required; 2-40 of [a-z0-9-]; equals the folder name;
//	                                    // "browser" and "jots" are reserved
//	  "version": "1.0.0",               // required, free form
//	  "display_name": "GitHub",         // required
//	  "description": "…",               // required
//	  "logo": "logo.svg",               // optional: an .svg file in the folder, or an https URL
//	  "categories": ["developer-tools"],
//	  "base_url": "https://api.github.com",  // the API root; required by declarative tools; https only
//	  "headers": {"Accept": "…"},       // sent on every declarative request (never Authorization/Cookie)
//	  "proxy": {"base_url": "…"},       // optional; its presence enables curl_session; base_url
//	                                    // defaults to the manifest's base_url
//	  "trace_propagation": false,       // optional: send the W3C traceparent with tool requests when
//	                                    // the server traces (OTEL_EXPORTER_OTLP_ENDPOINT); default off
//	  "policy": {"default_off": ["…_delete_*"]}, // optional: name patterns of tools that start Off
//	                                    // (* matches any run; at most 64), as a connector manifest's
//	  "auth": {
//	    "mode": "oauth2",               // oauth2 | apikey | cookie | none; the block of that mode is
//	                                    // required, and the blocks of other modes are refused
//	    "oauth2": {
//	      "authorize_url": "https://…", "token_url": "https://…",
//	      "scopes": ["repo"], "scope_separator": " ",
//	      "authorize_params": {"access_type": "offline"},  // may not override response_type,
//	                                    // client_id, redirect_uri, state, scope, code_challenge(_method)
//	      "token_auth_style": "basic",  // basic (default, RFC 6749 2.3.1) | body
//	      "post_consent": {"url": "https://api.atlassian.com/oauth/token/accessible-resources",
//	                       "extra": {"cloud_id": "/0/id"}}
//	                                    // optional: see "Values learned after consent" below
//	      "token_source": {"default": "authed_user", "fallback": "access_token"},
//	      "token_types": ["bot", "user"]
//	                                    // optional: see "Providers that issue two tokens" below
//	    },                              // PKCE S256 is always used; there is no switch for it
//	    "apikey": {
//	      "fields": [{"name": "api_key", "label": "User API key", "secret": true,
//	                  "optional": false, "placeholder": "NRAK-…"}],
//	      "inject": {"in": "header", "name": "API-Key", "prefix": "", "field": "api_key"},
//	                                    // in: header | query; prefix is for headers ("Bearer ");
//	                                    // field defaults to the only field
//	      "extra_inject": [{"in": "header", "name": "DD-APPLICATION-KEY", "field": "app_key"}]
//	                                    // optional: more values sent on every request, each
//	                                    // validated like inject and naming its field; every
//	                                    // injected field is required, whatever "optional" says
//	      "verify": {"method": "POST", "path": "/graphql",
//	                 "body": {"query": "{ actor { user { id } } }"}, "error_pointer": "/errors"}
//	                                    // optional: a cheap "who am I" call on base_url (query: a
//	                                    // map of literals); see "Checking an API key" below
//	    },
//	    "cookie": {"domains": ["example.com"], "signin_url": "https://www.example.com/login"}
//	                                    // the sites whose cookies a capture keeps, and (optional)
//	                                    // the sign-in page; see "Cookie integrations" below
//	  }
//	}
//
// Client credentials are not in the manifest: they come from <UPPER_SNAKE>_CLIENT_ID and
// _CLIENT_SECRET in the environment (internal/config reads them at start; the connect flow uses them).
//
// # Values learned after consent
//
// Some providers need a value the token does not carry: Atlassian's API lives under
// api.atlassian.com/ex/jira/<cloud id>, and the cloud id is known only by asking
// /oauth/token/accessible-resources with the new token. auth.oauth2.post_consent makes the connect
// flow's callback do that GET with the fresh token as a Bearer credential; each "extra" entry maps a
// key to an RFC 6901 pointer into the JSON answer, and the value found (a string or number) is stored
// with the sealed credential. No value (no site granted) fails the connect with a message saying so.
// A refresh keeps the stored values. They fill {credential.<key>} placeholders, which may appear in
// the path of base_url and proxy.base_url and in tool paths, never in a host, so every request's
// origin is fixed by the manifest and the host guard is unchanged; each value is path-escaped and
// "." or ".." is refused. The caller passes the values as ContextOptions.Credential (credentials'
// Access returns them) and to Integration.ResolveProxyBaseURL; a connection made before the step
// existed has none, and its calls answer NOT_CONNECTED asking to reconnect. Only the first site of
// the list is used: an account with several sites reconnects granting the one it wants.
//
// # Providers that issue two tokens
//
// Slack's oauth.v2.access answers with a bot token in access_token (token_type "bot") and, when
// user scopes were asked for (authorize_params.user_scope), a user token in authed_user.access_token
// (token_type "user"), each with its own refresh token and expires_in when token rotation is on. The
// connect stores both. token_source names the one every call injects: "default" when the provider
// issued it, else "fallback"; the sources are "access_token" (the standard member) and "authed_user"
// (the nested one). The choice is per integration, not per tool: Slack injects the user token, which
// search.messages requires and every other slack_ tool accepts (acting as the user), and falls back
// to the bot token when the install granted no user scopes. Without token_source the access_token is
// injected. token_types lists the token_type values besides bearer that are sent as Bearer
// credentials; any other type is refused at connect. A rotated token is refreshed with its own
// refresh token (Slack answers the new token at the top level with its type), and the other token is
// kept as it was; the connection's expiry is the injected token's.
//
// # Cookie integrations
//
// A service with no usable OAuth app or API key can still be reached with the session its website
// keeps in cookies. auth.mode "cookie" with auth.cookie.domains names the sites that session lives
// on: each entry is a domain name (no scheme, port or path), and covers its subdomains too
// ("reddit.com" keeps the cookies of .reddit.com and www.reddit.com). connect() of such an
// integration returns a workbench link like any other; once the person who opens it is signed in to
// the portal as the account the link was made for, it opens the live view of their browser session,
// where they sign in to the service and press "Capture now" (or the portal's "Sign in live" on the
// integration's card). The capture reads the browser profile's cookies and keeps only the unexpired
// ones of the declared domains, sealed like any credential; the rest of the jar is never stored. The
// integration counts as connected while at least one kept cookie is unexpired (a session cookie,
// without an expiry, counts as unexpired until a new capture replaces it), and its tool calls then
// carry, on every request to a host of a declared domain, a Cookie header with the kept cookies of
// that host (Secure ones on https only); once the last cookie has expired they answer NOT_CONNECTED
// and the person captures again. Declare the domains the API's base_url lives on: a cookie of another
// domain is never sent. auth.cookie.signin_url, optional, is the page the live browser opens when a
// person starts the sign-in: an absolute https URL without user info or fragment whose host is a
// declared domain or a subdomain of one (http only for a loopback host, with AllowInsecureHTTP);
// without it the live browser opens https://<the first domain>/. plugins/examples/reddit-web is a
// complete example.
//
// # Checking an API key
//
// When auth.apikey.verify is declared, the portal's connect (connections.ConnectAPIKey) sends that
// request with the candidate key injected exactly as tool calls will carry it, through the runtime's
// guarded client, before anything is stored. 2xx accepts the key (unless error_pointer names a
// non-empty array: GraphQL providers answer errors with 200); 401 or 403 is a refusal, reported as
// "<Provider> refused this key: …"; anything else (unreachable, 429, 5xx) is "could not check this
// key". In every failing case nothing is stored and a key stored earlier stays. The catalog checks
// New Relic ({ actor { user { id } } }), PagerDuty (GET /abilities, which answers for both general
// access and user keys, where /users/me refuses account-level keys) and Datadog (GET
// /api/v2/validate_keys, which checks the API key and the application key together, where
// /api/v1/validate checks only the API key). Brave Search declares none: it has no free call, and
// every search counts against the plan's monthly quota and per-second limit.
//
// # tools.json
//
//	[{
//	  "name": "github_get_repo",        // [a-z0-9_]; must start with the integration name, hyphens as
//	                                    // underscores, then "_" (atlassian-jira → atlassian_jira_…)
//	  "description": "…",               // written for an agent; search_tools searches it
//	  "input_schema": {"type": "object", …},  // JSON Schema (2020-12 unless "$schema" says otherwise),
//	                                    // compiled once at load; "default" values are applied
//	  "http": {…}                       // a declarative request, or:
//	  "handler": "go"                   // a Go handler registered in code under the tool's name
//	}]
//
// A declarative request:
//
//	"http": {
//	  "method": "GET",                  // GET POST PUT PATCH DELETE HEAD
//	  "path": "/repos/{owner}/{repo}",  // appended to base_url; each {arg} must be a required property
//	                                    // ({credential.<key>} takes a post-consent value instead);
//	                                    // the value is URL-escaped ("/" becomes %2F) and "." / ".." are
//	                                    // refused, so no argument can climb the path or change the host
//	  "query":   {"per_page": {"$arg": "per_page"}, "type": "all",
//	              "statuses[]": {"$arg": "statuses", "explode": true}},
//	  "headers": {"X-Custom": "literal"},
//	                                    // a string is a literal, {"$arg": "name"} takes an argument and is
//	                                    // left out when the argument is absent; arrays in the query are
//	                                    // joined with commas (an empty array sends nothing), or, with
//	                                    // "explode": true (query only), sent as one parameter per element:
//	                                    // statuses[]=a&statuses[]=b (PagerDuty), labelIds=A&labelIds=B
//	  "body": {"query": "{ actor { user { id } } }", "variables": {"id": {"$arg": "id"}}},
//	                                    // a JSON template: every {"$arg": "name"} is replaced by the
//	                                    // argument (an absent one drops its member, and an object all of
//	                                    // whose members were dropped is dropped too, so no empty
//	                                    // "variables" or "filter" is sent; a literal {} stays, and the
//	                                    // top-level object is always sent); {"$arg": "payload"} alone
//	                                    // sends that argument as the whole body
//	  "response": {
//	    "pointer": "/data/actor",       // RFC 6901 pointer to the part worth returning; a 2xx answer
//	                                    // without it fails the call, unless:
//	    "default": [],                  // the selection when the pointer finds nothing (Gmail leaves
//	                                    // "messages" out of an empty list)
//	    "fields": ["id", "owner.login"],// keep only these (dotted paths reach nested objects; applied to
//	                                    // every element when the selection is an array)
//	    "cursor": {"from": "link_header", "param": "page"},  // or {"from": "body", "pointer": "/…"};
//	                                    // the result becomes {"items": …, "next_cursor": …}; a
//	                                    // rel="next" link marked results="false" (Sentry) is the end
//	    "error_pointer": "/errors"      // a non-empty array there fails the call (GraphQL errors on 200)
//	  }
//	}
//
// # Loading and collisions
//
// Load reads the built-ins, then PLUGINS_DIR, each in folder-name order. A plugin with any problem
// (bad JSON, a failed validation, a schema that does not compile, a missing Go handler, a reserved
// name) is logged with slog, with its location and every reason, and skipped; the rest load. The spec
// lets a later plugin silently win a tool-name collision; here nothing is ever silently replaced: a
// second integration of the same name is refused whole, and a tool whose name is taken is refused
// (the rest of its plugin loads), with both sources logged and returned as a Problem.
//
// # Calling a tool
//
//	t, ok := reg.Tool(name)
//	args, err := plugins.ValidateArgs(t, raw)  // defaults applied; err reads "Invalid arguments for …"
//	rc := plugins.NewContext(t.Owner(), plugins.ContextOptions{UserID: …, Injector: …, GetToken: …,
//	        Credential: access.Credential})
//	out, err := reg.Execute(ctx, t, rc, args)  // domain.ErrorMessage(err) is safe to show the agent
//
// The runtime client of a Context reaches only the integration's base_url and proxy origins (also on
// redirects); an integration without a base_url can make no outbound request at all. Provider errors
// come back as "<tool>: <Provider> answered HTTP <status>: <provider message, truncated>"; responses
// larger than Options.MaxResponseBytes are refused.
package plugins
