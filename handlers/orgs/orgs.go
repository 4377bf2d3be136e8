package orgs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/accounts"
	"github.com/workbench/workbench/app/organizations"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/handlers/mcp"
	"github.com/workbench/workbench/projections/identityrm"
	"github.com/workbench/workbench/projections/oauthrm"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// Keys is the part of app/accounts that makes and retires an agent's API key.
type Keys interface {
	MintOrRotateAgent(ctx context.Context, user, agent uuid.UUID, md eventstore.Metadata) (accounts.Key, eventstore.Position, error)
	RevokeAgentKey(ctx context.Context, user, agent uuid.UUID, md eventstore.Metadata) (eventstore.Position, error)
}

// KeyReader is the part of the identity read model that shows an agent's live key.
type KeyReader interface {
	LiveKeyFor(ctx context.Context, user, agent uuid.UUID) (identityrm.APIKey, error)
}

// Clients is the part of the oauth read model that lists the MCP clients acting as an agent.
type Clients interface {
	ClientsOfAgent(ctx context.Context, user, agent uuid.UUID, now time.Time) ([]oauthrm.UserClient, error)
}

// Projections is the part of the projections runner used to read our own writes: a new key must
// authenticate by the time it is shown.
type Projections interface {
	WaitFor(ctx context.Context, pos eventstore.Position) error
}

// Deps is what the routes need; all but Logger and Now are required.
type Deps struct {
	// Auth resolves the caller: authn.Chain of API keys, access tokens and the portal session.
	Auth      mcp.Authenticator
	Orgs      *organizations.Service
	Reader    *organizationsrm.Reader
	Keys      Keys
	KeyReader KeyReader
	// Clients, when set, lists each agent's OAuth clients beside its API key.
	Clients     Clients
	Projections Projections
	Logger      *slog.Logger
	Now         func() time.Time
}

// maxBody bounds request bodies; every body here is a name, an address or a role.
const maxBody = 16 << 10

// Mount adds the routes to r.
func Mount(r chi.Router, d Deps) {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	h := &routes{Deps: d}
	r.Route("/api/orgs", func(r chi.Router) {
		r.Get("/", h.caller(h.list))
		r.Post("/", h.caller(h.create))
		r.Get("/invitations", h.caller(h.myInvitations))
		r.Post("/invitations/{invitation}/accept", h.caller(h.acceptInvitation))
		r.Post("/invitations/{invitation}/decline", h.caller(h.declineInvitation))
		r.Route("/{org}", func(r chi.Router) {
			r.Get("/", h.member(h.show))
			r.Patch("/", h.member(h.rename))
			r.Post("/members", h.member(h.invite))
			r.Patch("/members/{user}", h.member(h.changeRole))
			r.Delete("/members/{user}", h.member(h.removeMember))
			r.Delete("/invitations/{email}", h.member(h.revokeInvitation))
			r.Post("/guilds", h.member(h.createGuild))
			r.Get("/guilds/{guild}", h.member(h.showGuild))
			r.Patch("/guilds/{guild}", h.member(h.renameGuild))
			r.Delete("/guilds/{guild}", h.member(h.deleteGuild))
			r.Put("/guilds/{guild}/members/{user}", h.member(h.addGuildMember))
			r.Delete("/guilds/{guild}/members/{user}", h.member(h.removeGuildMember))
			r.Post("/agents", h.member(h.createAgent))
			r.Patch("/agents/{agent}", h.member(h.updateAgent))
			r.Delete("/agents/{agent}", h.member(h.deleteAgent))
			r.Post("/agents/{agent}/apikey", h.member(h.mintKey))
			r.Delete("/agents/{agent}/apikey", h.member(h.revokeKey))
		})
	})
}

type routes struct{ Deps }

// who is the authenticated caller.
type who struct {
	user  uuid.UUID
	email string
	// method is how the caller authenticated (mcp.Principal.Method: "session" for the portal).
	method string
}

// call is one request to a route under /api/orgs/{org}, by a member of it.
type call struct {
	who
	org organizationsrm.Membership
}

func (h *routes) fail(w http.ResponseWriter, r *http.Request, err error) {
	handlers.WriteError(w, r, h.Logger, err)
}

