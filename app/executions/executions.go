package executions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/mcppeer"
	"github.com/workbench/workbench/internal/tracing"
	"github.com/workbench/workbench/plugins"
)

// Error codes recorded in ToolExecuted events and answered in Outcome.Code.
const (
	CodeUnknownTool  = "UNKNOWN_TOOL"
	CodeNotConnected = "NOT_CONNECTED"
	CodeInvalidArgs  = "INVALID_ARGUMENTS"
	CodeToolError    = "TOOL_ERROR"
	// CodeCancelled: the agent cancelled the call (notifications/cancelled) or went away while the tool
	// ran; a remote MCP tool was sent notifications/cancelled.
	CodeCancelled = "CANCELLED"
	// CodeToolOff: the tool is switched Off for the caller's agent (the message says by which scope);
	// it did not run and no credential was read.
	CodeToolOff = "TOOL_OFF"
	// The approval codes: the tool is switched to Ask for the caller's agent and did not run.
	// APPROVAL_REQUIRED: a person must approve it (the outcome names the approval to wait for);
	// APPROVAL_DENIED: a person refused it; APPROVAL_EXPIRED: nobody decided, or the approved call
	// was not made, in time; APPROVAL_INVALID: the approval named is for another call, or used.
	CodeApprovalRequired = "APPROVAL_REQUIRED"
	CodeApprovalDenied   = "APPROVAL_DENIED"
	CodeApprovalExpired  = "APPROVAL_EXPIRED"
	CodeApprovalInvalid  = "APPROVAL_INVALID"
	// CodeRateLimited: a rate limit or budget of the caller's agent's chain is spent; the call did not
	// reach its provider, and RetryAfter says when it would fit.
	CodeRateLimited = "RATE_LIMITED"
)

// DefaultConcurrency bounds the executions of one Run that run at once.
const DefaultConcurrency = 8

// Credentials is what an execution needs of the connection use case (*connections.Service): the
// user's credential for an integration, or an error with domain.CodeNotConnected.
type Credentials interface {
	Access(ctx context.Context, user uuid.UUID, in *plugins.Integration, account string) (connections.Access, error)
}

// Appender is the part of the event store the records are appended to.
type Appender interface {
	Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.Position, error)
}

