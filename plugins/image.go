package plugins

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// Image is a tool result that is an image. A Go handler returns it (or a map holding it under "image")
// and execute_tools answers it to the agent as MCP image content instead of text.
type Image struct {
	MIMEType string
	Data     []byte
}

// imageJSON is an Image's form inside a result: the MCP image content block.
type imageJSON struct {
	Type     string `json:"type"`
	MIMEType string `json:"mimeType"`
	Data     string `json:"data"`
}

// MarshalJSON writes the MCP image content block {"type":"image","mimeType":…,"data":<base64>}.
func (im Image) MarshalJSON() ([]byte, error) {
	return json.Marshal(imageJSON{Type: "image", MIMEType: im.MIMEType, Data: base64.StdEncoding.EncodeToString(im.Data)})
}

// ImageContent is an image taken out of a tool result: its MIME type and base64 data, as MCP sends it.
type ImageContent struct {
	MIMEType string
	Data     string
}

// ExtractImage takes an image out of a tool result: the result itself when it is an Image, or its
// "image" member. It returns the result with the image replaced by a short note, and the image; ok is
// false (and the result unchanged) when there is none.
func ExtractImage(result json.RawMessage) (json.RawMessage, ImageContent, bool) {
	if !bytes.Contains(result, []byte(`"image"`)) {
		return result, ImageContent{}, false
	}
	if im, ok := asImage(result); ok {
		return json.RawMessage(`{"image":"sent as image content"}`), im, true
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(result, &obj); err != nil {
		return result, ImageContent{}, false
	}
	im, ok := asImage(obj["image"])
	if !ok {
		return result, ImageContent{}, false
	}
	obj["image"] = json.RawMessage(`"sent as image content"`)
	out, err := json.Marshal(obj)
	if err != nil {
		return result, ImageContent{}, false
	}
	return out, im, true
}

func asImage(raw json.RawMessage) (ImageContent, bool) {
	var v imageJSON
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil || v.Type != "image" || !strings.HasPrefix(v.MIMEType, "image/") || v.Data == "" {
		return ImageContent{}, false
	}
	return ImageContent{MIMEType: v.MIMEType, Data: v.Data}, true
}