// caller authenticates the request.
func (h *routes) caller(next func(w http.ResponseWriter, r *http.Request, c who)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, err := h.Auth.Authenticate(r)
		if err != nil {
			if domain.ErrorCode(err) == domain.CodeInternal {
				err = domain.Errorf(domain.CodeUnauthenticated, "sign in to the workbench portal, or send a workbench API key as a Bearer token")
			}
			h.fail(w, r, err)
			return
		}
		user, err := uuid.Parse(p.UserID)
		if err != nil {
			h.fail(w, r, domain.Errorf(domain.CodeUnauthenticated, "the credential names no workbench user"))
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		next(w, r, who{user: user, email: p.Email, method: p.Method})
	}
}

// member authenticates the request and checks that the caller is a member of {org}: anything else
// is a 404, whether the organisation exists or not.
func (h *routes) member(next func(w http.ResponseWriter, r *http.Request, c call)) http.HandlerFunc {
	return h.caller(func(w http.ResponseWriter, r *http.Request, c who) {
		org, err := uuid.Parse(chi.URLParam(r, "org"))
		if err != nil {
			h.fail(w, r, domain.Errorf(domain.CodeNotFound, "no such organisation"))
			return
		}
		m, err := h.Reader.Membership(r.Context(), org, c.user)
		if errors.Is(err, organizationsrm.ErrNotFound) {
			h.fail(w, r, domain.Errorf(domain.CodeNotFound, "no such organisation"))
			return
		}
		if err != nil {
			h.fail(w, r, err)
			return
		}
		next(w, r, call{who: c, org: m})
	})
}

func (h *routes) md(r *http.Request, c who) eventstore.Metadata {
	return eventstore.Metadata{Actor: c.user.String(), CorrelationID: middleware.GetReqID(r.Context()), Time: h.Now().UTC()}
}

// decode reads a JSON body into v, refusing unknown fields and trailing data.
func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &domain.Error{Code: domain.CodeInvalid, Message: fmt.Sprintf("the request body is larger than %d bytes", maxBody), Err: err}
		}
		return domain.Errorf(domain.CodeInvalid, "the request body is not the JSON object this route takes: %v", err)
	}
	if dec.More() {
		return domain.Errorf(domain.CodeInvalid, "the request body holds more than one JSON value")
	}
	return nil
}

// idParam parses a uuid path parameter; a malformed one names nothing, so it is a 404.
func idParam(r *http.Request, name, what string) (uuid.UUID, error) {
	id, err := uuid.Parse(chi.URLParam(r, name))
	if err != nil {
		return uuid.Nil, domain.Errorf(domain.CodeNotFound, "no such %s", what)
	}
	return id, nil
}

// guildOf reads {guild} and checks it is the organisation's.
func (h *routes) guildOf(r *http.Request, c call) (organizationsrm.Guild, error) {
	id, err := idParam(r, "guild", "guild")
	if err != nil {
		return organizationsrm.Guild{}, err
	}
	g, err := h.Reader.Guild(r.Context(), id)
	if errors.Is(err, organizationsrm.ErrNotFound) || (err == nil && g.OrganizationID != c.org.ID) {
		return organizationsrm.Guild{}, domain.Errorf(domain.CodeNotFound, "the organisation has no guild %s", id)
	}
	return g, err
}

// agentOf reads {agent} and checks it is the organisation's.
func (h *routes) agentOf(r *http.Request, c call) (organizationsrm.Agent, error) {
	id, err := idParam(r, "agent", "agent")
	if err != nil {
		return organizationsrm.Agent{}, err
	}
	a, err := h.Reader.Agent(r.Context(), id)
	if errors.Is(err, organizationsrm.ErrNotFound) || (err == nil && a.OrganizationID != c.org.ID) {
		return organizationsrm.Agent{}, domain.Errorf(domain.CodeNotFound, "the organisation has no agent %s", id)
	}
	return a, err
}

// --- JSON shapes ---

type orgJSON struct {
	ID        uuid.UUID         `json:"id"`
	Name      string            `json:"name"`
	Personal  bool              `json:"personal"`
	Role      organization.Role `json:"role"`
	CreatedAt time.Time         `json:"created_at"`
}

func orgOf(m organizationsrm.Membership) orgJSON {
	return orgJSON{ID: m.ID, Name: m.Name, Personal: m.Personal, Role: m.Role, CreatedAt: m.CreatedAt}
}

type memberJSON struct {
	UserID  uuid.UUID         `json:"user_id"`
	Email   string            `json:"email"`
	Role    organization.Role `json:"role"`
	AddedAt time.Time         `json:"added_at"`
}

