package connectorshttp

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
// setup_state unsupported, one whose client an instance admin has not entered yet not_set_up.
func (h *routes) failConnect(w http.ResponseWriter, r *http.Request, err error) {
	for sentinel, state := range map[error]string{connectors.ErrOAuthUnsupported: "unsupported", connectors.ErrOAuthNotSetUp: "not_set_up"} {
		if errors.Is(err, sentinel) {
			handlers.WriteJSON(w, http.StatusUnprocessableEntity, map[string]string{
				"error": string(domain.ErrorCode(err)), "message": domain.ErrorMessage(err), "setup_state": state,
			})
			return
		}
	}
	h.fail(w, r, err)
}

// oauthCallback is GET /api/mcp/oauth/callback: the authorization server sends the operator's browser
// back here with code and state, or error and state; GitHub, after an installation of the GitHub App,
// with installation_id, setup_action, state and code. It answers a redirect to the connectors page
// naming the login and what happened.
func (h *routes) oauthCallback(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		h.fail(w, r, domain.Errorf(domain.CodeInvalid, "the callback carries no state"))
		return
	}
	h.waitsOnRemote(w) // the code exchange and the first listing
	res, err := h.Connectors.CompleteSignIn(r.Context(), user, connectors.Callback{State: state, Code: q.Get("code"), Error: q.Get("error"),
		InstallationID: q.Get("installation_id"), SetupAction: q.Get("setup_action")})
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
