package connectortools

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors/connectorlogins"
	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/projections/connectorsrm"
)

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
	connectorlogins.View
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
	tools, err := s.Reader.Tools(ctx, loginID)
	if err != nil {
		return LoginDetail{}, err
	}
	switches, err := s.Reader.Switches(ctx, chain.Owners())
	if err != nil {
		return LoginDetail{}, err
	}
	asks, err := s.Reader.PrefersAsk(ctx, chain.OrganizationID)
	if err != nil {
		return LoginDetail{}, err
	}
	v, err := s.logins.LoginView(ctx, loginID)
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
	if d.Listings, err = s.Reader.Listings(ctx, loginID); err != nil {
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
func (s *Service) VisibleLogins(ctx context.Context, user, guildID, agentID uuid.UUID) ([]connectorlogins.View, error) {
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
	return s.logins.Logins(ctx, user, owners)
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
	agent, err := s.AgentOf(ctx, caller)
	if err != nil {
		return nil, err
	}
	chain, err := s.ChainOf(ctx, caller.UserID, agent)
	if err != nil {
		return nil, err
	}
	ls, err := s.Reader.Logins(ctx, chain.Owners())
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
