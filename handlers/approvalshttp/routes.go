// Package approvalshttp serves the approvals of calls held back by a switch set to Ask
// (app/approvals) to the portal: the inbox of the approvals waiting for the signed-in user, one
// approval with its arguments, and the decision.
//
//	GET  /api/approvals                 {"approvals": [view…]} waiting for the user
//	GET  /api/approvals/{id}            one approval the user may decide
//	POST /api/approvals/{id}/approve    {"always": bool}: run the call once (always: and switch the
//	                                    tool On for the agent)
//	POST /api/approvals/{id}/deny       refuse the call
//
// Only the user the agent acts for, or someone who manages the agent's scope, sees or decides an
// approval; anyone else is told there is none (404).
package approvalshttp

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/approvals"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/projections/approvalsrm"
)

// Sessions is the portal's session manager (*websession.Manager).
type Sessions = websession.Portal

// Deps are what the routes need.
type Deps struct {
	Sessions  Sessions
	Approvals *approvals.Service
	Reader    approvalsrm.Reader
	Logger    *slog.Logger
}

// Mount adds the routes to r.
func Mount(r chi.Router, d Deps) {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	h := &routes{d}
	r.Get("/api/approvals", h.user(h.list))
	r.Get("/api/approvals/{id}", h.user(h.get))
	r.Post("/api/approvals/{id}/approve", h.user(h.decide(true)))
	r.Post("/api/approvals/{id}/deny", h.user(h.decide(false)))
}

type routes struct{ Deps }

func (h *routes) user(next func(w http.ResponseWriter, r *http.Request, user uuid.UUID)) http.HandlerFunc {
	return websession.RequireUser(h.Sessions, h.Logger, 4<<10, next)
}

func pathID(r *http.Request) (uuid.UUID, error) {
	id, err := uuid.Parse(chi.URLParam(r, "id"))
	if err != nil {
		return uuid.Nil, domain.Errorf(domain.CodeNotFound, "no approval %q", chi.URLParam(r, "id"))
	}
	return id, nil
}

func (h *routes) list(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	vs, err := h.Approvals.Pending(r.Context(), user, h.Reader)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"approvals": vs})
}

func (h *routes) get(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	id, err := pathID(r)
	if err == nil {
		var v approvals.View
		if v, err = h.Approvals.Get(r.Context(), user, id); err == nil {
			handlers.WriteJSON(w, http.StatusOK, v)
			return
		}
	}
	handlers.WriteError(w, r, h.Logger, err)
}

func (h *routes) decide(approve bool) func(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	return func(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
		id, err := pathID(r)
		if err != nil {
			handlers.WriteError(w, r, h.Logger, err)
			return
		}
		var body struct {
			Always bool `json:"always"`
		}
		if r.ContentLength != 0 {
			if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
				handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeInvalid, "the body is not the JSON this route takes: %v", err))
				return
			}
		}
		if body.Always && !approve {
			handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeInvalid, "always goes with approve"))
			return
		}
		v, warning, err := h.Approvals.Decide(r.Context(), user, id, approve, body.Always)
		if err != nil {
			handlers.WriteError(w, r, h.Logger, err)
			return
		}
		out := map[string]any{"approval": v}
		if warning != "" {
			out["warning"] = warning // approved once; "always" was refused (a scope above holds the tool Off)
		}
		handlers.WriteJSON(w, http.StatusOK, out)
	}
}
