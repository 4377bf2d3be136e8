// Package approvals holds back the calls of tools switched to Ask (policy: a switch's third state)
// until a person approves them, one call at a time. It implements executions.Approvals:
//
//   - When the agent's MCP client declared elicitation, the client is asked (elicitation/create) to
//     show its user the tool, integration, account and arguments; accept runs the call once, decline
//     or cancel refuses it (APPROVAL_DENIED).
//   - Otherwise the call is answered APPROVAL_REQUIRED with an approval id and a portal link. The
//     user (or an administrator of the agent's organisation) approves or denies it there; the agent
//     calls again with the same execution and the approval_id, which waits (up to Options.Wait,
//     polling the approval's stream, so a decision made through any replica is seen) and runs the
//     call once approved.
//
// An approval is bound to the tool, the arguments' digest, the account and the agent
// (domain/approval), is used once (the Used event is appended under the stream's version, so two
// replicas cannot both spend it) and expires (Options.TTL). Every step is an event on the
// approval's stream; the arguments a person reads are sealed under the user's key.
package approvals

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/approval"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/mcppeer"
)

// ArgumentsPurpose is the vault purpose of an approval's sealed arguments.
const ArgumentsPurpose = "approval-arguments"

// DefaultWait is how long an execution that names an approval waits for its decision: under the
// minute many MCP clients allow a tool call.
const DefaultWait = 45 * time.Second

// maxShownArgs caps the arguments sealed for a person to read (the digest binds them all).
const maxShownArgs = 16 << 10

// Vault seals and opens under a subject's key (*vault.Vault).
type Vault interface {
	Seal(ctx context.Context, subject, purpose string, plaintext []byte) (domain.Sealed, error)
	Open(ctx context.Context, sealed domain.Sealed, purpose string) ([]byte, error)
}

// Scopes says who may decide for an agent beside its user (*connectors.Service's scopes).
type Scopes interface {
	MayManage(ctx context.Context, user uuid.UUID, o login.Owner) error
}

// Approvers says whether a user decides the approvals of an agent's calls by a role in the agent's
// organisation (owner, admin or approver; organizationsrm).
type Approvers interface {
	MayApprove(ctx context.Context, user, agent uuid.UUID) (bool, error)
	// AgentName names an agent for the person asked ("" when unknown).
	AgentName(ctx context.Context, agent uuid.UUID) (string, error)
}

// Switches turns a tool On for one agent ("always allow for this agent"; *connectors.Service).
type Switches interface {
	AllowForAgent(ctx context.Context, user, agent uuid.UUID, integration, tool string) error
}

// Options configure the Service.
type Options struct {
	Store eventstore.Store
	Vault Vault
	// PublicURL is the portal's base ("https://workbench.example.com"); an approval's link is
	// PublicURL + "/approvals/" + id.
	PublicURL string
	Scopes    Scopes
	Approvers Approvers
	Switches  Switches
	// Projections makes the read model hold an append before a decision answers (optional).
	Projections interface {
		WaitFor(ctx context.Context, pos eventstore.Position) error
	}
	Logger *slog.Logger
	Now    func() time.Time
	// TTL is how long an approval lives (default approval.DefaultTTL); Wait how long a call that
	// names one waits for its decision (default DefaultWait); Poll how often it looks (default 200 ms).
	TTL, Wait, Poll time.Duration
}

// Service holds calls back for approval.
type Service struct {
	opts Options
	log  *slog.Logger
}

var _ executions.Approvals = (*Service)(nil)

var aggregate = eventstore.Aggregate[approval.State, approval.Command, domain.Event]{
	Initial: approval.Initial, Evolve: approval.Evolve, Decide: approval.Decide,
	Codec: eventstore.NewJSONCodec(approval.Events()...),
}