type invitationJSON struct {
	ID        uuid.UUID         `json:"id"`
	Email     string            `json:"email"`
	Erased    bool              `json:"erased,omitempty"` // the address was erased: Email is a pseudonym
	Role      organization.Role `json:"role"`
	InvitedBy uuid.UUID         `json:"invited_by"`
	InvitedAt time.Time         `json:"invited_at"`
}

type guildJSON struct {
	ID        uuid.UUID   `json:"id"`
	Name      string      `json:"name"`
	CreatedAt time.Time   `json:"created_at"`
	Members   []uuid.UUID `json:"members"`
}

func guildOf(g organizationsrm.Guild) guildJSON {
	members := g.Members
	if members == nil {
		members = []uuid.UUID{}
	}
	return guildJSON{ID: g.ID, Name: g.Name, CreatedAt: g.CreatedAt, Members: members}
}

type keyJSON struct {
	Prefix   string    `json:"prefix"`
	MintedAt time.Time `json:"minted_at"`
}

type agentJSON struct {
	ID        uuid.UUID  `json:"id"`
	Name      string     `json:"name"`
	OwnerID   uuid.UUID  `json:"owner_id"`
	GuildID   *uuid.UUID `json:"guild_id"`
	Default   bool       `json:"default"`
	CreatedAt time.Time  `json:"created_at"`
	// APIKey is the agent's live key (its prefix, never the key); null when it has none.
	APIKey *keyJSON `json:"api_key"`
	// OAuthClients are the MCP clients holding live tokens that act as the agent.
	OAuthClients []clientJSON `json:"oauth_clients"`
}

type clientJSON struct {
	ClientID   string    `json:"client_id"`
	ClientName string    `json:"client_name"`
	LastUsedAt time.Time `json:"last_used_at"`
}

func (h *routes) agentJSON(ctx context.Context, a organizationsrm.Agent) (agentJSON, error) {
	out := agentJSON{ID: a.ID, Name: a.Name, OwnerID: a.OwnerID, Default: a.Default, CreatedAt: a.CreatedAt, OAuthClients: []clientJSON{}}
	if a.GuildID != uuid.Nil {
		g := a.GuildID
		out.GuildID = &g
	}
	k, err := h.KeyReader.LiveKeyFor(ctx, a.OwnerID, a.ID)
	switch {
	case err == nil:
		out.APIKey = &keyJSON{Prefix: k.Prefix, MintedAt: k.MintedAt}
	case !errors.Is(err, identityrm.ErrNotFound):
		return agentJSON{}, err
	}
	if h.Clients != nil {
		cs, err := h.Clients.ClientsOfAgent(ctx, a.OwnerID, a.ID, h.Now())
		if err != nil {
			return agentJSON{}, err
		}
		for _, c := range cs {
			out.OAuthClients = append(out.OAuthClients, clientJSON{ClientID: c.ClientID, ClientName: c.ClientName, LastUsedAt: c.LastUsedAt})
		}
	}
	return out, nil
}

func (h *routes) agentsJSON(ctx context.Context, agents []organizationsrm.Agent) ([]agentJSON, error) {
	out := make([]agentJSON, 0, len(agents))
	for _, a := range agents {
		j, err := h.agentJSON(ctx, a)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}

// --- organisations ---

func (h *routes) list(w http.ResponseWriter, r *http.Request, c who) {
	ms, err := h.Reader.Memberships(r.Context(), c.user)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := make([]orgJSON, 0, len(ms))
	for _, m := range ms {
		out = append(out, orgOf(m))
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"organizations": out})
}

type nameBody struct {
	Name string `json:"name"`
}

