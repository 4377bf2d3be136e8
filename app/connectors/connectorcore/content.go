//lint:file-ignore SA1019 the sampling content types are deprecated from protocol 2026-07-28 (SEP-2577), and a remote on the revisions Workbench speaks may still send them: they are recognised here to be dropped.

package connectorcore

import (
	"bytes"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A remote MCP tool's result crosses Workbench whole (DESIGN.md, MCP passed through whole): its text
// blocks stay in the execution's JSON entry, its other blocks (image, audio, resource,
// resource_link) travel as blocks of their own, its structuredContent and isError are kept. Every
// part is redacted against the login's credentials first.

// Result redacts a remote result: each block in its wire form (text, resource text, URIs, names,
// annotations and _meta, and the base64 forms of a secret in data and blob), the structuredContent
// and the result's _meta. A block whose binary data (an image's or audio's data, a resource's blob)
// holds a credential, in clear or base64, is not forwarded: a text block says it was withheld.
func (r Redactor) Result(res *mcp.CallToolResult) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: res.IsError, Content: make([]mcp.Content, 0, len(res.Content))}
	for _, c := range res.Content {
		if c == nil {
			continue
		}
		out.Content = append(out.Content, r.block(c))
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			out.StructuredContent = json.RawMessage(r.JSON(b))
		}
	}
	if len(res.Meta) > 0 {
		if b, err := json.Marshal(res.Meta); err == nil {
			var m mcp.Meta
			if json.Unmarshal(r.JSON(b), &m) == nil {
				out.Meta = m
			}
		}
	}
	return out
}

// block is one content block redacted, or the note that replaces a block that held a credential in
// its binary data.
func (r Redactor) block(c mcp.Content) mcp.Content {
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
	red := r.JSON(b)
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
