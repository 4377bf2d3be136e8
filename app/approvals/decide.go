package approvals

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/approval"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/approvalsrm"
)

// View is one approval as a person deciding it reads it: never a credential (the arguments were
// redacted against the call's credential before they were sealed).
type View struct {
	ID          uuid.UUID       `json:"id"`
	UserID      uuid.UUID       `json:"user_id"`
	AgentID     uuid.UUID       `json:"agent_id,omitzero"`
	ClientID    string          `json:"client_id,omitempty"`
	Tool        string          `json:"tool"`
	Integration string          `json:"integration"`
	Account     string          `json:"account"`
	Arguments   json.RawMessage `json:"arguments,omitempty"`
	Status      approval.Status `json:"status"`
	RequestedAt time.Time       `json:"requested_at"`
	ExpiresAt   time.Time       `json:"expires_at"`
	DecidedBy   uuid.UUID       `json:"decided_by,omitzero"`
	Via         string          `json:"via,omitempty"`
	Always      bool            `json:"always,omitempty"`
	DecidedAt   *time.Time      `json:"decided_at,omitempty"`
	URL         string          `json:"url"`
}

// load reads an approval the user may decide: the user its agent acts for, or someone who manages
// its agent (an administrator of the agent's organisation). Anyone else is told there is none.
func (s *Service) load(ctx context.Context, user, id uuid.UUID) (approval.State, error) {
	st, _, err := eventstore.LoadState(ctx, s.opts.Store, approval.StreamName(id), aggregate)
	if err != nil {
		return st, err
	}
	none := domain.Errorf(domain.CodeNotFound, "no approval %s", id)
	if !st.Exists() {
		return st, none
	}
	if st.UserID == user {
		return st, nil
	}
	if st.AgentID == uuid.Nil {
		return st, none
	}
	if s.opts.Approvers != nil {
		ok, err := s.opts.Approvers.MayApprove(ctx, user, st.AgentID)
		if err != nil {
			return st, err
		}
		if ok {
			return st, nil
		}
	}
	if s.opts.Scopes == nil {
		return st, none
	}
	switch err := s.opts.Scopes.MayManage(ctx, user, login.Owner{Scope: login.ScopeAgent, ID: st.AgentID}); domain.ErrorCode(err) {
	case "":
		return st, nil
	case domain.CodeForbidden, domain.CodeNotFound:
		return st, none
	default:
		return st, err
	}
}

func (s *Service) view(ctx context.Context, st approval.State) View {
	v := View{ID: st.ApprovalID, UserID: st.UserID, AgentID: st.AgentID, ClientID: st.ClientID, Tool: st.Tool, Integration: st.Integration,
		Account: st.Account, Status: st.StatusAt(s.opts.Now()), RequestedAt: st.At, ExpiresAt: st.ExpiresAt, DecidedBy: st.DecidedBy,
		Via: st.Via, Always: st.Always, URL: s.URL(st.ApprovalID)}
	if v.Account == "" {
		v.Account = "default"
	}
	if !st.DecidedAt.IsZero() {
		t := st.DecidedAt
		v.DecidedAt = &t
	}
	if raw, err := s.opts.Vault.Open(ctx, st.Arguments, ArgumentsPurpose); err == nil {
		if json.Valid(raw) {
			v.Arguments = raw
		} else {
			v.Arguments, _ = json.Marshal(string(raw)) // cut short: shown as text
		}
	}
	return v
}

// Get is one approval the user may decide.
func (s *Service) Get(ctx context.Context, user, id uuid.UUID) (View, error) {
	st, err := s.load(ctx, user, id)
	if err != nil {
		return View{}, err
	}
	return s.view(ctx, st), nil
}

// Decide approves or denies an approval in the portal. Approving with always also switches the tool
// On for the approval's agent (within what the scopes above allow: an Ask above still asks); when
// that switch is refused the call stays approved once, and warning says why.
func (s *Service) Decide(ctx context.Context, user, id uuid.UUID, approve, always bool) (v View, warning string, err error) {
	st, err := s.load(ctx, user, id)
	if err != nil {
		return View{}, "", err
	}
	now := s.opts.Now()
	if st.StatusAt(now) == approval.StatusExpired && st.Status != approval.StatusExpired {
		if _, err := s.execute(ctx, user.String(), id, approval.Expire{At: now}); err != nil {
			return View{}, "", err
		}
	}
	var cmd approval.Command = approval.Deny{By: user, Via: approval.ViaPortal, At: now}
	if approve {
		cmd = approval.Approve{By: user, Via: approval.ViaPortal, Always: always, At: now}
	}
	res, err := s.execute(ctx, user.String(), id, cmd)
	if err != nil {
		return View{}, "", err
	}
	if approve && always && s.opts.Switches != nil {
		if err := s.opts.Switches.AllowForAgent(ctx, user, res.State.AgentID, res.State.Integration, res.State.Tool); err != nil {
			if domain.ErrorCode(err) == "" || domain.ErrorCode(err) == domain.CodeInternal || domain.ErrorCode(err) == domain.CodeUnavailable {
				s.log.ErrorContext(ctx, "always allow: the switch failed", "approval", id, "err", err)
			}
			// The call is approved; only the standing permission failed: say so beside it.
			warning = "Approved once, but the tool could not be switched On for the agent: " + domain.ErrorMessage(err)
		}
	}
	return s.view(ctx, res.State), warning, nil
}

// Pending lists the approvals waiting for the user's decision, the newest first.
func (s *Service) Pending(ctx context.Context, user uuid.UUID, r approvalsrm.Reader) ([]View, error) {
	ids, err := r.Pending(ctx, user, s.opts.Now())
	if err != nil {
		return nil, err
	}
	out := make([]View, 0, len(ids))
	for _, id := range ids {
		st, err := s.load(ctx, user, id) // the read model proposes; the decision's own check disposes
		if domain.ErrorCode(err) == domain.CodeNotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		if st.Exists() && st.StatusAt(s.opts.Now()) == approval.StatusPending {
			out = append(out, s.view(ctx, st))
		}
	}
	return out, nil
}
