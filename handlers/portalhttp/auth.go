package portalhttp

import (
	"errors"
	"fmt"
	"html"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/accounts"
	"github.com/workbench/workbench/app/signin"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/handlers/websession"
)

// loadUser reads the signed-in user (from the log, so a user created a moment ago on another replica
// is already there). A session naming no user is unauthenticated.
func (h *routes) loadUser(r *http.Request, user uuid.UUID) (accounts.User, error) {
	u, err := h.Accounts.User(r.Context(), user)
	if domain.ErrorCode(err) == domain.CodeNotFound {
		return accounts.User{}, &domain.Error{Code: domain.CodeUnauthenticated, Message: "the session names no workbench user; sign in again", Err: err}
	}
	return u, err
}

type meResponse struct {
	ID          string `json:"id"`
	Email       string `json:"email"`
	DisplayName string `json:"display_name"`
}

func (h *routes) me(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	u, err := h.loadUser(r, user)
	if err != nil {
		if domain.ErrorCode(err) == domain.CodeUnauthenticated {
			h.Sessions.Clear(w)
		}
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	noStore(w)
	handlers.WriteJSON(w, http.StatusOK, meResponse{ID: u.ID.String(), Email: u.Email, DisplayName: u.DisplayName})
}

// logout ends the session (on every replica, before it answers) and clears its cookie. It needs no
// session (signing out twice is fine) but is state-changing, so a foreign page cannot sign a person
// out. When the end cannot be recorded the cookie is kept and the answer is 503: the person must not
// believe a session is over that is not.
func (h *routes) logout(w http.ResponseWriter, r *http.Request) {
	if h.crossOrigin(w, r) {
		return
	}
	sess, err := h.Sessions.Session(r)
	switch {
	case errors.Is(err, websession.ErrNoSession):
	case err != nil:
		handlers.WriteError(w, r, h.Logger, unavailable(err))
		return
	default:
		if err := h.Sessions.End(r.Context(), sess, h.md(r, sess.User)); err != nil {
			handlers.WriteError(w, r, h.Logger, unavailable(err))
			return
		}
	}
	h.Sessions.Clear(w)
	noStore(w)
	w.WriteHeader(http.StatusNoContent)
}

// logoutEverywhereRoute takes the portal session, or a workbench API key as a Bearer token (a
// script, or a person whose browser is out of reach). A request with an Authorization header is
// never rescued by a cookie.
func (h *routes) logoutEverywhereRoute(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") == "" || h.APIKeys == nil {
		h.portal(h.logoutEverywhere)(w, r)
		return
	}
	p, err := h.APIKeys.Authenticate(r)
	if err != nil {
		if domain.ErrorCode(err) == domain.CodeUnauthenticated {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		} else {
			err = unavailable(err)
		}
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	user, err := uuid.Parse(p.UserID)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeUnauthenticated, "the key names no workbench user"))
		return
	}
	h.logoutEverywhere(w, r, user)
}

// logoutEverywhere ends every session of the signed-in user, this one included, in every browser
// and on every replica ("sign out everywhere").
func (h *routes) logoutEverywhere(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	if err := h.Sessions.EndAll(r.Context(), user, h.md(r, user)); err != nil {
		handlers.WriteError(w, r, h.Logger, unavailable(err))
		return
	}
	h.Sessions.Clear(w)
	noStore(w)
	w.WriteHeader(http.StatusNoContent)
}

func (h *routes) providers(w http.ResponseWriter, r *http.Request) {
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"providers": h.SignIn.Providers()})
}

// login sends the browser to the provider, with the flow cookie that binds the sign-in to it.
func (h *routes) login(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "provider")
	authURL, cookie, err := h.SignIn.Begin(signin.WithCorrelationID(r.Context(), middleware.GetReqID(r.Context())), id, r.URL.Query().Get("next"))
	if err != nil {
		h.page(w, r, err)
		return
	}
	http.SetCookie(w, cookie)
	noStore(w)
	http.Redirect(w, r, authURL, http.StatusFound)
}

// callback finishes an SSO sign-in: the session cookie, then the browser goes to next ("/" unless the
// sign-in started with a same-origin next).
func (h *routes) callback(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "provider")
	var flow string
	if c, err := r.Cookie(signin.FlowCookie); err == nil {
		flow = c.Value
	}
	// A flow is used once, whatever happens next.
	http.SetCookie(w, h.SignIn.ClearFlowCookie(id))
	u, next, err := h.SignIn.Complete(signin.WithCorrelationID(r.Context(), middleware.GetReqID(r.Context())), id, flow, r.URL.Query())
	if err != nil {
		h.page(w, r, err)
		return
	}
	h.signIn(w, r, u.ID, next)
}

// link redeems a one-time sign-in link.
func (h *routes) link(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Referrer-Policy", "no-referrer")
	user, err := h.SignIn.RedeemLink(signin.WithCorrelationID(r.Context(), middleware.GetReqID(r.Context())), chi.URLParam(r, "token"))
	if err != nil {
		h.page(w, r, err)
		return
	}
	h.signIn(w, r, user, signin.SafeNext(r.URL.Query().Get("next")))
}

func (h *routes) signIn(w http.ResponseWriter, r *http.Request, user uuid.UUID, next string) {
	if err := h.Sessions.Issue(w, user); err != nil {
		h.page(w, r, err)
		return
	}
	noStore(w)
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, signin.SafeNext(next), http.StatusFound)
}

// page answers a browser navigation that failed with a small self-contained HTML page: the status
// of the error's code and a message a person can act on. It loads nothing and cannot be framed.
func (h *routes) page(w http.ResponseWriter, r *http.Request, err error) {
	status := handlers.StatusOf(err)
	msg := domain.ErrorMessage(err)
	if status >= 500 {
		h.Logger.ErrorContext(r.Context(), "sign-in failed", "path", r.URL.Path, "err", err)
	}
	noStore(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign-in failed · Workbench</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1f2328;line-height:1.5}
h1{font-size:1.4rem}a{color:#0969da}</style></head>
<body><h1>Sign-in did not work</h1><p>%s</p><p><a href="/signin">Back to sign-in</a></p></body></html>
`, html.EscapeString(msg))
}
