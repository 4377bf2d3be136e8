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
)

// Protocol revisions this endpoint speaks, newest first.
var SupportedVersions = []string{"2025-11-25", "2025-06-18"}

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
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description"`
	InputSchema json.RawMessage  `json:"inputSchema"`
	Annotations *ToolAnnotations `json:"annotations,omitempty"`
}

// ToolAnnotations are the MCP behaviour hints of a tool.
type ToolAnnotations struct {
	ReadOnlyHint    *bool `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool `json:"openWorldHint,omitempty"`
}

// CallResult is what a tool call returns: one text content block.
type CallResult struct {
	Text    string
	IsError bool
}

// ToolSet is what the endpoint serves. Tools is called once, at New: the advertised list is fixed.
type ToolSet interface {
	Tools() []Tool
	// CallTool runs one tool. A *ParamsError becomes JSON-RPC -32602 (an unknown tool, or arguments that
	// fail its schema); any other error becomes -32603 and is logged.
	CallTool(ctx context.Context, p Principal, name string, args json.RawMessage) (CallResult, error)
}

// ParamsError is a -32602 Invalid params answer.
type ParamsError struct{ Message string }

func (e *ParamsError) Error() string { return e.Message }

// Options configure a Server; required fields are marked.
type Options struct {
	Auth  Authenticator // required
	Tools ToolSet       // required
	// SessionKey signs session ids (at least 32 random bytes; the same on every replica). Required.
	SessionKey []byte
	// Sessions records ended sessions; nil keeps them in memory (see SessionStore).
	Sessions SessionStore
	// AllowedOrigins are the exact browser origins allowed to call (scheme://host[:port]); a request
	// carrying any other Origin is refused with 403 (DNS rebinding). Requests with no Origin are allowed.
	AllowedOrigins []string
	// ResourceMetadataURL is named in WWW-Authenticate on a 401 (RFC 9728).
	ResourceMetadataURL string
	ServerName          string
	ServerVersion       string
	Instructions        string
	Logger              *slog.Logger
	// MaxBodyBytes caps a request body (default 4 MiB).
	MaxBodyBytes int64
}

// Server is the /mcp handler.
type Server struct {
	opts      Options
	log       *slog.Logger
	sessions  SessionStore
	toolsList []byte // the encoded tools/list result, built once
	initInfo  map[string]any
}

// New checks opts and builds the handler.
func New(opts Options) (*Server, error) {
	if opts.Auth == nil || opts.Tools == nil {
		return nil, errors.New("mcp: Auth and Tools are required")
	}
	if len(opts.SessionKey) < 32 {
		return nil, errors.New("mcp: SessionKey must be at least 32 bytes")
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
		sessions = NewMemorySessions(24 * time.Hour)
	}
	tools := opts.Tools.Tools()
	list, err := json.Marshal(map[string]any{"tools": tools})
	if err != nil {
		return nil, fmt.Errorf("mcp: encode tools: %w", err)
	}
	info := map[string]any{"name": opts.ServerName}
	if opts.ServerVersion != "" {
		info["version"] = opts.ServerVersion
	}
	return &Server{opts: opts, log: log, sessions: sessions, toolsList: list, initInfo: info}, nil
}

// ServeHTTP implements the streamable HTTP transport.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
		// The server never sends unprompted messages, so it offers no GET stream.
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "Method Not Allowed: this endpoint offers no server-initiated stream", http.StatusMethodNotAllowed)
	default:
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
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
	return false
}

func (s *Server) unauthorized(w http.ResponseWriter, hadCredential bool) {
	v := `Bearer`
	if s.opts.ResourceMetadataURL != "" {
		v += fmt.Sprintf(` resource_metadata="%s"`, s.opts.ResourceMetadataURL)
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
		s.unauthorized(w, r.Header.Get("Authorization") != "")
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
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, CodeInvalidRequest, "JSON-RPC batches are not supported by this protocol revision: send one message per POST"))
		return
	}
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, CodeParseError, "Parse error: the body is not a JSON-RPC message"))
		return
	}
	if req.JSONRPC != "2.0" {
		writeJSON(w, http.StatusBadRequest, errorResponse(req.ID, CodeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`))
		return
	}

	if req.Method == "initialize" {
		s.initialize(w, r, p, &req)
		return
	}

	// Everything else belongs to a session minted for this same user.
	if v := r.Header.Get("MCP-Protocol-Version"); v != "" && !slices.Contains(SupportedVersions, v) {
		writeJSON(w, http.StatusBadRequest, errorResponse(req.ID, CodeInvalidRequest, fmt.Sprintf("unsupported MCP-Protocol-Version %q; supported: %s", v, strings.Join(SupportedVersions, ", "))))
		return
	}
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		writeJSON(w, http.StatusBadRequest, errorResponse(req.ID, CodeInvalidRequest, "Bad Request: Mcp-Session-Id header is required; call initialize first"))
		return
	}
	if _, ok := s.checkSession(r.Context(), sid, p); !ok {
		writeJSON(w, http.StatusNotFound, errorResponse(req.ID, CodeInvalidRequest, "Session not found: it ended or belongs to another credential; initialize a new one"))
		return
	}

	if req.isResponse() || req.isNotification() {
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
	s.reply(w, r, s.dispatch(r.Context(), p, &req))
}

