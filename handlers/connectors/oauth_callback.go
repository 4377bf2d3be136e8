package connectors

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers"
)

// requestBase is the scheme and host a request came in on: the OAuth callback's base when
// SERVER_PUBLIC_URL is not set.
func requestBase(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// failConnect answers a connect error; an OAuth connector this server cannot sign in to carries
// setup_state unsupported.
func (h *routes) failConnect(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, connectors.ErrOAuthUnsupported) {
		handlers.WriteJSON(w, http.StatusUnprocessableEntity, map[string]string{
			"error": string(domain.ErrorCode(err)), "message": domain.ErrorMessage(err), "setup_state": "unsupported",
		})
		return
	}
	h.fail(w, r, err)
}

// oauthCallback is GET /api/mcp/oauth/callback: the authorization server sends the operator's browser
// back here with code and state, or error and state. It answers a redirect to the connectors page
// naming the login and what happened.
func (h *routes) oauthCallback(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		h.fail(w, r, domain.Errorf(domain.CodeInvalid, "the callback carries no state"))
		return
	}
	res, err := h.Connectors.CompleteOAuth(r.Context(), user, state, q.Get("code"), q.Get("error"))
	back := url.Values{}
	switch {
	case err != nil && res.LoginID == uuid.Nil:
		h.fail(w, r, err)
		return
	case err != nil:
		back.Set("oauth", "failed")
		back.Set("message", domain.ErrorMessage(err))
		if domain.ErrorCode(err) == domain.CodeInternal || handlers.IsStorageFailure(err) {
			h.fail(w, r, err)
			return
		}
	case res.Denied:
		back.Set("oauth", "denied")
	default:
		back.Set("oauth", "connected")
		h.Connectors.FillFromServer(r.Context(), user.String(), res.LoginID) // a hand-added server's blank copy (orgservers.go)
		if res.ListingError != "" {
			back.Set("listing_error", res.ListingError)
		}
	}
	back.Set("connection", res.LoginID.String())
	http.Redirect(w, r, "/connectors?"+back.Encode(), http.StatusSeeOther)
}
