package oauth

import (
	"encoding/json"
	"net/http"
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

// AuthorizationServerMetadata returns the RFC 8414 document this server publishes.
func (s *Server) AuthorizationServerMetadata() AuthorizationServerMetadata {
	return AuthorizationServerMetadata{
		Issuer:                                     s.issuer,
		AuthorizationEndpoint:                      s.issuer + "/oauth/authorize",
		TokenEndpoint:                              s.issuer + "/oauth/token",
		RegistrationEndpoint:                       s.issuer + "/oauth/register",
		RevocationEndpoint:                         s.issuer + "/oauth/revoke",
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

// ProtectedResourceMetadata returns the RFC 9728 document of /mcp.
func (s *Server) ProtectedResourceMetadata() ProtectedResourceMetadata {
	return ProtectedResourceMetadata{
		Resource:               s.resource,
		AuthorizationServers:   []string{s.issuer},
		ScopesSupported:        []string{ScopeMCP},
		BearerMethodsSupported: []string{"header"}, // never the query string or a form body (RFC 6750 section 5.3)
		ResourceName:           "Workbench",
	}
}

func (s *Server) authorizationServerMetadata(w http.ResponseWriter, _ *http.Request) {
	writeOAuthJSON(w, http.StatusOK, s.AuthorizationServerMetadata())
}

// protectedResourceMetadata serves the document of /mcp both at the path-suffixed well-known URL
// (RFC 9728 section 3.1, the one WWW-Authenticate names) and at the bare one, for clients that try
// the bare one first: /mcp is the only protected resource of this server.
func (s *Server) protectedResourceMetadata(w http.ResponseWriter, _ *http.Request) {
	writeOAuthJSON(w, http.StatusOK, s.ProtectedResourceMetadata())
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
