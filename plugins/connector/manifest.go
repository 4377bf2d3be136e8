package connector

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// ManifestFile is the name of a connector's manifest inside its folder; LogoFile its optional logo.
const (
	ManifestFile = "connector.json"
	LogoFile     = "logo.svg"
	// MaxLogoBytes bounds a logo.
	MaxLogoBytes = 64 << 10
)

// Auth kinds.
const (
	AuthToken = "token"
	AuthOAuth = "oauth"
	AuthNone  = "none"
)

// Manifest is a connector.json (spec connectors.md, The manifest). Everything that is not code.
type Manifest struct {
	Slug           string          `json:"slug"`
	DisplayName    string          `json:"display_name"`
	Description    string          `json:"description,omitempty"`
	Limitations    string          `json:"limitations,omitempty"`
	SetupHint      string          `json:"setup_hint,omitempty"`
	Version        string          `json:"version,omitempty"`
	Publisher      string          `json:"publisher,omitempty"`
	Endpoint       *Endpoint       `json:"endpoint,omitempty"`
	Auth           Auth            `json:"auth"`
	Tools          []ManifestTool  `json:"tools,omitempty"`
	Policy         Policy          `json:"policy,omitzero"`
	SettingsSchema json.RawMessage `json:"settings_schema,omitempty"`
	// State and Prompt feed the agent's instructions at a run start (state.go).
	State  *StateSpec `json:"state,omitempty"`
	Prompt *Prompt    `json:"prompt,omitempty"`
}

// Endpoint is the remote MCP server.
type Endpoint struct {
	URL string `json:"url"`
}

// Auth says how a login signs in.
type Auth struct {
	Kind   string  `json:"kind"`
	Fields []Field `json:"fields,omitempty"`
	Header *Header `json:"header,omitempty"`
	OAuth  *OAuth  `json:"oauth,omitempty"`
	// Instance makes the connector run on a platform key for every organisation without a login of
	// its own (spec connectors.md, Platform logins).
	Instance *Instance `json:"instance,omitempty"`
}

// Instance is auth.instance, in one of two forms: {integration, field}, that field of one of the
// box's integrations (only a connector the box ships, source core, may use it), or {own: true}, the
// token connector's own auth.fields held as the platform key connector:<slug>.
type Instance struct {
	Integration string `json:"integration,omitempty"`
	Field       string `json:"field,omitempty"`
	Own         bool   `json:"own,omitempty"`
}

// KeyName is the platform key the instance form reads: integration:<plugin slug>, or
// connector:<slug> for {own: true}.
func (m *Manifest) KeyName() string {
	if i := m.Auth.Instance; i != nil && !i.Own {
		return "integration:" + i.Integration
	}
	return "connector:" + m.Slug
}

// Field is one input of a token login.
type Field struct {
	Name        string `json:"name"`
	Label       string `json:"label"`
	Secret      bool   `json:"secret,omitempty"`
	Optional    bool   `json:"optional,omitempty"`
	Multiline   bool   `json:"multiline,omitempty"`
	Placeholder string `json:"placeholder,omitempty"`
}

// Header is the header an endpoint's token travels in.
type Header struct {
	Name   string `json:"name"`
	Prefix string `json:"prefix,omitempty"`
}

// OAuth names where a browser login's client comes from (Connectors II builds the flow).
type OAuth struct {
	Strategy string   `json:"strategy"`
	Provider string   `json:"provider,omitempty"`
	Scopes   []string `json:"scopes,omitempty"`
}

// ManifestTool is one tool of the curated list.
type ManifestTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	Mutating    bool            `json:"mutating,omitempty"`
}

// Policy holds the name patterns that start Off.
type Policy struct {
	DefaultOff []string `json:"default_off,omitempty"`
}

// TokenFields are the inputs of a token login: auth.fields, or one secret field named token.
func (m *Manifest) TokenFields() []Field {
	if len(m.Auth.Fields) > 0 {
		return m.Auth.Fields
	}
	if m.Auth.Kind == AuthToken {
		return []Field{{Name: "token", Label: "Token", Secret: true}}
	}
	return nil
}

// TokenHeader is the header a token travels in to the endpoint: auth.header, or Authorization: Bearer.
func (m *Manifest) TokenHeader() Header {
	if m.Auth.Header != nil {
		return *m.Auth.Header
	}
	return Header{Name: "Authorization", Prefix: "Bearer "}
}

