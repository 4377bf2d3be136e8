package connectorcatalog

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/workbench/workbench/app/connectors/mcpclient"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connectordom"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// The instance admin's catalog (spec connectors.md, The catalog in Admin). The handlers check that the
// caller is an instance admin; these methods take the actor for the log. They act on the platform's
// rows: an organisation's own server is not found here.

// copyKeys are the operator copy an edit may write, with their longest length (the manifest schema's).
var copyKeys = map[string]int{"display_name": 80, "description": 2000, "limitations": 2000, "setup_hint": 2000}

// AuthSpec is how a server added by hand signs in: none, token, or oauth with a strategy (dynamic, or
// configured with an optional provider).
type AuthSpec struct {
	Kind     string `json:"kind"`
	Strategy string `json:"strategy,omitempty"`
	Provider string `json:"provider,omitempty"`
}

// ServerEdit is a PATCH of a catalog row: only what the body named. In Copy a JSON null clears the key.
type ServerEdit struct {
	Enabled *bool
	Copy    map[string]json.RawMessage
	// URL and Auth edit a local row's endpoint and sign-in; on another row they are refused.
	URL  *string
	Auth *AuthSpec
}

// AdminTool is one tool of a row as the admin page edits it: named by the manifest or listed by a
// login, with its overrides.
type AdminTool struct {
	Name        string                  `json:"name"`
	Description string                  `json:"description"`
	InputSchema json.RawMessage         `json:"input_schema,omitempty"`
	Listed      bool                    `json:"listed"`
	Override    *connector.ToolOverride `json:"override,omitempty"`
}

// AdminEntry is one platform row with what the admin page edits.
type AdminEntry struct {
	CatalogEntry
	Local     bool            `json:"local"`
	Overrides json.RawMessage `json:"overrides"`
	// Original is the copy as the manifest holds it, before the overrides.
	Original map[string]string `json:"original"`
	Tools    []AdminTool       `json:"tools"`
}

// platformServer reads a platform row (an organisation's own server is not found here).
func (s *Service) platformServer(ctx context.Context, id string) (connectorsrm.Server, error) {
	srv, err := s.Reader.Server(ctx, id)
	if err != nil {
		return srv, err
	}
	if srv.OwnerOrgID != "" {
		return srv, domain.Errorf(domain.CodeNotFound, "no connector %s", id)
	}
	return srv, nil
}

