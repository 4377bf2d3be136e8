package connectorshttp

import (
	"log/slog"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/handlers"
)

// RegistryDeps wire the connector registry's admin routes.
type RegistryDeps struct {
	Sessions   Sessions
	Connectors *connectors.Service
	Users      Users
	// Admins are the instance admins' normalised emails (internal/config Config.Admins).
	Admins []string
	Logger *slog.Logger
}

// MountRegistry adds the connector registry's routes (spec connectors.md, Where connectors come
// from): GET /api/admin/mcp/registry lists the registry's entries, installed or not, with any
// problems; POST /api/admin/mcp/registry/{slug}/install installs one as a platform connector (201
// with the catalog row). Only instance admins: anyone else signed in is a 403.
func MountRegistry(r chi.Router, d RegistryDeps) {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	h := &registryRoutes{RegistryDeps: d, base: &routes{Deps: Deps{Sessions: d.Sessions, Connectors: d.Connectors, Logger: d.Logger, Admins: d.Admins, Users: d.Users}}}
	r.Get("/api/admin/mcp/registry", h.base.admin(h.list))
	r.Post("/api/admin/mcp/registry/{slug}/install", h.base.admin(h.install))
}

type registryRoutes struct {
	RegistryDeps
	base *routes
}

func (h *registryRoutes) list(w http.ResponseWriter, r *http.Request, _ uuid.UUID) {
	entries, err := h.Connectors.Registry(r.Context())
	if err != nil {
		h.base.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"entries": entries})
}

func (h *registryRoutes) install(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	v, err := h.Connectors.InstallFromRegistry(r.Context(), user.String(), chi.URLParam(r, "slug"))
	if err != nil {
		h.base.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusCreated, map[string]any{"server": v})
}
