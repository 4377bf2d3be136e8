package connector

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// SettingsSchema is a login's settings document schema, in the subset the spec lists (Login settings):
// type, properties, required, additionalProperties, items, minItems, maxItems, minLength, maxLength,
// pattern and enum; a property marked x-lookup gets a search box that the adapter's lookup fills.
type SettingsSchema struct {
	Type                 string                     `json:"type,omitempty"`
	Title                string                     `json:"title,omitempty"`
	Description          string                     `json:"description,omitempty"`
	Properties           map[string]*SettingsSchema `json:"properties,omitempty"`
	Required             []string                   `json:"required,omitempty"`
	AdditionalProperties *bool                      `json:"additionalProperties,omitempty"`
	Items                *SettingsSchema            `json:"items,omitempty"`
	MinItems             *int                       `json:"minItems,omitempty"`
	MaxItems             *int                       `json:"maxItems,omitempty"`
	MinLength            *int                       `json:"minLength,omitempty"`
	MaxLength            *int                       `json:"maxLength,omitempty"`
	Pattern              string                     `json:"pattern,omitempty"`
	Enum                 []json.RawMessage          `json:"enum,omitempty"`
	Lookup               bool                       `json:"x-lookup,omitempty"`

	re *regexp.Regexp
}

var settingsKeywords = map[string]bool{
	"type": true, "title": true, "description": true, "properties": true, "required": true,
	"additionalProperties": true, "items": true, "minItems": true, "maxItems": true, "minLength": true,
	"maxLength": true, "pattern": true, "enum": true, "x-lookup": true, "$schema": true, "default": true,
}

// ParseSettingsSchema reads a settings_schema and refuses a keyword outside the subset, so that no
// rule is silently unchecked.
func ParseSettingsSchema(raw json.RawMessage) (*SettingsSchema, error) {
	if err := checkKeywords(raw, "#"); err != nil {
		return nil, err
	}
	var s SettingsSchema
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&s); err != nil {
		return nil, err
	}
	if err := s.compile("#"); err != nil {
		return nil, err
	}
	return &s, nil
}

func checkKeywords(raw json.RawMessage, at string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("%s: a schema is an object", at)
	}
	for k, v := range m {
		if !settingsKeywords[k] {
			return fmt.Errorf("%s: keyword %q is outside the settings subset", at, k)
		}
		switch k {
		case "properties":
			var props map[string]json.RawMessage
			if err := json.Unmarshal(v, &props); err != nil {
				return fmt.Errorf("%s/properties: not an object", at)
			}
			for name, p := range props {
				if err := checkKeywords(p, at+"/properties/"+name); err != nil {
					return err
				}
			}
		case "items":
			if err := checkKeywords(v, at+"/items"); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *SettingsSchema) compile(at string) error {
	switch s.Type {
	case "", "object", "array", "string", "integer", "number", "boolean":
	default:
		return fmt.Errorf("%s: type %q is not supported", at, s.Type)
	}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			return fmt.Errorf("%s: pattern: %v", at, err)
		}
		s.re = re
	}
	for name, p := range s.Properties {
		if p == nil {
			return fmt.Errorf("%s/properties/%s: empty", at, name)
		}
		if err := p.compile(at + "/properties/" + name); err != nil {
			return err
		}
	}
	if s.Items != nil {
		return s.Items.compile(at + "/items")
	}
	return nil
}

// Validate checks a settings document and returns the first problem, naming where. A top-level
// required property may be missing: such a login waits for its settings (Missing names them).
func (s *SettingsSchema) Validate(doc json.RawMessage) error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("settings are not JSON")
	}
	return s.check("settings", v, false)
}

// Missing returns the required properties a document lacks, at the top level (needs_settings).
func (s *SettingsSchema) Missing(doc json.RawMessage) []string {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(doc, &m)
	var out []string
	for _, r := range s.Required {
		if v, ok := m[r]; !ok || string(v) == "null" || string(v) == `""` {
			out = append(out, r)
		}
	}
	return out
}

// LookupProperty reports whether name is a top-level property marked x-lookup.
func (s *SettingsSchema) LookupProperty(name string) bool {
	p, ok := s.Properties[name]
	return ok && (p.Lookup || (p.Items != nil && p.Items.Lookup))
}

// check validates v; strictRequired false skips required (a partial document while the login waits).
func (s *SettingsSchema) check(at string, v any, strictRequired bool) error {
	if len(s.Enum) > 0 {
		b, _ := json.Marshal(v)
		found := false
		for _, e := range s.Enum {
			var ev any
			_ = json.Unmarshal(e, &ev)
			eb, _ := json.Marshal(ev)
			found = found || bytes.Equal(b, eb)
		}
		if !found {
			return fmt.Errorf("%s: must be one of %s", at, enumList(s.Enum))
		}
	}
	switch s.Type {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: must be an object", at)
		}
		if strictRequired {
			for _, r := range s.Required {
				if _, ok := m[r]; !ok {
					return fmt.Errorf("%s: %s is required", at, r)
				}
			}
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p, ok := s.Properties[k]
			if !ok {
				if s.AdditionalProperties != nil && !*s.AdditionalProperties {
					return fmt.Errorf("%s: %s is not an allowed property", at, k)
				}
				continue
			}
			if err := p.check(at+"."+k, m[k], true); err != nil {
				return err
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: must be an array", at)
		}
		if s.MinItems != nil && len(a) < *s.MinItems {
			return fmt.Errorf("%s: must have at least %d items", at, *s.MinItems)
		}
		if s.MaxItems != nil && len(a) > *s.MaxItems {
			return fmt.Errorf("%s: must have at most %d items", at, *s.MaxItems)
		}
		if s.Items != nil {
			for i, e := range a {
				if err := s.Items.check(fmt.Sprintf("%s[%d]", at, i), e, true); err != nil {
					return err
				}
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: must be a string", at)
		}
		n := utf8.RuneCountInString(str)
		if s.MinLength != nil && n < *s.MinLength {
			return fmt.Errorf("%s: must be at least %d characters", at, *s.MinLength)
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			return fmt.Errorf("%s: must be at most %d characters", at, *s.MaxLength)
		}
		if s.re != nil && !s.re.MatchString(str) {
			return fmt.Errorf("%s: must match %s", at, s.Pattern)
		}
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return fmt.Errorf("%s: must be an integer", at)
		}
		if _, err := n.Int64(); err != nil {
			return fmt.Errorf("%s: must be an integer", at)
		}
	case "number":
		if _, ok := v.(json.Number); !ok {
			return fmt.Errorf("%s: must be a number", at)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: must be true or false", at)
		}
	}
	return nil
}

func enumList(e []json.RawMessage) string {
	parts := make([]string, len(e))
	for i, v := range e {
		parts[i] = string(v)
	}
	return strings.Join(parts, ", ")
}
