package plugins

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Validator checks arguments against one JSON Schema, filling in defaults, exactly as ValidateArgs does
// for a plugin tool. The MCP meta-tools use it for their own arguments.
type Validator struct {
	name   string
	schema *jsonschema.Schema
}

// NewValidator compiles schema for the tool called name.
func NewValidator(name string, schema json.RawMessage) (*Validator, error) {
	s, err := compileSchema(name, schema)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Validator{name: name, schema: s}, nil
}

// Validate returns raw with defaults applied, or an *ArgumentsError.
func (v *Validator) Validate(raw json.RawMessage) (json.RawMessage, error) {
	return validateWith(v.name, v.schema, raw)
}

func validateWith(name string, schema *jsonschema.Schema, raw json.RawMessage) (json.RawMessage, error) {
	var args any = map[string]any{}
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(trimmed))
		if err != nil {
			return nil, &ArgumentsError{Tool: name, Reason: "arguments are not valid JSON"}
		}
		args = v
	}
	args = applyDefaults(schema, args, 0)
	if err := schema.Validate(args); err != nil {
		return nil, &ArgumentsError{Tool: name, Reason: describeValidation(err)}
	}
	out, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("validate %s: re-encode arguments: %w", name, err)
	}
	return out, nil
}