func (h *routes) create(w http.ResponseWriter, r *http.Request, c who) {
	var body nameBody
	if err := decode(r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	id, err := h.Orgs.Create(r.Context(), c.user, c.email, body.Name, h.md(r, c))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	m, err := h.Reader.Membership(r.Context(), id, c.user)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Location", "/api/orgs/"+id.String())
	handlers.WriteJSON(w, http.StatusCreated, orgOf(m))
}

type orgPage struct {
	Organization orgJSON          `json:"organization"`
	Members      []memberJSON     `json:"members"`
	Invitations  []invitationJSON `json:"invitations"`
	Guilds       []guildJSON      `json:"guilds"`
	Agents       []agentJSON      `json:"agents"`
}

// show is the organisation page. Pending invitations are listed to owners and admins only.
func (h *routes) show(w http.ResponseWriter, r *http.Request, c call) {
	ctx := r.Context()
	page := orgPage{Organization: orgOf(c.org), Members: []memberJSON{}, Invitations: []invitationJSON{}, Guilds: []guildJSON{}}
	members, err := h.Reader.Members(ctx, c.org.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	for _, m := range members {
		page.Members = append(page.Members, memberJSON{UserID: m.UserID, Email: m.Email, Role: m.Role, AddedAt: m.AddedAt})
	}
	if c.org.Role == organization.RoleOwner || c.org.Role == organization.RoleAdmin {
		invs, err := h.Orgs.Invitations(ctx, c.org.ID)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		for _, inv := range invs {
			page.Invitations = append(page.Invitations, invitationJSON{ID: inv.ID, Email: inv.Email, Erased: inv.Erased, Role: inv.Role, InvitedBy: inv.InvitedBy, InvitedAt: inv.InvitedAt})
		}
	}
	guilds, err := h.Reader.Guilds(ctx, c.org.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	for _, g := range guilds {
		page.Guilds = append(page.Guilds, guildOf(g))
	}
	agents, err := h.Reader.Agents(ctx, c.org.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if page.Agents, err = h.agentsJSON(ctx, agents); err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, page)
}

func (h *routes) rename(w http.ResponseWriter, r *http.Request, c call) {
	var body nameBody
	if err := decode(r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.Orgs.Rename(r.Context(), c.user, c.org.ID, body.Name, h.md(r, c.who)); err != nil {
		h.fail(w, r, err)
		return
	}
	m, err := h.Reader.Membership(r.Context(), c.org.ID, c.user)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, orgOf(m))
}

// --- members ---

type inviteBody struct {
	Email string            `json:"email"`
	Role  organization.Role `json:"role"`
}

// invitedJSON is the one answer to an invitation: whether the address has a Workbench user is not
// said, and membership waits for the invitee's acceptance.
type invitedJSON struct {
	// Status is always "invited".
	Status string            `json:"status"`
	Email  string            `json:"email"`
	Role   organization.Role `json:"role"`
}

func (h *routes) invite(w http.ResponseWriter, r *http.Request, c call) {
	var body inviteBody
	if err := decode(r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	if body.Role == "" {
		body.Role = organization.RoleMember
	}
	inv, err := h.Orgs.Invite(r.Context(), c.user, c.org.ID, body.Email, body.Role, h.md(r, c.who))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusCreated, invitedJSON{Status: "invited", Email: inv.Email, Role: body.Role})
}

// --- the caller's own invitations ---

type pendingJSON struct {
	ID               uuid.UUID         `json:"id"`
	OrganizationID   uuid.UUID         `json:"organization_id"`
	OrganizationName string            `json:"organization_name"`
	Role             organization.Role `json:"role"`
	InvitedAt        time.Time         `json:"invited_at"`
}

// myInvitations lists the pending invitations of the caller's address.
func (h *routes) myInvitations(w http.ResponseWriter, r *http.Request, c who) {
	invs, err := h.Orgs.PendingInvitations(r.Context(), c.email)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := make([]pendingJSON, 0, len(invs))
	for _, inv := range invs {
		out = append(out, pendingJSON{ID: inv.ID, OrganizationID: inv.OrganizationID, OrganizationName: inv.OrganizationName, Role: inv.Role, InvitedAt: inv.InvitedAt})
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"invitations": out})
}

// answerable reads {invitation} for an answer, which only the invitee gives, in the portal: an
// agent's API key or OAuth token acts for its user but does not join organisations for them.
func (h *routes) answerable(r *http.Request, c who) (uuid.UUID, error) {
	if c.method != "session" {
		return uuid.Nil, domain.Errorf(domain.CodeForbidden, "accept or decline an invitation in the portal, signed in with the invited address")
	}
	return idParam(r, "invitation", "invitation")
}

func (h *routes) acceptInvitation(w http.ResponseWriter, r *http.Request, c who) {
	id, err := h.answerable(r, c)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	org, err := h.Orgs.AcceptInvitation(r.Context(), c.user, c.email, id, h.md(r, c))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	m, err := h.Reader.Membership(r.Context(), org, c.user)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, orgOf(m))
}

func (h *routes) declineInvitation(w http.ResponseWriter, r *http.Request, c who) {
	id, err := h.answerable(r, c)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.Orgs.DeclineInvitation(r.Context(), c.user, c.email, id, h.md(r, c)); err != nil {
		h.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type roleBody struct {
	Role organization.Role `json:"role"`
}

func (h *routes) changeRole(w http.ResponseWriter, r *http.Request, c call) {
	user, err := idParam(r, "user", "member")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var body roleBody
	if err := decode(r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.Orgs.ChangeRole(r.Context(), c.user, c.org.ID, user, body.Role, h.md(r, c.who)); err != nil {
		h.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *routes) removeMember(w http.ResponseWriter, r *http.Request, c call) {
	user, err := idParam(r, "user", "member")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.Orgs.RemoveMember(r.Context(), c.user, c.org.ID, user, h.md(r, c.who)); err != nil {
		h.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *routes) revokeInvitation(w http.ResponseWriter, r *http.Request, c call) {
	// The router matches the escaped path, so the address arrives as sent ("%40" for "@").
	email, err := url.PathUnescape(chi.URLParam(r, "email"))
	if err != nil {
		h.fail(w, r, domain.Errorf(domain.CodeNotFound, "no such invitation"))
		return
	}
	email = strings.TrimSpace(email)
	if id, perr := uuid.Parse(email); perr == nil {
		// An invitation id (of the organisation's list): the one way to withdraw an erased address's.
		err = h.Orgs.RevokeInvitationByID(r.Context(), c.user, c.org.ID, id, h.md(r, c.who))
	} else {
		err = h.Orgs.RevokeInvitation(r.Context(), c.user, c.org.ID, email, h.md(r, c.who))
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// --- guilds ---

func (h *routes) createGuild(w http.ResponseWriter, r *http.Request, c call) {
	var body nameBody
	if err := decode(r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	id, err := h.Orgs.CreateGuild(r.Context(), c.user, c.org.ID, body.Name, h.md(r, c.who))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	g, err := h.Reader.Guild(r.Context(), id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Location", fmt.Sprintf("/api/orgs/%s/guilds/%s", c.org.ID, id))
	handlers.WriteJSON(w, http.StatusCreated, guildOf(g))
}

type guildPage struct {
	Organization orgJSON      `json:"organization"`
	Guild        guildJSON    `json:"guild"`
	Members      []memberJSON `json:"members"`
	Agents       []agentJSON  `json:"agents"`
}

// showGuild is the guild page: its members (as organisation members) and its agents.
func (h *routes) showGuild(w http.ResponseWriter, r *http.Request, c call) {
	g, err := h.guildOf(r, c)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	members, err := h.Reader.Members(r.Context(), c.org.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	in := map[uuid.UUID]bool{}
	for _, id := range g.Members {
		in[id] = true
	}
	page := guildPage{Organization: orgOf(c.org), Guild: guildOf(g), Members: []memberJSON{}}
	for _, m := range members {
		if in[m.UserID] {
			page.Members = append(page.Members, memberJSON{UserID: m.UserID, Email: m.Email, Role: m.Role, AddedAt: m.AddedAt})
		}
	}
	agents, err := h.Reader.GuildAgents(r.Context(), g.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if page.Agents, err = h.agentsJSON(r.Context(), agents); err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, page)
}

func (h *routes) renameGuild(w http.ResponseWriter, r *http.Request, c call) {
	g, err := h.guildOf(r, c)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var body nameBody
	if err := decode(r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.Orgs.RenameGuild(r.Context(), c.user, c.org.ID, g.ID, body.Name, h.md(r, c.who)); err != nil {
		h.fail(w, r, err)
		return
	}
	if g, err = h.Reader.Guild(r.Context(), g.ID); err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, guildOf(g))
}

func (h *routes) deleteGuild(w http.ResponseWriter, r *http.Request, c call) {
	g, err := h.guildOf(r, c)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.Orgs.DeleteGuild(r.Context(), c.user, c.org.ID, g.ID, h.md(r, c.who)); err != nil {
		h.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *routes) addGuildMember(w http.ResponseWriter, r *http.Request, c call) {
	h.guildMember(w, r, c, h.Orgs.AddGuildMember)
}

func (h *routes) removeGuildMember(w http.ResponseWriter, r *http.Request, c call) {
	h.guildMember(w, r, c, h.Orgs.RemoveGuildMember)
}

func (h *routes) guildMember(w http.ResponseWriter, r *http.Request, c call,
	op func(ctx context.Context, actor, org, guild, user uuid.UUID, md eventstore.Metadata) error) {
	g, err := h.guildOf(r, c)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	user, err := idParam(r, "user", "member")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := op(r.Context(), c.user, c.org.ID, g.ID, user, h.md(r, c.who)); err != nil {
		h.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// --- agents ---

// optionalID is a JSON field that may be absent, null, or a uuid.
type optionalID struct {
	Set bool
	ID  uuid.UUID // uuid.Nil for null
}

func (o *optionalID) UnmarshalJSON(b []byte) error {
	o.Set = true
	if string(b) == "null" {
		o.ID = uuid.Nil
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s == "" {
		o.ID = uuid.Nil
		return nil
	}
	id, err := uuid.Parse(s)
	if err != nil {
		return fmt.Errorf("%q is not a guild id", s)
	}
	o.ID = id
	return nil
}

type agentBody struct {
	Name    *string    `json:"name"`
	GuildID optionalID `json:"guild_id"`
}

func (h *routes) createAgent(w http.ResponseWriter, r *http.Request, c call) {
	var body agentBody
	if err := decode(r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	if body.Name == nil {
		h.fail(w, r, domain.Errorf(domain.CodeInvalid, "name is required"))
		return
	}
	id, err := h.Orgs.CreateAgent(r.Context(), c.user, c.org.ID, *body.Name, body.GuildID.ID, h.md(r, c.who))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.answerAgent(w, r, http.StatusCreated, id)
}

func (h *routes) answerAgent(w http.ResponseWriter, r *http.Request, status int, id uuid.UUID) {
	a, err := h.Reader.Agent(r.Context(), id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	j, err := h.agentJSON(r.Context(), a)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	handlers.WriteJSON(w, status, j)
}

func (h *routes) updateAgent(w http.ResponseWriter, r *http.Request, c call) {
	a, err := h.agentOf(r, c)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var body agentBody
	if err := decode(r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	if body.Name == nil && !body.GuildID.Set {
		h.fail(w, r, domain.Errorf(domain.CodeInvalid, "send name, guild_id or both"))
		return
	}
	if body.Name != nil {
		if err := h.Orgs.RenameAgent(r.Context(), c.user, c.org.ID, a.ID, *body.Name, h.md(r, c.who)); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	if body.GuildID.Set {
		if err := h.Orgs.MoveAgent(r.Context(), c.user, c.org.ID, a.ID, body.GuildID.ID, h.md(r, c.who)); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	h.answerAgent(w, r, http.StatusOK, a.ID)
}

func (h *routes) deleteAgent(w http.ResponseWriter, r *http.Request, c call) {
	a, err := h.agentOf(r, c)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.Orgs.DeleteAgent(r.Context(), c.user, c.org.ID, a.ID, h.md(r, c.who)); err != nil {
		h.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// ownAgent reads {agent} and refuses it unless the caller owns it: an agent's key is its owner's
// credential, which nobody else may mint or read.
func (h *routes) ownAgent(r *http.Request, c call) (organizationsrm.Agent, error) {
	a, err := h.agentOf(r, c)
	if err != nil {
		return a, err
	}
	if a.OwnerID != c.user {
		return a, domain.Errorf(domain.CodeForbidden, "only the agent's owner may make or revoke its API key")
	}
	return a, nil
}

type keySecret struct {
	Key    string `json:"key"`
	Prefix string `json:"prefix"`
}

// mintKey mints the agent's API key, or rotates its live one (which stops working at once), and
// shows the key once.
func (h *routes) mintKey(w http.ResponseWriter, r *http.Request, c call) {
	a, err := h.ownAgent(r, c)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	k, pos, err := h.Keys.MintOrRotateAgent(r.Context(), c.user, a.ID, h.md(r, c.who))
	if err == nil {
		err = h.Projections.WaitFor(r.Context(), pos)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Pragma", "no-cache")
	handlers.WriteJSON(w, http.StatusCreated, keySecret{Key: k.Secret, Prefix: k.Prefix})
}

func (h *routes) revokeKey(w http.ResponseWriter, r *http.Request, c call) {
	a, err := h.ownAgent(r, c)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	pos, err := h.Keys.RevokeAgentKey(r.Context(), c.user, a.ID, h.md(r, c.who))
	if err == nil {
		err = h.Projections.WaitFor(r.Context(), pos)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
