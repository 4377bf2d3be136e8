package connectorshttp

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers"
)

// mountOrgServers adds an organisation's own MCP servers (spec connectors.md, An organisation's own
// servers): its owners and admins add, edit and delete them; a member reads them (a 403 on a write);
// another organisation, and another organisation's server id, are a 404.
func (h *routes) mountOrgServers(r chi.Router) {
	r.Get("/api/orgs/{org}/mcp/servers", h.user(h.orgServers))
	r.Post("/api/orgs/{org}/mcp/servers", h.user(h.orgAdd))
	r.Patch("/api/orgs/{org}/mcp/servers/{id}", h.user(h.orgEdit))
	r.Delete("/api/orgs/{org}/mcp/servers/{id}", h.user(h.orgDelete))
}

func pathOrg(r *http.Request) (uuid.UUID, error) {
	id, err := uuid.Parse(chi.URLParam(r, "org"))
	if err != nil {
		return uuid.Nil, domain.Errorf(domain.CodeNotFound, "no organization %q", chi.URLParam(r, "org"))
	}
	return id, nil
}

func (h *routes) orgServers(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	org, err := pathOrg(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	s, err := h.Connectors.OrgServers(r.Context(), user, org)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"servers": s})
}

func (h *routes) orgAdd(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	org, err := pathOrg(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	req, err := decodeAdd(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	e, err := h.Connectors.AddOrgServer(r.Context(), user, org, req)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusCreated, map[string]any{"server": e})
}

func (h *routes) orgEdit(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	org, err := pathOrg(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	edit, err := decodeEdit(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	e, err := h.Connectors.EditOrgServer(r.Context(), user, org, chi.URLParam(r, "id"), edit)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"server": e})
}

func (h *routes) orgDelete(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	org, err := pathOrg(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.Connectors.DeleteOrgServer(r.Context(), user, org, chi.URLParam(r, "id")); err != nil {
		h.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
