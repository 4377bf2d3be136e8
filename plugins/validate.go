package plugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/workbench/workbench/domain"
)

// ArgumentsError is the failure of a tool's arguments against its input schema. Its text is exactly
// "Invalid arguments for <tool>: <reason>" (spec, how it works: "What a tool call does"); it unwraps to a
// *domain.Error with CodeInvalid so callers can classify it.
type ArgumentsError struct {
	Tool   string
	Reason string
}

func (e *ArgumentsError) Error() string { return "Invalid arguments for " + e.Tool + ": " + e.Reason }

// Unwrap exposes the application error code.
func (e *ArgumentsError) Unwrap() error {
	return &domain.Error{Code: domain.CodeInvalid, Message: e.Error()}
}

// schemaError keeps the library's error as the cause while giving a one-line message.
type schemaError struct {
	msg string
	err error
}

func (e *schemaError) Error() string { return e.msg }
func (e *schemaError) Unwrap() error { return e.err }

// refuseLoader keeps schema compilation off the network and the file system: a plugin's $ref may point
// only inside its own schema (or at the draft metaschemas, which the library embeds).
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schemas may not load %s: only references inside the schema are allowed", url)
}

// compileSchema compiles one tool's input schema (JSON Schema 2020-12 unless it says otherwise).
func compileSchema(tool string, raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("input_schema is not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	c.AssertFormat()
	loc := "mem:///tools/" + tool + ".json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("input_schema: %w", err)
	}
	s, err := c.Compile(loc)
	if err != nil {
		var sve *jsonschema.SchemaValidationError
		if errors.As(err, &sve) {
			// The metaschema's error tree, flattened to one line like argument errors.
			return nil, &schemaError{msg: "input_schema does not compile: not a valid JSON Schema: " + describeValidation(sve.Err), err: err}
		}
		return nil, fmt.Errorf("input_schema does not compile: %w", err)
	}
	return s, nil
}

// ValidateArgs checks raw arguments against the tool's input schema after filling in the schema's
// default values, and returns the arguments with those defaults applied. Absent or null arguments are
// an empty object. The library validates but never applies defaults, so defaults are applied here: for
// every property (following $ref and allOf, into nested objects and array items) that is absent and
// declares a default, the default is copied in. Defaults under anyOf/oneOf/if are not applied, since
// which branch applies is not known before validation.
func ValidateArgs(t *Tool, raw json.RawMessage) (json.RawMessage, error) {
	return validateWith(t.Name, t.schema, raw)
}

// maxDefaultDepth bounds the walk through recursive schemas.
const maxDefaultDepth = 32

func applyDefaults(s *jsonschema.Schema, v any, depth int) any {
	if s == nil || depth > maxDefaultDepth {
		return v
	}
	if s.Ref != nil {
		v = applyDefaults(s.Ref, v, depth+1)
	}
	for _, sub := range s.AllOf {
		v = applyDefaults(sub, v, depth+1)
	}
	switch val := v.(type) {
	case map[string]any:
		names := make([]string, 0, len(s.Properties))
		for name := range s.Properties {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			ps := s.Properties[name]
			if _, ok := val[name]; !ok {
				if d := defaultOf(ps, depth); d != nil {
					val[name] = deepCopy(*d)
				}
			}
			if cur, ok := val[name]; ok {
				val[name] = applyDefaults(ps, cur, depth+1)
			}
		}
	case []any:
		var items *jsonschema.Schema
		if s.Items2020 != nil {
			items = s.Items2020
		} else if is, ok := s.Items.(*jsonschema.Schema); ok {
			items = is
		}
		for i := range val {
			if i < len(s.PrefixItems) {
				val[i] = applyDefaults(s.PrefixItems[i], val[i], depth+1)
			} else if items != nil {
				val[i] = applyDefaults(items, val[i], depth+1)
			}
		}
	}
	return v
}

// defaultOf finds a property's default, looking through a $ref when the property itself has none.
func defaultOf(s *jsonschema.Schema, depth int) *any {
	for ; s != nil && depth <= maxDefaultDepth; depth++ {
		if s.Default != nil {
			return s.Default
		}
		s = s.Ref
	}
	return nil
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = deepCopy(e)
		}
		return out
	default:
		return v
	}
}

// describeValidation turns the library's error tree into one line: every leaf failure as
// "at '<json pointer>': <reason>", sorted, joined by "; ".
func describeValidation(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	printer := message.NewPrinter(language.English)
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			msg := e.ErrorKind.LocalizedString(printer)
			leaves = append(leaves, fmt.Sprintf("at '%s': %s", instancePointer(e.InstanceLocation), msg))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(leaves)
	leaves = compactStrings(leaves)
	return strings.Join(leaves, "; ")
}

func instancePointer(tokens []string) string {
	if len(tokens) == 0 {
		return "/"
	}
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteByte('/')
		sb.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return sb.String()
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
