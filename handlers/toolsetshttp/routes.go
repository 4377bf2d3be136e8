// Package toolsetshttp serves toolsets (app/toolsets) to the portal and the API, for whoever manages
// their scope:
//
//	GET    /api/toolsets?owner_scope=&owner_id=                 {"toolsets": [...]}
//	PUT    /api/toolsets                                        {owner_scope, owner_id, name, description?,
//	                                                            entries: [{tool, account?}], connectors?: [server id]}:
//	                                                            a new version (connectors: whose resources and
//	                                                            prompts it serves)
//	DELETE /api/toolsets?owner_scope=&owner_id=&name=           204
//
// A toolset is served to the agents of its scope at /mcp/ts/{name} (handlers/mcp/toolsetserve).
package toolsetshttp

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/toolsets"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/toolset"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/handlers/websession"
)

// Sessions is the portal's session manager (*websession.Manager).
type Sessions = websession.Portal

// Deps are what the routes need.
type Deps struct {
	Sessions  Sessions
	Toolsets  *toolsets.Service
	PublicURL string
	Logger    *slog.Logger
}

// Mount adds the routes to r.
func Mount(r chi.Router, d Deps) {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	h := &routes{d}
	r.Get("/api/toolsets", h.user(h.list))
	r.Put("/api/toolsets", h.user(h.save))
	r.Delete("/api/toolsets", h.user(h.remove))
}

type routes struct{ Deps }

func (h *routes) user(next func(w http.ResponseWriter, r *http.Request, user uuid.UUID)) http.HandlerFunc {
	return websession.RequireUser(h.Sessions, h.Logger, 64<<10, next)
}

func owner(scope, id string) (toolset.Owner, error) {
	u, err := uuid.Parse(id)
	o := toolset.Owner{Scope: scope, ID: u}
	if err != nil || !o.Valid() {
		return toolset.Owner{}, domain.Errorf(domain.CodeInvalid, "owner_scope (organization, guild or agent) and owner_id are required")
	}
	return o, nil
}

// view is a toolset with the address it is served at.
func (h *routes) view(t any, name string) map[string]any {
	return map[string]any{"toolset": t, "endpoint": h.PublicURL + "/mcp/ts/" + name}
}

func (h *routes) list(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	o, err := owner(r.URL.Query().Get("owner_scope"), r.URL.Query().Get("owner_id"))
	if err == nil {
		ts, lerr := h.Toolsets.List(r.Context(), user, o)
		if err = lerr; err == nil {
			out := make([]map[string]any, 0, len(ts))
			for _, t := range ts {
				out = append(out, h.view(t, t.Name))
			}
			handlers.WriteJSON(w, http.StatusOK, map[string]any{"toolsets": out})
			return
		}
	}
	handlers.WriteError(w, r, h.Logger, err)
}

func (h *routes) save(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	var body struct {
		OwnerScope  string          `json:"owner_scope"`
		OwnerID     string          `json:"owner_id"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Entries     []toolset.Entry `json:"entries"`
		Connectors  []string        `json:"connectors"`
		Mirror      bool            `json:"mirror"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeInvalid, "the body is not the JSON this route takes: %v", err))
		return
	}
	o, err := owner(body.OwnerScope, body.OwnerID)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	t, err := h.Toolsets.Save(r.Context(), user, o, body.Name, toolsets.Draft{Description: body.Description, Entries: body.Entries,
		Connectors: body.Connectors, Mirror: body.Mirror})
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, h.view(t, t.Name))
}

func (h *routes) remove(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	q := r.URL.Query()
	o, err := owner(q.Get("owner_scope"), q.Get("owner_id"))
	if err == nil {
		err = h.Toolsets.Delete(r.Context(), user, o, q.Get("name"))
	}
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
