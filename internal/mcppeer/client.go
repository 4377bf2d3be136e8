package mcppeer

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
)

// Caps are the client capabilities of the agent's MCP client (its initialize's capabilities) that a
// remote server may use through Workbench.
type Caps uint8

const (
	// Elicitation is elicitation in form mode (2025-06-18's elicitation, {} before 2025-11-25).
	Elicitation Caps = 1 << iota
	// ElicitationURL is elicitation in URL mode (2025-11-25).
	ElicitationURL
	Sampling
	Roots
)

// AllCaps are every capability Workbench can pass on.
const AllCaps = Elicitation | ElicitationURL | Sampling | Roots

// String names the capabilities, comma-separated ("none" for none).
func (c Caps) String() string {
	var out []string
	for _, n := range []struct {
		c    Caps
		name string
	}{{Elicitation, "elicitation"}, {ElicitationURL, "elicitation.url"}, {Sampling, "sampling"}, {Roots, "roots"}} {
		if c&n.c != 0 {
			out = append(out, n.name)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ",")
}

// Need is the capability a server request's method needs (0 for another method).
func Need(method string) Caps {
	switch method {
	case "elicitation/create":
		return Elicitation
	case "sampling/createMessage":
		return Sampling
	case "roots/list":
		return Roots
	}
	return 0
}

// Client sends a request to the agent's MCP client on the open call's stream and returns its
// answer: the result, or an error (a *RemoteError when the client answered a JSON-RPC error).
// It waits at most until ctx ends.
type Client interface {
	Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
}

// RemoteError is a JSON-RPC error the agent's client answered.
type RemoteError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

func (e *RemoteError) Error() string { return e.Message }

type clientKey struct{}
type observerKey struct{}

type peerClient struct {
	caps Caps
	c    Client
}

// WithClient returns ctx carrying the agent's client and the capabilities it declared.
func WithClient(ctx context.Context, caps Caps, c Client) context.Context {
	if c == nil || caps == 0 {
		return ctx
	}
	return context.WithValue(ctx, clientKey{}, peerClient{caps: caps, c: c})
}

// ClientCaps are the capabilities of the agent's client under ctx (0: none, or no client).
func ClientCaps(ctx context.Context) Caps {
	pc, _ := ctx.Value(clientKey{}).(peerClient)
	return pc.caps
}

// Observer is told of every request relayed under a context: its method and params, and the
// answer (result or err). When it returns an error, the remote gets that error instead of the
// answer (an audit record that could not be written withholds the answer).
type Observer func(method string, params, result json.RawMessage, err error) error

// Observe returns ctx whose relayed requests are also told to o.
func Observe(ctx context.Context, o Observer) context.Context {
	return context.WithValue(ctx, observerKey{}, o)
}

// ErrNotDeclared is the answer to a request whose capability the agent's client did not declare.
var ErrNotDeclared = errors.New("not declared")

// Ask relays one request of a remote server to the agent's client under ctx. A method whose
// capability the client did not declare is refused with an error wrapping ErrNotDeclared, unsent.
func Ask(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	pc, _ := ctx.Value(clientKey{}).(peerClient)
	need := Need(method)
	if need == Elicitation {
		var m struct {
			Mode string `json:"mode"`
		}
		if json.Unmarshal(params, &m) == nil && m.Mode == "url" {
			need = ElicitationURL
		}
	}
	if need == 0 || pc.caps&need == 0 {
		return nil, &notDeclared{method: method, need: need}
	}
	if r := redaction(ctx); r.JSON != nil {
		params = r.JSON(params)
	}
	res, err := pc.c.Request(ctx, method, params)
	if o, ok := ctx.Value(observerKey{}).(Observer); ok {
		if oerr := o(method, params, res, err); oerr != nil {
			return nil, oerr
		}
	}
	return res, err
}

type notDeclared struct {
	method string
	need   Caps
}

func (e *notDeclared) Error() string {
	if e.need == 0 {
		return "Workbench does not pass " + e.method + " on to the agent's client"
	}
	return "the agent's MCP client did not declare the " + e.need.String() + " capability, so Workbench cannot pass this " + e.method + " request on to it"
}

func (e *notDeclared) Unwrap() error { return ErrNotDeclared }

type redactKey struct{}

// Redaction rewrites what a remote sends the agent's client so that it holds none of the login's
// credentials: Text a progress message, JSON a relayed request's params.
type Redaction struct {
	Text func(string) string
	JSON func([]byte) []byte
}

// WithRedaction returns ctx whose progress messages and relayed requests pass through r first.
func WithRedaction(ctx context.Context, r Redaction) context.Context {
	return context.WithValue(ctx, redactKey{}, r)
}

func redaction(ctx context.Context) Redaction {
	r, _ := ctx.Value(redactKey{}).(Redaction)
	return r
}
