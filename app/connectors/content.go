//lint:file-ignore SA1019 the sampling content types are deprecated from protocol 2026-07-28 (SEP-2577), and a remote on the revisions Workbench speaks may still send them: they are recognised here to be dropped.

package connectors

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/executions"
)

// A remote MCP tool's result crosses Workbench whole (DESIGN.md, MCP passed through whole): its text
// blocks stay in the execution's JSON entry, its other blocks (image, audio, resource,
// resource_link) travel as blocks of their own, its structuredContent and isError are kept. Every
// part is redacted against the login's credentials first.

// result redacts a remote result: each block in its wire form (text, resource text, URIs, names,
// annotations and _meta, and the base64 forms of a secret in data and blob), the structuredContent
// and the result's _meta. A block whose binary data (an image's or audio's data, a resource's blob)
// holds a credential, in clear or base64, is not forwarded: a text block says it was withheld.
func (r redactor) result(res *mcp.CallToolResult) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: res.IsError, Content: make([]mcp.Content, 0, len(res.Content))}
	for _, c := range res.Content {
		if c == nil {
			continue
		}
		out.Content = append(out.Content, r.block(c))
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			out.StructuredContent = json.RawMessage(r.json(b))
		}
	}
	if len(res.Meta) > 0 {
		if b, err := json.Marshal(res.Meta); err == nil {
			var m mcp.Meta
			if json.Unmarshal(r.json(b), &m) == nil {
				out.Meta = m
			}
		}
	}
	return out
}

// block is one content block redacted, or the note that replaces a block that held a credential in
// its binary data.
func (r redactor) block(c mcp.Content) mcp.Content {
	kind := blockType(c)
	switch c.(type) {
	case *mcp.TextContent, *mcp.ImageContent, *mcp.AudioContent, *mcp.EmbeddedResource, *mcp.ResourceLink:
	default: // sampling's tool_use and tool_result are not content of a tool result
		return &mcp.TextContent{Text: "[" + kind + " block dropped: a tool result carries no such content]"}
	}
	withheld := &mcp.TextContent{Text: "[" + kind + " block withheld: it held a credential]"}
	if blob := blobOf(c); len(blob) > 0 && !bytes.Equal(r.r.Bytes(blob), blob) {
		return withheld
	}
	b, err := json.Marshal(c)
	if err != nil {
		return withheld
	}
	red := r.json(b)
	if bytes.Equal(red, b) {
		return c
	}
	// Decoded again from its redacted wire form; a base64 form of a secret inside data or a blob
	// no longer decodes, and the block is withheld.
	var back mcp.CallToolResult
	if json.Unmarshal([]byte(`{"content":[`+string(red)+`]}`), &back) != nil || len(back.Content) != 1 {
		return withheld
	}
	return back.Content[0]
}

// blobOf is a block's binary data (nil when it has none).
func blobOf(c mcp.Content) []byte {
	switch c := c.(type) {
	case *mcp.ImageContent:
		return c.Data
	case *mcp.AudioContent:
		return c.Data
	case *mcp.EmbeddedResource:
		if c.Resource != nil {
			return c.Resource.Blob
		}
	}
	return nil
}

// blockType is a block's MCP type.
func blockType(c mcp.Content) string {
	switch c.(type) {
	case *mcp.TextContent:
		return "text"
	case *mcp.ImageContent:
		return "image"
	case *mcp.AudioContent:
		return "audio"
	case *mcp.EmbeddedResource:
		return "resource"
	case *mcp.ResourceLink:
		return "resource_link"
	case *mcp.ToolUseContent:
		return "tool_use"
	case *mcp.ToolResultContent:
		return "tool_result"
	}
	return "unknown"
}

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
