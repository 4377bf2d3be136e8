package portalhttp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/handlers"
)

// DefaultRedeemLimit bounds claim-link redemptions per client address per minute. A person redeems a
// link or two; each attempt loads an event stream and may append, so a flood is cut off here.
const DefaultRedeemLimit = 30

// Error codes of the connect routes beyond the application codes (handlers.ErrorBody.Error).
const (
	CodeAccountMismatch = "ACCOUNT_MISMATCH" // 403: the link names another workbench user
	CodeInvalidLink     = "INVALID_LINK"     // 400: forged or malformed claim link
	CodeLinkExpired     = "LINK_EXPIRED"     // 410: the link's attempt expired, was replaced or was used
)

type redeemRequest struct {
	Token string `json:"token"`
}

type redeemResponse struct {
	Type         string `json:"type"`
	URL          string `json:"url,omitempty"`
	ConnectionID string `json:"connectionId"`
	Integration  string `json:"integration"`
	Account      string `json:"account"`
}

func (h *routes) redeem(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	var req redeemRequest
	if err := decodeJSON(r, &req); err != nil || req.Token == "" {
		handlers.WriteError(w, r, h.Logger, bodyError(err, `the body must be {"token": "<the token of the connect link>"}`))
		return
	}
	// The portal may post the whole link; take its last path segment.
	token := req.Token
	if i := strings.LastIndex(token, "/connect/"); i >= 0 {
		token = token[i+len("/connect/"):]
	}
	res, err := h.Credentials.Redeem(r.Context(), user, token)
	if err != nil {
		msg := domain.ErrorMessage(err)
		switch {
		case errors.Is(err, connections.ErrAccountMismatch):
			handlers.WriteJSON(w, http.StatusForbidden, handlers.ErrorBody{Error: CodeAccountMismatch, Message: msg})
		case errors.Is(err, connections.ErrLinkInvalid):
			handlers.WriteJSON(w, http.StatusBadRequest, handlers.ErrorBody{Error: CodeInvalidLink, Message: msg})
		case errors.Is(err, connections.ErrLinkExpired):
			handlers.WriteJSON(w, http.StatusGone, handlers.ErrorBody{Error: CodeLinkExpired, Message: msg})
		default:
			handlers.WriteError(w, r, h.Logger, err)
		}
		return
	}
	handlers.WriteJSON(w, http.StatusOK, redeemResponse{Type: res.Type, URL: res.URL, ConnectionID: res.ConnectionID.String(), Integration: res.Integration, Account: res.Account})
}

// pluginCallback completes the OAuth handshake and sends the browser back to the portal: /?connected=<name>
// on success, /?connect_error=<reason>&integration=<name> otherwise (reasons: connections.CallbackReason).
func (h *routes) pluginCallback(w http.ResponseWriter, r *http.Request) {
	integration := chi.URLParam(r, "integration")
	user, _ := h.Sessions.User(r)
	_, err := h.Credentials.Callback(r.Context(), user, integration, r.URL.Query())
	q := url.Values{}
	if err != nil {
		reason := connections.CallbackReason(err)
		if reason == "error" || reason == "exchange_failed" {
			// Internal failures and provider refusals are worth a log line; the error text carries
			// no secret (the package guarantees it).
			h.Logger.WarnContext(r.Context(), "oauth callback failed", "integration", integration, "reason", reason, "err", err)
		}
		q.Set("connect_error", reason)
		q.Set("integration", integration)
	} else {
		q.Set("connected", integration)
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, h.Credentials.PublicURL()+"/?"+q.Encode(), http.StatusSeeOther)
}

type apiKeyRequest struct {
	Fields map[string]string `json:"fields"`
	// Account is the label of the account the key is stored as; empty for the default account.
	Account string `json:"account,omitempty"`
}

// accountParam is the account label a route was given in its query (?account=work); empty for the
// default account. A malformed label is refused.
func accountParam(r *http.Request) (string, error) {
	label := r.URL.Query().Get("account")
	return label, connection.CheckAccountLabel(label)
}

// connectAPIKey stores an API key from the portal's form: JSON {"fields": {...}, "account": "work"}
// or a form post whose fields are the manifest's field names (the account then in the query,
// ?account=work). It answers 204 No Content once the key is stored (the portal's contract: it reloads
// the integration list rather than reading a body). Without an account the key replaces the default
// account's (or becomes the first account, labelled "default").
func (h *routes) connectAPIKey(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	name := chi.URLParam(r, "name")
	account, err := accountParam(r)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	fields := map[string]string{}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "application/x-www-form-urlencoded" {
		if err := r.ParseForm(); err != nil {
			handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeInvalid, "the form could not be read"))
			return
		}
		for k, v := range r.PostForm {
			if len(v) > 0 {
				fields[k] = v[0]
			}
		}
	} else {
		var req apiKeyRequest
		if err := decodeJSON(r, &req); err != nil || req.Fields == nil {
			handlers.WriteError(w, r, h.Logger, bodyError(err, `the body must be {"fields": {"<field name>": "<value>", ...}}`))
			return
		}
		fields = req.Fields
		if req.Account != "" {
			if account != "" && account != req.Account {
				handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeInvalid, "the query names account %q and the body %q; name one", account, req.Account))
				return
			}
			account = req.Account
		}
	}
	if err := h.Credentials.ConnectAPIKey(r.Context(), user, name, account, fields); err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// disconnect removes one of the user's accounts of the integration (?account=work; the default
// account without one); 204 No Content once it is gone. The other accounts keep working.
func (h *routes) disconnect(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	name := chi.URLParam(r, "name")
	account, err := accountParam(r)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	if err := h.Credentials.Disconnect(r.Context(), user, name, account); err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type defaultRequest struct {
	Account string `json:"account"`
}

// chooseDefault makes one of the user's accounts the default of the integration: JSON
// {"account": "work"}; 204 No Content once recorded.
func (h *routes) chooseDefault(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	var req defaultRequest
	if err := decodeJSON(r, &req); err != nil || req.Account == "" {
		handlers.WriteError(w, r, h.Logger, bodyError(err, `the body must be {"account": "<the label of the account>"}`))
		return
	}
	if err := h.Credentials.ChooseDefault(r.Context(), user, chi.URLParam(r, "name"), req.Account); err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// bodyError is the answer to a body decodeJSON refused: a body over the cap keeps its cause (413,
// handlers.StatusOf), anything else is the route's own message.
func bodyError(err error, message string) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return &domain.Error{Code: domain.CodeInvalid, Message: fmt.Sprintf("the request body is larger than %d bytes", tooBig.Limit), Err: err}
	}
	return domain.Errorf(domain.CodeInvalid, "%s", message)
}

// decodeJSON reads one JSON object, refusing unknown fields and trailing data.
func decodeJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data")
	}
	return nil
}
