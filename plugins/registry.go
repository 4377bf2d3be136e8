package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/workbench/workbench/plugins/connector"
)

// Size limits for plugin files.
const (
	maxManifestBytes = 1 << 20
	maxToolsBytes    = 4 << 20
	maxLogoBytes     = 256 << 10
)

// Defaults for Options.
const (
	DefaultMaxResponseBytes = 4 << 20
	DefaultRequestTimeout   = 30 * time.Second
)

// Options configures Load. The zero value loads no plugin; Builtins adds the shipped ones.
type Options struct {
	Logger *slog.Logger
	// PluginsDir is a directory of plugin folders (PLUGINS_DIR); empty loads none.
	PluginsDir string
	// Builtins are the plugin folders that ship with the server (plugins/shipped.Plugins()), loaded
	// first, in folder-name order; nil loads none (tests of PLUGINS_DIR leave them out).
	Builtins []Builtin
	// Handlers are Go handlers by tool name, for tools declaring "handler": "go", in addition to the
	// built-in ones (a name already taken by a built-in handler is a Problem and is ignored).
	Handlers map[string]Handler
	// AllowInsecureHTTP accepts http:// base URLs whose host is loopback. For tests and development only.
	AllowInsecureHTTP bool
	// MaxResponseBytes caps the provider response a declarative tool reads; 0 means 4 MiB.
	MaxResponseBytes int64
	// RequestTimeout bounds one declarative request; 0 means 30 seconds.
	RequestTimeout time.Duration

	// extra are further plugin folders loaded after PluginsDir (Check uses it for a single folder).
	extra []pluginSource
}

// Problem is one plugin (or one tool of a plugin) that was not loaded, and why.
type Problem struct {
	// Source is where the plugin came from: "builtin:<folder>" or the folder's path.
	Source string
	// Integration is the integration's name when it was known.
	Integration string
	// Tool is set when only this tool was refused and the rest of the plugin loaded.
	Tool string
	Err  error
}

func (p Problem) Error() string {
	what := p.Source
	if p.Tool != "" {
		what += " tool " + p.Tool
	}
	return what + ": " + p.Err.Error()
}

// Integration is a loaded integration: its manifest, where it came from, its logo and its tools.
type Integration struct {
	Manifest
	// Source is where the plugin was loaded from.
	Source string
	// LogoSVG is the logo file's contents when the manifest names a file; a URL logo stays in Logo.
	LogoSVG []byte

	tools   []*Tool
	baseURL *url.URL
	origins []string // scheme://host[:port] the runtime HTTP client may reach
}

// Tools returns the integration's tools in name order. The slice must not be modified.
func (in *Integration) Tools() []*Tool { return in.tools }

// ProxyBaseURL is where curl_session forwards requests, or "" when the integration has no proxy block.
func (in *Integration) ProxyBaseURL() string {
	if in.Proxy == nil {
		return ""
	}
	if in.Proxy.BaseURL != "" {
		return in.Proxy.BaseURL
	}
	return in.BaseURL
}

// Tool is a loaded tool. Its exported fields are read-only.
type Tool struct {
	Name        string
	Description string
	// Integration is the owning integration's name.
	Integration string
	// InputSchema is the JSON Schema of the arguments, as the plugin declares it.
	InputSchema json.RawMessage
	// Source is where the plugin was loaded from.
	Source string
	// Mutating is tools.json's mutating (nil when the manifest does not say).
	Mutating *bool

	integration *Integration
	schema      *jsonschema.Schema
	http        *compiledTemplate
	handler     Handler

	// search keys, lowercased once at load
	nameTokens []string
	descTokens []string
}

// Declarative reports whether the tool runs an HTTP request template (rather than a Go handler).
func (t *Tool) Declarative() bool { return t.http != nil }

// Owner returns the tool's integration.
func (t *Tool) Owner() *Integration { return t.integration }

// Why a plugin tool starts Off (the rule recorded with the decision, as a connector tool's is).
const (
	RuleMutating    = connector.RuleMutating
	RulePolicy      = connector.RulePolicy
	RuleWritingVerb = connector.RuleWritingVerb
)

// StartsOff reports whether the tool is Off for an agent until someone switches it On, and the rule
// that says so, as a connector tool's rules do: tools.json marks it mutating; else a pattern of the
// manifest's policy.default_off matches its name; else, where tools.json does not say, its name (less
// the integration's prefix) carries a writing verb (create, send, delete, ...).
func (t *Tool) StartsOff() (bool, string) {
	if t.Mutating != nil && *t.Mutating {
		return true, RuleMutating
	}
	if in := t.integration; in != nil && in.Policy != nil {
		for _, p := range in.Policy.DefaultOff {
			if connector.MatchPattern(p, t.Name) {
				return true, RulePolicy
			}
		}
	}
	if t.Mutating != nil {
		return false, ""
	}
	if connector.HasWritingVerb(strings.TrimPrefix(t.Name, ToolPrefix(t.Integration))) {
		return true, RuleWritingVerb
	}
	return false, ""
}

