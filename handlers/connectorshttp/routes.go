package connectorshttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/mcpclient"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/internal/httpserve"
)

// Sessions is the portal's session manager (*websession.Manager).
type Sessions = websession.Portal

// Deps wire the routes.
type Deps struct {
	Sessions   Sessions
	Connectors *connectors.Service
	Logger     *slog.Logger
	// Admins are the instance admins' emails (Config.Admins) and Users finds a user's email: the
	// admin catalog routes (admin.go) answer them alone.
	Admins []string
	Users  Users
	// RemoteWait is how long a route that waits on a remote endpoint may take to answer, past the
	// server's read and write timeouts (0: the remote call limit and a margin).
	RemoteWait time.Duration
}

// maxBody bounds request bodies.
const maxBody = 256 << 10

// Mount adds the routes to r.
func Mount(r chi.Router, d Deps) {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	h := &routes{Deps: d}
	r.Get("/api/mcp/servers", h.user(h.servers))
	r.Get("/api/mcp/servers/{id}/logo", h.logo)
	r.Post("/api/mcp/servers/{id}/lookup", h.user(h.lookupWithCredentials))
	r.Get("/api/mcp/home", h.user(h.home))
	r.Get("/api/mcp/connections", h.user(h.list))
	r.Post("/api/mcp/connections", h.user(h.connect))
	r.Get("/api/mcp/connections/{id}", h.user(h.detail))
	r.Delete("/api/mcp/connections/{id}", h.user(h.remove))
	r.Post("/api/mcp/connections/{id}/default", h.user(h.chooseDefault))
	r.Post("/api/mcp/connections/{id}/call", h.user(h.call))
	r.Post("/api/mcp/connections/{id}/list", h.user(h.relist))
	r.Get("/api/mcp/connections/{id}/lookup", h.user(h.lookupSaved))
	r.Put("/api/mcp/connections/{id}/settings", h.user(h.settings))
	r.Put("/api/mcp/switches", h.user(h.setSwitch))
	r.Put("/api/tools/switches", h.user(h.setPluginSwitch))
	r.Get("/api/tools/switches", h.user(h.pluginSwitches))
	r.Get("/api/tools/start-preference", h.user(h.startPreference))
	r.Put("/api/tools/start-preference", h.user(h.setStartPreference))
	r.Get(connectors.CallbackPath, h.user(h.oauthCallback))
	h.mountAdmin(r)
	h.mountOrgServers(r)
}

type routes struct{ Deps }

// waitsOnRemote extends the request's deadlines to RemoteWait: the route calls a remote endpoint
// (a tool call takes up to mcpclient.CallTimeout), which the server's write timeout must not cut off.
func (h *routes) waitsOnRemote(w http.ResponseWriter) {
	d := h.RemoteWait
	if d <= 0 {
		d = mcpclient.CallTimeout + 30*time.Second
	}
	httpserve.ExtendDeadlines(w, d)
}

// user requires a signed-in portal user and, for a state-changing method, a same-origin request.
func (h *routes) user(next func(w http.ResponseWriter, r *http.Request, user uuid.UUID)) http.HandlerFunc {
	return websession.RequireUser(h.Sessions, h.Logger, maxBody, next)
}

func (h *routes) fail(w http.ResponseWriter, r *http.Request, err error) {
	handlers.WriteError(w, r, h.Logger, err)
}

func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &domain.Error{Code: domain.CodeInvalid, Message: fmt.Sprintf("the request body is larger than %d bytes", maxBody), Err: err}
		}
		return domain.Errorf(domain.CodeInvalid, "the body is not the JSON this route takes: %v", err)
	}
	return nil
}

func pathID(r *http.Request) (uuid.UUID, error) {
	id, err := uuid.Parse(chi.URLParam(r, "id"))
	if err != nil {
		return uuid.Nil, domain.Errorf(domain.CodeNotFound, "no login %q", chi.URLParam(r, "id"))
	}
	return id, nil
}

