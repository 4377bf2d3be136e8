package oauthhttp

import (
	"encoding/json"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/workbench/workbench/domain/toolset"
)

// AuthorizationServerMetadata is the RFC 8414 document.
type AuthorizationServerMetadata struct {
	Issuer                                 string   `json:"issuer"`
	AuthorizationEndpoint                  string   `json:"authorization_endpoint"`
	TokenEndpoint                          string   `json:"token_endpoint"`
	RegistrationEndpoint                   string   `json:"registration_endpoint"`
	RevocationEndpoint                     string   `json:"revocation_endpoint"`
	ScopesSupported                        []string `json:"scopes_supported"`
	ResponseTypesSupported                 []string `json:"response_types_supported"`
	ResponseModesSupported                 []string `json:"response_modes_supported"`
	GrantTypesSupported                    []string `json:"grant_types_supported"`
	TokenEndpointAuthMethodsSupported      []string `json:"token_endpoint_auth_methods_supported"`
	RevocationEndpointAuthMethodsSupported []string `json:"revocation_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported          []string `json:"code_challenge_methods_supported"`
	// AuthorizationResponseIssParameterSupported says every authorization response carries iss (RFC
	// 9207 section 3), so a client can tell which server answered (mix-up defence).
	AuthorizationResponseIssParameterSupported bool `json:"authorization_response_iss_parameter_supported"`
}

// ProtectedResourceMetadata is the RFC 9728 document of /mcp.
type ProtectedResourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name"`
}

// AuthorizationServerMetadata returns the RFC 8414 document this server publishes at its public URL.
func (s *Server) AuthorizationServerMetadata() AuthorizationServerMetadata {
	return s.authorizationServerMetadataOf(s.issuer)
}

// authorizationServerMetadataOf is the document of one issuer: the public one or a loopback alias.
func (s *Server) authorizationServerMetadataOf(issuer string) AuthorizationServerMetadata {
	return AuthorizationServerMetadata{
		Issuer:                                     issuer,
		AuthorizationEndpoint:                      issuer + "/oauth/authorize",
		TokenEndpoint:                              issuer + "/oauth/token",
		RegistrationEndpoint:                       issuer + "/oauth/register",
		RevocationEndpoint:                         issuer + "/oauth/revoke",
		ScopesSupported:                            SupportedScopes,
		ResponseTypesSupported:                     []string{"code"},
		ResponseModesSupported:                     []string{"query"},
		GrantTypesSupported:                        []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported:          []string{"none"},
		RevocationEndpointAuthMethodsSupported:     []string{"none"},
		CodeChallengeMethodsSupported:              []string{"S256"},
		AuthorizationResponseIssParameterSupported: true,
	}
}

// ProtectedResourceMetadata returns the RFC 9728 document of /mcp at the public URL.
func (s *Server) ProtectedResourceMetadata() ProtectedResourceMetadata {
	return s.protectedResourceMetadataOf(s.issuer)
}

// protectedResourceMetadataOf is the document of /mcp as reached at issuer's origin.
func (s *Server) protectedResourceMetadataOf(issuer string) ProtectedResourceMetadata {
	return ProtectedResourceMetadata{
		Resource:               issuer + "/mcp",
		AuthorizationServers:   []string{issuer},
		ScopesSupported:        []string{ScopeMCP},
		BearerMethodsSupported: []string{"header"}, // never the query string or a form body (RFC 6750 section 5.3)
		ResourceName:           "Workbench",
	}
}

// authorizationServerMetadata serves the document of the issuer the request reached: on a loopback
// alias of a loopback public URL, the alias (RFC 8414 section 3.3: the issuer is the URL the client
// built the metadata URL from).
func (s *Server) authorizationServerMetadata(w http.ResponseWriter, r *http.Request) {
	writeOAuthJSON(w, http.StatusOK, s.authorizationServerMetadataOf(s.issuerAt(r)))
}

// protectedResourceMetadata serves the document of /mcp both at the path-suffixed well-known URL
// (RFC 9728 section 3.1, the one WWW-Authenticate names) and at the bare one, for clients that try
// the bare one first: /mcp is the only protected resource of this server. On a loopback alias the
// resource is the alias's /mcp (RFC 9728 section 3.3: clients check it against the URL they use).
func (s *Server) protectedResourceMetadata(w http.ResponseWriter, r *http.Request) {
	writeOAuthJSON(w, http.StatusOK, s.protectedResourceMetadataOf(s.issuerAt(r)))
}

// toolsetResourceMetadata serves the document of a toolset's endpoint, /mcp/ts/<name> (RFC 9728
// section 3.1: the path-suffixed well-known URL its WWW-Authenticate names). A token issued for it is
// good at that endpoint alone (authn.AccessTokens); a token for /mcp is good at every toolset too. The
// document is the same whether or not a toolset of that name exists: a name is resolved per agent, and
// the metadata tells nobody which exist.
func (s *Server) toolsetResourceMetadata(w http.ResponseWriter, r *http.Request) {
	name := chi.URLParam(r, "toolset")
	if !toolset.ValidName(name) {
		writeOAuthJSON(w, http.StatusNotFound, oauthError{Error: "not_found", ErrorDescription: "not a toolset name"})
		return
	}
	md := s.protectedResourceMetadataOf(s.issuerAt(r))
	md.Resource += "/ts/" + name
	md.ResourceName = "Workbench toolset " + name
	writeOAuthJSON(w, http.StatusOK, md)
}

// writeOAuthJSON answers v as JSON, never cached (RFC 6749 section 5.1 for token responses; the same
// for the rest so a proxy never keeps an error).
func writeOAuthJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// oauthError is the error body of RFC 6749 section 5.2 and RFC 7591 section 3.2.2.
type oauthError struct {
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description,omitempty"`
}