// Registry is the in-memory index built at boot (spec, concepts: "Registry"). It is immutable after
// Load and safe for concurrent use.
type Registry struct {
	integrations map[string]*Integration
	intOrder     []*Integration
	tools        map[string]*Tool
	toolOrder    []*Tool
	maxResponse  int64
	timeout      time.Duration
}

// Integration returns the named integration.
func (r *Registry) Integration(name string) (*Integration, bool) {
	in, ok := r.integrations[name]
	return in, ok
}

// Integrations returns every integration in name order. The slice must not be modified.
func (r *Registry) Integrations() []*Integration { return r.intOrder }

// Tool returns the named tool.
func (r *Registry) Tool(name string) (*Tool, bool) {
	t, ok := r.tools[name]
	return t, ok
}

// Tools returns every tool in name order. The slice must not be modified.
func (r *Registry) Tools() []*Tool { return r.toolOrder }

// pluginSource is one folder to load.
type pluginSource struct {
	fsys   fs.FS
	folder string
	source string
}

// Load builds the registry: the built-in plugins (opts.Builtins) first, then every folder of
// opts.PluginsDir, each set in folder-name order. A plugin that fails to load is logged and skipped
// while the rest load, and returned as a Problem. An integration name already loaded, or a reserved
// one, refuses the later plugin whole; a tool name already taken refuses the later tool only. Both
// sources of a collision are logged: unlike the spec's "a later plugin silently wins", nothing is ever
// replaced silently.
func Load(ctx context.Context, opts Options) (*Registry, []Problem) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Registry{
		integrations: map[string]*Integration{},
		tools:        map[string]*Tool{},
		maxResponse:  opts.MaxResponseBytes,
		timeout:      opts.RequestTimeout,
	}
	if r.maxResponse <= 0 {
		r.maxResponse = DefaultMaxResponseBytes
	}
	if r.timeout <= 0 {
		r.timeout = DefaultRequestTimeout
	}
	var problems []Problem
	report := func(p Problem) {
		problems = append(problems, p)
		if p.Tool != "" {
			log.Error("plugin tool refused", "source", p.Source, "integration", p.Integration, "tool", p.Tool, "reason", p.Err.Error())
		} else {
			log.Error("plugin skipped", "source", p.Source, "integration", p.Integration, "reason", p.Err.Error())
		}
	}

	builtins := slices.Clone(opts.Builtins)
	slices.SortStableFunc(builtins, func(a, b Builtin) int { return strings.Compare(a.Folder, b.Folder) })
	handlers := map[string]Handler{}
	for _, b := range builtins {
		for _, name := range sortedKeys(b.Handlers) {
			if _, taken := handlers[name]; taken {
				report(Problem{Source: "builtin:" + b.Folder, Tool: name, Err: errors.New("another built-in handler already has this name; the first one is kept")})
				continue
			}
			handlers[name] = b.Handlers[name]
		}
	}
	for _, name := range sortedKeys(opts.Handlers) {
		if _, taken := handlers[name]; taken {
			report(Problem{Source: "options.Handlers", Tool: name, Err: errors.New("a built-in handler already has this name; the built-in one is kept")})
			continue
		}
		handlers[name] = opts.Handlers[name]
	}

	var sources []pluginSource
	for _, b := range builtins {
		sources = append(sources, pluginSource{fsys: b.FS, folder: b.Folder, source: "builtin:" + path.Clean(b.Folder)})
	}
	if opts.PluginsDir != "" {
		ds, err := dirSources(opts.PluginsDir)
		if err != nil {
			report(Problem{Source: opts.PluginsDir, Err: err})
		}
		sources = append(sources, ds...)
	}
	sources = append(sources, opts.extra...)

	for _, src := range sources {
		if err := ctx.Err(); err != nil {
			report(Problem{Source: src.source, Err: fmt.Errorf("loading stopped: %w", err)})
			break
		}
		in, err := loadPlugin(src, handlers, opts.AllowInsecureHTTP)
		if err != nil {
			name := ""
			if in != nil {
				name = in.Name
			}
			report(Problem{Source: src.source, Integration: name, Err: err})
			continue
		}
		if prev, dup := r.integrations[in.Name]; dup {
			log.Error("integration name collision: later plugin refused", "integration", in.Name,
				"kept_source", prev.Source, "refused_source", in.Source)
			report(Problem{Source: in.Source, Integration: in.Name,
				Err: fmt.Errorf("integration %q is already loaded from %s", in.Name, prev.Source)})
			continue
		}
		kept := in.tools[:0]
		for _, t := range in.tools {
			if prev, dup := r.tools[t.Name]; dup {
				log.Error("tool name collision: later tool refused", "tool", t.Name,
					"kept_integration", prev.Integration, "kept_source", prev.Source,
					"refused_integration", t.Integration, "refused_source", t.Source)
				report(Problem{Source: t.Source, Integration: t.Integration, Tool: t.Name,
					Err: fmt.Errorf("tool %q is already registered by integration %s from %s", t.Name, prev.Integration, prev.Source)})
				continue
			}
			r.tools[t.Name] = t
			kept = append(kept, t)
		}
		in.tools = kept
		r.integrations[in.Name] = in
		log.Debug("plugin loaded", "source", in.Source, "integration", in.Name, "tools", len(in.tools))
	}

	for _, in := range r.integrations {
		r.intOrder = append(r.intOrder, in)
	}
	sort.Slice(r.intOrder, func(i, j int) bool { return r.intOrder[i].Name < r.intOrder[j].Name })
	for _, t := range r.tools {
		r.toolOrder = append(r.toolOrder, t)
	}
	sort.Slice(r.toolOrder, func(i, j int) bool { return r.toolOrder[i].Name < r.toolOrder[j].Name })
	return r, problems
}

