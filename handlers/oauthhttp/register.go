package oauthhttp

import (
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-chi/httprate"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/oauthclients"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/oauthdom"
	"github.com/workbench/workbench/handlers"
)

// registrationRequest is the client metadata of RFC 7591 section 2 that this server reads; other
// members are ignored (section 3.1: unknown metadata is ignored).
type registrationRequest struct {
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	ClientName              string   `json:"client_name"`
	Scope                   string   `json:"scope"`
}

// registrationResponse is RFC 7591 section 3.2.1's answer.
type registrationResponse struct {
	ClientID                string   `json:"client_id"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at"`
	ClientName              string   `json:"client_name,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	Scope                   string   `json:"scope"`
}

// registrationLimiter limits registrations per client address (handlers.ClientAddress), answering
// over the limit in OAuth's error shape.
func (s *Server) registrationLimiter(next http.HandlerFunc) http.HandlerFunc {
	limit := httprate.LimitBy(s.opts.RegistrationLimit, time.Minute, func(r *http.Request) (string, error) {
		return handlers.ClientAddress(r), nil
	}, httprate.WithLimitHandler(func(w http.ResponseWriter, _ *http.Request) {
		writeOAuthJSON(w, http.StatusTooManyRequests, oauthError{Error: "too_many_requests",
			ErrorDescription: "too many client registrations from this address; wait a minute and try again"})
	}))
	return limit(next).ServeHTTP
}

func registrationError(w http.ResponseWriter, code, description string) {
	writeOAuthJSON(w, http.StatusBadRequest, oauthError{Error: code, ErrorDescription: description})
}

// register implements RFC 7591 dynamic client registration. Every client is public: one that asks
// for a client secret method is registered as "none" and told so in the answer (section 3.2.1 lets the
// server replace requested metadata; the client must use what it is given), because the only
// proof of possession this server accepts is PKCE.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		registrationError(w, "invalid_client_metadata", "send the client metadata as a JSON object with Content-Type: application/json (RFC 7591 section 3.1)")
		return
	}
	var req registrationRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	if err := dec.Decode(&req); err != nil {
		registrationError(w, "invalid_client_metadata", "the body is not a JSON object of client metadata: "+err.Error())
		return
	}
	switch req.TokenEndpointAuthMethod {
	case "", "none", "client_secret_basic", "client_secret_post":
	default:
		registrationError(w, "invalid_client_metadata", "token_endpoint_auth_method "+req.TokenEndpointAuthMethod+
			" is not supported: clients are public and use PKCE (token_endpoint_auth_method none)")
		return
	}
	grants := req.GrantTypes
	if len(grants) == 0 {
		grants = []string{oauthdom.GrantAuthorization, oauthdom.GrantRefresh}
	}
	responses := req.ResponseTypes
	if len(responses) == 0 {
		responses = []string{oauthdom.ResponseCode}
	}
	scopes := strings.Fields(req.Scope)
	for _, sc := range scopes {
		if !slices.Contains(SupportedScopes, sc) {
			registrationError(w, "invalid_client_metadata", "scope "+sc+" is not offered: the scopes are "+strings.Join(SupportedScopes, " "))
			return
		}
	}
	if len(scopes) == 0 {
		scopes = slices.Clone(SupportedScopes)
	}
	id := uuid.NewString()
	cmd := oauthdom.RegisterClient{ClientID: id, ClientName: strings.TrimSpace(req.ClientName), RedirectURIs: req.RedirectURIs,
		GrantTypes: grants, ResponseTypes: responses, Scopes: scopes, At: s.opts.Now().UTC()}
	c, err := s.opts.Clients.Register(r.Context(), cmd, s.origin(r, "client-registration", id))
	if err != nil {
		switch {
		case errors.Is(err, oauthclients.ErrNotYetReadable):
			s.log.ErrorContext(r.Context(), "client registration: read model lagging", "err", err)
			w.Header().Set("Retry-After", handlers.RetryAfterSeconds)
			writeOAuthJSON(w, http.StatusServiceUnavailable, oauthError{Error: "temporarily_unavailable", ErrorDescription: "the registration was recorded but is not readable yet; retry shortly"})
		case errors.Is(err, oauthdom.ErrInvalidRedirectURI):
			registrationError(w, "invalid_redirect_uri", domain.ErrorMessage(err))
		case errors.Is(err, oauthdom.ErrInvalidClientMetadata):
			registrationError(w, "invalid_client_metadata", domain.ErrorMessage(err))
		case !oauthclients.IsRefusal(err):
			s.unavailableJSON(r.Context(), w, storageFailure(r.Context(), err))
		default:
			s.log.ErrorContext(r.Context(), "client registration failed", "err", err)
			writeOAuthJSON(w, http.StatusInternalServerError, oauthError{Error: "server_error", ErrorDescription: "the registration could not be recorded; try again"})
		}
		return
	}
	writeOAuthJSON(w, http.StatusCreated, registrationResponse{
		ClientID: c.ClientID, ClientIDIssuedAt: c.RegisteredAt.Unix(), ClientName: c.ClientName, RedirectURIs: c.RedirectURIs,
		GrantTypes: c.GrantTypes, ResponseTypes: c.ResponseTypes, TokenEndpointAuthMethod: "none", Scope: strings.Join(c.Scopes, " "),
	})
}