// Options wire a Service. Registry, Credentials and Store are required.
type Options struct {
	Registry    *plugins.Registry
	Credentials Credentials
	Store       Appender
	Logger      *slog.Logger
	// Transport, when set, sends plugin HTTP requests (tests point it at fakes); nil: the default.
	Transport http.RoundTripper
	// Concurrency bounds the executions of one Run that run at once (default DefaultConcurrency).
	Concurrency int
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Sources offer tools beyond the plugin registry (connector tools of the caller's logins). A name
	// the registry does not hold is asked of each in turn; every execution is recorded the same way.
	Sources []ToolSource
	// Switches says whether a plugin tool is switched Off for the caller's agent (*connectors.Service);
	// nil: every plugin tool runs.
	Switches PluginSwitches
	// Approvals holds back the calls of tools switched to Ask; nil: such a call is refused
	// (APPROVAL_REQUIRED, with nothing to wait for).
	Approvals Approvals
	// Budgets charges each call that is about to reach its provider; nil: no budgets.
	Budgets Budgets
}

// PluginSwitches is the switch check of a plugin tool: why it is Off for the caller ("" when it may
// run), and whether each call waits for a person's approval (Ask).
type PluginSwitches interface {
	PluginToolGate(ctx context.Context, caller Caller, integration, tool string) (off string, ask bool, err error)
}

// Approvals holds back the calls of a tool switched to Ask until a person approves them
// (*approvals.Service).
type Approvals interface {
	// Gate decides whether one call of an Ask tool may run now: approved through the agent's client
	// (elicitation), or by the approval the call names (waiting a bounded time for the decision),
	// which it then spends. Otherwise the result says why not (Code) and, for APPROVAL_REQUIRED,
	// which approval to wait for.
	Gate(ctx context.Context, caller Caller, g Gate) (GateResult, error)
}

// Budgets charges calls to the rate limits and budgets of the caller's agent's chain
// (*budgets.Service).
type Budgets interface {
	// Charge counts one call of tool, or refuses it (Allowed false) with how long until it fits.
	Charge(ctx context.Context, caller Caller, tool string) (BudgetResult, error)
}

// BudgetResult is a Charge's answer.
type BudgetResult struct {
	Allowed    bool
	RetryAfter time.Duration
	Message    string
}

// Gate is one call held back for approval.
type Gate struct {
	ExecutionID uuid.UUID
	Tool        string
	Integration string
	// Account is the label of the account the call uses, empty for the default label.
	Account string
	// Args are the call's arguments (canonical JSON, as digested); Redact, when set, redacts what a
	// person is shown of them.
	Args       json.RawMessage
	Redact     func([]byte) []byte
	ApprovalID string
}

// GateResult is a Gate's answer: Run, or the code and message of why not.
type GateResult struct {
	Run                     bool
	Code, Message           string
	ApprovalID, ApprovalURL string
}

// ToolSource offers tools that are not plugin tools: the connector tools an agent sees.
type ToolSource interface {
	// FindTool returns the tool the caller may run under name with the account labelled account (its
	// default account when ""); ok is false when the caller has no such tool (a tool switched Off for
	// the caller included: it is unknown to it). An account the caller does not hold is an error of
	// code domain.CodeNotConnected whose message lists the labels it does hold; t.Integration still
	// names the tool's integration.
	FindTool(ctx context.Context, caller Caller, name, account string) (t SourceTool, ok bool, err error)
}

// SourceTool is one runnable tool of a ToolSource.
type SourceTool struct {
	// Integration is recorded as the execution's integration (a connector's server id).
	Integration string
	// Account is the label of the account the tool runs with, empty for the default label (as the
	// execution's record names it).
	Account string
	// Ask: the tool is switched to Ask for the caller; each call waits for a person's approval.
	Ask bool
	// Run runs the tool with the caller's arguments; its errors' messages are shown when they are
	// *domain.Error (already redacted by the source, as is its result).
	Run func(ctx context.Context, args json.RawMessage) (ToolResult, error)
}

// ToolResult is what a source tool answered.
type ToolResult struct {
	// Result is the JSON the execution's entry shows: an adapter's result, or a remote MCP tool's
	// result with its text blocks ({"content":[…],"structuredContent":…,"isError":…}).
	Result json.RawMessage
	// Content are the result's other content blocks (image, audio, resource, resource_link, with
	// their annotations) as the remote answered them, to be sent as blocks of their own.
	Content []mcp.Content
	// Structured is the remote's structuredContent (nil when none).
	Structured json.RawMessage
	// Failed: the remote answered isError; Message is the text of its text blocks.
	Failed  bool
	Message string
}

// Service runs and records tool executions.
type Service struct {
	opts Options
	log  *slog.Logger
	agg  eventstore.Aggregate[execution.State, execution.Record, domain.Event]
}

// New checks opts and returns a Service.
func New(opts Options) (*Service, error) {
	if opts.Registry == nil || opts.Credentials == nil || opts.Store == nil {
		return nil, errors.New("executions: Registry, Credentials and Store are required")
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{opts: opts, log: log, agg: eventstore.Aggregate[execution.State, execution.Record, domain.Event]{
		Initial: func() execution.State { return execution.State{} },
		Evolve:  execution.Evolve,
		Decide:  execution.Decide,
		Codec:   eventstore.NewJSONCodec(execution.Events()...),
	}}, nil
}

// Caller is who asks for the executions: the user, and how the agent authenticated (Via: api_key,
// oauth or session; ClientID: the API key id or OAuth client id).
type Caller struct {
	UserID   uuid.UUID
	Via      string
	ClientID string
	// AgentID is the agent the credential belongs to (uuid.Nil: the user's default agent).
	AgentID uuid.UUID
}

// Call is one execution asked for: a plugin tool's name, its arguments (JSON; empty means {}) and
// the label of the account whose credential it uses (empty: the user's default account of the
// tool's integration).
type Call struct {
	Tool    string
	Args    json.RawMessage
	Account string
	// ApprovalID names the approval an earlier execution of this call was answered with
	// (APPROVAL_REQUIRED); "" when none.
	ApprovalID string
}

// Outcome is what became of one Call, recorded.
type Outcome struct {
	// Code is "" on success, else one of the Code constants.
	Code string
	// Integration owns the tool (nil when the tool is unknown, and for a source's tool).
	Integration *plugins.Integration
	// Source is the integration of a source's tool (a connector's server id), "" for a plugin tool.
	Source string
	// ApprovalID and ApprovalURL name the approval an APPROVAL_REQUIRED outcome waits for.
	ApprovalID, ApprovalURL string
	// RetryAfter is when a RATE_LIMITED call would fit.
	RetryAfter time.Duration
	// Result is the tool's result on success, and a remote tool's result when it answered isError
	// (Code CodeToolError); never set on a Withheld outcome.
	Result json.RawMessage
	// Content are the result's content blocks that are not text (image, audio, resource,
	// resource_link), in the order the tool answered them, to be sent as MCP content blocks.
	Content []mcp.Content
	// Structured is a remote tool's structuredContent (nil when none).
	Structured json.RawMessage
	// Message is a caller-safe description of a failure (never a cause that might hold a secret).
	Message string
	// Account is the account label the call named ("" when it named none, for the default).
	Account string
	// Withheld: the audit record could not be appended, so the outcome is not released; Message
	// says so.
	Withheld bool
}

// withheldMessage is the Message of a Withheld outcome.
const withheldMessage = "The audit record of this execution could not be written, so its outcome is withheld. It may have run; check before retrying."

// Run runs the calls, up to Options.Concurrency at a time, and returns their outcomes index-aligned
// with calls. It never fails as a whole: everything that goes wrong is an Outcome.
func (s *Service) Run(ctx context.Context, caller Caller, calls []Call) []Outcome {
	if len(calls) == 1 {
		// The common case runs on the caller's goroutine: no goroutine, semaphore or wait group.
		return []Outcome{s.runOne(mcppeer.Execution(ctx, 0, 1), caller, calls[0])}
	}
	out := make([]Outcome, len(calls))
	sem := make(chan struct{}, s.opts.Concurrency)
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i] = s.runOne(mcppeer.Execution(ctx, i, len(calls)), caller, c)
		}()
	}
	wg.Wait()
	return out
}

