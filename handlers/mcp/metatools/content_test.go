package metatools

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/executions"
)

type labelled struct {
	Results []struct {
		Result  json.RawMessage `json:"result"`
		Error   string          `json:"error"`
		Cut     string          `json:"cut"`
		Content []blockLabel    `json:"content"`
	} `json:"results"`
}

func decodeResult(t *testing.T, text string) labelled {
	t.Helper()
	var l labelled
	if err := json.Unmarshal([]byte(text), &l); err != nil {
		t.Fatalf("text %s: %v", text, err)
	}
	return l
}

// execute_tools' result: the JSON text block first, then each execution's blocks that are not text,
// labelled in its entry by their index in the result's content; a single execution's
// structuredContent is the result's; a screenshot takes the same path; isError only when every
// execution failed.
func TestExecuteToolsContentBlocks(t *testing.T) {
	e := newEnv(t, nil)
	png := []byte{0x89, 'P', 'N', 'G'}
	remote := executions.Outcome{Result: json.RawMessage(`{"content":[{"type":"text","text":"hi"}]}`), Structured: json.RawMessage(`{"n":1}`),
		Content: []sdk.Content{
			&sdk.ImageContent{MIMEType: "image/png", Data: png, Annotations: &sdk.Annotations{Priority: 1}},
			&sdk.ResourceLink{URI: "https://example.com/a", Name: "a"},
		}}
	shot := executions.Outcome{Result: json.RawMessage(`{"url":"https://example.com","image":{"type":"image","mimeType":"image/jpeg","data":"AAEC"}}`)}
	failed := executions.Outcome{Code: executions.CodeToolError, Message: "quota exceeded", Result: json.RawMessage(`{"content":[],"isError":true}`),
		Content: []sdk.Content{&sdk.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF")}}}

	res, err := e.set.resultOf([]executions.Outcome{remote, shot, failed})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.Structured != nil || len(res.Content) != 4 {
		t.Fatalf("result: isError %v, structured %s, %d blocks", res.IsError, res.Structured, len(res.Content))
	}
	l := decodeResult(t, res.Text)
	want := [][]blockLabel{
		{{Block: 1, Type: "image", MIMEType: "image/png"}, {Block: 2, Type: "resource_link", URI: "https://example.com/a", Name: "a"}},
		{{Block: 3, Type: "image", MIMEType: "image/jpeg"}},
		{{Block: 4, Type: "audio", MIMEType: "audio/wav"}},
	}
	for i, w := range want {
		got := l.Results[i].Content
		if len(got) != len(w) {
			t.Fatalf("entry %d labels %+v, want %+v", i, got, w)
		}
		for k := range w {
			if got[k] != w[k] {
				t.Fatalf("entry %d label %d = %+v, want %+v", i, k, got[k], w[k])
			}
		}
	}
	var first map[string]any
	json.Unmarshal(res.Content[0], &first)
	if first["type"] != "image" || first["data"] != "iVBORw==" || first["annotations"] == nil {
		t.Fatalf("block 1 = %s", res.Content[0])
	}
	if !strings.Contains(string(res.Content[2]), `"data":"AAEC"`) || !strings.Contains(string(l.Results[1].Result), `"sent as image content"`) {
		t.Fatalf("screenshot: block %s, entry %s", res.Content[2], l.Results[1].Result)
	}
	if l.Results[2].Error != "quota exceeded" || !strings.Contains(string(l.Results[2].Result), `"isError":true`) {
		t.Fatalf("failed entry = %+v", l.Results[2])
	}

	// One execution: its structuredContent is the result's.
	res, err = e.set.resultOf([]executions.Outcome{remote})
	if err != nil || string(res.Structured) != `{"n":1}` || res.IsError {
		t.Fatalf("single: %s, %v, isError %v", res.Structured, err, res.IsError)
	}
	// Every execution failed: isError.
	res, err = e.set.resultOf([]executions.Outcome{failed, {Code: executions.CodeUnknownTool, Message: "Unknown tool"}})
	if err != nil || !res.IsError {
		t.Fatalf("all failed: isError %v, %v", res.IsError, err)
	}
}

// The size cap applies to the whole result: a block that would pass it is cut and its label says so
// (later blocks that fit still go), and a text that alone passes it has its largest results cut.
func TestExecuteToolsResultCap(t *testing.T) {
	e := newEnv(t, nil)
	e.set.opts.MaxResultBytes = 4096
	big := &sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 8000)}
	small := &sdk.ImageContent{MIMEType: "image/gif", Data: []byte("GIF89a")}
	res, err := e.set.resultOf([]executions.Outcome{{Result: json.RawMessage(`{"content":[]}`), Content: []sdk.Content{big, small}}})
	if err != nil {
		t.Fatal(err)
	}
	l := decodeResult(t, res.Text)
	labels := l.Results[0].Content
	if len(res.Content) != 1 || len(labels) != 2 || labels[0].Block != 0 || !strings.Contains(labels[0].Cut, "4096") || labels[1].Block != 1 {
		t.Fatalf("blocks %d, labels %+v", len(res.Content), labels)
	}
	if size := len(res.Text) + len(res.Content[0]); size > 4096 {
		t.Fatalf("result is %d bytes", size)
	}

	long := json.RawMessage(`"` + strings.Repeat("x", 6000) + `"`)
	failure := strings.Repeat("what to do next. ", 10)
	res, err = e.set.resultOf([]executions.Outcome{{Result: long, Content: []sdk.Content{small}}, {Result: json.RawMessage(`"short"`)},
		{Code: executions.CodeToolError, Message: failure}})
	if err != nil {
		t.Fatal(err)
	}
	l = decodeResult(t, res.Text)
	if len(res.Text) > 4096 || !strings.Contains(l.Results[0].Cut, "4096 bytes") ||
		string(l.Results[0].Result) != "null" || string(l.Results[1].Result) != `"short"` || len(res.Content) != 0 || l.Results[0].Content[0].Cut == "" {
		t.Fatalf("cut text: %s (%d blocks)", res.Text, len(res.Content))
	}
	if l.Results[2].Error != failure || l.Results[2].Cut != "" {
		t.Fatalf("a failure's message was cut: %+v", l.Results[2])
	}
}