func (h *routes) servers(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	org, err := optionalID(r, "organization_id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	s, err := h.Connectors.Catalog(r.Context(), user, org)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"servers": s})
}

func (h *routes) logo(w http.ResponseWriter, r *http.Request) {
	b, err := h.Connectors.Logo(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, _ = w.Write(b)
}

func (h *routes) home(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	agent, chain, err := h.Connectors.Home(r.Context(), user)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := map[string]any{"agent_id": agent, "organization_id": chain.OrganizationID, "guild_id": nil}
	if chain.GuildID != uuid.Nil {
		out["guild_id"] = chain.GuildID
	}
	handlers.WriteJSON(w, http.StatusOK, out)
}

func optionalID(r *http.Request, name string) (uuid.UUID, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return uuid.Nil, nil
	}
	id, err := uuid.Parse(v)
	if err != nil {
		return uuid.Nil, domain.Errorf(domain.CodeInvalid, "%s is not an id", name)
	}
	return id, nil
}

func (h *routes) list(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	g, err := optionalID(r, "guild_id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	a, err := optionalID(r, "agent_id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ls, err := h.Connectors.VisibleLogins(r.Context(), user, g, a)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if ls == nil {
		ls = []connectors.View{}
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"connections": ls})
}

// connect takes { mcp_server_id, owner_scope, owner_id, account?, settings?, <auth fields> } and
// always refuses over a connected login of that account (onExisting refuse: a 409). account (also
// ?account=) labels the account: a new label adds an account to the owner, none is the default label.
func (h *routes) connect(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	var body map[string]json.RawMessage
	if err := decode(r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	h.waitsOnRemote(w)
	str := func(k string) string {
		var s string
		_ = json.Unmarshal(body[k], &s)
		return s
	}
	req := connectors.ConnectRequest{ServerID: str("mcp_server_id"), Owner: login.Owner{Scope: login.Scope(str("owner_scope"))},
		Account: str("account"), Fields: map[string]string{}, Settings: body["settings"], OnExisting: login.OnExisting{Mode: login.OnExistingRefuse}, RequestBase: requestBase(r)}
	if q := r.URL.Query().Get("account"); q != "" {
		if req.Account != "" && req.Account != q {
			h.fail(w, r, domain.Errorf(domain.CodeInvalid, "account is %q in the body and %q in the query; send one", req.Account, q))
			return
		}
		req.Account = q
	}
	if req.Owner.Scope != login.ScopePlatform {
		id, err := uuid.Parse(str("owner_id"))
		if err != nil {
			h.fail(w, r, domain.Errorf(domain.CodeInvalid, "owner_id is not an id"))
			return
		}
		req.Owner.ID = id
	}
	for k, v := range body {
		switch k {
		case "mcp_server_id", "owner_scope", "owner_id", "settings", "account":
			continue
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			req.Fields[k] = s
		}
	}
	res, err := h.Connectors.Connect(r.Context(), user, req)
	if err != nil {
		h.failConnect(w, r, err)
		return
	}
	out := map[string]any{"connection": res.Login, "outcome": res.Outcome}
	if res.AuthorizationURL != "" {
		out["authorization_url"], out["authorization_host"] = res.AuthorizationURL, res.AuthorizationHost
	}
	if res.ListingError != "" {
		out["listing_error"] = res.ListingError
	}
	status := http.StatusCreated
	if res.Outcome == login.OutcomeKept || res.Outcome == login.OutcomeCurrent {
		status = http.StatusOK
	}
	handlers.WriteJSON(w, status, out)
}

func (h *routes) detail(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	id, err := pathID(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	a, err := optionalID(r, "agent_id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d, err := h.Connectors.Detail(r.Context(), user, id, a)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, d)
}

// chooseDefault makes the login its owner's default account of its connector.
func (h *routes) chooseDefault(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	id, err := pathID(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v, err := h.Connectors.ChooseDefault(r.Context(), user, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"connection": v})
}

func (h *routes) remove(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	id, err := pathID(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.Connectors.Remove(r.Context(), user, id); err != nil {
		h.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *routes) call(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	id, err := pathID(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var body struct {
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := decode(r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	h.waitsOnRemote(w)
	if body.Tool == "" {
		h.fail(w, r, domain.Errorf(domain.CodeInvalid, "tool is required"))
		return
	}
	res, truncated, err := h.Connectors.TestCall(r.Context(), user, id, body.Tool, body.Arguments)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"result": res, "truncated": truncated})
}

func (h *routes) relist(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	id, err := pathID(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.waitsOnRemote(w)
	if _, err := h.Connectors.Detail(r.Context(), user, id, uuid.Nil); err != nil { // the user may see it
		h.fail(w, r, err)
		return
	}
	if err := h.Connectors.Relist(r.Context(), user.String(), id); err != nil {
		h.fail(w, r, err)
		return
	}
	d, err := h.Connectors.Detail(r.Context(), user, id, uuid.Nil)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, d)
}

func (h *routes) settings(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	id, err := pathID(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var body struct {
		Settings json.RawMessage `json:"settings"`
	}
	if err := decode(r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	h.waitsOnRemote(w)
	v, err := h.Connectors.SaveSettings(r.Context(), user, id, body.Settings)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"connection": v})
}

func (h *routes) lookupSaved(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	id, err := pathID(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.waitsOnRemote(w)
	opts, err := h.Connectors.LookupSaved(r.Context(), user, id, r.URL.Query().Get("property"), r.URL.Query().Get("q"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"options": opts})
}

func (h *routes) lookupWithCredentials(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	var body struct {
		Property    string            `json:"property"`
		Q           string            `json:"q"`
		Credentials map[string]string `json:"credentials"`
	}
	if err := decode(r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	h.waitsOnRemote(w)
	opts, err := h.Connectors.LookupWithCredentials(r.Context(), user, chi.URLParam(r, "id"), body.Property, body.Q, body.Credentials)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"options": opts})
}

func (h *routes) setSwitch(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	var body struct {
		OwnerScope string `json:"owner_scope"`
		OwnerID    string `json:"owner_id"`
		ServerID   string `json:"mcp_server_id"`
		Tool       string `json:"tool"`
		On         *bool  `json:"on"`
		State      string `json:"state"`
		Default    bool   `json:"default"`
	}
	if err := decode(r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	ask, err := switchState(&body.On, body.State)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if ask && login.Scope(body.OwnerScope) == login.ScopePlatform {
		h.fail(w, r, domain.Errorf(domain.CodeInvalid, "Ask is set at an organisation, a guild or an agent"))
		return
	}
	if ask {
		id, err := uuid.Parse(body.OwnerID)
		if err != nil {
			h.fail(w, r, domain.Errorf(domain.CodeInvalid, "owner_scope, owner_id, mcp_server_id, tool and state are required"))
			return
		}
		if err := h.Connectors.AskSwitch(r.Context(), user, login.Owner{Scope: login.Scope(body.OwnerScope), ID: id}, body.ServerID, body.Tool); err != nil {
			h.fail(w, r, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if login.Scope(body.OwnerScope) == login.ScopePlatform {
		h.setPlatformSwitch(w, r, user, body.OwnerID, body.ServerID, body.Tool, body.On)
		return
	}
	id, err := uuid.Parse(body.OwnerID)
	if err != nil || body.On == nil || strings.TrimSpace(body.Tool) == "" {
		h.fail(w, r, domain.Errorf(domain.CodeInvalid, "owner_scope, owner_id, mcp_server_id, tool and on are required"))
		return
	}
	if err := h.Connectors.SetSwitch(r.Context(), user, login.Owner{Scope: login.Scope(body.OwnerScope), ID: id}, body.ServerID, body.Tool, *body.On); err != nil {
		h.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// setPlatformSwitch is PUT /api/mcp/switches at the platform scope: the instance admin's alone
// (owner_id absent or the nil id); anyone else is a 403.
func (h *routes) setPlatformSwitch(w http.ResponseWriter, r *http.Request, user uuid.UUID, ownerID, serverID, tool string, on *bool) {
	if err := h.mayManagePlatform(r.Context(), user); err != nil {
		h.fail(w, r, err)
		return
	}
	if id, err := uuid.Parse(ownerID); (ownerID != "" && (err != nil || id != uuid.Nil)) || on == nil || strings.TrimSpace(tool) == "" || serverID == "" {
		h.fail(w, r, domain.Errorf(domain.CodeInvalid, "owner_scope platform takes mcp_server_id, tool and on (and no owner_id)"))
		return
	}
	if err := h.Connectors.SetPlatformSwitch(r.Context(), user.String(), serverID, tool, *on); err != nil {
		h.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// mayManagePlatform is nil for an instance admin, else the 403 every platform switch answers.
func (h *routes) mayManagePlatform(ctx context.Context, user uuid.UUID) error {
	ok, err := h.isAdmin(ctx, user)
	if err != nil {
		return err
	}
	if !ok {
		return domain.Errorf(domain.CodeForbidden, "the platform's switches are the instance admin's")
	}
	return nil
}

// pluginSwitchOwner is the scope of a plugin switch request: the platform (no owner_id, only for an
// instance admin), or an organisation, guild or agent by id (whom the use case checks).
func (h *routes) pluginSwitchOwner(ctx context.Context, user uuid.UUID, scope, id string) (login.Owner, error) {
	if login.Scope(scope) == login.ScopePlatform {
		if u, err := uuid.Parse(id); id != "" && (err != nil || u != uuid.Nil) {
			return login.Owner{}, domain.Errorf(domain.CodeInvalid, "owner_scope platform takes no owner_id")
		}
		return login.Owner{Scope: login.ScopePlatform}, h.mayManagePlatform(ctx, user)
	}
	u, err := uuid.Parse(id)
	if err != nil {
		return login.Owner{}, domain.Errorf(domain.CodeInvalid, "owner_scope and owner_id (the organisation, guild or agent) are required")
	}
	return login.Owner{Scope: login.Scope(scope), ID: u}, nil
}

// setPluginSwitch is PUT /api/tools/switches: a plugin tool (an integration's or a built-in's) On or
// Off at a scope, {owner_scope, owner_id, tool, on}, under the rules of PUT /api/mcp/switches. At the
// platform, "default": true makes it the instance admin's default rather than a switch (any scope
// below may then switch the tool either way).
func (h *routes) setPluginSwitch(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	var body struct {
		OwnerScope string `json:"owner_scope"`
		OwnerID    string `json:"owner_id"`
		Tool       string `json:"tool"`
		On         *bool  `json:"on"`
		State      string `json:"state"`
		Default    bool   `json:"default"`
	}
	if err := decode(r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	ask, err := switchState(&body.On, body.State)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if body.On == nil || strings.TrimSpace(body.Tool) == "" {
		h.fail(w, r, domain.Errorf(domain.CodeInvalid, "owner_scope, owner_id, tool and on are required"))
		return
	}
	owner, err := h.pluginSwitchOwner(r.Context(), user, body.OwnerScope, body.OwnerID)
	if err == nil {
		switch {
		case owner.Scope == login.ScopePlatform && ask:
			err = domain.Errorf(domain.CodeInvalid, "Ask is set at an organisation, a guild or an agent")
		case owner.Scope == login.ScopePlatform:
			err = h.Connectors.SetPlatformPluginSwitch(r.Context(), user.String(), body.Tool, *body.On, body.Default)
		case body.Default:
			err = domain.Errorf(domain.CodeInvalid, "a default is the instance admin's, at the platform scope; a lower scope switches the tool On or Off")
		case ask:
			err = h.Connectors.AskPluginSwitch(r.Context(), user, owner, body.Tool)
		default:
			err = h.Connectors.SetPluginSwitch(r.Context(), user, owner, body.Tool, *body.On)
		}
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// pluginSwitches is GET /api/tools/switches?owner_scope=&owner_id=: every plugin tool with the scope's
// own switch, the switch resolved down to it, and whether a scope above binds it Off.
func (h *routes) pluginSwitches(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	q := r.URL.Query()
	owner, err := h.pluginSwitchOwner(r.Context(), user, q.Get("owner_scope"), q.Get("owner_id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	views, err := h.Connectors.PluginSwitchViews(r.Context(), user, owner)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"tools": views})
}

// switchState reads a switch's state from "state" (on, off or ask) or "on": it sets *on from state
// when on is absent, refuses the two when they disagree, and reports whether the state is ask.
func switchState(on **bool, state string) (bool, error) {
	var want bool
	switch state {
	case "":
		return false, nil
	case "on", "ask":
		want = true
	case "off":
	default:
		return false, domain.Errorf(domain.CodeInvalid, "state %q is not on, off or ask", state)
	}
	if *on != nil && **on != want {
		return false, domain.Errorf(domain.CodeInvalid, "state %q and on %v disagree; send one", state, **on)
	}
	*on = &want
	return state == "ask", nil
}

// startPreference is GET /api/tools/start-preference?organization_id=: {"mutating_starts_as": "off"|"ask"}.
func (h *routes) startPreference(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	org, err := uuid.Parse(r.URL.Query().Get("organization_id"))
	if err != nil {
		h.fail(w, r, domain.Errorf(domain.CodeInvalid, "organization_id is required"))
		return
	}
	v, err := h.Connectors.StartPreference(r.Context(), user, org)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]string{"mutating_starts_as": v})
}

// setStartPreference is PUT /api/tools/start-preference {organization_id, mutating_starts_as: off|ask}:
// what the organisation's tools that start Off by their rule are for its agents.
func (h *routes) setStartPreference(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	var body struct {
		OrganizationID   string `json:"organization_id"`
		MutatingStartsAs string `json:"mutating_starts_as"`
	}
	if err := decode(r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	org, err := uuid.Parse(body.OrganizationID)
	if err != nil {
		h.fail(w, r, domain.Errorf(domain.CodeInvalid, "organization_id is required"))
		return
	}
	if err := h.Connectors.SetStartPreference(r.Context(), user, org, body.MutatingStartsAs); err != nil {
		h.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