// runOne runs one execution and records it.
func (s *Service) runOne(ctx context.Context, caller Caller, call Call) (o Outcome) {
	name, args := call.Tool, call.Args
	start := s.opts.Now()
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	rec := execution.ToolExecuted{ExecutionID: uuid.Must(uuid.NewV7()), UserID: caller.UserID, Via: caller.Via, ClientID: caller.ClientID, AgentID: caller.AgentID, Tool: name}
	rec.ArgsSize, rec.ArgsSHA256 = execution.Digest(args)
	// The span ends last (deferred first), with the outcome a panic may still set below.
	ctx, span := tracing.Start(ctx, "tool "+name, attribute.String("workbench.tool", name), attribute.String("workbench.execution_id", rec.ExecutionID.String()))
	defer func() { traceOutcome(span, o) }()
	defer func() {
		if v := recover(); v != nil {
			s.log.ErrorContext(ctx, "tool execution panicked", "tool", name, "panic", v)
			o = s.finish(ctx, rec, start, Outcome{Code: CodeToolError, Integration: o.Integration, Message: name + " failed unexpectedly"})
		}
	}()

	t, ok := s.opts.Registry.Tool(name)
	if !ok {
		for _, src := range s.opts.Sources {
			st, found, err := src.FindTool(ctx, caller, name, call.Account)
			if err != nil && domain.ErrorCode(err) == domain.CodeNotConnected {
				rec.Integration, rec.Account = st.Integration, st.Account // the account the call named, as for a plugin tool
				return s.finish(ctx, rec, start, Outcome{Code: CodeNotConnected, Source: st.Integration, Message: domain.ErrorMessage(err), Account: call.Account})
			}
			if err != nil {
				s.log.ErrorContext(ctx, "tool source failed", "tool", name, "err", err)
				return s.finish(ctx, rec, start, Outcome{Code: CodeToolError, Message: fmt.Sprintf("%s: %s", name, safeMessage(err))})
			}
			if found {
				rec.Integration, rec.Account = st.Integration, st.Account
				if st.Ask {
					if held, stop := s.gate(ctx, caller, &rec, call, args, nil); stop {
						held.Source = st.Integration
						return s.finish(ctx, rec, start, held)
					}
				}
				if held, stop := s.charge(ctx, caller, name); stop {
					held.Source = st.Integration
					return s.finish(ctx, rec, start, held)
				}
				r, err := st.Run(s.observeRelays(ctx, rec), args)
				if err != nil {
					return s.finish(ctx, rec, start, Outcome{Code: CodeToolError, Message: safeMessage(err)})
				}
				o := Outcome{Result: r.Result, Content: r.Content, Structured: r.Structured}
				if r.Failed {
					o.Code, o.Message = CodeToolError, r.Message
				}
				return s.finish(ctx, rec, start, o)
			}
		}
		return s.finish(ctx, rec, start, Outcome{Code: CodeUnknownTool, Message: fmt.Sprintf("Unknown tool: %s. Use search_tools to find tool names.", name)})
	}
	in := t.Owner()
	o.Integration = in
	rec.Integration = in.Name
	ask := false
	if s.opts.Switches != nil {
		why, asks, err := s.opts.Switches.PluginToolGate(ctx, caller, in.Name, name)
		ask = asks
		if err != nil {
			s.log.ErrorContext(ctx, "tool switch check failed", "tool", name, "err", err)
			return s.finish(ctx, rec, start, Outcome{Code: CodeToolError, Integration: in, Message: fmt.Sprintf("%s: %s", name, safeMessage(err))})
		}
		if why != "" {
			return s.finish(ctx, rec, start, Outcome{Code: CodeToolOff, Integration: in,
				Message: fmt.Sprintf("%s is %s for this agent; it did not run. Someone who manages that scope can turn it On.", name, why)})
		}
	}
	ctx = tracing.WithPropagation(ctx, in.TracePropagation)
	access, err := s.opts.Credentials.Access(ctx, caller.UserID, in, call.Account)
	if in.Auth.Mode != plugins.AuthNone && call.Account != connection.DefaultAccount {
		rec.Account = call.Account // the account the call named is recorded even when it is not usable
	}
	if err != nil {
		if domain.ErrorCode(err) == domain.CodeNotConnected {
			return s.finish(ctx, rec, start, Outcome{Code: CodeNotConnected, Integration: in, Message: domain.ErrorMessage(err), Account: call.Account})
		}
		s.log.ErrorContext(ctx, "credential access failed", "tool", name, "integration", in.Name, "err", err)
		return s.finish(ctx, rec, start, Outcome{Code: CodeToolError, Integration: in, Message: fmt.Sprintf("%s: %s", name, safeMessage(err))})
	}
	rec.ConnectionVersion = access.ConnectionVersion
	if rec.Account = access.Account; rec.Account == connection.DefaultAccount {
		rec.Account = "" // as in every record made before accounts existed
	}
	validated, err := plugins.ValidateArgs(t, args)
	if err != nil {
		return s.finish(ctx, rec, start, Outcome{Code: CodeInvalidArgs, Integration: in, Message: err.Error()})
	}
	if ask {
		if held, stop := s.gate(ctx, caller, &rec, call, args, access.Redactor().Bytes); stop {
			held.Integration = in
			return s.finish(ctx, rec, start, held)
		}
	}
	if held, stop := s.charge(ctx, caller, name); stop {
		held.Integration = in
		return s.finish(ctx, rec, start, held)
	}
	rc := plugins.NewContext(in, plugins.ContextOptions{
		UserID: caller.UserID.String(), Injector: access.Injector, GetToken: access.GetToken, Credential: access.Credential,
		Logger: s.log, Transport: s.opts.Transport,
	})
	noted, note := plugins.WithAuditNote(ctx)
	result, err := s.opts.Registry.Execute(noted, t, rc, validated)
	rec.Target = note.Target()
	// The provider may echo the credential (an error page quoting the Authorization header): its
	// values, the token fetched for this call included, are redacted from what the agent gets, and
	// the record's digest is of that.
	red := access.Redactor()
	if err != nil {
		return s.finish(ctx, rec, start, Outcome{Code: CodeToolError, Integration: in, Message: red.Message(safeMessage(err))})
	}
	return s.finish(ctx, rec, start, Outcome{Integration: in, Result: red.Bytes(result)})
}

