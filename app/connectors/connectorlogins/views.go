package connectorlogins

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

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

// LoginView is one login's view, Default marked among its owner's accounts.
func (s *Service) LoginView(ctx context.Context, id uuid.UUID) (View, error) {
	l, err := s.Reader.Login(ctx, id)
	if err != nil {
		return View{}, err
	}
	ls, err := s.Reader.Logins(ctx, []login.Owner{l.Owner})
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
	ls, err := s.Reader.Logins(ctx, ok)
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
