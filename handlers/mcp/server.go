package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/internal/httpserve"
	"github.com/workbench/workbench/internal/mcppeer"
	"github.com/workbench/workbench/internal/signed"
)

// Protocol revisions this endpoint speaks, newest first.
var SupportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// batchVersions are the revisions that allow JSON-RPC batches (2025-06-18 removed them).
var batchVersions = []string{"2025-03-26"}

// LatestVersion is offered to a client that asks for a revision the endpoint does not speak.
const LatestVersion = "2025-11-25"

// Principal is who a request acts for, as the Authenticator resolved it.
type Principal struct {
	UserID string
	Email  string
	// Method is how the caller proved it: "api_key", "oauth" or "session".
	Method string
	// ClientID is the API key id or the OAuth client id the call came through (recorded in audit events).
	ClientID string
	// AgentID is the agent (domain/organization) the credential acts as; the request's scopes are its
	// chain agent → guild → organisation (projections/organizationsrm.Reader.Chain). A credential made
	// before agents existed, and the portal session, act as the user's default agent.
	AgentID uuid.UUID
}

// Authenticator resolves the credential of a request. It returns an error for a missing or bad
// credential; the endpoint answers every such error with 401.
type Authenticator interface {
	Authenticate(r *http.Request) (Principal, error)
}

// AuthenticatorFunc adapts a function to Authenticator.
type AuthenticatorFunc func(r *http.Request) (Principal, error)

// Authenticate implements Authenticator.
func (f AuthenticatorFunc) Authenticate(r *http.Request) (Principal, error) { return f(r) }

// Tool is one advertised tool.
type Tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema is the JSON Schema of the tool's structuredContent (nil: none declared).
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
}