// Access runs read, a read of a connector's resources or prompts for a toolset (resources/read,
// prompts/get), under an execution record of its own: tool names what was read ("resources/read"),
// args what was asked (its digest is recorded, never its content), and the result is released only
// once its record is durable, as a tool's is.
func (s *Service) Access(ctx context.Context, caller Caller, integration, tool string, args json.RawMessage, read func(context.Context) (json.RawMessage, error)) Outcome {
	start := s.opts.Now()
	rec := execution.ToolExecuted{ExecutionID: uuid.Must(uuid.NewV7()), UserID: caller.UserID, Via: caller.Via, ClientID: caller.ClientID, AgentID: caller.AgentID,
		Tool: tool, Integration: integration}
	rec.ArgsSize, rec.ArgsSHA256 = execution.Digest(args)
	res, err := read(ctx)
	if err != nil {
		code := CodeToolError
		if domain.ErrorCode(err) == domain.CodeNotConnected {
			code = CodeNotConnected
		}
		return s.finish(ctx, rec, start, Outcome{Code: code, Source: integration, Message: safeMessage(err)})
	}
	return s.finish(ctx, rec, start, Outcome{Source: integration, Result: res})
}

// charge counts a call that is about to reach its provider against the budgets of the caller's
// agent's chain: stop is true when one is spent (RATE_LIMITED), with the outcome to answer.
func (s *Service) charge(ctx context.Context, caller Caller, tool string) (held Outcome, stop bool) {
	if s.opts.Budgets == nil {
		return Outcome{}, false
	}
	r, err := s.opts.Budgets.Charge(ctx, caller, tool)
	if err != nil {
		s.log.ErrorContext(ctx, "budget check failed", "tool", tool, "err", err)
		return Outcome{Code: CodeToolError, Message: fmt.Sprintf("%s: %s", tool, safeMessage(err))}, true
	}
	if r.Allowed {
		return Outcome{}, false
	}
	return Outcome{Code: CodeRateLimited, Message: r.Message, RetryAfter: r.RetryAfter}, true
}

