package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writePlugin creates dir/folder with the given manifest.json and tools.json (skipped when empty).
func writePlugin(t *testing.T, dir, folder, manifest, tools string) string {
	t.Helper()
	p := filepath.Join(dir, folder)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if manifest != "" {
		if err := os.WriteFile(filepath.Join(p, ManifestFile), []byte(manifest), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if tools != "" {
		if err := os.WriteFile(filepath.Join(p, ToolsFile), []byte(tools), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func noneManifest(name string) string {
	return `{"name":"` + name + `","version":"0.1.0","display_name":"` + name + `","description":"test plugin","auth":{"mode":"none"}}`
}

func goTool(name string) string {
	return `{"name":"` + name + `","description":"a test tool","input_schema":{"type":"object"},"handler":"go"}`
}

// logLines decodes a JSON slog buffer.
func logLines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

func TestLoadBuiltins(t *testing.T) {
	r, problems := Load(context.Background(), Options{Builtins: shippedBuiltins(t)})
	if len(problems) != 0 {
		t.Fatalf("built-in plugins have problems: %v", problems)
	}
	var names []string
	for _, in := range r.Integrations() {
		names = append(names, in.Name)
		if len(in.LogoSVG) == 0 {
			t.Errorf("%s: logo not loaded", in.Name)
		}
		if !strings.HasPrefix(in.Source, "builtin:") {
			t.Errorf("%s: source %q", in.Name, in.Source)
		}
	}
	if !sort.StringsAreSorted(names) {
		t.Errorf("integrations not in folder-name order: %v", names)
	}
	for _, want := range []string{"github", "newrelic", "utils"} {
		if _, ok := r.Integration(want); !ok {
			t.Errorf("reference integration %s missing from %v", want, names)
		}
	}
	if got := len(r.Tools()); got < 11 {
		t.Errorf("want at least the 11 reference tools, got %d", got)
	}
	gh, _ := r.Integration("github")
	if gh.Auth.Mode != AuthOAuth2 || gh.ProxyBaseURL() != "https://api.github.com" {
		t.Errorf("github manifest: mode %q proxy %q", gh.Auth.Mode, gh.ProxyBaseURL())
	}
	if _, ok := r.Tool("github_get_repo"); !ok {
		t.Error("github_get_repo missing")
	}
	if _, ok := r.Tool("nope"); ok {
		t.Error("unknown tool found")
	}
}

func TestLoadPluginsDir(t *testing.T) {
	dir := t.TempDir()
	echo := func(_ context.Context, _ Context, args json.RawMessage) (any, error) { return args, nil }

	writePlugin(t, dir, "good", noneManifest("good"), `[`+goTool("good_ping")+`]`)
	writePlugin(t, dir, "broken-json", `{"name": "broken-json",`, `[]`)
	writePlugin(t, dir, "bad-schema", noneManifest("bad-schema"),
		`[{"name":"bad_schema_x","description":"d","input_schema":{"type":"object","properties":{"a":{"type":"strin"}}},"handler":"go"}]`)
	writePlugin(t, dir, "remote-ref", noneManifest("remote-ref"),
		`[{"name":"remote_ref_x","description":"d","input_schema":{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}},"handler":"go"}]`)
	writePlugin(t, dir, "browser", noneManifest("browser"), `[]`)
	writePlugin(t, dir, "sneaky", noneManifest("jots"), `[]`)
	writePlugin(t, dir, "renamed", noneManifest("other"), `[]`)
	writePlugin(t, dir, "no-tools", noneManifest("no-tools"), "")
	writePlugin(t, dir, "no-handler", noneManifest("no-handler"), `[`+goTool("no_handler_x")+`]`)
	githubCopy := writePlugin(t, dir, "github", strings.Replace(noneManifest("github"), "test plugin", "impostor", 1), `[`+goTool("github_whoami")+`]`)
	// "git" and "git-hub" both declare git_hub_list: the prefix rule allows it for both.
	gitDir := writePlugin(t, dir, "git", noneManifest("git"), `[`+goTool("git_hub_list")+`,`+goTool("git_log")+`]`)
	gitHubDir := writePlugin(t, dir, "git-hub", noneManifest("git-hub"), `[`+goTool("git_hub_list")+`,`+goTool("git_hub_star")+`]`)
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("not a plugin"), 0o644); err != nil {
		t.Fatal(err)
	}

	var logs bytes.Buffer
	r, problems := Load(context.Background(), Options{
		Builtins:   shippedBuiltins(t),
		Logger:     slog.New(slog.NewJSONHandler(&logs, nil)),
		PluginsDir: dir,
		Handlers: map[string]Handler{
			"good_ping": echo, "github_whoami": echo, "git_hub_list": echo, "git_log": echo, "git_hub_star": echo,
			"bad_schema_x": echo, "remote_ref_x": echo,
		},
	})

	var loaded []string
	for _, in := range r.Integrations() {
		loaded = append(loaded, in.Name)
	}
	builtins, _ := Load(context.Background(), Options{Builtins: shippedBuiltins(t)})
	wantLoaded := []string{"git", "git-hub", "good"}
	for _, in := range builtins.Integrations() {
		wantLoaded = append(wantLoaded, in.Name)
	}
	sort.Strings(wantLoaded)
	sort.Strings(loaded)
	if diff := cmp.Diff(wantLoaded, loaded); diff != "" {
		t.Errorf("loaded integrations (-want +got):\n%s", diff)
	}
	if gh, _ := r.Integration("github"); gh.Source != "builtin:github" {
		t.Errorf("github was replaced by %s", gh.Source)
	}
	if tl, _ := r.Tool("git_hub_list"); tl == nil || tl.Integration != "git" {
		t.Errorf("git_hub_list should stay with the first loader, git; got %+v", tl)
	}
	if _, ok := r.Tool("git_hub_star"); !ok {
		t.Error("the rest of git-hub should load")
	}
	if gh, _ := r.Integration("git-hub"); len(gh.Tools()) != 1 {
		t.Errorf("git-hub should keep one tool, has %d", len(gh.Tools()))
	}

	type want struct{ source, integration, tool, reason string }
	wants := []want{
		{filepath.Join(dir, "bad-schema"), "bad-schema", "", "tools.json: [0](bad_schema_x).input_schema: input_schema does not compile: not a valid JSON Schema: at '/properties/a/type': "},
		{filepath.Join(dir, "broken-json"), "", "", "manifest.json: invalid JSON"},
		{filepath.Join(dir, "browser"), "browser", "", `folder name "browser" is reserved`},
		{gitHubDir, "git-hub", "git_hub_list", "already registered by integration git from " + gitDir},
		{githubCopy, "github", "", "already loaded from builtin:github"},
		{filepath.Join(dir, "no-handler"), "no-handler", "", "tools.json: [0](no_handler_x).handler: no Go handler is registered"},
		{filepath.Join(dir, "no-tools"), "no-tools", "", "tools.json: cannot be read"},
		{filepath.Join(dir, "remote-ref"), "remote-ref", "", "may not load file:///etc/passwd"},
		{filepath.Join(dir, "renamed"), "other", "", `manifest.json: name: "other" must equal the plugin folder name "renamed"`},
		{filepath.Join(dir, "sneaky"), "jots", "", `manifest.json: name: "jots" is reserved`},
	}
	if len(problems) != len(wants) {
		t.Errorf("want %d problems, got %d: %v", len(wants), len(problems), problems)
	}
	for _, w := range wants {
		found := false
		for _, p := range problems {
			if p.Source == w.source && p.Integration == w.integration && p.Tool == w.tool && strings.Contains(p.Err.Error(), w.reason) {
				found = true
			}
		}
		if !found {
			t.Errorf("no problem %+v among %v", w, problems)
		}
	}

	// Every problem is logged with its location and reason; a collision logs both sources.
	lines := logLines(t, &logs)
	for _, w := range wants {
		found := false
		for _, l := range lines {
			if l["source"] == w.source && strings.Contains(l["reason"].(string), w.reason) {
				found = true
			}
		}
		if !found {
			t.Errorf("problem %+v not logged", w)
		}
	}
	var toolCollision, integrationCollision bool
	for _, l := range lines {
		if l["msg"] == "tool name collision: later tool refused" && l["kept_source"] == gitDir && l["refused_source"] == gitHubDir && l["tool"] == "git_hub_list" {
			toolCollision = true
		}
		if l["msg"] == "integration name collision: later plugin refused" && l["kept_source"] == "builtin:github" && l["refused_source"] == githubCopy {
			integrationCollision = true
		}
	}
	if !toolCollision || !integrationCollision {
		t.Errorf("collisions not logged with both sources (tool %v, integration %v):\n%s", toolCollision, integrationCollision, logs.String())
	}
}

func TestLoadMissingPluginsDir(t *testing.T) {
	r, problems := Load(context.Background(), Options{Builtins: shippedBuiltins(t), PluginsDir: filepath.Join(t.TempDir(), "absent")})
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), "read PLUGINS_DIR") {
		t.Fatalf("want one PLUGINS_DIR problem, got %v", problems)
	}
	builtins, _ := Load(context.Background(), Options{Builtins: shippedBuiltins(t)})
	if len(r.Integrations()) != len(builtins.Integrations()) {
		t.Errorf("built-ins should still load, got %d integrations, want %d", len(r.Integrations()), len(builtins.Integrations()))
	}
}

func TestLoadInsecureBaseURL(t *testing.T) {
	manifest := `{"name":"local","version":"1","display_name":"Local","description":"d","base_url":"http://127.0.0.1:9","auth":{"mode":"none"}}`
	tests := []struct {
		name          string
		allowInsecure bool
		wantLoaded    bool
	}{
		{"refused by default", false, false},
		{"allowed on loopback for tests", true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writePlugin(t, dir, "local", manifest, `[]`)
			r, problems := Load(context.Background(), Options{PluginsDir: dir, AllowInsecureHTTP: tc.allowInsecure})
			_, ok := r.Integration("local")
			if ok != tc.wantLoaded {
				t.Fatalf("loaded %v, want %v (problems %v)", ok, tc.wantLoaded, problems)
			}
			if !tc.wantLoaded && !strings.Contains(problems[0].Error(), "base_url") {
				t.Errorf("problem should name base_url: %v", problems[0])
			}
		})
	}
}

// An http sign-in page of a cookie integration loads only on loopback with AllowInsecureHTTP, as an
// http base_url does; https is required otherwise.
func TestCookieSignInURLMustUseHTTPS(t *testing.T) {
	for _, tc := range []struct {
		name, url     string
		allowInsecure bool
		wantLoaded    bool
	}{
		{"https", "https://www.acme.test/login", false, true},
		{"http refused", "http://www.acme.test/login", false, false},
		{"http refused off loopback even when allowed", "http://www.acme.test/login", true, false},
		{"http on loopback allowed for tests", "http://127.0.0.1:8080/login", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			domain := "acme.test"
			if strings.Contains(tc.url, "127.0.0.1") {
				domain = "127.0.0.1"
			}
			manifest := fmt.Sprintf(`{"name":"site","version":"1.0.0","display_name":"Site","description":"A cookie site.","base_url":"https://www.acme.test",
				"auth":{"mode":"cookie","cookie":{"domains":[%q],"signin_url":%q}}}`, domain, tc.url)
			writePlugin(t, dir, "site", manifest, `[]`)
			r, problems := Load(context.Background(), Options{PluginsDir: dir, AllowInsecureHTTP: tc.allowInsecure})
			in, ok := r.Integration("site")
			if ok != tc.wantLoaded {
				t.Fatalf("loaded %v, want %v (problems %v)", ok, tc.wantLoaded, problems)
			}
			if ok && in.Auth.Cookie.SignInPage() != tc.url {
				t.Fatalf("the sign-in page is %q, want %q", in.Auth.Cookie.SignInPage(), tc.url)
			}
			if !ok && !strings.Contains(fmt.Sprint(problems), "auth.cookie.signin_url") {
				t.Fatalf("the problem does not name auth.cookie.signin_url: %v", problems)
			}
		})
	}
}
