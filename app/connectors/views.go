package connectors

import (
	"context"
	"encoding/json"
	"sort"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// View is a login's metadata (spec connectors.md, Reference): never a credential.
type View struct {
	ID         uuid.UUID   `json:"id"`
	ServerID   string      `json:"mcp_server_id"`
	OwnerScope login.Scope `json:"owner_scope"`
	OwnerID    string      `json:"owner_id"`
	// Account is the login's account label ("default" for a login made before labels existed);
	// Default says a call that names no account uses it at this owner (set in listings).
	Account       string          `json:"account"`
	Default       bool            `json:"default"`
	AccountHint   string          `json:"account_hint"`
	Status        login.Status    `json:"status"`
	CreatedAt     time.Time       `json:"created_at"`
	UpdatedAt     time.Time       `json:"updated_at"`
	RotatedAt     *time.Time      `json:"rotated_at"`
	ListedAt      *time.Time      `json:"listed_at"`
	Settings      json.RawMessage `json:"settings"`
	NeedsSettings bool            `json:"needs_settings"`
	Missing       []string        `json:"missing_settings,omitempty"`
}

func viewOf(l connectorsrm.Login) View {
	v := View{ID: l.LoginID, ServerID: l.ServerID, OwnerScope: l.Owner.Scope, OwnerID: l.Owner.ID.String(), Account: l.Label(), AccountHint: l.AccountHint,
		Status: l.Status, CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt, Settings: l.Settings, NeedsSettings: l.NeedsSettings(), Missing: l.State.NeedsSettings}
	if l.Owner.Scope == login.ScopePlatform {
		v.OwnerID = ""
	}
	if !l.RotatedAt.IsZero() {
		t := l.RotatedAt
		v.RotatedAt = &t
	}
	if !l.ListedAt.IsZero() {
		t := l.ListedAt
		v.ListedAt = &t
	}
	if v.Settings == nil {
		v.Settings = json.RawMessage("{}")
	}
	return v
}

// view is one login's view, Default marked among its owner's accounts.
func (s *Service) view(ctx context.Context, id uuid.UUID) (View, error) {
	l, err := s.Core.Reader.Login(ctx, id)
	if err != nil {
		return View{}, err
	}
	ls, err := s.Core.Reader.Logins(ctx, []login.Owner{l.Owner})
	if err != nil {
		return View{}, err
	}
	for _, v := range viewsOf(ls) {
		if v.ID == id {
			return v, nil
		}
	}
	return viewOf(l), nil
}

// Logins lists the logins visible to the user at its organization, and at a guild or agent when
// named (each checked with MayManage).
func (s *Service) Logins(ctx context.Context, user uuid.UUID, owners []login.Owner) ([]View, error) {
	var ok []login.Owner
	for _, o := range owners {
		if err := s.Opts.Scopes.MayManage(ctx, user, o); err != nil {
			return nil, err
		}
		ok = append(ok, o)
	}
	ls, err := s.Core.Reader.Logins(ctx, ok)
	if err != nil {
		return nil, err
	}
	return viewsOf(ls), nil
}

// viewsOf views logins, marking each owner's default account of each connector.
func viewsOf(ls []connectorsrm.Login) []View {
	defaults := map[uuid.UUID]bool{}
	byOwner := map[string][]connectorsrm.Login{}
	for _, l := range ls {
		k := l.ServerID + "\x00" + string(l.Owner.Scope) + "\x00" + l.Owner.ID.String()
		byOwner[k] = append(byOwner[k], l)
	}
	for _, group := range byOwner {
		for _, l := range connectorsrm.Defaults(group) {
			defaults[l.LoginID] = true
		}
	}
	out := make([]View, 0, len(ls))
	for _, l := range ls {
		v := viewOf(l)
		v.Default = defaults[l.LoginID]
		out = append(out, v)
	}
	return out
}

// ToolView is one tool of a login with its switch at every scope of a chain and the effective value.
type ToolView struct {
	Name            string               `json:"name"`
	Remote          string               `json:"remote_name"`
	Description     string               `json:"description"`
	InputSchema     json.RawMessage      `json:"input_schema"`
	ReadOnlyHint    *bool                `json:"read_only_hint"`
	DestructiveHint *bool                `json:"destructive_hint"`
	Switches        map[login.Scope]bool `json:"switches"`
	On              bool                 `json:"on"`
	From            login.Scope          `json:"from"`
	Rule            string               `json:"rule,omitempty"`
	Drift           bool                 `json:"drift"`
	// Explicit: someone set the deciding switch (else it is a listing's default).
	Explicit bool `json:"explicit"`
	// Unavailable says why an Off tool is not offered ("switched Off by organisation Acme").
	Unavailable string `json:"unavailable,omitempty"`
	// Ask: On, and each call waits for a person's approval; Asks names the scopes that ask.
	Ask  bool                 `json:"ask"`
	Asks map[login.Scope]bool `json:"asks,omitempty"`
}

// LoginDetail is one login's metadata, its tools as an agent of the chain sees them, and its listings.
type LoginDetail struct {
	View
	Tools    []ToolView             `json:"tools"`
	Listings []connectorsrm.Listing `json:"listings"`
}

// Detail reads a login for the user: its tools' switches along the chain of agentID (the user's
// default agent when uuid.Nil; else an agent the user manages), each Off one with why.
func (s *Service) Detail(ctx context.Context, user, loginID, agentID uuid.UUID) (LoginDetail, error) {
	l, err := s.ManagedLogin(ctx, user, loginID)
	if err != nil {
		return LoginDetail{}, err
	}
	if agentID == uuid.Nil {
		if agentID, err = s.Opts.Scopes.DefaultAgent(ctx, user); err != nil {
			return LoginDetail{}, err
		}
	} else if err := s.Opts.Scopes.MayManage(ctx, user, login.Owner{Scope: login.ScopeAgent, ID: agentID}); err != nil {
		// Another organisation's agent reads as one that does not exist (chainOf's answer).
		if c := domain.ErrorCode(err); c == domain.CodeNotFound || c == domain.CodeForbidden {
			return LoginDetail{}, domain.Errorf(domain.CodeNotFound, "no agent %s", agentID)
		}
		return LoginDetail{}, err
	}
	chain, err := s.ChainOf(ctx, user, agentID)
	if err != nil {
		return LoginDetail{}, err
	}
	tools, err := s.Core.Reader.Tools(ctx, loginID)
	if err != nil {
		return LoginDetail{}, err
	}
	switches, err := s.Core.Reader.Switches(ctx, chain.Owners())
	if err != nil {
		return LoginDetail{}, err
	}
	asks, err := s.Core.Reader.PrefersAsk(ctx, chain.OrganizationID)
	if err != nil {
		return LoginDetail{}, err
	}
	v, err := s.view(ctx, loginID)
	if err != nil {
		return LoginDetail{}, err
	}
	d := LoginDetail{View: v, Tools: []ToolView{}}
	for _, t := range tools {
		tv := ToolView{Name: t.Name, Remote: t.Remote, Description: t.Description, InputSchema: t.InputSchema, ReadOnlyHint: t.ReadOnlyHint,
			DestructiveHint: t.DestructiveHint, Switches: map[login.Scope]bool{}}
		sw := switches[t.ServerID+"\x00"+t.Name]
		for _, x := range sw {
			tv.Switches[x.Owner.Scope] = x.On
		}
		for _, x := range sw {
			if x.Ask && x.Explicit() {
				if tv.Asks == nil {
					tv.Asks = map[login.Scope]bool{}
				}
				tv.Asks[x.Owner.Scope] = true
			}
		}
		dec := connectorsrm.Decide(sw, t, l.Owner.Scope)
		if asks {
			dec = connectorsrm.StartsAsk(dec)
		}
		tv.On, tv.From, tv.Rule, tv.Drift, tv.Explicit, tv.Ask = dec.On, dec.From.Scope, dec.Rule, dec.Drift, dec.Explicit(), dec.Ask
		tv.Unavailable = s.whyOff(ctx, dec)
		d.Tools = append(d.Tools, tv)
	}
	if d.Listings, err = s.Core.Reader.Listings(ctx, loginID); err != nil {
		return LoginDetail{}, err
	}
	if d.Listings == nil {
		d.Listings = []connectorsrm.Listing{}
	}
	return d, nil
}

func rank(s login.Scope) int {
	for i, x := range login.Scopes {
		if x == s {
			return i
		}
	}
	return -1
}

// VisibleLogins lists the logins at the user's organization, and at the guild and agent when named
// (spec connectors.md, GET /api/mcp/connections).
func (s *Service) VisibleLogins(ctx context.Context, user, guildID, agentID uuid.UUID) ([]View, error) {
	def, err := s.Opts.Scopes.DefaultAgent(ctx, user)
	if err != nil {
		return nil, err
	}
	chain, err := s.ChainOf(ctx, user, def)
	if err != nil {
		return nil, err
	}
	owners := []login.Owner{{Scope: login.ScopeOrganization, ID: chain.OrganizationID}}
	if guildID != uuid.Nil {
		owners = append(owners, login.Owner{Scope: login.ScopeGuild, ID: guildID})
	}
	if agentID != uuid.Nil {
		owners = append(owners, login.Owner{Scope: login.ScopeAgent, ID: agentID})
	}
	return s.Logins(ctx, user, owners)
}

// AccountView is one account of a connector login an agent's chain holds, as list_integrations
// shows it: never a credential.
type AccountView struct {
	Label  string `json:"label"`
	Hint   string `json:"hint,omitempty"`
	Status string `json:"status"`
	// Default: a call that names no account uses it.
	Default bool `json:"default"`
	// Scope is the login's owner (organization, guild, agent): a label held at several scopes names
	// the most specific one's.
	Scope login.Scope `json:"scope"`
}

// ConnectorAccounts are the accounts of one connector an agent's chain holds.
type ConnectorAccounts struct {
	Integration string        `json:"integration"`
	DisplayName string        `json:"display_name"`
	Accounts    []AccountView `json:"accounts"`
}

// AgentAccounts lists, per connector switched On in the catalog, the accounts of the logins along
// the caller's agent's chain (the platform's included), most specific scope first.
func (s *Service) AgentAccounts(ctx context.Context, caller executions.Caller) ([]ConnectorAccounts, error) {
	agent, err := s.agentOf(ctx, caller)
	if err != nil {
		return nil, err
	}
	chain, err := s.ChainOf(ctx, caller.UserID, agent)
	if err != nil {
		return nil, err
	}
	ls, err := s.Core.Reader.Logins(ctx, chain.Owners())
	if err != nil {
		return nil, err
	}
	defaults := connectorsrm.Defaults(ls)
	var out []ConnectorAccounts
	index := map[string]int{}
	for i := len(ls) - 1; i >= 0; i-- { // most specific scope first
		l := ls[i]
		srv, err := s.cachedServer(ctx, l.ServerID)
		if domain.ErrorCode(err) == domain.CodeNotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		if !srv.Enabled {
			continue
		}
		j, ok := index[l.ServerID]
		if !ok {
			name := l.ServerID
			if m, err := s.ManifestOf(srv); err == nil {
				name = m.DisplayName
			}
			j = len(out)
			index[l.ServerID] = j
			out = append(out, ConnectorAccounts{Integration: l.ServerID, DisplayName: name})
		}
		d, isDefault := defaults[l.ServerID]
		out[j].Accounts = append(out[j].Accounts, AccountView{Label: l.Label(), Hint: l.AccountHint, Status: string(l.Status),
			Default: isDefault && d.LoginID == l.LoginID, Scope: l.Owner.Scope})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Integration < out[b].Integration })
	return out, nil
}
