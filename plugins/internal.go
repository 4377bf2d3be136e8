package plugins

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// AddInternal registers an integration built into the server (spec, how it works: "The packages":
// browser and jots live inside the server source, their names reserved). Its tools are Go handlers that
// close over server internals (the jot store, the browser pool) that no plugin context ever exposes.
//
// Only a reserved name is accepted, so a plugin folder can never take one and AddInternal can never
// shadow a plugin. The manifest must use auth mode "none" and declare no base_url: an internal
// integration reaches its internals through the closure, never through the runtime HTTP client. Unlike
// plugin tools, internal tool names need not carry the integration prefix (the spec names them
// deploy_jot, update_jot, …), but they may not collide with any tool already registered. Every tool
// needs a handler in handlers under its name.
//
// The registry is immutable once shared: call AddInternal while wiring the server, after Load and
// before the registry is handed to the MCP endpoint. It adds nothing when it returns an error.
func (r *Registry) AddInternal(m Manifest, tools []ToolSpec, handlers map[string]Handler) error {
	switch {
	case !IsReserved(m.Name):
		return fmt.Errorf("internal integration %q: only a reserved name (browser, jots) can be registered in code", m.Name)
	case r.integrations[m.Name] != nil:
		return fmt.Errorf("internal integration %q is already registered", m.Name)
	case strings.TrimSpace(m.DisplayName) == "" || strings.TrimSpace(m.Description) == "":
		return fmt.Errorf("internal integration %q: display_name and description are required", m.Name)
	case m.Auth.Mode != AuthNone || m.BaseURL != "" || m.Proxy != nil:
		return fmt.Errorf("internal integration %q: must use auth mode none with no base_url or proxy", m.Name)
	case len(tools) == 0:
		return fmt.Errorf("internal integration %q: has no tools", m.Name)
	}
	in := &Integration{Manifest: m, Source: "internal:" + m.Name}
	seen := map[string]bool{}
	for _, spec := range tools {
		at := fmt.Sprintf("internal integration %q tool %q", m.Name, spec.Name)
		switch {
		case !toolNameRE.MatchString(spec.Name):
			return fmt.Errorf("%s: name must be lowercase a-z, 0-9 and _", at)
		case seen[spec.Name]:
			return fmt.Errorf("%s: declared twice", at)
		case r.tools[spec.Name] != nil:
			return fmt.Errorf("%s: already registered by integration %s from %s", at, r.tools[spec.Name].Integration, r.tools[spec.Name].Source)
		case strings.TrimSpace(spec.Description) == "":
			return fmt.Errorf("%s: description is required", at)
		case spec.HTTP != nil:
			return fmt.Errorf("%s: internal tools are Go handlers, not HTTP templates", at)
		case handlers[spec.Name] == nil:
			return fmt.Errorf("%s: no Go handler given", at)
		}
		seen[spec.Name] = true
		if _, _, err := schemaProperties(spec.InputSchema); err != nil {
			return fmt.Errorf("%s: input_schema %w", at, err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, spec.InputSchema); err != nil {
			return fmt.Errorf("%s: input_schema: %w", at, err)
		}
		schema, err := compileSchema(spec.Name, spec.InputSchema)
		if err != nil {
			return fmt.Errorf("%s: input_schema: %w", at, err)
		}
		in.tools = append(in.tools, &Tool{
			Name: spec.Name, Description: spec.Description, Integration: m.Name, InputSchema: compact.Bytes(),
			Source: in.Source, Mutating: spec.Mutating, integration: in, schema: schema, handler: handlers[spec.Name],
			nameTokens: tokenize(spec.Name), descTokens: tokenize(spec.Description),
		})
	}
	sort.Slice(in.tools, func(i, j int) bool { return in.tools[i].Name < in.tools[j].Name })

	r.integrations[m.Name] = in
	r.intOrder = append(r.intOrder, in)
	sort.Slice(r.intOrder, func(i, j int) bool { return r.intOrder[i].Name < r.intOrder[j].Name })
	for _, t := range in.tools {
		r.tools[t.Name] = t
		r.toolOrder = append(r.toolOrder, t)
	}
	sort.Slice(r.toolOrder, func(i, j int) bool { return r.toolOrder[i].Name < r.toolOrder[j].Name })
	return nil
}