// gate holds a call of a tool switched to Ask back until a person approves it (Options.Approvals):
// stop is true when it must not run now, with the outcome to answer. The record names the approval.
func (s *Service) gate(ctx context.Context, caller Caller, rec *execution.ToolExecuted, call Call, args json.RawMessage, redact func([]byte) []byte) (held Outcome, stop bool) {
	if s.opts.Approvals == nil {
		return Outcome{Code: CodeApprovalRequired, Message: fmt.Sprintf("%s asks for a person's approval, and approvals are not available on this server; it did not run.", rec.Tool)}, true
	}
	r, err := s.opts.Approvals.Gate(ctx, caller, Gate{ExecutionID: rec.ExecutionID, Tool: rec.Tool, Integration: rec.Integration, Account: rec.Account,
		Args: args, Redact: redact, ApprovalID: call.ApprovalID})
	if id, perr := uuid.Parse(r.ApprovalID); perr == nil {
		rec.ApprovalID = id
	}
	if err != nil {
		s.log.ErrorContext(ctx, "approval failed", "tool", rec.Tool, "err", err)
		return Outcome{Code: CodeToolError, Message: fmt.Sprintf("%s: %s", rec.Tool, safeMessage(err))}, true
	}
	if r.Run {
		return Outcome{}, false
	}
	return Outcome{Code: r.Code, Message: r.Message, ApprovalID: r.ApprovalID, ApprovalURL: r.ApprovalURL}, true
}

