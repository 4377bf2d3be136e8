//lint:file-ignore SA1019 the sampling content types are deprecated from protocol 2026-07-28 (SEP-2577), and a remote on the revisions Workbench speaks may still send them: they are recognised here to be dropped.

package connectortools

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/executions"
)

// remoteEntry is a remote result as the execution's entry shows it: its text blocks, in the shape
// the result had before the other blocks were sent apart.
type remoteEntry struct {
	Meta       mcp.Meta        `json:"_meta,omitempty"`
	Content    []mcp.Content   `json:"content"`
	Structured json.RawMessage `json:"structuredContent,omitempty"`
	IsError    bool            `json:"isError,omitempty"`
}

// toolResult is what execute_tools gets of a call: the entry's JSON, the blocks that are not text,
// the structuredContent, and isError with its text as the message.
func (c called) toolResult() executions.ToolResult {
	if c.res == nil {
		return adapterResult(c.json)
	}
	e := remoteEntry{Meta: c.res.Meta, Content: []mcp.Content{}, IsError: c.res.IsError}
	var other []mcp.Content
	for _, b := range c.res.Content {
		if _, ok := b.(*mcp.TextContent); ok {
			e.Content = append(e.Content, b)
		} else {
			other = append(other, b)
		}
	}
	if raw, ok := c.res.StructuredContent.(json.RawMessage); ok {
		e.Structured = raw
	}
	out := executions.ToolResult{Content: other, Structured: e.Structured, Failed: c.res.IsError}
	b, err := json.Marshal(e)
	if err != nil {
		return executions.ToolResult{Failed: true, Message: "the tool's result could not be encoded"}
	}
	out.Result = b
	if out.Failed {
		out.Message = errorText(c.res)
	}
	return out
}

// adapterResult is an adapter's JSON result; one that is an MCP result with isError (an adapter
// that relays its remote) fails with the text of its text blocks, as before blocks were kept.
func adapterResult(out json.RawMessage) executions.ToolResult {
	var r mcp.CallToolResult
	if bytes.Contains(out, []byte(`"isError"`)) && json.Unmarshal(out, &r) == nil && r.IsError {
		return executions.ToolResult{Failed: true, Message: errorText(&r)}
	}
	return executions.ToolResult{Result: out}
}

// errorText is the text of a failed result's text blocks.
func errorText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	if msg := strings.Join(parts, "\n"); msg != "" {
		return msg
	}
	return "the tool reported an error"
}
