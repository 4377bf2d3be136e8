// Package webhookshttp serves an organisation's webhooks (app/webhooks) to the portal, for its owners
// and admins:
//
//	GET    /api/webhooks?organization_id=          {"webhooks": [{id, url, events, created_at, deliveries: [...]}]}
//	POST   /api/webhooks                           {organization_id, url, events}: 201 {"webhook": view,
//	                                               "secret": "whsec_…"} (the secret is shown this once)
//	DELETE /api/webhooks/{id}?organization_id=     204
package webhookshttp

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/webhooks"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/handlers/websession"
)

// Sessions is the portal's session manager (*websession.Manager).
type Sessions = websession.Portal

// Deps are what the routes need.
type Deps struct {
	Sessions Sessions
	Webhooks *webhooks.Service
	Logger   *slog.Logger
}

// Mount adds the routes to r.
func Mount(r chi.Router, d Deps) {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	h := &routes{d}
	r.Get("/api/webhooks", h.user(h.list))
	r.Post("/api/webhooks", h.user(h.register))
	r.Delete("/api/webhooks/{id}", h.user(h.remove))
}

type routes struct{ Deps }

func (h *routes) user(next func(w http.ResponseWriter, r *http.Request, user uuid.UUID)) http.HandlerFunc {
	return websession.RequireUser(h.Sessions, h.Logger, 8<<10, next)
}

func orgOf(s string) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil, domain.Errorf(domain.CodeInvalid, "organization_id is required")
	}
	return id, nil
}

func (h *routes) list(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	org, err := orgOf(r.URL.Query().Get("organization_id"))
	if err == nil {
		var vs []webhooks.View
		if vs, err = h.Webhooks.List(r.Context(), user, org); err == nil {
			handlers.WriteJSON(w, http.StatusOK, map[string]any{"webhooks": vs})
			return
		}
	}
	handlers.WriteError(w, r, h.Logger, err)
}

func (h *routes) register(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	var body struct {
		OrganizationID string   `json:"organization_id"`
		URL            string   `json:"url"`
		Events         []string `json:"events"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeInvalid, "the body is not the JSON this route takes: %v", err))
		return
	}
	org, err := orgOf(body.OrganizationID)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	v, secret, err := h.Webhooks.Register(r.Context(), user, org, body.URL, body.Events)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	handlers.WriteJSON(w, http.StatusCreated, map[string]any{"webhook": v, "secret": secret})
}

func (h *routes) remove(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	org, err := orgOf(r.URL.Query().Get("organization_id"))
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	id, err := uuid.Parse(chi.URLParam(r, "id"))
	if err != nil {
		handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeNotFound, "no webhook %q", chi.URLParam(r, "id")))
		return
	}
	if err := h.Webhooks.Remove(r.Context(), user, org, id); err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
