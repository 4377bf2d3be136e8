package plugins

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/workbench/workbench/domain"
)

func schemaTool(t *testing.T, name, schema string) *Tool {
	t.Helper()
	s, err := compileSchema(name, json.RawMessage(schema))
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return &Tool{Name: name, InputSchema: json.RawMessage(schema), schema: s}
}

const searchSchema = `{
  "type": "object",
  "$defs": {
    "page": {"type": "object", "properties": {"size": {"type": "integer", "maximum": 100, "default": 30}, "number": {"type": "integer", "default": 1}}, "default": {}}
  },
  "properties": {
    "query": {"type": "string", "minLength": 1},
    "state": {"type": "string", "enum": ["open", "closed"], "default": "open"},
    "page": {"$ref": "#/$defs/page"},
    "filters": {"type": "array", "items": {"type": "object", "properties": {"op": {"type": "string", "default": "eq"}, "value": {}}}},
    "limit": {"type": "integer", "default": 10000000000000000001}
  },
  "required": ["query"],
  "additionalProperties": false
}`

func TestValidateArgsDefaults(t *testing.T) {
	tool := schemaTool(t, "acme_search", searchSchema)
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"top-level, nested via $ref, and big-integer defaults", `{"query":"x"}`,
			`{"limit":10000000000000000001,"page":{"number":1,"size":30},"query":"x","state":"open"}`},
		{"given values are kept", `{"query":"x","state":"closed","page":{"size":5},"limit":3}`,
			`{"limit":3,"page":{"number":1,"size":5},"query":"x","state":"closed"}`},
		{"defaults inside array items", `{"query":"x","filters":[{"value":1},{"op":"ne","value":2}]}`,
			`{"filters":[{"op":"eq","value":1},{"op":"ne","value":2}],"limit":10000000000000000001,"page":{"number":1,"size":30},"query":"x","state":"open"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ValidateArgs(tool, json.RawMessage(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("defaults are copies, not shared", func(t *testing.T) {
		a, _ := ValidateArgs(tool, json.RawMessage(`{"query":"a"}`))
		b, _ := ValidateArgs(tool, json.RawMessage(`{"query":"b","page":{"size":7}}`))
		c, _ := ValidateArgs(tool, json.RawMessage(`{"query":"c"}`))
		if string(a) == string(b) || string(c) != `{"limit":10000000000000000001,"page":{"number":1,"size":30},"query":"c","state":"open"}` {
			t.Errorf("defaults leaked between calls: %s %s %s", a, b, c)
		}
	})
}

func TestValidateArgsEmptyMeansObject(t *testing.T) {
	tool := schemaTool(t, "utils_time", `{"type":"object","properties":{"timezone":{"type":"string","default":"UTC"}}}`)
	for _, in := range []string{"", "null", "  ", "{}"} {
		got, err := ValidateArgs(tool, json.RawMessage(in))
		if err != nil || string(got) != `{"timezone":"UTC"}` {
			t.Errorf("ValidateArgs(%q) = %s, %v", in, got, err)
		}
	}
}

func TestValidateArgsErrors(t *testing.T) {
	tool := schemaTool(t, "acme_search", searchSchema)
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"missing required", `{}`, `Invalid arguments for acme_search: at '/': missing property 'query'`},
		{"wrong type", `{"query":7}`, `Invalid arguments for acme_search: at '/query': got number, want string`},
		{"enum", `{"query":"x","state":"merged"}`, `Invalid arguments for acme_search: at '/state': value must be one of 'open', 'closed'`},
		{"nested maximum", `{"query":"x","page":{"size":500}}`, `Invalid arguments for acme_search: at '/page/size': maximum: got 500, want 100`},
		{"unknown property", `{"query":"x","sort":"asc"}`, `Invalid arguments for acme_search: at '/': additional properties 'sort' not allowed`},
		{"several problems, sorted", `{"query":"","state":1}`, `Invalid arguments for acme_search: at '/query': minLength: got 0, want 1; at '/state': got number, want string`},
		{"not an object", `[1,2]`, `Invalid arguments for acme_search: at '/': got array, want object`},
		{"not JSON", `{"query":`, `Invalid arguments for acme_search: arguments are not valid JSON`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ValidateArgs(tool, json.RawMessage(tc.in))
			if err == nil {
				t.Fatal("want an error")
			}
			if err.Error() != tc.want {
				t.Errorf("error text\n got: %s\nwant: %s", err.Error(), tc.want)
			}
			var ae *ArgumentsError
			if !errors.As(err, &ae) || domain.ErrorCode(err) != domain.CodeInvalid || domain.ErrorMessage(err) != tc.want {
				t.Errorf("error should be an ArgumentsError with code invalid and the same message, got %#v", err)
			}
		})
	}
}
