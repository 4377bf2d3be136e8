package connections

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/projections/connectionsrm"
)

// # Accounts
//
// A user may hold several accounts of one integration (work and personal GitHub, two Slack
// workspaces), each a connection stream of its own named by a label the user chooses
// (connection.StreamName). Every call that takes an account label treats an empty one as "the
// default": the account chosen last, else the oldest (connection.DefaultOf). Connecting with an empty
// label when the user has no account yet creates the account labelled connection.DefaultAccount,
// which is also the label of every connection made before accounts existed.

// AccountView is one of a user's accounts of an integration, as list_integrations and the portal show
// it.
type AccountView struct {
	Label string `json:"label"`
	// Hint is the provider's name for the account ("octocat"), when the connect recorded one.
	Hint string `json:"hint,omitempty"`
	// Status is connected, needs_reauth, expired (a cookie bundle whose cookies have all expired) or
	// pending (an account whose first connect is still in flight).
	Status  string `json:"status"`
	Default bool   `json:"default"`
	// AuthMode is how the account connected: oauth2, apikey or cookie.
	AuthMode    string    `json:"auth_mode"`
	ConnectedAt time.Time `json:"connected_at,omitzero"`
}

// Accounts returns the user's accounts of every integration that has one, by integration, in label
// order: the accounts that hold a credential, and those whose first connect is still pending.
func (s *Service) Accounts(ctx context.Context, user uuid.UUID) (map[string][]AccountView, error) {
	all, err := s.reader.ForUser(ctx, user)
	if err != nil {
		return nil, fmt.Errorf("list accounts: %w", err)
	}
	now := s.clock()
	out := map[string][]AccountView{}
	for integration, rows := range all {
		def, hasDefault := connectionsrm.Default(rows)
		for _, r := range rows {
			st := r.State
			v := AccountView{Label: r.Account, Hint: st.AccountHint, AuthMode: string(st.AuthMode), ConnectedAt: st.ConnectedAt}
			switch {
			case st.Held() && st.Connected() && !st.Usable(now):
				v.Status = "expired"
			case st.Held():
				v.Status = string(st.CredentialStatus)
			case st.Status() == connection.StatusPending:
				v.Status = string(connection.StatusPending)
				v.ConnectedAt = time.Time{}
			default:
				continue
			}
			v.Default = hasDefault && def.Account == r.Account
			out[integration] = append(out[integration], v)
		}
	}
	return out, nil
}

// accountOrDefault is the label a connect, a disconnect or a choice of default acts on: the one given
// (validated), or, for an empty one, the default account's, or connection.DefaultAccount when the
// read model knows no account that holds a credential (the user has none, or its connect on another
// replica has not reached this one's read model yet: that stream answers for itself).
func (s *Service) accountOrDefault(ctx context.Context, user uuid.UUID, integration, label string) (string, error) {
	if label != "" {
		return label, connection.CheckAccountLabel(label)
	}
	rows, err := s.reader.Accounts(ctx, user, integration)
	if err != nil {
		return "", fmt.Errorf("read %s's accounts: %w", integration, err)
	}
	if d, ok := connectionsrm.Default(rows); ok {
		return d.Account, nil
	}
	return connection.DefaultAccount, nil
}

// callAccount resolves the account a tool call uses: the labelled one, or the default for an empty
// label. It reads the read model, and the log when the read model says the account is not usable (it
// may not have caught up with a connect on another replica yet). Without a usable credential it is a
// CodeNotConnected error that names what to do; for a label the user has no account under, the
// message lists the labels that exist.
func (s *Service) callAccount(ctx context.Context, user uuid.UUID, in *plugins.Integration, label string) (connection.State, int64, error) {
	if err := connection.CheckAccountLabel(label); err != nil {
		return connection.State{}, 0, err
	}
	now := s.clock()
	want := label
	if want != "" {
		// A labelled call reads its one row; the others only to name them when there is no such account.
		r, err := s.reader.Get(ctx, user, in.Name, want)
		switch {
		case err == nil && r.State.Usable(now):
			return r.State, r.Version, nil
		case err != nil && !errors.Is(err, connectionsrm.ErrNotFound):
			return connection.State{}, 0, fmt.Errorf("read connection %s: %w", in.Name, err)
		}
	} else {
		rows, err := s.reader.Accounts(ctx, user, in.Name)
		if err != nil {
			return connection.State{}, 0, fmt.Errorf("read connection %s: %w", in.Name, err)
		}
		want = connection.DefaultAccount
		if d, ok := connectionsrm.Default(rows); ok {
			if d.State.Usable(now) {
				return d.State, d.Version, nil
			}
			want = d.Account
		}
	}
	st, version, err := s.loadConnection(ctx, user, in.Name, want)
	if err != nil {
		return connection.State{}, 0, err
	}
	if st.Usable(now) {
		return st, version, nil
	}
	if label != "" && !st.Held() {
		rows, err := s.reader.Accounts(ctx, user, in.Name)
		if err != nil {
			return connection.State{}, 0, fmt.Errorf("read connection %s: %w", in.Name, err)
		}
		return connection.State{}, 0, unknownAccount(in, label, rows)
	}
	return connection.State{}, 0, notConnected(in, st)
}

// unknownAccount is the NOT_CONNECTED error of a call naming a label the user holds no account under.
func unknownAccount(in *plugins.Integration, label string, rows []connectionsrm.Row) error {
	var labels []string
	for _, r := range rows {
		if r.State.Held() {
			labels = append(labels, r.Account)
		}
	}
	if len(labels) == 0 {
		return domain.Errorf(domain.CodeNotConnected, "%s has no account %q, and no account at all; %s", in.Name, label, connectNext(in, label))
	}
	return domain.Errorf(domain.CodeNotConnected, "%s has no account %q; its accounts are %s (leave account out for the default), or %s",
		in.Name, label, strings.Join(labels, ", "), connectNext(in, label))
}

// connectCall is the connect call that (re)connects account label of in: connect('acme') for the
// default account, connect('acme', account 'work') for another.
func connectCall(in *plugins.Integration, label string) string {
	if label != "" && label != connection.DefaultAccount {
		return fmt.Sprintf("connect('%s', account '%s')", in.Name, label)
	}
	return fmt.Sprintf("connect('%s')", in.Name)
}

// connectNext says how to connect an account of in labelled label (empty: the default).
func connectNext(in *plugins.Integration, label string) string {
	if in.Auth.Mode == plugins.AuthAPIKey {
		if label != "" && label != connection.DefaultAccount {
			return fmt.Sprintf("add an API key as account %q in the workbench portal", label)
		}
		return "add its API key in the workbench portal"
	}
	return "connect it with " + connectCall(in, label)
}