// ManifestTool returns the curated tool called name.
func (m *Manifest) ManifestTool(name string) (ManifestTool, bool) {
	for _, t := range m.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return ManifestTool{}, false
}

// Connector is one loaded folder: its manifest, logo and adapter.
type Connector struct {
	Manifest Manifest
	// Raw is the manifest as the folder holds it.
	Raw     json.RawMessage
	Logo    []byte
	Adapter Adapter
	// Source is where it came from: core (a folder in the binary), registry or local.
	Source string
}

// ID is the server id, mcp_<slug>.
func (c *Connector) ID() string { return "mcp_" + c.Manifest.Slug }

// Problem is one folder that would not load, with every reason.
type Problem struct {
	Folder  string
	Reasons []string
}

func (p Problem) Error() string { return p.Folder + ": " + strings.Join(p.Reasons, "; ") }

//go:embed schema.json
var schemaJSON []byte

var manifestSchema = func() *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		panic(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem:///connector.json", doc); err != nil {
		panic(err)
	}
	return c.MustCompile("mem:///connector.json")
}()

// ProviderFolder is the connectors/ folder of a provider's embedded files (plugins/<provider>/connectors,
// embedded as connectors/*/connector.json and connectors/*/logo.svg): one folder per connector, named
// by its slug, as Load reads it.
func ProviderFolder(files fs.FS) fs.FS {
	sub, err := fs.Sub(files, "connectors")
	if err != nil {
		panic(err) // a constant, valid directory name
	}
	return sub
}

// Load reads every folder of fsys that holds a connector.json, checks each manifest against the
// schema, its slug against its folder, and the rules the schema cannot say; adapters are the Go
// adapters by slug. It returns the connectors that loaded, sorted by slug, and one Problem per folder
// that did not (the list `workbench plugins check` prints).
func Load(fsys fs.FS, source string, adapters map[string]Adapter) ([]*Connector, []Problem) {
	return LoadAll([]fs.FS{fsys}, source, adapters)
}

// LoadAll is Load over several trees of connector folders (the shipped ones sit in their providers'
// folders), as if they were one: an adapter whose slug no tree holds is a Problem once.
func LoadAll(trees []fs.FS, source string, adapters map[string]Adapter) ([]*Connector, []Problem) {
	var out []*Connector
	var problems []Problem
	for _, fsys := range trees {
		cs, ps := loadTree(fsys, source, adapters)
		out, problems = append(out, cs...), append(problems, ps...)
	}
	for slug := range adapters {
		found := false
		for _, c := range out {
			found = found || c.Manifest.Slug == slug
		}
		inProblems := false
		for _, p := range problems {
			inProblems = inProblems || p.Folder == slug
		}
		if !found && !inProblems {
			problems = append(problems, Problem{Folder: slug, Reasons: []string{"an adapter is registered for this slug but no folder holds its connector.json"}})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Manifest.Slug < out[j].Manifest.Slug })
	return out, problems
}

// loadTree loads the connector folders at the root of fsys.
func loadTree(fsys fs.FS, source string, adapters map[string]Adapter) (out []*Connector, problems []Problem) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, []Problem{{Folder: ".", Reasons: []string{err.Error()}}}
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		raw, err := fs.ReadFile(fsys, path.Join(e.Name(), ManifestFile))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			problems = append(problems, Problem{Folder: e.Name(), Reasons: []string{err.Error()}})
			continue
		}
		c, reasons := Parse(e.Name(), raw, adapters[e.Name()])
		if len(reasons) == 0 {
			logo, err := fs.ReadFile(fsys, path.Join(e.Name(), LogoFile))
			switch {
			case err == nil && len(logo) > MaxLogoBytes:
				reasons = append(reasons, fmt.Sprintf("%s is %d bytes; at most %d", LogoFile, len(logo), MaxLogoBytes))
			case err == nil:
				c.Logo = logo
			case !errors.Is(err, fs.ErrNotExist):
				reasons = append(reasons, err.Error())
			}
		}
		if len(reasons) > 0 {
			problems = append(problems, Problem{Folder: e.Name(), Reasons: reasons})
			continue
		}
		if i := c.Manifest.Auth.Instance; i != nil && i.Integration != "" && source != "core" {
			problems = append(problems, Problem{Folder: e.Name(), Reasons: []string{"auth.instance {integration, field} is for a connector the box ships (source core); use {own: true}"}})
			continue
		}
		c.Source = source
		out = append(out, c)
	}
	return out, problems
}