// ToolAnnotations are the MCP behaviour hints of a tool.
type ToolAnnotations struct {
	ReadOnlyHint    *bool `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool `json:"openWorldHint,omitempty"`
}

// CallResult is what a tool call returns: one text content block, then an image content block per
// image, then Content's blocks, in order. An empty Text is left out when other blocks follow.
type CallResult struct {
	Text    string
	IsError bool
	Images  []Image
	// Content are further content blocks (image, audio, resource, resource_link), each as its JSON.
	Content []json.RawMessage
	// Structured is the result's structuredContent (nil: none).
	Structured json.RawMessage
}

// Image is an image content block: its MIME type and base64 data.
type Image struct {
	MIMEType string
	Data     string
}

// ToolSet is what the endpoint serves. Tools is called once, at New: the advertised list is fixed.
type ToolSet interface {
	Tools() []Tool
	// CallTool runs one tool. A *ParamsError becomes JSON-RPC -32602 (an unknown tool, or arguments that
	// fail its schema); any other error becomes -32603 and is logged.
	CallTool(ctx context.Context, p Principal, name string, args json.RawMessage) (CallResult, error)
}

// ToolLister is implemented by a ToolSet whose tools depend on the request (a toolset endpoint: the
// set named in the path, less what is switched Off for the caller's agent): tools/list asks it each
// time instead of answering the list Tools gave at New. An error is answered as CallTool's are.
type ToolLister interface {
	ListTools(ctx context.Context, p Principal) ([]Tool, error)
}

// ResourceServer is implemented by a ToolSet that serves resources and prompts too (a toolset's
// connectors): each method answers the JSON-RPC result of its method. A *ParamsError is -32602.
type ResourceServer interface {
	ListResources(ctx context.Context, p Principal) (json.RawMessage, error)
	ListResourceTemplates(ctx context.Context, p Principal) (json.RawMessage, error)
	ReadResource(ctx context.Context, p Principal, uri string) (json.RawMessage, error)
	ListPrompts(ctx context.Context, p Principal) (json.RawMessage, error)
	GetPrompt(ctx context.Context, p Principal, name string, args map[string]string) (json.RawMessage, error)
}

// Subscriber is implemented by a ResourceServer whose resources a client may subscribe to
// (resources/subscribe, resources/unsubscribe): deliver is told a resource's URI whenever it changes,
// until the session expires, and the server sends notifications/resources/updated on the session's
// GET stream on this replica (a client whose GET stream another replica serves hears nothing: resource
// updates need a session to stay on one replica). A *ParamsError is -32602.
type Subscriber interface {
	Subscribe(ctx context.Context, p Principal, sessionID, uri string, until time.Time, deliver func(uri string)) error
	Unsubscribe(ctx context.Context, p Principal, sessionID, uri string) error
	// EndSession drops every subscription of a session that ended (DELETE) on this replica.
	EndSession(p Principal, sessionID string)
}

// Completer is implemented by a ToolSet that answers completion/complete (a toolset's connectors):
// params are the request's, the answer its result.
type Completer interface {
	Complete(ctx context.Context, p Principal, params json.RawMessage) (json.RawMessage, error)
}

// RunStarter is implemented by a ToolSet that does work at a run start (an MCP session's initialize):
// the connectors relist the stale tool lists of the caller's agent. StartRun must not block; it returns
// a channel closed when the work ends. initialize waits for it at most Options.RunStartBudget, and the
// work goes on after the answer.
type RunStarter interface {
	StartRun(ctx context.Context, p Principal) <-chan struct{}
}

// DefaultRunStartBudget is how long initialize waits for a run start's work before it answers.
const DefaultRunStartBudget = 250 * time.Millisecond

// ParamsError is a -32602 Invalid params answer.
type ParamsError struct{ Message string }

func (e *ParamsError) Error() string { return e.Message }

// Options configure a Server; required fields are marked.
type Options struct {
	Auth  Authenticator // required
	Tools ToolSet       // required
	// SessionKey is the secret session ids are signed under (at least 32 random bytes; the same on
	// every replica; internal/signed derives the key). Required.
	SessionKey []byte
	// Now is the clock session ids are minted and checked by (default time.Now).
	Now func() time.Time
	// Sessions records ended sessions; nil keeps them in memory (see SessionStore).
	Sessions SessionStore
	// AllowedOrigins are the exact browser origins allowed to call (scheme://host[:port]); a request
	// carrying any other Origin is refused with 403 (DNS rebinding). Requests with no Origin are allowed.
	AllowedOrigins []string
	// Loopback are the loopback aliases of a loopback public URL (httpserve.NewLoopback): their
	// origins are allowed too, a request on one is named that alias's resource metadata, and a request
	// whose Host is not a loopback name is refused with 403 whatever its Origin (DNS rebinding: the
	// attacker's page names its own host). The zero value (a public URL that is not loopback) changes
	// nothing.
	Loopback httpserve.Loopback
	// ResourceMetadataURL is named in WWW-Authenticate on a 401 (RFC 9728).
	ResourceMetadataURL string
	// MetadataPerPath names each request path a resource of its own (a toolset's endpoint): the URL in
	// WWW-Authenticate is ResourceMetadataURL less its last path segment ("/mcp") plus the request's path
	// (RFC 9728 section 3.1: the well-known prefix, then the resource's path).
	MetadataPerPath bool
	ServerName      string
	// ServerVersion is serverInfo.version; empty: "dev".
	ServerVersion string
	Instructions  string
	Logger        *slog.Logger
	// MaxBodyBytes caps a request body (default 4 MiB).
	MaxBodyBytes int64
	// ListPoll is how often a GET stream of a ToolLister's endpoint looks for a change of the caller's
	// tools, to send notifications/tools/list_changed (default 2 s).
	ListPoll time.Duration
	// RunStartBudget is how long initialize waits for the Tools' run start (RunStarter) before it
	// answers (default DefaultRunStartBudget; negative: not at all).
	RunStartBudget time.Duration
}

// Server is the /mcp handler.
type Server struct {
	opts      Options
	log       *slog.Logger
	sessions  SessionStore
	ids       *signed.Sealer[session]
	now       func() time.Time
	toolsList []byte // the encoded tools/list result, built once
	initInfo  map[string]any
	levels    *levels
	updates   updates     // resource updates for the sessions' GET streams (subscribe.go)
	verified  verifiedIDs // session ids whose signature was checked
	running   inflight    // requests a notifications/cancelled may cancel
	waiting   pending     // requests sent to clients, waiting for their answers
}

// New checks opts and builds the handler.
func New(opts Options) (*Server, error) {
	if opts.Auth == nil || opts.Tools == nil {
		return nil, errors.New("mcp: Auth and Tools are required")
	}
	if len(opts.SessionKey) < 32 {
		return nil, errors.New("mcp: SessionKey must be at least 32 bytes")
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	ids, err := signed.New[session](opts.SessionKey, sessionLabel, &signed.Options{MaxLen: maxSessionIDLen, Now: now})
	if err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 4 << 20
	}
	if opts.ServerName == "" {
		opts.ServerName = "workbench"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	sessions := opts.Sessions
	if sessions == nil {
		sessions = NewMemorySessions(now)
	}
	tools := opts.Tools.Tools()
	list, err := json.Marshal(map[string]any{"tools": tools})
	if err != nil {
		return nil, fmt.Errorf("mcp: encode tools: %w", err)
	}
	if opts.ServerVersion == "" {
		// The schema requires serverInfo.version; clients built on the TypeScript SDK refuse an
		// initialize result without it.
		opts.ServerVersion = "dev"
	}
	info := map[string]any{"name": opts.ServerName, "version": opts.ServerVersion}
	return &Server{opts: opts, log: log, sessions: sessions, ids: ids, now: now, toolsList: list, initInfo: info, levels: newLevels(now)}, nil
}

// ServeHTTP implements the streamable HTTP transport.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.opts.Loopback.Enabled() && !httpserve.IsLoopbackHost(r.Host) {
		http.Error(w, "Forbidden: the server's public URL is loopback (localhost) and this request names another Host; set SERVER_PUBLIC_URL to the URL clients use", http.StatusForbidden)
		return
	}
	if !s.originAllowed(r.Header.Get("Origin")) {
		http.Error(w, "Forbidden: this Origin may not call the MCP endpoint", http.StatusForbidden)
		return
	}
	switch r.Method {
	case http.MethodPost:
		s.post(w, r)
	case http.MethodDelete:
		s.delete(w, r)
	case http.MethodGet:
		if l, ok := s.opts.Tools.(ToolLister); ok {
			s.watch(w, r, l)
			return
		}
		// The server never sends unprompted messages, so it offers no GET stream.
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "Method Not Allowed: this endpoint offers no server-initiated stream", http.StatusMethodNotAllowed)
	default:
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

// capabilities are what initialize declares: tools (listChanged for a ToolLister), logging, and
// resources and prompts for a ResourceServer.
func (s *Server) capabilities() map[string]any {
	c := map[string]any{"tools": map[string]any{"listChanged": s.listsChange()}, "logging": map[string]any{}}
	if _, ok := s.opts.Tools.(ResourceServer); ok {
		c["resources"], c["prompts"] = map[string]any{}, map[string]any{}
		if _, ok := s.opts.Tools.(Subscriber); ok && s.listsChange() {
			c["resources"] = map[string]any{"subscribe": true}
		}
	}
	if _, ok := s.opts.Tools.(Completer); ok {
		c["completions"] = map[string]any{}
	}
	return c
}

// resource answers the resources and prompts methods of a ResourceServer.
func (s *Server) resource(ctx context.Context, p Principal, rs ResourceServer, req *request) response {
	var params struct {
		URI       string            `json:"uri"`
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if len(req.Params) > 0 && string(req.Params) != "null" {
		if err := json.Unmarshal(req.Params, &params); err != nil {
			return errorResponse(req.ID, CodeInvalidParams, "Invalid params: "+err.Error())
		}
	}
	var res json.RawMessage
	var err error
	switch req.Method {
	case "resources/list":
		res, err = rs.ListResources(ctx, p)
	case "resources/templates/list":
		res, err = rs.ListResourceTemplates(ctx, p)
	case "resources/read":
		if params.URI == "" {
			return errorResponse(req.ID, CodeInvalidParams, "Invalid params: resources/read needs a uri")
		}
		res, err = rs.ReadResource(ctx, p, params.URI)
	case "prompts/list":
		res, err = rs.ListPrompts(ctx, p)
	case "prompts/get":
		if params.Name == "" {
			return errorResponse(req.ID, CodeInvalidParams, "Invalid params: prompts/get needs a name")
		}
		res, err = rs.GetPrompt(ctx, p, params.Name, params.Arguments)
	}
	if err != nil {
		var pe *ParamsError
		if errors.As(err, &pe) {
			return errorResponse(req.ID, CodeInvalidParams, pe.Message)
		}
		s.log.ErrorContext(ctx, req.Method+" failed", "user", p.UserID, "err", err)
		return errorResponse(req.ID, CodeInternalError, "Internal error: "+req.Method)
	}
	return response{JSONRPC: "2.0", ID: req.ID, Result: res}
}

// listsChange reports whether the endpoint's tools may change during a session (a ToolLister).
func (s *Server) listsChange() bool { _, ok := s.opts.Tools.(ToolLister); return ok }

// watch is the GET stream of a ToolLister's endpoint: an SSE stream on which the server sends
// notifications/tools/list_changed when what the caller's tools/list would answer changes (a toolset
// edited, a switch turned, a listing changed), looked at every ListPoll, on any replica (it reads
// what tools/list reads). It lasts until the client goes away, or its credential or session ends.
func (s *Server) watch(w http.ResponseWriter, r *http.Request, l ToolLister) {
	p, err := s.opts.Auth.Authenticate(r)
	if err != nil {
		s.authFailed(w, r, err)
		return
	}
	if !sse(r.Header.Get("Accept")) {
		http.Error(w, "Not Acceptable: the GET stream is text/event-stream", http.StatusNotAcceptable)
		return
	}
	sess, ok := s.sessionOf(w, r, p, nil)
	if !ok {
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	digest := func() string {
		tools, err := l.ListTools(r.Context(), p)
		if err != nil {
			return "error"
		}
		b, _ := json.Marshal(tools)
		return string(b)
	}
	last := digest()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
	poll := s.opts.ListPoll
	if poll <= 0 {
		poll = 2 * time.Second
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	pushed, closeUpdates := s.updates.open(sess.ID)
	defer closeUpdates()
	quiet := 0
	for {
		select {
		case <-r.Context().Done():
			return
		case msg := <-pushed:
			if _, err := fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
			continue
		case <-t.C:
		}
		// The credential is checked again at each look: a revoked key or token, or an ended session,
		// ends the stream.
		if q, err := s.opts.Auth.Authenticate(r); err != nil || q.UserID != p.UserID || q.AgentID != p.AgentID {
			return
		}
		if _, ok := s.checkSession(r.Context(), r.Header.Get("Mcp-Session-Id"), p); !ok {
			return
		}
		if now := digest(); now != last {
			last = now
			if _, err := io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n"); err != nil {
				return
			}
			quiet = 0
		} else if quiet++; time.Duration(quiet)*poll >= 25*time.Second {
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil { // proxies close idle streams
				return
			}
			quiet = 0
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}

func (s *Server) originAllowed(origin string) bool {
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return false
	}
	canon := strings.ToLower(u.Scheme + "://" + u.Host)
	for _, o := range s.opts.AllowedOrigins {
		if strings.EqualFold(o, canon) {
			return true
		}
	}
	return s.opts.Loopback.IsOrigin(canon)
}

// resourceMetadataURL is Options.ResourceMetadataURL as reached by r: on a loopback alias of the
// public URL, the same path on the alias's origin, so that the resource the document names is the URL
// the client used (RFC 9728 section 3.3).
func (s *Server) resourceMetadataURL(r *http.Request) string {
	md := s.opts.ResourceMetadataURL
	if s.opts.MetadataPerPath && md != "" {
		if i := strings.LastIndexByte(md, '/'); i > 0 {
			md = md[:i] + r.URL.EscapedPath()
		}
	}
	base, ok := s.opts.Loopback.Base(r.Host)
	if md == "" || !ok {
		return md
	}
	u, err := url.Parse(md)
	if err != nil || !s.opts.Loopback.IsOrigin(u.Scheme+"://"+u.Host) {
		return md
	}
	return base + u.EscapedPath()
}

func (s *Server) unauthorized(w http.ResponseWriter, r *http.Request, hadCredential bool) {
	v := `Bearer`
	if md := s.resourceMetadataURL(r); md != "" {
		v += fmt.Sprintf(` resource_metadata="%s"`, md)
	}
	if hadCredential {
		v += `, error="invalid_token", error_description="the credential is missing, invalid, expired or revoked"`
	}
	w.Header().Set("WWW-Authenticate", v)
	writeJSON(w, http.StatusUnauthorized, errorResponse(nil, CodeUnauthorized, "Unauthorized: a valid workbench API key or access token is required"))
}

func (s *Server) post(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			http.Error(w, "Unsupported Media Type: send application/json", http.StatusUnsupportedMediaType)
			return
		}
	}
	p, err := s.opts.Auth.Authenticate(r)
	if err != nil {
		s.authFailed(w, r, err)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeJSON(w, http.StatusRequestEntityTooLarge, errorResponse(nil, CodeInvalidRequest, fmt.Sprintf("request body over %d bytes", s.opts.MaxBodyBytes)))
			return
		}
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, CodeParseError, "could not read the request body"))
		return
	}
	// Authenticated, body read: a tool call (or wait_for_connection) may now take longer than the
	// server's read and write deadlines (internal/httpserve explains why both are lifted). An error
	// means the writer cannot set deadlines; there is nothing to lift then.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	msgs, batch, err := decodeBody(body)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, CodeParseError, "Parse error: the body is not a JSON-RPC message"))
		return
	}
	if batch {
		s.postBatch(w, r, p, msgs)
		return
	}
	req := &msgs[0]
	if req.Invalid != "" {
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, CodeInvalidRequest, "Invalid Request: "+req.Invalid))
		return
	}
	if !jsonrpc2(req) {
		writeJSON(w, http.StatusBadRequest, errorResponse(idOrNull(req.ID), CodeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`))
		return
	}

	if req.Method == "initialize" {
		s.initialize(w, r, p, req)
		return
	}

	// Everything else belongs to a session minted for this same user.
	sess, ok := s.sessionOf(w, r, p, req.ID)
	if !ok {
		return
	}
	if req.isResponse() || req.isNotification() {
		s.notified(sess, req)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if !validID(req.ID) {
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, CodeInvalidRequest, "Invalid Request: id must be a string or a number"))
		return
	}
	if req.Method == "" {
		s.reply(w, r, errorResponse(req.ID, CodeInvalidRequest, "Invalid Request: method is missing"))
		return
	}
	if req.Method != "tools/call" {
		s.reply(w, r, s.dispatch(r.Context(), p, sess, req))
		return
	}
	// A tool call may be cancelled by the client, and answers on a stream when it has progress to
	// send before its response.
	ctx, done := s.running.track(r.Context(), sess.ID, req.ID)
	defer done()
	st := &stream{s: s, w: w, r: r, sess: sess}
	if sse(r.Header.Get("Accept")) {
		if tok := progressToken(req.Params); tok != nil {
			st.token = tok
			ctx = mcppeer.WithSink(ctx, st)
		}
		// A remote's elicitation, sampling and roots requests reach this client on the stream.
		ctx = mcppeer.WithClient(ctx, sess.Caps, st)
		// So do a remote's log messages, once the client has asked for them (logging/setLevel on this
		// replica).
		if min := s.levels.get(sess.ID); min != "" {
			ctx = mcppeer.WithLog(ctx, callLog{st: st, min: min})
		}
	}
	resp := s.dispatch(ctx, p, sess, req)
	if cancelledByClient(ctx) {
		st.abandon()
		return
	}
	st.finish(resp)
}

