package mcp

import (
	"encoding/json"
	"testing"
)

// A session on 2025-03-26 gets a resource_link block as a text block at the same index; later
// revisions get it as it is; other blocks are never touched.
func TestBlocksForRevision(t *testing.T) {
	image := json.RawMessage(`{"type":"image","mimeType":"image/png","data":"AA=="}`)
	link := json.RawMessage(`{"type":"resource_link","uri":"https://example.com/a","name":"a","annotations":{"priority":1}}`)
	in := []json.RawMessage{image, link}
	for _, v := range []string{"2025-06-18", "2025-11-25"} {
		if got := blocksFor(v, in); string(got[1]) != string(link) || string(got[0]) != string(image) {
			t.Errorf("%s: %s", v, got)
		}
	}
	got := blocksFor("2025-03-26", in)
	want := `{"type":"text","text":"resource_link: {\"uri\":\"https://example.com/a\",\"name\":\"a\"}"}`
	if len(got) != 2 || string(got[0]) != string(image) || string(got[1]) != want {
		t.Errorf("2025-03-26: %s", got)
	}
	if string(in[1]) != string(link) {
		t.Error("the caller's blocks were changed")
	}
}