// Parse checks one manifest read from the folder named folder and returns the connector, or every
// reason it does not load.
func Parse(folder string, raw []byte, adapter Adapter) (*Connector, []string) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, []string{ManifestFile + " is not JSON: " + err.Error()}
	}
	if err := manifestSchema.Validate(doc); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return nil, flatten(ve)
		}
		return nil, []string{err.Error()}
	}
	var m Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, []string{ManifestFile + ": " + err.Error()}
	}
	var reasons []string
	if m.Slug != folder {
		reasons = append(reasons, fmt.Sprintf("slug %q is not its folder's name %q", m.Slug, folder))
	}
	if m.Endpoint == nil && adapter == nil {
		reasons = append(reasons, "a connector needs an endpoint, an adapter, or both")
	}
	if len(m.Tools) > 0 && m.Endpoint == nil {
		if _, ok := adapter.(Caller); !ok {
			reasons = append(reasons, "a connector that lists tools and has no endpoint needs an adapter call")
		}
	}
	if m.Auth.Kind == AuthOAuth && m.Auth.OAuth == nil {
		reasons = append(reasons, "auth.kind oauth needs auth.oauth")
	}
	if m.Auth.Kind != AuthToken && len(m.Auth.Fields) > 0 {
		reasons = append(reasons, "auth.fields are for auth.kind token")
	}
	reasons = append(reasons, checkInstance(&m)...)
	seen := map[string]bool{}
	for _, f := range m.Auth.Fields {
		if seen[f.Name] {
			reasons = append(reasons, fmt.Sprintf("auth.fields names %q twice", f.Name))
		}
		seen[f.Name] = true
	}
	seen = map[string]bool{}
	for _, t := range m.Tools {
		n := SanitiseToolName(t.Name)
		if n == "" {
			reasons = append(reasons, fmt.Sprintf("tool %q has no usable character", t.Name))
		}
		if seen[n] {
			reasons = append(reasons, fmt.Sprintf("tools %q: two tools sanitise to the same name", t.Name))
		}
		seen[n] = true
		if len(t.InputSchema) > 0 {
			if err := compileSchema(t.InputSchema); err != nil {
				reasons = append(reasons, fmt.Sprintf("tool %q: input_schema: %v", t.Name, err))
			}
		}
	}
	reasons = append(reasons, checkState(&m, adapter)...)
	if len(m.SettingsSchema) > 0 {
		if _, err := ParseSettingsSchema(m.SettingsSchema); err != nil {
			reasons = append(reasons, "settings_schema: "+err.Error())
		}
	}
	if len(reasons) > 0 {
		return nil, reasons
	}
	return &Connector{Manifest: m, Raw: json.RawMessage(raw), Adapter: adapter}, nil
}

func compileSchema(raw json.RawMessage) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	if err := c.AddResource("mem:///tool.json", doc); err != nil {
		return err
	}
	_, err = c.Compile("mem:///tool.json")
	return err
}

type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schemas may not load %s", url)
}

// flatten turns a validation error tree into one reason per leaf, each naming where in the manifest.
func flatten(ve *jsonschema.ValidationError) []string {
	if len(ve.Causes) == 0 {
		loc := "/" + strings.Join(ve.InstanceLocation, "/")
		return []string{fmt.Sprintf("%s at %s: %s", ManifestFile, loc, ve.ErrorKind.LocalizedString(message.NewPrinter(language.English)))}
	}
	var out []string
	for _, c := range ve.Causes {
		out = append(out, flatten(c)...)
	}
	return out
}

// checkInstance is auth.instance's load-time rules: exactly one form; {integration, field} names both
// and the login has one token to carry it; {own: true} is for a token connector.
func checkInstance(m *Manifest) []string {
	i := m.Auth.Instance
	if i == nil {
		return nil
	}
	var reasons []string
	switch {
	case i.Own && (i.Integration != "" || i.Field != ""):
		reasons = append(reasons, "auth.instance is either {integration, field} or {own: true}, not both")
	case !i.Own && (i.Integration == "" || i.Field == ""):
		reasons = append(reasons, "auth.instance {integration, field} needs both, or {own: true}")
	}
	if m.Auth.Kind != AuthToken {
		reasons = append(reasons, "auth.instance is for auth.kind token")
	}
	return reasons
}