// notified handles a notification of the client: notifications/cancelled cancels the session's
// request it names. Others (notifications/initialized, …) need nothing.
func (s *Server) notified(sess session, req *request) {
	switch {
	case req.Method == "notifications/cancelled":
		s.running.cancel(sess.ID, req.Params)
	case req.isResponse() && validID(req.ID):
		// The answer to a request relayed on a call's stream; one nothing waits for is dropped.
		s.waiting.answer(inflightKey(sess.ID, req.ID), req)
	}
}

// jsonrpc2 reports whether the message says "jsonrpc": "2.0".
func jsonrpc2(req *request) bool {
	if string(req.JSONRPC) == `"2.0"` {
		return true // as every client writes it: no need to decode
	}
	var v string
	return len(req.JSONRPC) > 0 && json.Unmarshal(req.JSONRPC, &v) == nil && v == "2.0"
}

// idOrNull is id when it is a valid request id, else null (an error answer must not echo garbage).
func idOrNull(id json.RawMessage) json.RawMessage {
	if validID(id) {
		return id
	}
	return nil
}

// sessionOf checks the protocol-version header and the session of a request that is not initialize;
// on failure it has answered.
func (s *Server) sessionOf(w http.ResponseWriter, r *http.Request, p Principal, id json.RawMessage) (session, bool) {
	id = idOrNull(id)
	if v := r.Header.Get("MCP-Protocol-Version"); v != "" && !slices.Contains(SupportedVersions, v) {
		writeJSON(w, http.StatusBadRequest, errorResponse(id, CodeInvalidRequest, fmt.Sprintf("unsupported MCP-Protocol-Version %q; supported: %s", v, strings.Join(SupportedVersions, ", "))))
		return session{}, false
	}
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		writeJSON(w, http.StatusBadRequest, errorResponse(id, CodeInvalidRequest, "Bad Request: Mcp-Session-Id header is required; call initialize first"))
		return session{}, false
	}
	sess, ok := s.checkSession(r.Context(), sid, p)
	if !ok {
		writeJSON(w, http.StatusNotFound, errorResponse(id, CodeInvalidRequest, "Session not found: it ended or belongs to another credential; initialize a new one"))
		return session{}, false
	}
	return sess, true
}

