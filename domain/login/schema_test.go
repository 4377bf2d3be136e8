package login

import (
	"encoding/json"
	"slices"
	"testing"
)

// The schema digest covers the input schema as canonical JSON and the hints: member order and white
// space do not count, an empty schema is {"type":"object"}, a changed member or hint does.
func TestSchemaSHA(t *testing.T) {
	yes, no := true, false
	a := SchemaSHA(json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`), nil, nil)
	same := map[string]string{
		"reordered": SchemaSHA(json.RawMessage(` {"properties": {"q": {"type":"string"}}, "type":"object"}`), nil, nil),
	}
	for name, got := range same {
		if got != a {
			t.Errorf("%s: digest changed", name)
		}
	}
	if SchemaSHA(nil, nil, nil) != SchemaSHA(json.RawMessage(`{"type":"object"}`), nil, nil) {
		t.Error("an empty schema is not {\"type\":\"object\"}")
	}
	differ := map[string]string{
		"a new member":      SchemaSHA(json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer"}}}`), nil, nil),
		"readOnlyHint":      SchemaSHA(json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`), &yes, nil),
		"destructive":       SchemaSHA(json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`), nil, &yes),
		"destructive=false": SchemaSHA(json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`), nil, &no),
	}
	for name, got := range differ {
		if got == a {
			t.Errorf("%s: digest unchanged", name)
		}
	}
	prev := []Tool{{Name: "x", InputSchema: json.RawMessage(`{"type":"object","a":1,"b":2}`)}, {Name: "y"}}
	next := []Tool{{Name: "x", InputSchema: json.RawMessage(`{"b":2,"a":1,"type":"object"}`)}, {Name: "y", DestructiveHint: &yes}}
	d := Compare(prev, next)
	if len(d.SchemaChanged) != 0 || !slices.Equal(d.AnnotationsChanged, []string{"y"}) {
		t.Errorf("diff = %+v", d)
	}
}
