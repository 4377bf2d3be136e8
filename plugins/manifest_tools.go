package plugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Validation of tools.json against its manifest: names, input schemas and the HTTP templates a tool
// runs (method, path, query, headers and body, with their argument references).

// ValidateTools checks tools.json against its manifest. Schemas are compiled separately (compileTool).
func ValidateTools(m *Manifest, tools []ToolSpec) FieldErrors {
	var errs FieldErrors
	prefix := ToolPrefix(m.Name)
	seen := map[string]bool{}
	for i, t := range tools {
		at := fmt.Sprintf("[%d]", i)
		add := func(field, format string, args ...any) {
			errs = append(errs, &FieldError{File: ToolsFile, Field: at + field, Msg: fmt.Sprintf(format, args...)})
		}
		switch {
		case t.Name == "":
			add(".name", "is required")
		case !toolNameRE.MatchString(t.Name):
			add(".name", "%q must be lowercase a-z, 0-9 and _", t.Name)
		case !strings.HasPrefix(t.Name, prefix) || len(t.Name) == len(prefix):
			add(".name", "%q must start with the integration prefix %q", t.Name, prefix)
		case seen[t.Name]:
			add(".name", "%q is declared twice", t.Name)
		}
		seen[t.Name] = true
		if t.Name != "" {
			at = fmt.Sprintf("[%d](%s)", i, t.Name)
		}
		if strings.TrimSpace(t.Description) == "" {
			add(".description", "is required")
		}
		props, required, err := schemaProperties(t.InputSchema)
		if err != nil {
			add(".input_schema", "%v", err)
		}
		switch {
		case t.HTTP != nil && t.Handler != "":
			add("", "has both http and handler; a tool is either declarative or a Go handler")
		case t.HTTP == nil && t.Handler == "":
			add("", "needs either http (a request template) or handler \"go\"")
		case t.Handler != "" && t.Handler != HandlerGo:
			add(".handler", "%q must be \"go\"", t.Handler)
		case t.HTTP != nil:
			if m.BaseURL == "" {
				add(".http", "needs the manifest's base_url")
			}
			if err == nil {
				validateTemplate(t.HTTP, props, required, m.credentialKeySet(), func(field, format string, args ...any) {
					add(".http"+field, format, args...)
				})
			}
		}
	}
	return errs
}

// schemaProperties reads the top level of an input schema: it must be an object schema.
func schemaProperties(raw json.RawMessage) (props map[string]bool, required map[string]bool, err error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil, errors.New("is required")
	}
	var top struct {
		Type       any                        `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, nil, fmt.Errorf("must be a JSON Schema object: %v", err)
	}
	if top.Type != "object" {
		return nil, nil, errors.New(`must have "type": "object" at the top level`)
	}
	props, required = map[string]bool{}, map[string]bool{}
	for k := range top.Properties {
		props[k] = true
	}
	for _, k := range top.Required {
		required[k] = true
	}
	return props, required, nil
}

var methods = map[string]bool{"GET": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "HEAD": true}

func validateTemplate(h *HTTPTemplate, props, required, credentialKeys map[string]bool, add func(field, format string, args ...any)) {
	if !methods[h.Method] {
		add(".method", "%q is not one of GET, POST, PUT, PATCH, DELETE, HEAD", h.Method)
	}
	switch {
	case !strings.HasPrefix(h.Path, "/") || strings.HasPrefix(h.Path, "//"):
		add(".path", "%q must start with a single /", h.Path)
	case strings.ContainsAny(h.Path, "?#"):
		add(".path", "%q may not contain ? or #; use query", h.Path)
	default:
		rest := placeholderRE.ReplaceAllString(h.Path, "")
		if strings.ContainsAny(rest, "{}") {
			add(".path", "%q has an unbalanced { or }", h.Path)
		}
		for _, seg := range strings.Split(rest, "/") {
			if seg == "." || seg == ".." {
				add(".path", "%q may not contain . or .. segments", h.Path)
			}
		}
		for _, mm := range placeholderRE.FindAllStringSubmatch(h.Path, -1) {
			switch name := mm[1]; {
			case strings.HasPrefix(name, CredentialPrefix):
				if !credentialKeys[strings.TrimPrefix(name, CredentialPrefix)] {
					add(".path", "placeholder {%s} is not a key of the manifest's auth.oauth2.post_consent.extra", name)
				}
			case !props[name]:
				add(".path", "placeholder {%s} is not a property of input_schema", name)
			case !required[name]:
				add(".path", "placeholder {%s} must be listed in input_schema.required", name)
			}
		}
	}
	for _, k := range sortedKeys(h.Query) {
		if k == "" {
			add(".query", "has an empty parameter name")
		}
		if a := h.Query[k].Arg; a != "" && !props[a] {
			add(".query."+k, "argument %q is not a property of input_schema", a)
		}
	}
	for _, k := range sortedKeys(h.Headers) {
		switch {
		case !headerNameRE.MatchString(k):
			add(".headers."+k, "is not a valid header name")
		case credentialHeaders[strings.ToLower(k)]:
			add(".headers."+k, "may not be set by a tool: credentials are injected by the server")
		}
		if a := h.Headers[k].Arg; a != "" && !props[a] {
			add(".headers."+k, "argument %q is not a property of input_schema", a)
		}
		if h.Headers[k].Explode {
			add(".headers."+k, "explode applies to query parameters only")
		}
	}
	if h.Body != nil {
		if h.Method == "GET" || h.Method == "HEAD" {
			add(".body", "is not allowed with %s", h.Method)
		}
		walkBodyArgs(h.Body, "", func(path, arg string) {
			if !props[arg] {
				add(".body"+path, "argument %q is not a property of input_schema", arg)
			}
		})
	}
	if r := h.Response; r != nil {
		if r.Pointer != "" && !strings.HasPrefix(r.Pointer, "/") {
			add(".response.pointer", "%q must be a JSON pointer starting with /", r.Pointer)
		}
		if r.Default != nil && r.Pointer == "" {
			add(".response.default", "applies only with a pointer")
		}
		if r.ErrorPointer != "" && !strings.HasPrefix(r.ErrorPointer, "/") {
			add(".response.error_pointer", "%q must be a JSON pointer starting with /", r.ErrorPointer)
		}
		for i, f := range r.Fields {
			if f == "" || strings.HasPrefix(f, ".") || strings.HasSuffix(f, ".") || strings.Contains(f, "..") {
				add(fmt.Sprintf(".response.fields[%d]", i), "%q is not a field name or dotted path", f)
			}
		}
		if c := r.Cursor; c != nil {
			switch c.From {
			case CursorLinkHeader:
				if c.Param == "" {
					add(".response.cursor.param", "is required when from is link_header")
				}
			case CursorBody:
				if !strings.HasPrefix(c.Pointer, "/") {
					add(".response.cursor.pointer", "%q must be a JSON pointer starting with /", c.Pointer)
				}
			default:
				add(".response.cursor.from", "%q is not one of link_header, body", c.From)
			}
		}
	}
}

// argRef reports whether v is a {"$arg": "name"} reference.
func argRef(v any) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return "", false
	}
	name, ok := m["$arg"].(string)
	return name, ok
}

// walkBodyArgs calls fn for every argument reference in a body template.
func walkBodyArgs(v any, path string, fn func(path, arg string)) {
	if name, ok := argRef(v); ok {
		fn(path, name)
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(v) {
			walkBodyArgs(v[k], path+"."+k, fn)
		}
	case []any:
		for i, e := range v {
			walkBodyArgs(e, fmt.Sprintf("%s[%d]", path, i), fn)
		}
	}
}
