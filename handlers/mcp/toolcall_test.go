package mcp

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestToolCallParams checks toolCallParams against decoding the params into a map by exact member
// name, as tools/call read them before: the same name, the same arguments, the same refusals.
func TestToolCallParams(t *testing.T) {
	for name, params := range map[string]string{
		"name and arguments": `{"name":"execute_tools","arguments":{"executions":[{"tool":"x","args":{"a":"}"}}]}}`,
		"arguments first":    `{"arguments":{"k":[1,{"n":"name"}]},"name":"whoami"}`,
		"white space":        " { \"name\" : \"whoami\" ,\n\t\"arguments\" : { } } ",
		"no arguments":       `{"name":"whoami"}`,
		"null arguments":     `{"name":"whoami","arguments":null}`,
		"escaped name":       `{"name":"who\u0061mi\"","arguments":{}}`,
		"escaped member":     `{"n\u0061me":"whoami"}`,
		"other members":      `{"_meta":{"progressToken":1},"name":"whoami","extra":[true]}`,
		"case-folded name":   `{"Name":"whoami"}`,
		"empty name":         `{"name":""}`,
		"null name":          `{"name":null}`,
		"number name":        `{"name":7}`,
		"no name":            `{"arguments":{}}`,
		"empty object":       `{}`,
		"array":              `["whoami"]`,
		"string":             `"whoami"`,
		"null":               `null`,
		"absent":             ``,
	} {
		t.Run(name, func(t *testing.T) {
			var want string
			m, err := members(json.RawMessage(params))
			if err == nil {
				err = json.Unmarshal(m["name"], &want)
			}
			wantOK := err == nil && want != ""
			// The params as decodeBody hands them over: a slice of a checked body.
			msgs, _, err := decodeBody([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + params + `}`))
			if params == "" {
				msgs, _, err = decodeBody([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`))
			}
			if err != nil || msgs[0].Invalid != "" {
				t.Fatalf("decodeBody: %v %q", err, msgs[0].Invalid)
			}
			got, args, ok := toolCallParams(msgs[0].Params)
			if ok != wantOK || (ok && got != want) {
				t.Fatalf("toolCallParams = %q, %v; want %q, %v", got, ok, want, wantOK)
			}
			if ok && !bytes.Equal(args, m["arguments"]) {
				t.Errorf("arguments %s, want %s", args, m["arguments"])
			}
		})
	}
}