// dirSources lists the plugin folders of a PLUGINS_DIR. Entries that are not directories (a README) and
// hidden entries are ignored.
func dirSources(dir string) ([]pluginSource, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read PLUGINS_DIR: %w", err)
	}
	var out []pluginSource
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		full := filepath.Join(dir, e.Name())
		info, err := os.Stat(full) // follows symlinks to folders
		if err != nil || !info.IsDir() {
			continue
		}
		out = append(out, pluginSource{fsys: os.DirFS(full), folder: e.Name(), source: full})
	}
	return out, nil
}

func readLimited(fsys fs.FS, name string, limit int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, limit)
	}
	return data, nil
}

// loadPlugin reads, validates and compiles one plugin folder. On error the returned integration, when
// not nil, carries the name for the report. Every problem of the folder is reported at once (the
// manifest with its auth block, the name, tools.json, each tool's schema and handler): a plugin author
// fixes them in one round, not one per run. Only an unreadable or undecodable manifest stops early,
// since the tools are judged against it.
func loadPlugin(src pluginSource, handlers map[string]Handler, allowInsecure bool) (*Integration, error) {
	if IsReserved(src.folder) {
		return &Integration{Manifest: Manifest{Name: src.folder}}, fmt.Errorf("folder name %q is reserved for an integration built into the server", src.folder)
	}
	mdata, err := readLimited(src.fsys, ManifestFile, maxManifestBytes)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", ManifestFile, err)
	}
	var m Manifest
	if err := decodeStrict(ManifestFile, mdata, &m); err != nil {
		// A manifest that names a reserved integration is reported under that name.
		var probe struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(mdata, &probe)
		return &Integration{Manifest: Manifest{Name: probe.Name}}, err
	}
	named := &Integration{Manifest: Manifest{Name: m.Name}}
	errs := m.Validate()
	if m.Name != src.folder {
		errs = append(errs, &FieldError{File: ManifestFile, Field: "name", Msg: fmt.Sprintf("%q must equal the plugin folder name %q", m.Name, src.folder)})
	}
	reported := map[string]bool{}
	for _, fe := range errs {
		reported[fe.Field] = true
	}
	in := &Integration{Manifest: m, Source: src.source}
	for _, fe := range in.resolveURLs(allowInsecure) {
		if !reported[fe.Field] { // a URL the manifest check already refused is reported once
			errs = append(errs, fe)
		}
	}
	if !reported["logo"] {
		if m.Logo != "" && !strings.Contains(m.Logo, "://") {
			svg, err := readLimited(src.fsys, m.Logo, maxLogoBytes)
			switch {
			case err != nil:
				errs = append(errs, &FieldError{File: ManifestFile, Field: "logo", Msg: err.Error()})
			case !bytes.Contains(svg, []byte("<svg")):
				errs = append(errs, &FieldError{File: ManifestFile, Field: "logo", Msg: fmt.Sprintf("%s is not an SVG document", m.Logo)})
			default:
				in.LogoSVG = svg
			}
		}
	}

	tdata, err := readLimited(src.fsys, ToolsFile, maxToolsBytes)
	if err != nil {
		errs = append(errs, &FieldError{File: ToolsFile, Msg: "cannot be read: " + err.Error()})
		return named, errs
	}
	specs, err := ParseTools(tdata)
	if err != nil {
		var fe *FieldError
		if !errors.As(err, &fe) {
			fe = &FieldError{File: ToolsFile, Msg: err.Error()}
		}
		return named, append(errs, fe)
	}
	// A tool with a problem of its declaration is not compiled as well: one problem per cause.
	declared := ValidateTools(&m, specs)
	errs = append(errs, declared...)
	faulty := map[int]bool{}
	for _, fe := range declared {
		var i int
		if _, err := fmt.Sscanf(fe.Field, "[%d]", &i); err == nil {
			faulty[i] = true
		}
	}
	for i, spec := range specs {
		if faulty[i] {
			continue
		}
		at := fmt.Sprintf("[%d](%s)", i, spec.Name)
		t := &Tool{
			Name:        spec.Name,
			Description: spec.Description,
			Integration: m.Name,
			Source:      src.source,
			Mutating:    spec.Mutating,
			integration: in,
			nameTokens:  tokenize(spec.Name),
			descTokens:  tokenize(spec.Description),
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, spec.InputSchema); err != nil {
			errs = append(errs, &FieldError{File: ToolsFile, Field: at + ".input_schema", Msg: err.Error()})
			continue
		}
		t.InputSchema = compact.Bytes()
		if t.schema, err = compileSchema(spec.Name, spec.InputSchema); err != nil {
			errs = append(errs, &FieldError{File: ToolsFile, Field: at + ".input_schema", Msg: err.Error()})
			continue
		}
		if spec.HTTP != nil {
			t.http = compileTemplate(spec.HTTP)
		} else {
			h, ok := handlers[spec.Name]
			if !ok {
				errs = append(errs, &FieldError{File: ToolsFile, Field: at + ".handler", Msg: "no Go handler is registered under this tool's name"})
				continue
			}
			t.handler = h
		}
		in.tools = append(in.tools, t)
	}
	if len(errs) > 0 {
		return named, errs
	}
	sort.Slice(in.tools, func(i, j int) bool { return in.tools[i].Name < in.tools[j].Name })
	return in, nil
}