// AdminServers lists the platform's rows for the admin page.
func (s *Service) AdminServers(ctx context.Context) ([]AdminEntry, error) {
	rows, err := s.Reader.ServersFor(ctx, "")
	if err != nil {
		return nil, err
	}
	out := make([]AdminEntry, 0, len(rows))
	for _, r := range rows {
		e, err := s.adminEntry(ctx, r)
		if err != nil {
			s.Log.ErrorContext(ctx, "catalog row unreadable", "server", r.ID, "err", err)
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// AdminServer is one platform row for the admin page.
func (s *Service) AdminServer(ctx context.Context, id string) (AdminEntry, error) {
	r, err := s.platformServer(ctx, id)
	if err != nil {
		return AdminEntry{}, err
	}
	return s.adminEntry(ctx, r)
}

func (s *Service) adminEntry(ctx context.Context, r connectorsrm.Server) (AdminEntry, error) {
	ce, err := s.catalogEntry(ctx, r)
	if err != nil {
		return AdminEntry{}, err
	}
	raw, err := manifestOf(r)
	if err != nil {
		return AdminEntry{}, err
	}
	o, err := overridesOf(r)
	if err != nil {
		return AdminEntry{}, err
	}
	e := AdminEntry{CatalogEntry: ce, Local: s.HandMade(r), Overrides: r.Overrides, Tools: []AdminTool{},
		Original: map[string]string{"display_name": raw.DisplayName, "description": raw.Description, "limitations": raw.Limitations, "setup_hint": raw.SetupHint}}
	if len(e.Overrides) == 0 {
		e.Overrides = json.RawMessage("null")
	}
	seen := map[string]int{}
	for _, t := range raw.Tools {
		seen[t.Name] = len(e.Tools)
		e.Tools = append(e.Tools, AdminTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	listed, err := s.Reader.ListedTools(ctx, r.ID)
	if err != nil {
		return AdminEntry{}, err
	}
	for _, t := range listed {
		if i, ok := seen[t.Remote]; ok {
			e.Tools[i].Listed = true
			continue
		}
		seen[t.Remote] = len(e.Tools)
		e.Tools = append(e.Tools, AdminTool{Name: t.Remote, Description: t.Description, InputSchema: t.InputSchema, Listed: true})
	}
	if o != nil {
		for name, to := range o.Tools {
			to := to
			i, ok := seen[name]
			if !ok {
				seen[name], i = len(e.Tools), len(e.Tools)
				e.Tools = append(e.Tools, AdminTool{Name: name})
			}
			e.Tools[i].Override = &to
		}
	}
	sort.SliceStable(e.Tools, func(i, j int) bool { return e.Tools[i].Name < e.Tools[j].Name })
	return e, nil
}

// EditServer is PATCH /api/admin/mcp/servers/{id}: the switch; on a local row its fields; on any other
// row the copy into overrides, where null clears a key. The endpoint, auth and slug of a row the box
// did not write come from its manifest.
func (s *Service) EditServer(ctx context.Context, actor, id string, edit ServerEdit) (AdminEntry, error) {
	srv, err := s.platformServer(ctx, id)
	if err != nil {
		return AdminEntry{}, err
	}
	if err := s.editRow(ctx, actor, srv, edit); err != nil {
		return AdminEntry{}, err
	}
	return s.AdminServer(ctx, id)
}

// editRow applies an edit to a row: the copy and endpoint of a local row, the overrides of another,
// then the switch.
func (s *Service) editRow(ctx context.Context, actor string, srv connectorsrm.Server, edit ServerEdit) error {
	for k, v := range edit.Copy {
		if err := checkCopy(k, v); err != nil {
			return err
		}
	}
	local := s.HandMade(srv)
	if !local && (edit.URL != nil || edit.Auth != nil) {
		return domain.Errorf(domain.CodeUnprocessable, "the endpoint and auth of %s come from its manifest; only its copy is edited here", srv.ID)
	}
	if local && (len(edit.Copy) > 0 || edit.URL != nil || edit.Auth != nil) {
		raw, err := s.editLocal(ctx, srv, edit)
		if err != nil {
			return err
		}
		if _, err := s.executeCatalog(ctx, actor, srv.ID, connectordom.Update{Event: connectordom.Updated{ID: srv.ID, Manifest: raw, Digest: digest(raw), By: actor, At: s.Opts.Now()}}); err != nil {
			return err
		}
		if edit.URL != nil {
			logins, err := s.Reader.ServerLogins(ctx, srv.ID)
			if err != nil {
				return err
			}
			for _, l := range logins { // their sessions went to the old address
				s.Opts.Pool.Drop(l.LoginID)
			}
		}
	}
	if !local && len(edit.Copy) > 0 {
		o, err := overridesOf(srv)
		if err != nil {
			return err
		}
		if o == nil {
			o = &connector.Overrides{}
		}
		for k, v := range edit.Copy {
			var p *string
			if string(v) != "null" {
				var str string
				_ = json.Unmarshal(v, &str)
				p = &str
			}
			switch k {
			case "display_name":
				o.DisplayName = p
			case "description":
				o.Description = p
			case "limitations":
				o.Limitations = p
			case "setup_hint":
				o.SetupHint = p
			}
		}
		doc, err := overridesJSON(o)
		if err != nil {
			return err
		}
		ev := connectordom.OverridesSet{ID: srv.ID, Fields: edit.Copy, Overrides: doc, By: actor, At: s.Opts.Now()}
		if _, err := s.executeCatalog(ctx, actor, srv.ID, connectordom.SetOverrides{Event: ev}); err != nil {
			return err
		}
	}
	if edit.Enabled != nil {
		ev := connectordom.Switched{ID: srv.ID, Enabled: *edit.Enabled, By: actor, At: s.Opts.Now()}
		if _, err := s.executeCatalog(ctx, actor, srv.ID, connectordom.Switch{Event: ev}); err != nil {
			return err
		}
	}
	return nil
}

// HandMade reports a row added by hand (a local row with no folder: its row is its source of truth),
// as opposed to a folder's, whose manifest the folder writes at every boot (CONNECTORS_DIR's folders
// are source local too).
func (s *Service) HandMade(srv connectorsrm.Server) bool {
	return srv.OwnerOrgID != "" || (srv.Source == connectordom.SourceLocal && s.BySlug[srv.Slug] == nil)
}

// checkCopy checks one copy key of an edit: a string within the manifest's length, or null.
func checkCopy(k string, v json.RawMessage) error {
	max, ok := copyKeys[k]
	if !ok {
		return domain.Errorf(domain.CodeUnprocessable, "%s is not a field this route edits", k)
	}
	if string(v) == "null" {
		return nil
	}
	var str string
	if err := json.Unmarshal(v, &str); err != nil {
		return domain.Errorf(domain.CodeUnprocessable, "%s must be a string or null", k)
	}
	if utf8.RuneCountInString(str) > max {
		return domain.Errorf(domain.CodeUnprocessable, "%s is longer than %d characters", k, max)
	}
	if k == "display_name" && strings.TrimSpace(str) == "" {
		return domain.Errorf(domain.CodeUnprocessable, "display_name cannot be blank (null clears an override)")
	}
	return nil
}

// overridesJSON is the overrides document, or null when it holds nothing.
func overridesJSON(o *connector.Overrides) (json.RawMessage, error) {
	b, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	if string(b) == "{}" {
		return json.RawMessage("null"), nil
	}
	return b, nil
}

func digest(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// editLocal is a local row's manifest with the edit applied, checked by the loader.
func (s *Service) editLocal(ctx context.Context, srv connectorsrm.Server, edit ServerEdit) (json.RawMessage, error) {
	var doc map[string]any
	if err := json.Unmarshal(srv.Manifest, &doc); err != nil {
		return nil, fmt.Errorf("manifest of %s: %w", srv.ID, err)
	}
	for k, v := range edit.Copy {
		if string(v) == "null" {
			if k == "display_name" && srv.OwnerOrgID == "" {
				return nil, domain.Errorf(domain.CodeUnprocessable, "display_name of a platform connector cannot be cleared")
			}
			delete(doc, k)
			continue
		}
		var str string
		_ = json.Unmarshal(v, &str)
		doc[k] = str
	}
	if edit.URL != nil {
		if err := s.checkEndpoint(ctx, *edit.URL); err != nil {
			return nil, err
		}
		doc["endpoint"] = map[string]any{"url": *edit.URL}
	}
	if edit.Auth != nil {
		auth, err := authDoc(*edit.Auth, srv.OwnerOrgID != "")
		if err != nil {
			return nil, err
		}
		logins, err := s.Reader.ServerLogins(ctx, srv.ID)
		if err != nil {
			return nil, err
		}
		if len(logins) > 0 {
			return nil, domain.Errorf(domain.CodeConflict, "%s has %d logins; remove them before changing how it signs in", srv.ID, len(logins))
		}
		doc["auth"] = auth
	}
	return checkedManifest(srv.Slug, doc)
}

// checkEndpoint is the save-time address check: public HTTPS (loopback only with the dev setting).
func (s *Service) checkEndpoint(ctx context.Context, u string) error {
	if strings.TrimSpace(u) == "" {
		return domain.Errorf(domain.CodeUnprocessable, "url is required")
	}
	if err := mcpclient.CheckURL(ctx, u, s.Opts.AllowLoopback, s.Opts.Resolver); err != nil {
		return domain.Errorf(domain.CodeUnprocessable, "url: %s", err.Error())
	}
	return nil
}

// authDoc is a manifest's auth for a server added by hand. An organisation's OAuth server registers
// its client dynamically; the instance admin may also name a configured client.
func authDoc(a AuthSpec, org bool) (map[string]any, error) {
	switch a.Kind {
	case connector.AuthNone, connector.AuthToken:
		if a.Strategy != "" || a.Provider != "" {
			return nil, domain.Errorf(domain.CodeUnprocessable, "auth %s takes no strategy or provider", a.Kind)
		}
		return map[string]any{"kind": a.Kind}, nil
	case connector.AuthOAuth:
		strategy := a.Strategy
		if strategy == "" {
			strategy = "dynamic"
		}
		o := map[string]any{"strategy": strategy}
		switch {
		case strategy == "dynamic" && a.Provider == "":
		case strategy == "configured" && !org:
			if a.Provider != "" {
				o["provider"] = a.Provider
			}
		case org:
			return nil, domain.Errorf(domain.CodeUnprocessable, "an organisation's OAuth server registers its client dynamically: auth.strategy must be dynamic")
		default:
			return nil, domain.Errorf(domain.CodeUnprocessable, "auth.strategy must be dynamic or configured (a provider goes with configured)")
		}
		return map[string]any{"kind": connector.AuthOAuth, "oauth": o}, nil
	}
	return nil, domain.Errorf(domain.CodeUnprocessable, "auth must be none, token or oauth")
}

// checkedManifest marshals a local row's manifest and checks it with the loader (a blank display name,
// which Connect fills from the server's initialize reply, is checked as the slug).
func checkedManifest(slug string, doc map[string]any) (json.RawMessage, error) {
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	probe := raw
	if dn, _ := doc["display_name"].(string); strings.TrimSpace(dn) == "" {
		c := map[string]any{}
		for k, v := range doc {
			c[k] = v
		}
		c["display_name"] = slug
		if probe, err = json.Marshal(c); err != nil {
			return nil, err
		}
	}
	if _, reasons := connector.Parse(slug, probe, nil); len(reasons) > 0 {
		return nil, domain.Errorf(domain.CodeUnprocessable, "%s", strings.Join(reasons, "; "))
	}
	return raw, nil
}

// SetToolOverrides is PATCH /api/admin/mcp/servers/{id}/tools/{name}: description, input_schema
// (checked as a JSON Schema) and default (On or Off for a new login, rule 1 of what starts Off) into
// overrides.tools[name]; a null clears one. A listed tool takes the copy and schema at its next listing.
func (s *Service) SetToolOverrides(ctx context.Context, actor, id, tool string, edit map[string]json.RawMessage) (AdminEntry, error) {
	srv, err := s.platformServer(ctx, id)
	if err != nil {
		return AdminEntry{}, err
	}
	if strings.TrimSpace(tool) == "" || utf8.RuneCountInString(tool) > 128 || connector.SanitiseToolName(tool) == "" {
		return AdminEntry{}, domain.Errorf(domain.CodeUnprocessable, "tool %q is not a tool name", tool)
	}
	o, err := overridesOf(srv)
	if err != nil {
		return AdminEntry{}, err
	}
	if o == nil {
		o = &connector.Overrides{}
	}
	to := o.Tools[tool]
	for k, v := range edit {
		null := string(v) == "null"
		switch k {
		case "description":
			if null {
				to.Description = nil
				continue
			}
			var d string
			if err := json.Unmarshal(v, &d); err != nil {
				return AdminEntry{}, domain.Errorf(domain.CodeUnprocessable, "description must be a string or null")
			}
			if utf8.RuneCountInString(d) > 4000 {
				return AdminEntry{}, domain.Errorf(domain.CodeUnprocessable, "description is longer than 4000 characters")
			}
			to.Description = &d
		case "input_schema":
			if null {
				to.InputSchema = nil
				continue
			}
			if err := connector.CheckToolSchema(v); err != nil {
				return AdminEntry{}, domain.Errorf(domain.CodeUnprocessable, "input_schema is not a JSON Schema: %v", err)
			}
			var buf bytes.Buffer
			if err := json.Compact(&buf, v); err != nil {
				return AdminEntry{}, domain.Errorf(domain.CodeUnprocessable, "input_schema: %v", err)
			}
			to.InputSchema = buf.Bytes()
		case "default":
			if null {
				to.Default = nil
				continue
			}
			on, err := parseDefault(v)
			if err != nil {
				return AdminEntry{}, err
			}
			to.Default = &on
		default:
			return AdminEntry{}, domain.Errorf(domain.CodeUnprocessable, "%s is not a tool field (description, input_schema, default)", k)
		}
	}
	override := json.RawMessage("null")
	if to.Description == nil && len(to.InputSchema) == 0 && to.Default == nil {
		delete(o.Tools, tool)
	} else {
		if o.Tools == nil {
			o.Tools = map[string]connector.ToolOverride{}
		}
		o.Tools[tool] = to
		if override, err = json.Marshal(to); err != nil {
			return AdminEntry{}, err
		}
	}
	if len(o.Tools) == 0 {
		o.Tools = nil
	}
	doc, err := overridesJSON(o)
	if err != nil {
		return AdminEntry{}, err
	}
	ev := connectordom.ToolOverridesSet{ID: srv.ID, Tool: tool, Override: override, Overrides: doc, By: actor, At: s.Opts.Now()}
	if _, err := s.executeCatalog(ctx, actor, srv.ID, connectordom.SetToolOverrides{Event: ev}); err != nil {
		return AdminEntry{}, err
	}
	return s.AdminServer(ctx, id)
}

// parseDefault reads a tool's default: true or false, or "on" or "off".
func parseDefault(v json.RawMessage) (bool, error) {
	var b bool
	if json.Unmarshal(v, &b) == nil {
		return b, nil
	}
	var str string
	if json.Unmarshal(v, &str) == nil {
		switch strings.ToLower(str) {
		case "on":
			return true, nil
		case "off":
			return false, nil
		}
	}
	return false, domain.Errorf(domain.CodeUnprocessable, `default must be "on", "off", true, false or null`)
}

// Export is GET /api/admin/mcp/servers/{id}/export: the row in the connector.json format with its
// overrides applied (copy, and the description and schema of the tools the manifest names), checked by
// the same loader that reads a folder. A tool's default is the box's state, not the manifest's, and is
// not exported.
func (s *Service) Export(ctx context.Context, id string) (json.RawMessage, error) {
	srv, err := s.platformServer(ctx, id)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(srv.Manifest, &doc); err != nil {
		return nil, fmt.Errorf("manifest of %s: %w", srv.ID, err)
	}
	o, err := overridesOf(srv)
	if err != nil {
		return nil, err
	}
	if o != nil {
		for k, v := range map[string]*string{"display_name": o.DisplayName, "description": o.Description, "limitations": o.Limitations, "setup_hint": o.SetupHint} {
			if v != nil {
				doc[k] = *v
			}
		}
		tools, _ := doc["tools"].([]any)
		named := map[string]bool{}
		for _, t := range tools {
			tm, _ := t.(map[string]any)
			name, _ := tm["name"].(string)
			named[name] = true
			to, ok := o.Tools[name]
			if tm == nil || !ok {
				continue
			}
			if to.Description != nil {
				tm["description"] = *to.Description
			}
			if len(to.InputSchema) > 0 {
				tm["input_schema"] = to.InputSchema
			}
		}
		if tools, err = s.exportListed(ctx, srv, o, named, tools); err != nil {
			return nil, err
		}
		if len(tools) > 0 {
			doc["tools"] = tools
		}
	}
	if dn, _ := doc["display_name"].(string); strings.TrimSpace(dn) == "" {
		doc["display_name"] = srv.Slug
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	var adapter connector.Adapter
	if c := s.BySlug[srv.Slug]; c != nil {
		adapter = c.Adapter
	}
	if _, reasons := connector.Parse(srv.Slug, out, adapter); len(reasons) > 0 {
		return nil, fmt.Errorf("export %s: the loader refuses it: %s", srv.ID, strings.Join(reasons, "; "))
	}
	return out, nil
}

// exportListed adds to an export's tools the listed tools (not named by the manifest) whose copy or
// schema the admin overrode. A named tool skips the hint and verb rules of what starts Off, so one
// that those rules would start Off (destructiveHint in a listing, a writing verb) is exported as
// mutating: it starts Off where the export is loaded, as it does here.
func (s *Service) exportListed(ctx context.Context, srv connectorsrm.Server, o *connector.Overrides, named map[string]bool, tools []any) ([]any, error) {
	listed, err := s.Reader.ListedTools(ctx, srv.ID)
	if err != nil {
		return nil, err
	}
	byRemote := map[string]connectorsrm.Tool{}
	for _, t := range listed {
		byRemote[t.Remote] = t
	}
	// The loader refuses two tools that sanitise to one name: such a listed tool stays out.
	sanitised := map[string]bool{}
	for name := range named {
		sanitised[connector.SanitiseToolName(name)] = true
	}
	names := make([]string, 0, len(o.Tools))
	for name := range o.Tools {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		to := o.Tools[name]
		if named[name] || to.Description == nil && len(to.InputSchema) == 0 {
			continue
		}
		lt, isListed := byRemote[name]
		if !isListed && to.Description == nil {
			continue
		}
		if sn := connector.SanitiseToolName(name); sn == "" || sanitised[sn] {
			s.Log.WarnContext(ctx, "export: a listed tool's override is left out, its name sanitises to another tool's", "server", srv.ID, "tool", name)
			continue
		} else {
			sanitised[sn] = true
		}
		tm := map[string]any{"name": name, "description": lt.Description}
		if to.Description != nil {
			tm["description"] = *to.Description
		}
		if len(to.InputSchema) > 0 {
			tm["input_schema"] = to.InputSchema
		}
		if lt.DestructiveHint != nil && *lt.DestructiveHint || connector.HasWritingVerb(name) {
			tm["mutating"] = true
		}
		tools = append(tools, tm)
	}
	return tools, nil
}
