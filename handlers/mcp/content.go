package mcp

import (
	"encoding/json"
	"slices"
)

// noResourceLinks are the revisions whose content blocks have no resource_link (it came with
// 2025-06-18).
var noResourceLinks = []string{"2025-03-26"}

// blocksFor adapts a result's content blocks to the session's revision: on one without
// resource_link, such a block becomes a text block naming the link ("resource_link: {uri, name,
// …}"), at the same index, so the labels of execute_tools' entries still point at it. Other blocks
// pass as they are.
func blocksFor(version string, blocks []json.RawMessage) []json.RawMessage {
	if !slices.Contains(noResourceLinks, version) {
		return blocks
	}
	var out []json.RawMessage
	for i, b := range blocks {
		var link struct {
			Type        string `json:"type"`
			URI         string `json:"uri"`
			Name        string `json:"name,omitempty"`
			Title       string `json:"title,omitempty"`
			Description string `json:"description,omitempty"`
			MIMEType    string `json:"mimeType,omitempty"`
		}
		if json.Unmarshal(b, &link) != nil || link.Type != "resource_link" {
			continue
		}
		link.Type = ""
		named, _ := json.Marshal(struct {
			URI         string `json:"uri"`
			Name        string `json:"name,omitempty"`
			Title       string `json:"title,omitempty"`
			Description string `json:"description,omitempty"`
			MIMEType    string `json:"mimeType,omitempty"`
		}{link.URI, link.Name, link.Title, link.Description, link.MIMEType})
		text, _ := json.Marshal(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{"text", "resource_link: " + string(named)})
		if out == nil {
			out = slices.Clone(blocks)
		}
		out[i] = text
	}
	if out == nil {
		return blocks
	}
	return out
}
