package connectorshttp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/projections/identityrm"
)

// Users finds a signed-in user's email, to tell an instance admin (identity.Reader).
type Users interface {
	UserByID(ctx context.Context, id uuid.UUID) (identityrm.User, error)
}

// mountAdmin adds the instance admin's catalog routes (spec connectors.md, The catalog in Admin).
// GET /api/admin/mcp/servers lists the platform's rows with their overrides and tools, for the page.
func (h *routes) mountAdmin(r chi.Router) {
	r.Get("/api/admin/mcp/servers", h.admin(h.adminServers))
	r.Post("/api/admin/mcp/servers", h.admin(h.adminAdd))
	r.Patch("/api/admin/mcp/servers/{id}", h.admin(h.adminEdit))
	r.Patch("/api/admin/mcp/servers/{id}/tools/{name}", h.admin(h.adminTool))
	r.Get("/api/admin/mcp/servers/{id}/export", h.admin(h.adminExport))
}

// admin requires a signed-in instance admin (Config.Admins, WORKBENCH_ADMINS): anyone else is a 403.
func (h *routes) admin(next func(w http.ResponseWriter, r *http.Request, user uuid.UUID)) http.HandlerFunc {
	return h.user(func(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
		ok, err := h.isAdmin(r.Context(), user)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		if !ok {
			h.fail(w, r, domain.Errorf(domain.CodeForbidden, "only an instance admin (WORKBENCH_ADMINS) may do this"))
			return
		}
		next(w, r, user)
	})
}

func (h *routes) isAdmin(ctx context.Context, user uuid.UUID) (bool, error) {
	if h.Users == nil || len(h.Admins) == 0 {
		return false, nil
	}
	u, err := h.Users.UserByID(ctx, user)
	if errors.Is(err, identityrm.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, &domain.Error{Code: domain.CodeUnavailable, Message: "the user store cannot be read now", Err: err}
	}
	for _, a := range h.Admins {
		if u.Email != "" && strings.EqualFold(a, u.Email) {
			return true, nil
		}
	}
	return false, nil
}

func (h *routes) adminServers(w http.ResponseWriter, r *http.Request, _ uuid.UUID) {
	s, err := h.Connectors.AdminServers(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"servers": s})
}

// decodeAdd reads a server added by hand; auth is "none", "token", "oauth" or { kind, strategy, provider }.
func decodeAdd(r *http.Request) (connectors.AddRequest, error) {
	var body struct {
		Slug        string          `json:"slug"`
		URL         string          `json:"url"`
		DisplayName string          `json:"display_name"`
		Description string          `json:"description"`
		Auth        json.RawMessage `json:"auth"`
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		return connectors.AddRequest{}, domain.Errorf(domain.CodeUnprocessable, "the body is not the JSON this route takes: %v", err)
	}
	req := connectors.AddRequest{Slug: body.Slug, URL: body.URL, DisplayName: body.DisplayName, Description: body.Description}
	auth, err := decodeAuth(body.Auth)
	if err != nil {
		return req, err
	}
	if auth != nil {
		req.Auth = *auth
	}
	return req, nil
}

func decodeAuth(raw json.RawMessage) (*connectors.AuthSpec, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var kind string
	if json.Unmarshal(raw, &kind) == nil {
		return &connectors.AuthSpec{Kind: kind}, nil
	}
	var a connectors.AuthSpec
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, domain.Errorf(domain.CodeUnprocessable, `auth must be "none", "token", "oauth" or {"kind", "strategy", "provider"}`)
	}
	return &a, nil
}

// decodeEdit reads a PATCH: enabled, the copy keys (null clears), url and auth.
func decodeEdit(r *http.Request) (connectors.ServerEdit, error) {
	var body map[string]json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		return connectors.ServerEdit{}, domain.Errorf(domain.CodeUnprocessable, "the body is not the JSON this route takes: %v", err)
	}
	edit := connectors.ServerEdit{Copy: map[string]json.RawMessage{}}
	for k, v := range body {
		switch k {
		case "enabled":
			var on bool
			if err := json.Unmarshal(v, &on); err != nil {
				return edit, domain.Errorf(domain.CodeUnprocessable, "enabled must be true or false")
			}
			edit.Enabled = &on
		case "url":
			var u string
			if err := json.Unmarshal(v, &u); err != nil {
				return edit, domain.Errorf(domain.CodeUnprocessable, "url must be a string")
			}
			edit.URL = &u
		case "auth":
			a, err := decodeAuth(v)
			if err != nil {
				return edit, err
			}
			if a == nil {
				return edit, domain.Errorf(domain.CodeUnprocessable, "auth cannot be cleared")
			}
			edit.Auth = a
		default:
			edit.Copy[k] = v
		}
	}
	return edit, nil
}

func (h *routes) adminAdd(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	req, err := decodeAdd(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	e, err := h.Connectors.AddServer(r.Context(), user.String(), req)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusCreated, map[string]any{"server": e})
}

func (h *routes) adminEdit(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	edit, err := decodeEdit(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	e, err := h.Connectors.EditServer(r.Context(), user.String(), chi.URLParam(r, "id"), edit)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"server": e})
}

func (h *routes) adminTool(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	var body map[string]json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		h.fail(w, r, domain.Errorf(domain.CodeUnprocessable, "the body is not the JSON this route takes: %v", err))
		return
	}
	e, err := h.Connectors.SetToolOverrides(r.Context(), user.String(), chi.URLParam(r, "id"), chi.URLParam(r, "name"), body)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"server": e})
}

func (h *routes) adminExport(w http.ResponseWriter, r *http.Request, _ uuid.UUID) {
	id := chi.URLParam(r, "id")
	b, err := h.Connectors.Export(r.Context(), id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", `attachment; filename="connector.json"`)
	_, _ = w.Write(b)
}
