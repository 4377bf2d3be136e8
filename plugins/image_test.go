package plugins_test

import (
	"encoding/json"
	"testing"

	"github.com/workbench/workbench/plugins"
)

func TestExtractImage(t *testing.T) {
	withImage, err := json.Marshal(map[string]any{"url": "https://example.com/", "image": plugins.Image{MIMEType: "image/png", Data: []byte("png")}})
	if err != nil {
		t.Fatal(err)
	}
	rest, im, ok := plugins.ExtractImage(withImage)
	if !ok || im.MIMEType != "image/png" || im.Data != "cG5n" {
		t.Fatalf("ExtractImage(%s) = %s, %+v, %v", withImage, rest, im, ok)
	}
	if string(rest) != `{"image":"sent as image content","url":"https://example.com/"}` {
		t.Errorf("rest = %s", rest)
	}
	bare, _ := json.Marshal(plugins.Image{MIMEType: "image/png", Data: []byte("png")})
	if rest, _, ok := plugins.ExtractImage(bare); !ok || string(rest) != `{"image":"sent as image content"}` {
		t.Errorf("a bare image: %s %v", rest, ok)
	}
	for _, raw := range []string{
		`{"image":"a string"}`,
		`{"image":{"type":"image","mimeType":"text/html","data":"eA=="}}`,
		`{"image":{"type":"text","mimeType":"image/png","data":"eA=="}}`,
		`["image"]`,
		`{"message":"no image"}`,
	} {
		if rest, _, ok := plugins.ExtractImage(json.RawMessage(raw)); ok || string(rest) != raw {
			t.Errorf("ExtractImage(%s) took an image: %s", raw, rest)
		}
	}
}