func (s *Server) dispatch(ctx context.Context, p Principal, req *request) response {
	switch req.Method {
	case "ping":
		return response{JSONRPC: "2.0", ID: req.ID, Result: struct{}{}}
	case "tools/list":
		return response{JSONRPC: "2.0", ID: req.ID, Result: json.RawMessage(s.toolsList)}
	case "tools/call":
		var params struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if len(req.Params) == 0 || json.Unmarshal(req.Params, &params) != nil || params.Name == "" {
			return errorResponse(req.ID, CodeInvalidParams, `Invalid params: tools/call needs {"name": string, "arguments": object}`)
		}
		args := bytes.TrimSpace(params.Arguments)
		if len(args) == 0 || bytes.Equal(args, []byte("null")) {
			args = []byte("{}")
		}
		if args[0] != '{' {
			return errorResponse(req.ID, CodeInvalidParams, "Invalid params: arguments must be a JSON object")
		}
		res, err := s.opts.Tools.CallTool(ctx, p, params.Name, args)
		if err != nil {
			var pe *ParamsError
			if errors.As(err, &pe) {
				return errorResponse(req.ID, CodeInvalidParams, pe.Message)
			}
			s.log.ErrorContext(ctx, "tool call failed", "tool", params.Name, "user", p.UserID, "err", err)
			return errorResponse(req.ID, CodeInternalError, "Internal error while running "+params.Name)
		}
		type content struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		return response{JSONRPC: "2.0", ID: req.ID, Result: struct {
			Content []content `json:"content"`
			IsError bool      `json:"isError,omitempty"`
		}{Content: []content{{Type: "text", Text: res.Text}}, IsError: res.IsError}}
	default:
		return errorResponse(req.ID, CodeMethodNotFound, fmt.Sprintf("Method not found: %s", req.Method))
	}
}

func (s *Server) initialize(w http.ResponseWriter, r *http.Request, p Principal, req *request) {
	if req.isNotification() || !validID(req.ID) {
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, CodeInvalidRequest, "Invalid Request: initialize needs an id"))
		return
	}
	var params struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if len(req.Params) == 0 || json.Unmarshal(req.Params, &params) != nil || params.ProtocolVersion == "" {
		s.reply(w, r, errorResponse(req.ID, CodeInvalidParams, "Invalid params: initialize needs protocolVersion"))
		return
	}
	version := LatestVersion
	if slices.Contains(SupportedVersions, params.ProtocolVersion) {
		version = params.ProtocolVersion
	}
	sid, err := s.newSession(p, version)
	if err != nil {
		s.log.ErrorContext(r.Context(), "mint session", "err", err)
		s.reply(w, r, errorResponse(req.ID, CodeInternalError, "Internal error: could not start a session"))
		return
	}
	result := map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{"tools": map[string]any{"listChanged": false}},
		"serverInfo":      s.initInfo,
	}
	if s.opts.Instructions != "" {
		result["instructions"] = s.opts.Instructions
	}
	w.Header().Set("Mcp-Session-Id", sid)
	s.reply(w, r, response{JSONRPC: "2.0", ID: req.ID, Result: result})
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request) {
	p, err := s.opts.Auth.Authenticate(r)
	if err != nil {
		s.unauthorized(w, r.Header.Get("Authorization") != "")
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
		http.Error(w, "could not end the session", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// reply answers a request as JSON, or as a one-event SSE stream when the client accepts only
// text/event-stream.
func (s *Server) reply(w http.ResponseWriter, r *http.Request, resp response) {
	if wantsSSE(r.Header.Get("Accept")) {
		b, err := json.Marshal(resp)
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, errorResponse(resp.ID, CodeInternalError, "Internal error: could not encode the response"))
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
