package connectors

import (
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/projections/identity"
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
	h := &registryRoutes{RegistryDeps: d, base: &routes{Deps: Deps{Sessions: d.Sessions, Connectors: d.Connectors, Logger: d.Logger}}}
	r.Get("/api/admin/mcp/registry", h.base.user(h.admin(h.list)))
	r.Post("/api/admin/mcp/registry/{slug}/install", h.base.user(h.admin(h.install)))
}

type registryRoutes struct {
	RegistryDeps
	base *routes
}

// admin lets an instance admin through; anyone else is a 403. A user store that cannot be read is a 503.
func (h *registryRoutes) admin(next func(w http.ResponseWriter, r *http.Request, email string)) func(http.ResponseWriter, *http.Request, uuid.UUID) {
	return func(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
		u, err := h.Users.UserByID(r.Context(), user)
		switch {
		case errors.Is(err, identity.ErrNotFound):
			h.base.fail(w, r, domain.Errorf(domain.CodeUnauthenticated, "sign in to the workbench portal first"))
			return
		case err != nil:
			h.base.fail(w, r, &domain.Error{Code: domain.CodeUnavailable, Message: "the user store cannot be read now", Err: err})
			return
		}
		email := strings.ToLower(strings.TrimSpace(u.Email))
		if email == "" || !slices.Contains(h.Admins, email) {
			h.base.fail(w, r, domain.Errorf(domain.CodeForbidden, "only an instance admin may install connectors from the registry"))
			return
		}
		next(w, r, email)
	}
}

func (h *registryRoutes) list(w http.ResponseWriter, r *http.Request, _ string) {
	entries, err := h.Connectors.Registry(r.Context())
	if err != nil {
		h.base.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"entries": entries})
}

func (h *registryRoutes) install(w http.ResponseWriter, r *http.Request, email string) {
	v, err := h.Connectors.InstallFromRegistry(r.Context(), email, chi.URLParam(r, "slug"))
	if err != nil {
		h.base.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusCreated, map[string]any{"server": v})
}
