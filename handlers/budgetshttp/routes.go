// Package budgetshttp serves the rate limits and budgets a scope sets on its agents' tool calls
// (app/budgets) to the portal:
//
//	GET /api/budgets?owner_scope=&owner_id=   {"budgets": [{tool, per_minute, per_day, today, available_now, day}]}
//	PUT /api/budgets                          {owner_scope, owner_id, tool?, per_minute, per_day}: set
//	                                          (tool absent or "*": every tool; a limit left out is 0,
//	                                          none; both 0 removes it)
//
// Only someone who manages the scope (an organisation's owners and admins, a guild's members, an
// agent's owner) reads or sets its budgets.
package budgetshttp

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/budgets"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/budget"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/handlers/websession"
)

// Sessions is the portal's session manager (*websession.Manager).
type Sessions = websession.Portal

// Deps are what the routes need.
type Deps struct {
	Sessions Sessions
	Budgets  *budgets.Service
	Logger   *slog.Logger
}

// Mount adds the routes to r.
func Mount(r chi.Router, d Deps) {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	h := &routes{d}
	r.Get("/api/budgets", h.user(h.list))
	r.Put("/api/budgets", h.user(h.set))
}

type routes struct{ Deps }

func (h *routes) user(next func(w http.ResponseWriter, r *http.Request, user uuid.UUID)) http.HandlerFunc {
	return websession.RequireUser(h.Sessions, h.Logger, 4<<10, next)
}

func owner(scope, id string) (budget.Owner, error) {
	u, err := uuid.Parse(id)
	if err != nil || !(budget.Owner{Scope: scope, ID: u}).Valid() {
		return budget.Owner{}, domain.Errorf(domain.CodeInvalid, "owner_scope (organization, guild or agent) and owner_id are required")
	}
	return budget.Owner{Scope: scope, ID: u}, nil
}

func (h *routes) list(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	o, err := owner(r.URL.Query().Get("owner_scope"), r.URL.Query().Get("owner_id"))
	if err == nil {
		var us []budgets.Usage
		if us, err = h.Budgets.Usages(r.Context(), user, o); err == nil {
			handlers.WriteJSON(w, http.StatusOK, map[string]any{"budgets": us})
			return
		}
	}
	handlers.WriteError(w, r, h.Logger, err)
}

func (h *routes) set(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	var body struct {
		OwnerScope string `json:"owner_scope"`
		OwnerID    string `json:"owner_id"`
		Tool       string `json:"tool"`
		PerMinute  *int   `json:"per_minute"`
		PerDay     *int   `json:"per_day"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeInvalid, "the body is not the JSON this route takes: %v", err))
		return
	}
	if body.PerMinute == nil && body.PerDay == nil {
		handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeInvalid, "per_minute or per_day is required (0 for none)"))
		return
	}
	o, err := owner(body.OwnerScope, body.OwnerID)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	deref := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	if err := h.Budgets.Set(r.Context(), user, o, body.Tool, deref(body.PerMinute), deref(body.PerDay)); err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