// New returns the service.
func New(o Options) (*Service, error) {
	if o.Store == nil || o.Vault == nil {
		return nil, errors.New("approvals: a store and a vault are required")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.TTL <= 0 {
		o.TTL = approval.DefaultTTL
	}
	if o.Wait <= 0 {
		o.Wait = DefaultWait
	}
	if o.Poll <= 0 {
		o.Poll = 200 * time.Millisecond
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{opts: o, log: log}, nil
}

// URL is the portal page of one approval.
func (s *Service) URL(id uuid.UUID) string { return s.opts.PublicURL + "/approvals/" + id.String() }

func argsDigest(args json.RawMessage) string {
	sum := sha256.Sum256(args)
	return hex.EncodeToString(sum[:])
}

// Gate implements executions.Approvals.
func (s *Service) Gate(ctx context.Context, caller executions.Caller, g executions.Gate) (executions.GateResult, error) {
	b := approval.Binding{UserID: caller.UserID, AgentID: caller.AgentID, Tool: g.Tool, Integration: g.Integration, Account: g.Account, ArgsSHA256: argsDigest(g.Args)}
	if g.ApprovalID != "" {
		id, err := uuid.Parse(g.ApprovalID)
		if err != nil {
			return executions.GateResult{Code: executions.CodeApprovalInvalid, Message: "approval_id is not an approval's id"}, nil
		}
		return s.redeem(ctx, caller, id, b, g.ExecutionID)
	}
	id, err := s.request(ctx, caller, b, g)
	if err != nil {
		return executions.GateResult{}, err
	}
	if mcppeer.ClientCaps(ctx)&mcppeer.Elicitation != 0 {
		if r, asked := s.elicit(ctx, caller, id, b, g); asked {
			return r, nil
		}
	}
	return s.required(id, b, "", nil), nil
}

// required is the APPROVAL_REQUIRED answer for approval id.
func (s *Service) required(id uuid.UUID, b approval.Binding, prefix string, _ error) executions.GateResult {
	u := s.URL(id)
	return executions.GateResult{Code: executions.CodeApprovalRequired, ApprovalID: id.String(), ApprovalURL: u,
		Message: prefix + fmt.Sprintf("%s needs a person's approval before it runs. Show the user this link to approve or deny it: %s . "+
			"Then call execute_tools again with the same tool, args and account, adding \"approval_id\": %q; that call waits up to %d seconds for the decision "+
			"and runs the tool once it is approved. The approval expires in %d minutes.", b.Tool, u, id, int(s.opts.Wait/time.Second), int(s.opts.TTL/time.Minute))}
}

// request appends the approval.
func (s *Service) request(ctx context.Context, caller executions.Caller, b approval.Binding, g executions.Gate) (uuid.UUID, error) {
	shown := []byte(g.Args)
	if g.Redact != nil {
		shown = g.Redact(shown)
	}
	if len(shown) > maxShownArgs {
		shown = append(truncate(shown, maxShownArgs), []byte("… (cut)")...)
	}
	sealed, err := s.opts.Vault.Seal(ctx, caller.UserID.String(), ArgumentsPurpose, shown)
	if err != nil {
		return uuid.Nil, err
	}
	id := uuid.Must(uuid.NewV7())
	now := s.opts.Now().UTC()
	ev := approval.Requested{ApprovalID: id, Binding: b, ClientID: caller.ClientID, Arguments: sealed, ExpiresAt: now.Add(s.opts.TTL), At: now}
	if _, err := s.execute(ctx, caller.UserID.String(), id, approval.Request{Event: ev}); err != nil {
		return uuid.Nil, err
	}
	return id, nil
}

// truncate cuts b to at most n bytes on a rune boundary.
func truncate(b []byte, n int) []byte {
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return append([]byte(nil), b[:n]...)
}

func (s *Service) execute(ctx context.Context, actor string, id uuid.UUID, cmd approval.Command) (eventstore.Result[approval.State, domain.Event], error) {
	res, err := eventstore.Execute(ctx, s.opts.Store, approval.StreamName(id), aggregate, cmd, eventstore.Metadata{Actor: actor, Time: s.opts.Now().UTC()})
	if err != nil || len(res.Events) == 0 || s.opts.Projections == nil {
		return res, err
	}
	return res, s.opts.Projections.WaitFor(ctx, res.Position)
}

// elicit asks the agent's client to ask its user. asked is false when the client could not be asked
// (it answered an error): the approval then waits in the portal.
func (s *Service) elicit(ctx context.Context, caller executions.Caller, id uuid.UUID, b approval.Binding, g executions.Gate) (executions.GateResult, bool) {
	shown := []byte(g.Args)
	if g.Redact != nil {
		shown = g.Redact(shown)
	}
	if len(shown) > 2000 {
		shown = append(truncate(shown, 2000), []byte("…")...)
	}
	account := b.Account
	if account == "" {
		account = "default"
	}
	params, _ := json.Marshal(map[string]any{
		"message":         fmt.Sprintf("Your agent wants to run %s (%s, account %s) with these arguments:\n%s\nAllow it to run once?", b.Tool, b.Integration, account, shown),
		"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}},
	})
	raw, err := mcppeer.Ask(ctx, "elicitation/create", params)
	if err != nil {
		s.log.WarnContext(ctx, "the agent's client could not ask its user; the approval waits in the portal", "approval", id, "err", err)
		return executions.GateResult{}, false
	}
	var res struct {
		Action string `json:"action"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return executions.GateResult{}, false
	}
	actor := caller.UserID.String()
	at := s.opts.Now()
	if res.Action != "accept" {
		if _, err := s.execute(ctx, actor, id, approval.Deny{By: caller.UserID, Via: approval.ViaElicitation, At: at}); err != nil {
			return executions.GateResult{Code: executions.CodeToolError, ApprovalID: id.String(), Message: "the decision could not be recorded: " + domain.ErrorMessage(err)}, true
		}
		return executions.GateResult{Code: executions.CodeApprovalDenied, ApprovalID: id.String(),
			Message: fmt.Sprintf("The user did not approve %s (%s); it did not run.", b.Tool, res.Action)}, true
	}
	if _, err := s.execute(ctx, actor, id, approval.Approve{By: caller.UserID, Via: approval.ViaElicitation, At: at}); err != nil {
		return executions.GateResult{Code: executions.CodeToolError, ApprovalID: id.String(), Message: "the approval could not be recorded: " + domain.ErrorMessage(err)}, true
	}
	if _, err := s.execute(ctx, actor, id, approval.Use{Binding: b, ExecutionID: g.ExecutionID, At: s.opts.Now()}); err != nil {
		return executions.GateResult{Code: executions.CodeApprovalInvalid, ApprovalID: id.String(), Message: domain.ErrorMessage(err)}, true
	}
	return executions.GateResult{Run: true, ApprovalID: id.String()}, true
}

// redeem waits for the decision of the approval a call names and spends it when approved.
func (s *Service) redeem(ctx context.Context, caller executions.Caller, id uuid.UUID, b approval.Binding, execID uuid.UUID) (executions.GateResult, error) {
	deadline := time.NewTimer(s.opts.Wait)
	defer deadline.Stop()
	tick := time.NewTicker(s.opts.Poll)
	defer tick.Stop()
	actor := caller.UserID.String()
	unknown := executions.GateResult{Code: executions.CodeApprovalInvalid,
		Message: "There is no such approval for this user; call execute_tools without approval_id to ask for one."}
	for {
		st, _, err := eventstore.LoadState(ctx, s.opts.Store, approval.StreamName(id), aggregate)
		if err != nil {
			return executions.GateResult{}, err
		}
		if !st.Exists() || st.UserID != caller.UserID {
			return unknown, nil
		}
		r := executions.GateResult{ApprovalID: id.String()}
		if st.Binding != b {
			r.Code, r.Message = executions.CodeApprovalInvalid, fmt.Sprintf("This approval is for another call (%s with other arguments, account or agent); it was not used. "+
				"Call execute_tools without approval_id to ask for this one.", st.Tool)
			return r, nil
		}
		switch st.StatusAt(s.opts.Now()) {
		case approval.StatusApproved:
			_, err := s.execute(ctx, actor, id, approval.Use{Binding: b, ExecutionID: execID, At: s.opts.Now()})
			if domain.ErrorCode(err) == domain.CodeConflict {
				continue // spent, or expired, meanwhile: the next look says which
			}
			if err != nil {
				return executions.GateResult{}, err
			}
			r.Run = true
			return r, nil
		case approval.StatusDenied:
			r.Code, r.Message = executions.CodeApprovalDenied, fmt.Sprintf("A person denied %s; it did not run.", b.Tool)
			return r, nil
		case approval.StatusUsed:
			r.Code, r.Message = executions.CodeApprovalInvalid, "This approval was used already: one approval runs one call. Call execute_tools without approval_id to ask again."
			return r, nil
		case approval.StatusExpired:
			if _, err := s.execute(ctx, actor, id, approval.Expire{At: s.opts.Now()}); err != nil {
				s.log.WarnContext(ctx, "record an approval's expiry", "approval", id, "err", err)
			}
			r.Code, r.Message = executions.CodeApprovalExpired, "This approval expired before it was decided or used; call execute_tools without approval_id to ask again."
			return r, nil
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			return s.required(id, b, "No decision yet. ", nil), nil
		case <-ctx.Done():
			return executions.GateResult{}, ctx.Err()
		}
	}
}
