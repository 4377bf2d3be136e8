package metatools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain/connection"
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
		Tool       string          `json:"tool"`
		Args       json.RawMessage `json:"args"`
		Account    string          `json:"account"`
		ApprovalID string          `json:"approval_id"`
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
		tool, args, account, approval := false, false, false, false
		for _, m := range ms {
			switch {
			case m.name == "tool" && !tool && m.value[0] == '"':
				tool, call.Tool = true, stringValue(m.value)
			case m.name == "account" && !account && m.value[0] == '"':
				// The schema's pattern and length: the generic validator names a malformed label.
				account, call.Account = true, stringValue(m.value)
				if !connection.ValidAccountLabel(call.Account) {
					return nil, false
				}
			case m.name == "approval_id" && !approval && m.value[0] == '"':
				// The schema's format: the generic validator names a malformed id.
				approval, call.ApprovalID = true, stringValue(m.value)
				if _, err := uuid.Parse(call.ApprovalID); err != nil || len(call.ApprovalID) != 36 || strings.ToLower(call.ApprovalID) != call.ApprovalID {
					return nil, false
				}
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
		calls[i] = executions.Call{Tool: ex.Tool, Args: ex.Args, Account: ex.Account, ApprovalID: ex.ApprovalID}
	}
	return calls, nil
}

// DefaultMaxResultBytes caps one execute_tools result, its text and its other content blocks
// together (Options.MaxResultBytes).
const DefaultMaxResultBytes = 8 << 20

// executeTools runs the executions and answers their result: the text block {"results":[…]} first,
// then the content blocks of the executions that are not text (a remote tool's image, audio,
// resource and resource_link blocks; an image a built-in tool answers, plugins.Image), each labelled
// in its execution's entry ("content":[{"block":1,"type":"image","mimeType":…}], block indexing the
// result's content). A single execution's structuredContent is the result's; isError is true when
// every execution failed.
func (s *Set) executeTools(ctx context.Context, p mcp.Principal, user uuid.UUID, calls []executions.Call) (mcp.CallResult, error) {
	return s.resultOf(s.opts.Executions.Run(ctx, caller(p, user), calls))
}

// piece is one content block of an execution: its JSON and its label in the entry.
type piece struct {
	json  json.RawMessage
	label blockLabel
}

// blockLabel names a content block in its execution's entry: Block is its index in the result's
// content (0 is the text block, so 0 means none: the block was Cut, and Cut says why).
type blockLabel struct {
	Block    int    `json:"block,omitempty"`
	Type     string `json:"type"`
	MIMEType string `json:"mimeType,omitempty"`
	URI      string `json:"uri,omitempty"`
	Name     string `json:"name,omitempty"`
	Cut      string `json:"cut,omitempty"`
}

// resultOf encodes outcomes as execute_tools' result under the size cap: when the text alone would
// pass it, the largest results are cut first, each entry saying so; then each block that would pass
// it is cut, in order, its label saying so.
func (s *Set) resultOf(outcomes []executions.Outcome) (mcp.CallResult, error) {
	limit := s.opts.MaxResultBytes
	if limit <= 0 {
		limit = DefaultMaxResultBytes
	}
	pieces := make([][]piece, len(outcomes))
	failed := 0
	for i := range outcomes {
		o := &outcomes[i]
		if o.Code != "" || o.Withheld {
			failed++
		}
		if o.Withheld {
			continue
		}
		if o.Code == "" {
			if rest, im, ok := plugins.ExtractImage(o.Result); ok {
				o.Result = rest
				b, err := json.Marshal(struct {
					Type     string `json:"type"`
					MIMEType string `json:"mimeType"`
					Data     string `json:"data"`
				}{"image", im.MIMEType, im.Data})
				if err != nil {
					return mcp.CallResult{}, err
				}
				pieces[i] = append(pieces[i], piece{json: b, label: blockLabel{Type: "image", MIMEType: im.MIMEType}})
			}
		}
		for _, c := range o.Content {
			b, err := json.Marshal(c)
			if err != nil {
				return mcp.CallResult{}, fmt.Errorf("execute_tools: a content block: %w", err)
			}
			pieces[i] = append(pieces[i], piece{json: b, label: labelOf(c)})
		}
	}
	var structured json.RawMessage
	if len(outcomes) == 1 && !outcomes[0].Withheld {
		structured = outcomes[0].Structured
	}

	// The text, without labels, and the structuredContent must fit; the largest results go first.
	sizes := make([]int, len(outcomes))
	cuts := make([]string, len(outcomes))
	total := len(`{"results":[]}`) + len(structured)
	for i, o := range outcomes {
		b, err := s.appendEntry(nil, o, nil, "")
		if err != nil {
			return mcp.CallResult{}, err
		}
		sizes[i] = len(b) + 1
		total += sizes[i]
	}
	for total > limit {
		big := -1
		for i, n := range sizes {
			if outcomes[i].Result != nil && n > 64 && (big < 0 || n > sizes[big]) {
				big = i
			}
		}
		if big < 0 {
			break
		}
		cut := fmt.Sprintf("the result is %d bytes, over what an execute_tools result holds (%d bytes, text and blocks together): cut", sizes[big], limit)
		if big == 0 && len(outcomes) == 1 {
			structured = nil
		}
		cuts[big] = cut
		outcomes[big].Result, outcomes[big].Structured = nil, nil
		for k := range pieces[big] {
			pieces[big][k].label.Cut = "cut with its result"
		}
		b, err := s.appendEntry(nil, outcomes[big], nil, cut)
		if err != nil {
			return mcp.CallResult{}, err
		}
		total += len(b) + 1 - sizes[big]
		sizes[big] = 0 // not cut again
	}

	// Then the blocks, in order, while they fit.
	budget := limit - total
	var blocks []json.RawMessage
	for i := range pieces {
		for k := range pieces[i] {
			pc := &pieces[i][k]
			if pc.label.Cut != "" {
				continue
			}
			lb, _ := json.Marshal(pc.label)
			cost := len(pc.json) + len(lb) + 16
			if cost > budget {
				pc.label = blockLabel{Type: pc.label.Type, MIMEType: pc.label.MIMEType,
					Cut: fmt.Sprintf("this %d-byte block would pass the %d bytes an execute_tools result holds (text and blocks together)", len(pc.json), limit)}
				continue
			}
			budget -= cost
			blocks = append(blocks, pc.json)
			pc.label.Block = len(blocks)
		}
	}

	text := make([]byte, 0, total+256)
	text = append(text, `{"results":[`...)
	for i, o := range outcomes {
		if i > 0 {
			text = append(text, ',')
		}
		labels := make([]blockLabel, len(pieces[i]))
		for k, pc := range pieces[i] {
			labels[k] = pc.label
		}
		var err error
		if text, err = s.appendEntry(text, o, labels, cuts[i]); err != nil {
			return mcp.CallResult{}, err
		}
	}
	text = append(text, "]}"...)
	return mcp.CallResult{Text: string(text), Content: blocks, Structured: structured, IsError: failed == len(outcomes)}, nil
}

