package platformkeyshttp

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/platformkeys"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/projections/identityrm"
)

// Deps wire the routes.
type Deps struct {
	UserOf     func(*http.Request) (uuid.UUID, bool)
	SameOrigin func(*http.Request) bool
	// Email returns the email of a user (identity.Reader.UserByID's).
	Email  func(r *http.Request, id uuid.UUID) (string, error)
	Keys   *platformkeys.Service
	Logger *slog.Logger
}

// maxBody bounds a key's body (a GitHub App's private key is a few kilobytes).
const maxBody = 64 << 10

// Mount adds the routes to r.
func Mount(r chi.Router, d Deps) {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	h := &routes{d}
	r.Get("/api/admin/platform-keys", h.list)
	r.Put("/api/admin/platform-keys/{name}", h.set)
	r.Delete("/api/admin/platform-keys/{name}", h.remove)
	r.Get("/api/admin/connector-calls", h.usage)
}

type routes struct{ Deps }

// keyName is the {name} of the path, unescaped (the portal sends integration%3Abrave-search).
func keyName(r *http.Request) string {
	n := chi.URLParam(r, "name")
	if u, err := url.PathUnescape(n); err == nil {
		return u
	}
	return n
}

func (h *routes) principal(w http.ResponseWriter, r *http.Request) (platformkeys.Principal, bool) {
	w.Header().Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet && (h.SameOrigin == nil || !h.SameOrigin(r)) {
		handlers.WriteJSON(w, http.StatusForbidden, handlers.ErrorBody{Error: "CROSS_ORIGIN", Message: "this request did not come from the workbench portal"})
		return platformkeys.Principal{}, false
	}
	id, ok := h.UserOf(r)
	if !ok || id == uuid.Nil {
		handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeUnauthenticated, "sign in to the workbench portal first"))
		return platformkeys.Principal{}, false
	}
	email, err := h.Email(r, id)
	if errors.Is(err, identityrm.ErrNotFound) {
		handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeUnauthenticated, "sign in to the workbench portal first"))
		return platformkeys.Principal{}, false
	}
	if err != nil {
		handlers.WriteError(w, r, h.Logger, &domain.Error{Code: domain.CodeUnavailable, Message: "the user store cannot be read now", Err: err})
		return platformkeys.Principal{}, false
	}
	return platformkeys.Principal{ID: id, Email: email}, true
}

func (h *routes) list(w http.ResponseWriter, r *http.Request) {
	p, ok := h.principal(w, r)
	if !ok {
		return
	}
	slots, err := h.Keys.Slots(r.Context(), p)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"keys": slots})
}

func (h *routes) set(w http.ResponseWriter, r *http.Request) {
	p, ok := h.principal(w, r)
	if !ok {
		return
	}
	var body struct {
		Fields map[string]string `json:"fields"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeUnprocessable, `the body must be {"fields": {"<field>": "<value>", ...}}: %v`, err))
		return
	}
	if body.Fields == nil {
		handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeUnprocessable, "fields is required"))
		return
	}
	v, err := h.Keys.Set(r.Context(), p, keyName(r), body.Fields)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, v)
}

func (h *routes) remove(w http.ResponseWriter, r *http.Request) {
	p, ok := h.principal(w, r)
	if !ok {
		return
	}
	if err := h.Keys.Remove(r.Context(), p, keyName(r)); err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *routes) usage(w http.ResponseWriter, r *http.Request) {
	p, ok := h.principal(w, r)
	if !ok {
		return
	}
	u, err := h.Keys.Usage(r.Context(), p)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"usage": u})
}
