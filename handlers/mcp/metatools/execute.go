package metatools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/handlers/mcp"
	"github.com/workbench/workbench/plugins"
)

// Executions is the execute_tools use case (*executions.Service): it runs the calls and records
// each, withholding an outcome whose record could not be appended.
type Executions interface {
	Run(ctx context.Context, caller executions.Caller, calls []executions.Call) []executions.Outcome
}

// The bounds execute_tools' schema (schemas.go) sets, which decodeExecutions checks by hand.
const (
	maxExecutions  = 50
	maxToolNameLen = 128 // in characters, as JSON Schema's maxLength counts
)

type executionArgs struct {
	Executions []struct {
		Tool string          `json:"tool"`
		Args json.RawMessage `json:"args"`
	} `json:"executions"`
}

// decodeExecutions reads execute_tools' arguments into the calls they ask for, checking them against
// the meta-tool's schema in the same pass (canonical.go walks the document once json.Valid has
// accepted it). Each call's Args are its args re-encoded canonically (members sorted, compact,
// encoding/json's escapes), byte for byte what the schema validator's re-encoding gave before this
// path existed, so the audit record's args_sha256 of the same arguments is the same.
//
// ok is false when raw is anything this decoder does not accept; the caller then runs the generic
// validator, which refuses the document with the error that names its problem (or, should it accept
// it, runs it the generic way). Member names are matched exactly, never case-folded.
func decodeExecutions(raw json.RawMessage) (calls []executions.Call, ok bool) {
	if !json.Valid(raw) {
		return nil, false
	}
	w := jsonWalk{b: raw}
	top, ok := w.members(make([]member, 0, 1))
	if !ok || len(top) != 1 || top[0].name != "executions" {
		return nil, false
	}
	list := jsonWalk{b: top[0].value}
	if list.next() != '[' {
		return nil, false
	}
	list.i++
	if list.next() == ']' {
		return nil, false // minItems 1
	}
	calls = make([]executions.Call, 0, 1)
	ms := make([]member, 0, 2)
	for {
		if len(calls) == maxExecutions {
			return nil, false
		}
		if ms, ok = list.members(ms[:0]); !ok {
			return nil, false
		}
		var call executions.Call
		tool, args := false, false
		for _, m := range ms {
			switch {
			case m.name == "tool" && !tool && m.value[0] == '"':
				tool, call.Tool = true, stringValue(m.value)
			case m.name == "args" && !args && m.value[0] == '{':
				args = true
				if call.Args, ok = appendCanonical(make([]byte, 0, len(m.value)), m.value); !ok {
					return nil, false
				}
			default: // a member the schema does not allow, a repeated one, or one of the wrong type
				return nil, false
			}
		}
		if n := utf8.RuneCountInString(call.Tool); !tool || n < 1 || n > maxToolNameLen {
			return nil, false
		}
		calls = append(calls, call)
		c := list.next()
		list.i++
		if c == ']' {
			return calls, true
		}
	}
}

// callsOf reads arguments the schema validator has accepted (and re-encoded) into calls.
func callsOf(validated json.RawMessage) ([]executions.Call, error) {
	var a executionArgs
	if err := json.Unmarshal(validated, &a); err != nil {
		return nil, err
	}
	calls := make([]executions.Call, len(a.Executions))
	for i, ex := range a.Executions {
		calls[i] = executions.Call{Tool: ex.Tool, Args: ex.Args}
	}
	return calls, nil
}

// executeTools runs the executions and encodes the result's text once, {"results":[…]}; an image a
// tool answers (plugins.Image) is taken out of its result and returned apart, to be sent as MCP image
// content.
func (s *Set) executeTools(ctx context.Context, p mcp.Principal, user uuid.UUID, calls []executions.Call) (mcp.CallResult, error) {
	outcomes := s.opts.Executions.Run(ctx, caller(p, user), calls)
	size := len(`{"results":[]}`)
	for _, o := range outcomes {
		size += len(`{"result":},`) + len(o.Result)
	}
	text := make([]byte, 0, size)
	text = append(text, `{"results":[`...)
	var images []mcp.Image
	for i, o := range outcomes {
		if i > 0 {
			text = append(text, ',')
		}
		if o.Code == "" && !o.Withheld {
			if rest, im, ok := plugins.ExtractImage(o.Result); ok {
				o.Result = rest
				images = append(images, mcp.Image{MIMEType: im.MIMEType, Data: im.Data})
			}
		}
		var err error
		if text, err = s.appendEntry(text, o); err != nil {
			return mcp.CallResult{}, err
		}
	}
	text = append(text, "]}"...)
	return mcp.CallResult{Text: string(text), Images: images}, nil
}

// appendEntry appends one execution's result entry to text: {"result": …}, or {"error": …}
// (NOT_CONNECTED with what to do next), byte for byte what encoding the entry as a map gives.
func (s *Set) appendEntry(text []byte, o executions.Outcome) ([]byte, error) {
	if o.Code != "" || o.Withheld {
		b, err := json.Marshal(s.entry(o))
		return append(text, b...), err
	}
	// As encoding/json encodes a RawMessage: checked, compact, HTML-safe escapes; nil is null.
	b, err := json.Marshal(o.Result)
	if err != nil {
		return text, fmt.Errorf("execute_tools: a result is not JSON: %w", err)
	}
	text = append(text, `{"result":`...)
	text = append(text, b...)
	return append(text, '}'), nil
}

// entry is a failed execution's result entry: {"error": …} (NOT_CONNECTED with what to do next).
func (s *Set) entry(o executions.Outcome) any {
	switch {
	case o.Withheld:
		return map[string]any{"error": o.Message}
	case o.Code == executions.CodeNotConnected && inPortal(o.Integration):
		in := o.Integration
		return map[string]any{"error": "NOT_CONNECTED", "integration": in.Name, "portal_url": s.portalURL(), "message": s.portalNote(in)}
	case o.Code == executions.CodeNotConnected:
		in := o.Integration
		return map[string]any{
			"error":       "NOT_CONNECTED",
			"integration": in.Name,
			"message": fmt.Sprintf("%s is not connected for this user. Call connect({\"integration\":%q}), give the user the URL it returns, "+
				"then call wait_for_connection with its connectionId and retry.", in.Name, in.Name),
		}
	}
	return map[string]any{"error": o.Message}
}

// errNoUser is a principal without a user id.
var errNoUser = errors.New("principal has no user id")