// observeRelays returns ctx whose relayed requests (a remote's elicitation, sampling, roots; see
// mcppeer) are each recorded as a RequestRelayed event of the execution rec describes, before the
// answer goes back to the remote: an answer whose record cannot be appended is withheld.
func (s *Service) observeRelays(ctx context.Context, rec execution.ToolExecuted) context.Context {
	return mcppeer.Observe(ctx, func(method string, params, result json.RawMessage, err error) error {
		ev := execution.RequestRelayed{
			RelayID: uuid.Must(uuid.NewV7()), ExecutionID: rec.ExecutionID, UserID: rec.UserID, Via: rec.Via, ClientID: rec.ClientID,
			AgentID: rec.AgentID, Integration: rec.Integration, Tool: rec.Tool, Method: method, Outcome: relayOutcome(method, result, err),
			At: s.opts.Now().UTC(),
		}
		if method == "elicitation/create" {
			ev.Mode = "form"
			var m struct {
				Mode string `json:"mode"`
			}
			if json.Unmarshal(params, &m) == nil && m.Mode == "url" {
				ev.Mode = "url"
			}
		}
		ev.RequestSize, ev.RequestSHA256 = execution.Digest(params)
		if aerr := s.appendRelay(ctx, ev); aerr != nil {
			s.log.ErrorContext(ctx, "audit append failed; withholding the relayed answer", "tool", rec.Tool, "method", method, "err", aerr)
			return errors.New("the audit record of this request could not be written, so its answer is withheld")
		}
		return nil
	})
}

// relayOutcome is what became of a relayed request: an elicitation's action, else accept or error.
func relayOutcome(method string, result json.RawMessage, err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		return execution.RelayTimeout
	case err != nil:
		return execution.RelayError
	case method == "elicitation/create":
		var r struct {
			Action string `json:"action"`
		}
		_ = json.Unmarshal(result, &r)
		switch r.Action {
		case execution.RelayAccept, execution.RelayDecline, execution.RelayCancel:
			return r.Action
		}
		return execution.RelayError
	}
	return execution.RelayAccept
}

func (s *Service) appendRelay(ctx context.Context, ev execution.RequestRelayed) error {
	if err := ev.Validate(); err != nil {
		return err
	}
	typ, sv, body, err := s.agg.Codec.Encode(ev)
	if err != nil {
		return err
	}
	md := eventstore.Metadata{Actor: ev.UserID.String(), MCPClient: ev.ClientID, CorrelationID: ev.ExecutionID.String(), Time: ev.At}
	_, err = s.opts.Store.Append(context.WithoutCancel(ctx), execution.RelayStreamName(ev.RelayID), eventstore.NoStream,
		eventstore.EventData{ID: uuid.Must(uuid.NewV7()), Type: typ, SchemaVersion: sv, Data: body, Metadata: md})
	return err
}

