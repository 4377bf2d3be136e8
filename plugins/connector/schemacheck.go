package connector

import (
	"encoding/json"
	"errors"
)

// CheckToolSchema checks a tool's input_schema as the loader does (a JSON object that compiles as a
// JSON Schema and loads no other document): the instance admin's per-tool overrides go through it.
func CheckToolSchema(raw json.RawMessage) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return errors.New("input_schema must be a JSON object")
	}
	return compileSchema(raw)
}