// MaxBatch is the most messages one JSON-RPC batch may hold.
const MaxBatch = 100

// postBatch answers a JSON-RPC batch (an array body). Only revision 2025-03-26 allows batches; later
// revisions removed them, so a session on one of those gets -32600. A batch holding only
// notifications and responses is 202 with no body; one holding requests is answered with the array of
// their responses, in the order of the requests. initialize may not be batched, and an empty array is
// a single -32600 (JSON-RPC 2.0, section 6).
func (s *Server) postBatch(w http.ResponseWriter, r *http.Request, p Principal, msgs []request) {
	if len(msgs) == 0 {
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, CodeInvalidRequest, "Invalid Request: an empty batch"))
		return
	}
	if len(msgs) > MaxBatch {
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, CodeInvalidRequest, fmt.Sprintf("Invalid Request: a batch may hold at most %d messages", MaxBatch)))
		return
	}
	for i := range msgs {
		if msgs[i].Method == "initialize" {
			writeJSON(w, http.StatusBadRequest, errorResponse(nil, CodeInvalidRequest, "Invalid Request: initialize must not be part of a JSON-RPC batch"))
			return
		}
	}
	sess, ok := s.sessionOf(w, r, p, nil)
	if !ok {
		return
	}
	if !slices.Contains(batchVersions, sess.Version) {
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, CodeInvalidRequest, fmt.Sprintf("Invalid Request: JSON-RPC batches are not part of protocol revision %s: send one message per POST", sess.Version)))
		return
	}
	out := make([]response, 0, len(msgs))
	for i := range msgs {
		req := &msgs[i]
		switch {
		case req.Invalid != "":
			out = append(out, errorResponse(nil, CodeInvalidRequest, "Invalid Request: "+req.Invalid))
		case !jsonrpc2(req):
			out = append(out, errorResponse(idOrNull(req.ID), CodeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`))
		case req.isResponse() || req.isNotification():
			s.notified(sess, req) // nothing to answer
		case !validID(req.ID):
			out = append(out, errorResponse(nil, CodeInvalidRequest, "Invalid Request: id must be a string or a number"))
		case req.Method == "":
			out = append(out, errorResponse(req.ID, CodeInvalidRequest, "Invalid Request: method is missing"))
		default:
			out = append(out, s.dispatch(r.Context(), p, sess, req))
		}
	}
	if len(out) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	s.reply(w, r, out)
}

func (s *Server) dispatch(ctx context.Context, p Principal, sess session, req *request) response {
	switch req.Method {
	case "ping":
		return response{JSONRPC: "2.0", ID: req.ID, Result: struct{}{}}
	case "tools/list":
		if l, ok := s.opts.Tools.(ToolLister); ok {
			tools, err := l.ListTools(ctx, p)
			if err != nil {
				var pe *ParamsError
				if errors.As(err, &pe) {
					return errorResponse(req.ID, CodeInvalidParams, pe.Message)
				}
				s.log.ErrorContext(ctx, "tools/list failed", "user", p.UserID, "err", err)
				return errorResponse(req.ID, CodeInternalError, "Internal error while listing the tools")
			}
			if tools == nil {
				tools = []Tool{}
			}
			return response{JSONRPC: "2.0", ID: req.ID, Result: map[string]any{"tools": tools}}
		}
		return response{JSONRPC: "2.0", ID: req.ID, Result: json.RawMessage(s.toolsList)}
	case "logging/setLevel":
		return s.setLevel(sess, req)
	case "resources/list", "resources/templates/list", "resources/read", "prompts/list", "prompts/get":
		if rs, ok := s.opts.Tools.(ResourceServer); ok {
			return s.resource(ctx, p, rs, req)
		}
		return errorResponse(req.ID, CodeMethodNotFound, fmt.Sprintf("Method not found: %s", req.Method))
	case "resources/subscribe", "resources/unsubscribe":
		if sub, ok := s.opts.Tools.(Subscriber); ok && s.listsChange() {
			return s.subscribe(ctx, p, sess, sub, req)
		}
		return errorResponse(req.ID, CodeMethodNotFound, fmt.Sprintf("Method not found: %s", req.Method))
	case "completion/complete":
		if c, ok := s.opts.Tools.(Completer); ok {
			res, err := c.Complete(ctx, p, req.Params)
			if err != nil {
				var pe *ParamsError
				if errors.As(err, &pe) {
					return errorResponse(req.ID, CodeInvalidParams, pe.Message)
				}
				s.log.ErrorContext(ctx, "completion/complete failed", "user", p.UserID, "err", err)
				return errorResponse(req.ID, CodeInternalError, "Internal error: completion/complete")
			}
			return response{JSONRPC: "2.0", ID: req.ID, Result: res}
		}
		return errorResponse(req.ID, CodeMethodNotFound, fmt.Sprintf("Method not found: %s", req.Method))
	case "tools/call":
		name, args, ok := toolCallParams(req.Params)
		if !ok {
			return errorResponse(req.ID, CodeInvalidParams, `Invalid params: tools/call needs {"name": string, "arguments": object}`)
		}
		args = bytes.TrimSpace(args)
		if len(args) == 0 || bytes.Equal(args, []byte("null")) {
			args = []byte("{}")
		}
		if args[0] != '{' {
			return errorResponse(req.ID, CodeInvalidParams, "Invalid params: arguments must be a JSON object")
		}
		res, err := s.opts.Tools.CallTool(ctx, p, name, args)
		if err != nil {
			var pe *ParamsError
			if errors.As(err, &pe) {
				return errorResponse(req.ID, CodeInvalidParams, pe.Message)
			}
			s.log.ErrorContext(ctx, "tool call failed", "tool", name, "user", p.UserID, "err", err)
			return errorResponse(req.ID, CodeInternalError, "Internal error while running "+name)
		}
		type text struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		type image struct {
			Type     string `json:"type"`
			MIMEType string `json:"mimeType"`
			Data     string `json:"data"`
		}
		blocks := make([]any, 0, 1+len(res.Images)+len(res.Content))
		// The text block leads, unless it is empty and other blocks carry the result (a remote tool that
		// answered an image alone): a text block always has its text.
		if res.Text != "" || len(res.Images)+len(res.Content) == 0 {
			blocks = append(blocks, text{Type: "text", Text: res.Text})
		}
		for _, im := range res.Images {
			blocks = append(blocks, image{Type: "image", MIMEType: im.MIMEType, Data: im.Data})
		}
		for _, c := range blocksFor(sess.Version, res.Content) {
			blocks = append(blocks, c)
		}
		return response{JSONRPC: "2.0", ID: req.ID, Result: struct {
			Content           []any           `json:"content"`
			StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
			IsError           bool            `json:"isError,omitempty"`
		}{Content: blocks, StructuredContent: res.Structured, IsError: res.IsError}}
	default:
		return errorResponse(req.ID, CodeMethodNotFound, fmt.Sprintf("Method not found: %s", req.Method))
	}
}

func (s *Server) initialize(w http.ResponseWriter, r *http.Request, p Principal, req *request) {
	if req.isNotification() || !validID(req.ID) {
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, CodeInvalidRequest, "Invalid Request: initialize needs an id"))
		return
	}
	var asked string
	m, err := members(req.Params)
	if err == nil {
		err = json.Unmarshal(m["protocolVersion"], &asked)
	}
	if err != nil || asked == "" {
		s.reply(w, r, errorResponse(req.ID, CodeInvalidParams, "Invalid params: initialize needs protocolVersion"))
		return
	}
	version := LatestVersion
	if slices.Contains(SupportedVersions, asked) {
		version = asked
	}
	sid, err := s.newSession(p, version, clientCaps(req.Params))
	if err != nil {
		s.log.ErrorContext(r.Context(), "mint session", "err", err)
		s.reply(w, r, errorResponse(req.ID, CodeInternalError, "Internal error: could not start a session"))
		return
	}
	instructions := s.beginInstructions(r, p)
	s.startRun(r, p)
	result := map[string]any{
		"protocolVersion": version,
		"capabilities":    s.capabilities(),
		"serverInfo":      s.initInfo,
	}
	if text := instructions(); text != "" {
		result["instructions"] = text
	}
	w.Header().Set("Mcp-Session-Id", sid)
	s.reply(w, r, response{JSONRPC: "2.0", ID: req.ID, Result: result})
}

// startRun starts the Tools' run-start work for a new session and waits for it at most the budget.
func (s *Server) startRun(r *http.Request, p Principal) {
	rs, ok := s.opts.Tools.(RunStarter)
	if !ok {
		return
	}
	done := rs.StartRun(context.WithoutCancel(r.Context()), p)
	budget := s.opts.RunStartBudget
	if budget == 0 {
		budget = DefaultRunStartBudget
	}
	if budget < 0 {
		return
	}
	t := time.NewTimer(budget)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-r.Context().Done():
	}
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request) {
	p, err := s.opts.Auth.Authenticate(r)
	if err != nil {
		s.authFailed(w, r, err)
		return
	}
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		http.Error(w, "Bad Request: Mcp-Session-Id header is required", http.StatusBadRequest)
		return
	}
	sess, ok := s.checkSession(r.Context(), sid, p)
	if !ok {
		http.Error(w, "Session not found", http.StatusNotFound)
		return
	}
	if err := s.sessions.End(r.Context(), sess.ID, sess.Expires); err != nil {
		s.log.ErrorContext(r.Context(), "end session", "err", err)
		if handlers.IsStorageFailure(err) || domain.ErrorCode(err) == domain.CodeUnavailable {
			// The database is away: the session still stands, and the client may retry the DELETE.
			w.Header().Set("Retry-After", handlers.RetryAfterSeconds)
			http.Error(w, "Service Unavailable: the end of the session cannot be recorded now; retry shortly", http.StatusServiceUnavailable)
			return
		}
		http.Error(w, "could not end the session", http.StatusInternalServerError)
		return
	}
	s.levels.forget(sess.ID)
	if sub, ok := s.opts.Tools.(Subscriber); ok {
		sub.EndSession(p, sess.ID)
	}
	w.WriteHeader(http.StatusNoContent)
}

// reply answers a request (resp is a response, or a batch of them) as JSON, or as a one-event SSE
// stream when the client accepts only text/event-stream.
func (s *Server) reply(w http.ResponseWriter, r *http.Request, resp any) {
	if wantsSSE(r.Header.Get("Accept")) {
		b, err := json.Marshal(resp)
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, errorResponse(nil, CodeInternalError, "Internal error: could not encode the response"))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", b)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// wantsSSE reports whether the Accept header takes text/event-stream and not application/json.
func wantsSSE(accept string) bool {
	sse, js := false, false
	for _, part := range strings.Split(accept, ",") {
		mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		switch strings.TrimSpace(mt) {
		case "text/event-stream":
			sse = true
		case "application/json", "application/*", "*/*":
			js = true
		}
	}
	return sse && !js
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error: could not encode the response"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b) //nolint:errcheck // the client went away
}