// safeMessage is the caller-safe text of an error: an application error's message, never a cause that
// might carry a secret or an internal detail.
func safeMessage(err error) string {
	var de *domain.Error
	if errors.As(err, &de) {
		return de.Message
	}
	return "the tool failed; the error was logged"
}

// detailCode returns the tool's own code a TOOL_ERROR message names, "" when it names none: the first
// word of upper-case letters, digits and underscores (at least one underscore, starting with a
// letter) that ends with a colon, as in "browser: HUMAN_IN_CONTROL: a person is driving …". Only
// that code is recorded, never the message, which may carry what the tool saw.
func detailCode(msg string) string {
	for i := 0; i < len(msg); i++ {
		if i > 0 && msg[i-1] != ' ' {
			continue
		}
		j := i
		for j < len(msg) && j-i <= 40 && (msg[j] >= 'A' && msg[j] <= 'Z' || msg[j] == '_' || j > i && msg[j] >= '0' && msg[j] <= '9') {
			j++
		}
		if j-i >= 4 && j-i <= 40 && j < len(msg) && msg[j] == ':' && strings.Contains(msg[i:j], "_") {
			return msg[i:j]
		}
	}
	return ""
}

// finish completes the record from o, appends it, and returns o; or, when the record could not be
// appended, a Withheld outcome without the result (fail closed).
func (s *Service) finish(ctx context.Context, rec execution.ToolExecuted, start time.Time, o Outcome) Outcome {
	if o.Code == CodeToolError && ctx.Err() != nil {
		// The tool failed because the call was cancelled.
		o.Code, o.Message = CodeCancelled, "cancelled: the call was cancelled before this execution finished"
	}
	now := s.opts.Now()
	rec.At = now.UTC()
	rec.DurationMS = now.Sub(start).Milliseconds()
	rec.Success = o.Code == ""
	rec.ErrorCode = o.Code
	if o.Code == CodeToolError {
		rec.ErrorDetail = detailCode(o.Message)
	}
	if o.Result != nil {
		rec.ResultSize, rec.ResultSHA256 = execution.Digest(resultBytes(o))
	}
	if err := s.record(ctx, rec); err != nil {
		s.log.ErrorContext(ctx, "audit append failed; withholding the result", "tool", rec.Tool, "execution", rec.ExecutionID, "err", err)
		return Outcome{Code: o.Code, Integration: o.Integration, Message: withheldMessage, Withheld: true}
	}
	return o
}

// resultBytes is what the record's result size and digest cover: the result's JSON, followed by
// the JSON of each of its other content blocks.
func resultBytes(o Outcome) []byte {
	if len(o.Content) == 0 {
		return o.Result
	}
	b := append([]byte(nil), o.Result...)
	for _, c := range o.Content {
		if j, err := json.Marshal(c); err == nil {
			b = append(append(b, '\n'), j...)
		}
	}
	return b
}

// record decides the Record command against the new stream's state and appends its event with
// NoStream (see the package documentation).
func (s *Service) record(ctx context.Context, rec execution.ToolExecuted) error {
	events, err := s.agg.Decide(s.agg.Initial(), execution.Record{Event: rec})
	if err != nil {
		return err
	}
	md := eventstore.Metadata{Actor: rec.UserID.String(), MCPClient: rec.ClientID, CorrelationID: rec.ExecutionID.String(), Time: rec.At}
	data := make([]eventstore.EventData, len(events))
	for i, ev := range events {
		typ, sv, body, err := s.agg.Codec.Encode(ev)
		if err != nil {
			return err
		}
		data[i] = eventstore.EventData{ID: uuid.Must(uuid.NewV7()), Type: typ, SchemaVersion: sv, Data: body, Metadata: md}
	}
	// The append runs even if the caller has gone: the tool has run, and its record must not be lost.
	_, err = s.opts.Store.Append(context.WithoutCancel(ctx), execution.StreamName(rec.ExecutionID), eventstore.NoStream, data...)
	return err
}