// resolveURLs parses the base and proxy URLs and records the origins the runtime client may reach.
func (in *Integration) resolveURLs(allowInsecure bool) FieldErrors {
	var errs FieldErrors
	for _, f := range []struct{ field, raw string }{{"base_url", in.BaseURL}, {"proxy.base_url", in.ProxyBaseURL()}} {
		if f.raw == "" {
			continue
		}
		u, err := url.Parse(f.raw)
		if err != nil {
			errs = append(errs, &FieldError{File: ManifestFile, Field: f.field, Msg: err.Error()})
			continue
		}
		if u.Scheme == "http" && !(allowInsecure && isLoopback(u.Hostname())) {
			errs = append(errs, &FieldError{File: ManifestFile, Field: f.field, Msg: fmt.Sprintf("%q must use https", f.raw)})
			continue
		}
		if f.field == "base_url" {
			in.baseURL = u
		}
		o := origin(u)
		if !in.allowsOrigin(u) {
			in.origins = append(in.origins, o)
		}
	}
	for _, f := range []struct{ field, raw string }{{"logo", in.Logo}} {
		if strings.HasPrefix(f.raw, "http://") {
			errs = append(errs, &FieldError{File: ManifestFile, Field: f.field, Msg: fmt.Sprintf("%q must use https", f.raw)})
		}
	}
	if c := in.Auth.Cookie; c != nil && c.SignInURL != "" {
		if u, _ := url.Parse(c.SignInURL); u != nil && u.Scheme == "http" && !(allowInsecure && isLoopback(u.Hostname())) {
			errs = append(errs, &FieldError{File: ManifestFile, Field: "auth.cookie.signin_url", Msg: fmt.Sprintf("%q must use https", c.SignInURL)})
		}
	}
	if o := in.Auth.OAuth2; o != nil {
		for _, f := range []struct{ field, raw string }{{"auth.oauth2.authorize_url", o.AuthorizeURL}, {"auth.oauth2.token_url", o.TokenURL}} {
			u, _ := url.Parse(f.raw)
			if u != nil && u.Scheme == "http" && !(allowInsecure && isLoopback(u.Hostname())) {
				errs = append(errs, &FieldError{File: ManifestFile, Field: f.field, Msg: fmt.Sprintf("%q must use https", f.raw)})
			}
		}
	}
	return errs
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