// labelOf is the label of a remote content block.
func labelOf(c sdk.Content) blockLabel {
	switch c := c.(type) {
	case *sdk.ImageContent:
		return blockLabel{Type: "image", MIMEType: c.MIMEType}
	case *sdk.AudioContent:
		return blockLabel{Type: "audio", MIMEType: c.MIMEType}
	case *sdk.EmbeddedResource:
		if c.Resource != nil {
			return blockLabel{Type: "resource", MIMEType: c.Resource.MIMEType, URI: c.Resource.URI}
		}
		return blockLabel{Type: "resource"}
	case *sdk.ResourceLink:
		return blockLabel{Type: "resource_link", MIMEType: c.MIMEType, URI: c.URI, Name: c.Name}
	case *sdk.TextContent:
		return blockLabel{Type: "text"}
	}
	return blockLabel{Type: "content"}
}

// appendEntry appends one execution's result entry to text: {"result": …}, or {"error": …}
// (NOT_CONNECTED with what to do next; a remote tool that answered isError keeps its "result"),
// with "content" labelling its blocks when it has any, and "cut" saying why its result was cut; a
// success without labels is byte for byte what encoding the entry as a map gives.
func (s *Set) appendEntry(text []byte, o executions.Outcome, labels []blockLabel, cut string) ([]byte, error) {
	if o.Code != "" || o.Withheld || cut != "" {
		m := map[string]any{"result": nil}
		if o.Code != "" || o.Withheld {
			m = s.entry(o)
			if o.Result != nil && !o.Withheld {
				m["result"] = o.Result
			}
		}
		if cut != "" {
			m["cut"] = cut
		}
		if len(labels) > 0 {
			m["content"] = labels
		}
		b, err := json.Marshal(m)
		return append(text, b...), err
	}
	// As encoding/json encodes a RawMessage: checked, compact, HTML-safe escapes; nil is null.
	b, err := json.Marshal(o.Result)
	if err != nil {
		return text, fmt.Errorf("execute_tools: a result is not JSON: %w", err)
	}
	text = append(text, `{"result":`...)
	text = append(text, b...)
	if len(labels) > 0 {
		lb, err := json.Marshal(labels)
		if err != nil {
			return text, err
		}
		text = append(text, `,"content":`...)
		text = append(text, lb...)
	}
	return append(text, '}'), nil
}

// entry is a failed execution's result entry: {"error": …} (NOT_CONNECTED with what to do next).
func (s *Set) entry(o executions.Outcome) map[string]any {
	switch {
	case o.Withheld:
		return map[string]any{"error": o.Message}
	case o.Code == executions.CodeRateLimited:
		return map[string]any{"error": o.Code, "retry_after_s": int(o.RetryAfter / time.Second), "message": o.Message}
	case o.Code == executions.CodeApprovalRequired && o.ApprovalID != "":
		return map[string]any{"error": o.Code, "approval_id": o.ApprovalID, "url": o.ApprovalURL, "message": o.Message}
	case o.Code == executions.CodeApprovalRequired || o.Code == executions.CodeApprovalDenied || o.Code == executions.CodeApprovalExpired || o.Code == executions.CodeApprovalInvalid:
		return map[string]any{"error": o.Code, "message": o.Message}
	case o.Code == executions.CodeNotConnected && o.Integration == nil:
		// A connector tool whose account the call named is not there: the message lists the labels
		// there are; connecting one is the portal's (or the API's) work, at the owner's scope.
		return map[string]any{"error": "NOT_CONNECTED", "integration": o.Source, "account": o.Account, "message": o.Message, "portal_url": s.portalURL()}
	case o.Code == executions.CodeNotConnected && o.Account != "":
		// The call named an account: the credential layer's message says which labels exist and how
		// to connect this one.
		out := map[string]any{"error": "NOT_CONNECTED", "integration": o.Integration.Name, "account": o.Account, "message": o.Message}
		if inPortal(o.Integration) {
			out["portal_url"] = s.portalURL()
		}
		return out
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
