package connector

import "encoding/json"

// Overrides are the instance admin's edits of a connector, kept beside its manifest and applied on
// every read (spec connectors.md, The catalog in Admin). A nil field leaves the manifest's value.
// Writing them is Connectors II; reading them goes through Apply everywhere.
type Overrides struct {
	DisplayName *string                 `json:"display_name,omitempty"`
	Description *string                 `json:"description,omitempty"`
	Limitations *string                 `json:"limitations,omitempty"`
	SetupHint   *string                 `json:"setup_hint,omitempty"`
	Tools       map[string]ToolOverride `json:"tools,omitempty"`
}

// ToolOverride edits one tool: its copy, its schema, and its default for a new login (rule 1 of
// what starts Off).
type ToolOverride struct {
	Description *string         `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	Default     *bool           `json:"default,omitempty"`
}

// Apply returns the manifest with o applied; m is not changed.
func (o *Overrides) Apply(m *Manifest) *Manifest {
	if o == nil {
		return m
	}
	c := *m
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&c.DisplayName, o.DisplayName)
	set(&c.Description, o.Description)
	set(&c.Limitations, o.Limitations)
	set(&c.SetupHint, o.SetupHint)
	if len(o.Tools) > 0 {
		c.Tools = append([]ManifestTool(nil), m.Tools...)
		for i, t := range c.Tools {
			if to, ok := o.Tools[t.Name]; ok {
				set(&c.Tools[i].Description, to.Description)
				if len(to.InputSchema) > 0 {
					c.Tools[i].InputSchema = to.InputSchema
				}
			}
		}
	}
	return &c
}

// AdminDefault is the instance admin's default for a tool, or nil.
func (o *Overrides) AdminDefault(tool string) *bool {
	if o == nil {
		return nil
	}
	return o.Tools[tool].Default
}
