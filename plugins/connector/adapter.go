package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// Adapter is a connector's Go code, registered by slug. It implements any of Validator, Looker,
// Lister and Caller; where it has no method the pool falls back to its defaults (spec connectors.md,
// The pool and adapters): validate initializes against the endpoint, lookup is a 404, list is the
// endpoint's tools/list else the manifest's tools, call is the endpoint's tools/call.
type Adapter interface {
	Slug() string
}

// Validator checks credentials at connect and at every settings change and returns the account hint.
type Validator interface {
	Validate(ctx context.Context, creds map[string]string, ac Context) (accountHint string, err error)
}

// Looker fills a settings search box.
type Looker interface {
	Lookup(ctx context.Context, property, query string, creds map[string]string, ac Context) ([]Option, error)
}

// Lister lists a login's tools.
type Lister interface {
	List(ctx context.Context, creds map[string]string, ac Context) ([]Tool, error)
}

// Caller calls one tool by its remote name.
type Caller interface {
	Call(ctx context.Context, name string, args json.RawMessage, creds map[string]string, ac Context) (json.RawMessage, error)
}

// Context is what an adapter method gets beside the credentials.
type Context struct {
	// Settings is the login's stored settings document ({} when none).
	Settings json.RawMessage
	// HTTP is the guarded client: the adapter timeout and the SSRF dialer.
	HTTP *http.Client
	// Remote is the pool's session on the endpoint; nil on a connector with no endpoint.
	Remote Remote
}

// Remote is the pool's session on a connector's endpoint, seen from an adapter. Its calls run inside
// the pool's auth retry and drop the session on error.
type Remote interface {
	ListTools(ctx context.Context) ([]Tool, error)
	CallTool(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error)
}

// Option is one answer of a lookup.
type Option struct {
	Value  string `json:"value"`
	Label  string `json:"label"`
	Detail string `json:"detail,omitempty"`
	Image  string `json:"image,omitempty"`
}

// Tool is one listed tool as a listing gives it: its remote name and hints (nil when absent).
type Tool struct {
	Name            string          `json:"name"`
	Description     string          `json:"description"`
	InputSchema     json.RawMessage `json:"input_schema,omitempty"`
	ReadOnlyHint    *bool           `json:"read_only_hint,omitempty"`
	DestructiveHint *bool           `json:"destructive_hint,omitempty"`
	// TaskSupport is an MCP tool's execution.taskSupport ("required", "optional", "forbidden"; empty:
	// none given).
	TaskSupport string `json:"task_support,omitempty"`
	// OutputSchema is an MCP tool's outputSchema (nil: none given).
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
}

// Error is what an adapter fails with: Status is the provider's HTTP status when it answered one
// (401 and 403 mean the credentials were refused), Message is safe to show.
type Error struct {
	Status  int
	Message string
}

func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("provider answered %d: %s", e.Status, e.Message)
	}
	return e.Message
}

// Rejected reports whether err says the provider refused the credentials (401 or 403).
func Rejected(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden)
}
