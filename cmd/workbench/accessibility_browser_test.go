package main

// The portal's accessibility in real headless Chromium: every route of app.js's ROUTES (and the OAuth
// consent page) is visited as a signed-in instance admin with an organisation, a guild, an agent and
// two connections, and axe-core (pinned in testdata/clients/package.json, read from its node_modules,
// never from a CDN) runs on it. Any serious or critical violation fails the test. The same pages at
// 390×844 must not scroll sideways, and with prefers-color-scheme: dark the background must be dark
// and axe's colour-contrast rule must still pass. Screenshots of the phone pass go where
// portal_browser_test.go puts its own. The passes are three tests (axe and the navigation, phones, dark
// mode), each with its own server, so that none runs long.

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors/connectorstest"
)

// axeSource is axe-core's axe.min.js from testdata/clients/node_modules. When Node and npm are here
// the lock file is installed first (as the client compatibility tests do); a missing file fails the
// test with what to run, never skips it.
func axeSource(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "clients"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "axe-core", "axe.min.js")); err != nil {
		if _, err := exec.LookPath("npm"); err == nil {
			npmOnce.Do(func() {
				if npmErr = npmCI(dir); npmErr == nil {
					pinnedNode = filepath.Join(dir, "node_modules", ".bin", "node")
				}
			})
		}
	}
	src, err := os.ReadFile(filepath.Join(dir, "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core is not installed (%v): run `npm ci` in %s", err, dir)
	}
	return string(src)
}

// axeResult is the part of axe.run's answer the test reads.
type axeResult struct {
	Violations []struct {
		ID     string `json:"id"`
		Impact string `json:"impact"`
		Help   string `json:"help"`
		Nodes  []struct {
			Target []any  `json:"target"`
			HTML   string `json:"html"`
		} `json:"nodes"`
	} `json:"violations"`
}

// axe injects axe-core into the page (once per document) and runs it, with only the rules named when
// rules is not empty.
func (tb *tab) axe(src string, rules ...string) axeResult {
	tb.t.Helper()
	p := tb.p.Timeout(30 * time.Second)
	has, err := p.Eval(`() => typeof window.axe === 'object'`)
	if err != nil {
		tb.t.Fatalf("look for axe on %s: %v", tb.url(), err)
	}
	if !has.Value.Bool() {
		// Evaluated through DevTools: neither the page's CSP nor Trusted Types (which apply to the
		// page's own scripts) stop it.
		if _, err := (proto.RuntimeEvaluate{Expression: src}).Call(p); err != nil {
			tb.t.Fatalf("inject axe-core into %s: %v", tb.url(), err)
		}
	}
	opts := `{resultTypes: ['violations']}`
	if len(rules) > 0 {
		b, _ := json.Marshal(rules)
		opts = `{resultTypes: ['violations'], runOnly: {type: 'rule', values: ` + string(b) + `}}`
	}
	res, err := p.Eval(`async () => JSON.stringify(await axe.run(document, ` + opts + `))`)
	if err != nil {
		tb.t.Fatalf("axe.run on %s: %v", tb.url(), err)
	}
	var out axeResult
	if err := json.Unmarshal([]byte(res.Value.Str()), &out); err != nil {
		tb.t.Fatalf("axe's answer on %s: %v", tb.url(), err)
	}
	return out
}

// settle waits until the page shows an h1 matching heading and no section says it is still loading.
func (tb *tab) settle(heading string) {
	tb.t.Helper()
	tb.waitJS("the page's heading /"+heading+"/ with nothing still loading", `(re) => {
		const h1 = document.querySelector('h1');
		if (!h1 || !new RegExp(re).test(h1.textContent)) return false;
		return ![...document.querySelectorAll('p.muted')].some((p) => /^Loading/.test(p.textContent));
	}`, heading)
	// Then until the DOM has been quiet for 150 ms (late parts: the health banner, the badge), at
	// most 3 s: a page that never stops changing is checked as it is then.
	if _, err := tb.p.Timeout(10 * time.Second).Eval(`() => new Promise((resolve) => {
		let quiet;
		const done = () => { obs.disconnect(); resolve(true); };
		const obs = new MutationObserver(() => { clearTimeout(quiet); quiet = setTimeout(done, 150); });
		obs.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
		quiet = setTimeout(done, 150);
		setTimeout(done, 3000);
	})`); err != nil {
		tb.t.Fatalf("wait for %s to settle: %v", tb.url(), err)
	}
}

// visit shows path: inside the app through its router (as a click on a link would, which keeps axe
// loaded and the test quick), else by loading it.
func (tb *tab) visit(path string) {
	tb.t.Helper()
	inApp, err := tb.p.Timeout(5*time.Second).Eval(`(path) => {
		if (!document.getElementById('app') || path.startsWith('/oauth/')) return false;
		history.pushState(null, '', path);
		dispatchEvent(new PopStateEvent('popstate'));
		return true;
	}`, path)
	if err != nil || !inApp.Value.Bool() {
		tb.open(path)
	}
}

// a11yPage is one visit: path and the heading that says it rendered.
type a11yPage struct{ name, path, heading string }

// The passes run as three tests, each with its own server and browser, so that none runs long: axe
// with the navigation checks, the phone width, and dark mode.
func TestPortalAccessibilityInChromium(t *testing.T) {
	t.Parallel()
	portalA11y(t, "axe on every page", "the navigation drawer on a phone", "a skip link to the main content", "a plain member sees no admin entries")
}

func TestPortalOnAPhoneInChromium(t *testing.T) {
	t.Parallel()
	portalA11y(t, "no page wider than a phone")
}

func TestPortalDarkModeInChromium(t *testing.T) {
	t.Parallel()
	portalA11y(t, "dark mode: dark background, contrast still passes")
}

// portalA11y sets the portal up with data on every page and runs the named passes.
func portalA11y(t *testing.T, passes ...string) {
	selected := map[string]bool{}
	for _, p := range passes {
		selected[p] = true
	}
	run := func(name string, f func(t *testing.T)) {
		if selected[name] {
			t.Run(name, f)
			delete(selected, name)
		}
	}
	defer func() {
		if len(selected) > 0 {
			t.Errorf("no such pass: %v", selected)
		}
	}()
	browser := launchChromium(t)
	axeSrc := axeSource(t)
	started := time.Now()

	const tok = "tok-a11y-remote-1234"
	remote := connectorstest.NewRemote(t, tok)
	conDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(conDir, "remote"), 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := fmt.Sprintf(`{"slug":"remote","display_name":"Remote","description":"A remote MCP server in the test.","endpoint":{"url":%q},"auth":{"kind":"token","fields":[{"name":"token","label":"Access token","secret":true}]}}`, remote.URL())
	if err := os.WriteFile(filepath.Join(conDir, "remote", "connector.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	plugDir := t.TempDir()
	writeBeaconPlugin(t, plugDir)
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{
		"PLUGINS_DIR": plugDir, "CONNECTORS_DIR": conDir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true",
	}, slog.LevelWarn)
	tb := openTab(t, browser, srv.Base)
	tb.open(strings.TrimPrefix(startupSignInLink(t, srv), srv.Base))
	tb.waitURL(`^/$`)

	// Some data on every page: an organisation with a guild and an agent, an API-key integration
	// connected, a connector login, an invitation, the API key.
	api := func(method, path string, body any) map[string]any {
		t.Helper()
		b, _ := json.Marshal(body)
		res, err := tb.p.Timeout(10*time.Second).Eval(`async (method, path, body) => {
			const r = await fetch(path, {method, headers: {'Content-Type': 'application/json', 'X-Workbench-CSRF': '1'}, body: body === 'null' ? undefined : body});
			return JSON.stringify({status: r.status, body: await r.text()});
		}`, method, path, string(b))
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		var out struct {
			Status int
			Body   string
		}
		_ = json.Unmarshal([]byte(res.Value.Str()), &out)
		if out.Status >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, out.Status, out.Body)
		}
		m := map[string]any{}
		_ = json.Unmarshal([]byte(out.Body), &m)
		return m
	}
	org, _ := api("POST", "/api/orgs", map[string]string{"name": "Acme"})["id"].(string)
	if org == "" {
		t.Fatal("the organisation was not created")
	}
	guild, _ := api("POST", "/api/orgs/"+org+"/guilds", map[string]string{"name": "Research"})["id"].(string)
	if guild == "" {
		page := api("GET", "/api/orgs/"+org, nil)
		gs, _ := page["guilds"].([]any)
		if len(gs) > 0 {
			guild, _ = gs[0].(map[string]any)["id"].(string)
		}
	}
	if guild == "" {
		t.Fatal("the guild was not created")
	}
	api("POST", "/api/orgs/"+org+"/agents", map[string]string{"name": "crawler", "guild_id": guild})
	api("POST", "/api/orgs/"+org+"/members", map[string]string{"email": "carol@example.com", "role": "member"})
	api("POST", "/api/integrations/beacon/apikey", map[string]any{"fields": map[string]string{"api_key": "bk_live_1234"}})
	api("POST", "/api/apikey", nil)
	tb.open("/connectors")
	tb.click(`article[data-server=mcp_remote] [data-testid=connect]`, "")
	if err := tb.el(`[data-testid=connect-form] [data-testid=field-token]`, "").Input(tok); err != nil {
		t.Fatal(err)
	}
	tb.click(`[data-testid=connect-submit]`, "")
	tb.el(`.notice-success`, `Remote is connected`)

	pages := []a11yPage{
		{"integrations", "/integrations", `^Integrations$`},
		{"home", "/", `^Integrations$`},
		{"connectors", "/connectors", `^Connectors$`},
		{"approvals", "/approvals", `^Approvals$`},
		{"approval", "/approvals/" + uuid.NewString(), `^Approve a tool call$`},
		{"toolsets", "/toolsets", `^Toolsets$`},
		{"try", "/try", `^Try a tool$`},
		{"key", "/key", `^API key$`},
		{"clients", "/clients", `^MCP clients$`},
		{"activity", "/activity", `^Activity$`},
		{"receipts", "/receipts", `^Usage receipts$`},
		{"audit", "/audit", `^Audit$`},
		{"orgs", "/orgs", `^Organisations$`},
		{"invitations", "/invitations", `^Invitations$`},
		{"org", "/orgs/" + org, `^Acme$`},
		{"guild", "/orgs/" + org + "/guilds/" + guild, `^Research$`},
		{"connect", "/connect/not-a-real.link", `^Connect an integration$`},
		{"live", "/portal/browser/live?t=not-a-real-link&integration=beacon", `^Live browser$`},
		{"admin-catalog", "/admin/catalog", `^Connector catalog$`},
		{"admin-keys", "/admin/platform-keys", `^Platform keys$`},
		{"admin-caps", "/admin/caps", `^Caps usage$`},
		{"admin-registry", "/admin/registry", `^Install from registry$`},
		{"not-found", "/no/such/page", `^There is no page here$`},
	}

	// counts is what axe found per impact over every page of a pass (violated rules × pages, and
	// the nodes they name).
	type counts struct {
		rules, nodes map[string]int
		ids          map[string]map[string]bool
	}
	report := func(t *testing.T, pass, page string, res axeResult, c counts, fail bool) {
		t.Helper()
		for _, v := range res.Violations {
			c.rules[v.Impact]++
			if c.ids[v.Impact] == nil {
				c.ids[v.Impact] = map[string]bool{}
			}
			c.ids[v.Impact][v.ID] = true
			c.nodes[v.Impact] += len(v.Nodes)
			if v.Impact != "serious" && v.Impact != "critical" {
				continue
			}
			var where []string
			for i, n := range v.Nodes {
				if i == 5 {
					where = append(where, fmt.Sprintf("… %d more", len(v.Nodes)-5))
					break
				}
				where = append(where, fmt.Sprintf("%v %.120s", n.Target, n.HTML))
			}
			msg := fmt.Sprintf("%s %s: %s %s (%s):\n\t%s", pass, page, v.Impact, v.ID, v.Help, strings.Join(where, "\n\t"))
			if fail {
				t.Error(msg)
			} else {
				t.Log(msg)
			}
		}
	}
	logCounts := func(t *testing.T, pass string, c counts) {
		var keys []string
		for k := range c.rules {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			var ids []string
			for id := range c.ids[k] {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			parts = append(parts, fmt.Sprintf("%s %d (%d nodes: %s)", k, c.rules[k], c.nodes[k], strings.Join(ids, " ")))
		}
		t.Logf("axe, %s: %d pages; violations by impact: %s", pass, len(pages)+1, strings.Join(parts, ", "))
	}
	consent := consentPath(t, srv.Base)
	pages = append(pages, a11yPage{"oauth-consent", consent, `^Allow Claude Desktop to use your Workbench\?$`})
	// The sign-in page is seen signed out: a second tab in a browser context of its own.
	incognito, err := browser.Incognito()
	if err != nil {
		t.Fatal(err)
	}
	anon := openTab(t, incognito, srv.Base)
	signin := a11yPage{"signin", "/signin", `^Sign in to Workbench$`}
	checkRoutesCovered(t, append([]a11yPage{signin}, pages...))
	tabs := []*tab{tb, anon}
	// each visits every page (the sign-in page in the signed-out tab) and runs check on it.
	each := func(t *testing.T, check func(tb *tab, pg a11yPage)) {
		t.Helper()
		for _, x := range tabs {
			x.t = t
		}
		for _, pg := range append([]a11yPage{signin}, pages...) {
			x := tb
			if pg == signin {
				x = anon
			}
			x.visit(pg.path)
			x.settle(pg.heading)
			check(x, pg)
		}
	}
	viewport := func(t *testing.T, w, h int, mobile bool) {
		for _, x := range tabs {
			if err := x.p.SetViewport(&proto.EmulationSetDeviceMetricsOverride{Width: w, Height: h, DeviceScaleFactor: 1, Mobile: mobile}); err != nil {
				t.Fatal(err)
			}
		}
	}

	run("axe on every page", func(t *testing.T) {
		c := counts{map[string]int{}, map[string]int{}, map[string]map[string]bool{}}
		each(t, func(tb *tab, pg a11yPage) {
			report(t, "desktop", pg.name, tb.axe(axeSrc), c, true)
			// A real label (or aria-labelledby) for every field, closed <details> included; an
			// aria-label is enough only where no placeholder stands in for a visible label, or in a
			// table cell, whose column header is the visible label.
			res, err := tb.p.Timeout(10 * time.Second).Eval(`() => JSON.stringify([...document.querySelectorAll('input, select, textarea')]
				.filter((e) => e.type !== 'hidden' && e.getClientRects().length > 0)
				.filter((e) => !(e.labels && e.labels.length) && !e.getAttribute('aria-labelledby') && !((e.getAttribute('aria-label') || '').trim() && (!e.getAttribute('placeholder') || e.closest('td'))))
				.map((e) => e.outerHTML.slice(0, 160)))`)
			if err != nil {
				t.Fatalf("the fields of %s: %v", pg.name, err)
			}
			var unlabelled []string
			_ = json.Unmarshal([]byte(res.Value.Str()), &unlabelled)
			for _, f := range unlabelled {
				t.Errorf("%s: a field with no label (a placeholder is not one): %s", pg.name, f)
			}
		})
		logCounts(t, "desktop 1280×820, light", c)
	})

	run("no page wider than a phone", func(t *testing.T) {
		viewport(t, 390, 844, true)
		defer viewport(t, 1280, 820, false)
		each(t, func(tb *tab, pg a11yPage) {
			res, err := tb.p.Timeout(10 * time.Second).Eval(`() => {
				const d = document.documentElement;
				const wide = [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > d.clientWidth + 1)
					.slice(0, 5).map((e) => e.tagName.toLowerCase() + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\s+/).join('.') : '') + ' ' + Math.round(e.getBoundingClientRect().right) + 'px');
				return JSON.stringify({scroll: d.scrollWidth, client: d.clientWidth, wide});
			}`)
			if err != nil {
				t.Fatalf("measure %s: %v", pg.name, err)
			}
			var m struct {
				Scroll, Client int
				Wide           []string
			}
			_ = json.Unmarshal([]byte(res.Value.Str()), &m)
			if m.Scroll > m.Client {
				t.Errorf("%s at 390 px scrolls sideways: %d px wide in %d (e.g. %s)", pg.name, m.Scroll, m.Client, strings.Join(m.Wide, ", "))
			}
			if pg.name == "live" {
				// A live link that is not valid stops with the reason and a way back, on the screen
				// (TestLiveViewStatesInChromium checks a live session's frame and controls on a phone).
				tb.waitJS("the refused live view's reason and its way back are on the screen", `() => {
					const cw = document.documentElement.clientWidth;
					return ['live-stopped', 'live-back-link'].every((id) => {
						const r = document.querySelector('[data-testid=' + id + ']')?.getBoundingClientRect();
						return r && r.width > 0 && r.left >= 0 && r.right <= cw;
					});
				}`)
			}
			tb.shot("phone-" + pg.name)
		})
	})

	run("dark mode: dark background, contrast still passes", func(t *testing.T) {
		media := func(features []*proto.EmulationMediaFeature) {
			for _, x := range tabs {
				if err := (proto.EmulationSetEmulatedMedia{Features: features}).Call(x.p); err != nil {
					t.Fatal(err)
				}
			}
		}
		media([]*proto.EmulationMediaFeature{{Name: "prefers-color-scheme", Value: "dark"}})
		defer media([]*proto.EmulationMediaFeature{})
		c := counts{map[string]int{}, map[string]int{}, map[string]map[string]bool{}}
		each(t, func(tb *tab, pg a11yPage) {
			res, err := tb.p.Timeout(10 * time.Second).Eval(`() => {
				const m = getComputedStyle(document.body).backgroundColor.match(/[\d.]+/g).map(Number);
				const lin = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
				return 0.2126 * lin(m[0]) + 0.7152 * lin(m[1]) + 0.0722 * lin(m[2]);
			}`)
			if err != nil {
				t.Fatalf("the background of %s: %v", pg.name, err)
			}
			if l := res.Value.Num(); l > 0.05 {
				t.Errorf("%s in dark mode has a light background (relative luminance %.2f)", pg.name, l)
			}
			report(t, "dark", pg.name, tb.axe(axeSrc, "color-contrast", "link-in-text-block"), c, true)
			if pg.name == "integrations" || pg.name == "oauth-consent" || pg.name == "org" {
				tb.shot("dark-" + pg.name)
			}
		})
		logCounts(t, "dark, colour contrast", c)
	})

	run("the navigation drawer on a phone", func(t *testing.T) {
		tb.t = t
		// On a wide screen there is no Menu button: the sidebar shows the navigation, and fits.
		tb.open("/key")
		tb.settle(`^API key$`)
		tb.waitJS("a wide screen shows the sidebar's navigation and no Menu button", `() => {
			const s = document.querySelector('.sidebar');
			return getComputedStyle(document.querySelector('button[aria-controls=site-nav]')).display === 'none'
				&& document.querySelector('#site-nav a[data-nav=orgs]').getBoundingClientRect().width > 0
				&& s.scrollWidth <= s.clientWidth;
		}`)
		if err := tb.p.SetViewport(&proto.EmulationSetDeviceMetricsOverride{Width: 390, Height: 844, DeviceScaleFactor: 1, Mobile: true}); err != nil {
			t.Fatal(err)
		}
		defer func() {
			_ = tb.p.SetViewport(&proto.EmulationSetDeviceMetricsOverride{Width: 1280, Height: 820, DeviceScaleFactor: 1})
		}()
		tb.open("/key")
		tb.settle(`^API key$`)
		toggle := `button[aria-controls=site-nav]`
		if v, _ := tb.el(toggle, "").Attribute("aria-expanded"); v == nil || *v != "false" {
			t.Fatalf("the menu button's aria-expanded is %v before it is pressed", v)
		}
		visible := func(sel string) bool {
			t.Helper()
			r, err := tb.p.Timeout(5*time.Second).Eval(`(sel) => { const e = document.querySelector(sel); if (!e) return false;
				const b = e.getBoundingClientRect(); return b.width > 0 && b.height > 0 && getComputedStyle(e).visibility !== 'hidden' }`, sel)
			if err != nil {
				t.Fatal(err)
			}
			return r.Value.Bool()
		}
		if visible(`#site-nav a[data-nav=orgs]`) {
			t.Error("the navigation is open before the menu button is pressed")
		}
		tb.click(toggle, "")
		tb.waitJS("the menu button says the drawer is open", `() => document.querySelector('button[aria-controls=site-nav]').getAttribute('aria-expanded') === 'true'`)
		for _, sel := range []string{`#site-nav a[data-nav=orgs]`, `#site-nav a[data-nav=admin-caps]`, `[data-testid=sign-out-everywhere]`} {
			if !visible(sel) {
				t.Errorf("%s is not visible in the open drawer", sel)
			}
		}
		// No two entries look alike: every icon is drawn differently, and every link says its name.
		tb.waitJS("every navigation entry has an icon of its own and a visible name", `() => {
			const links = [...document.querySelectorAll('#site-nav nav a')];
			const icons = new Set(links.map((a) => a.querySelector('svg').innerHTML));
			return links.length >= 14 && icons.size === links.length && links.every((a) => a.textContent.trim() !== '' && a.getBoundingClientRect().width > 0);
		}`)
		tb.waitJS("focus moves into the drawer", `() => document.getElementById('site-nav').contains(document.activeElement)`)
		tb.shot("phone-drawer")
		if err := tb.p.Keyboard.Type(input.Escape); err != nil {
			t.Fatal(err)
		}
		tb.waitJS("Escape closes the drawer and gives focus back to its button", `() => {
			const b = document.querySelector('button[aria-controls=site-nav]');
			return b.getAttribute('aria-expanded') === 'false' && document.activeElement === b }`)
		if visible(`#site-nav a[data-nav=orgs]`) {
			t.Error("the navigation is still shown after Escape")
		}
		// A link in the drawer goes to its page and closes the drawer.
		tb.click(toggle, "")
		tb.click(`#site-nav a[data-nav=orgs]`, "")
		tb.waitURL(`^/orgs$`)
		tb.settle(`^Organisations$`)
		if v, _ := tb.el(toggle, "").Attribute("aria-expanded"); v == nil || *v != "false" {
			t.Errorf("the drawer stays open after following a link: aria-expanded %v", v)
		}
	})

	run("a skip link to the main content", func(t *testing.T) {
		tb.t = t
		tb.open("/key")
		tb.settle(`^API key$`)
		if err := tb.p.Keyboard.Type(input.Tab); err != nil {
			t.Fatal(err)
		}
		tb.waitJS("the first Tab lands on a visible skip link to #main", `() => {
			const a = document.activeElement;
			return a && a.tagName === 'A' && a.getAttribute('href') === '#main' && a.getBoundingClientRect().height > 0 }`)
		if err := tb.p.Keyboard.Type(input.Enter); err != nil {
			t.Fatal(err)
		}
		tb.waitJS("the skip link moves focus into the main content", `() => document.getElementById('main').contains(document.activeElement)`)
	})

	run("a plain member sees no admin entries", func(t *testing.T) {
		tb.t = t
		bob := srv.user(t, "bob@example.com")
		tb.signIn(srv, bob.ID)
		tb.open("/key")
		tb.settle(`^API key$`)
		for _, id := range []string{"admin-catalog", "admin", "admin-caps", "admin-registry"} {
			if has, _, _ := tb.p.Has(`nav a[data-nav=` + id + `]`); has {
				t.Errorf("a member's navigation offers %s", id)
			}
		}
		tb.open("/admin/caps")
		tb.settle(`.`)
		report(t, "member", "admin-caps", tb.axe(axeSrc), counts{map[string]int{}, map[string]int{}, map[string]map[string]bool{}}, true)
	})
	tb.t = t
	t.Logf("the accessibility checks took %s", time.Since(started).Round(time.Second))
}

// checkRoutesCovered fails when a route of app.js's ROUTES has no page in pages, or a page matches
// none: a new route must be added here.
func checkRoutesCovered(t *testing.T, pages []a11yPage) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "portal", "static", "assets", "app.js"))
	if err != nil {
		t.Fatal(err)
	}
	found := regexp.MustCompile(`\{ re: /(.+?)/, page:`).FindAllStringSubmatch(string(src), -1)
	if len(found) < 10 {
		t.Fatalf("found %d routes in app.js; did ROUTES change shape?", len(found))
	}
	var routes []*regexp.Regexp
	for _, m := range found {
		routes = append(routes, regexp.MustCompile(strings.ReplaceAll(m[1], `\/`, `/`)))
	}
	for _, re := range routes {
		covered := false
		for _, pg := range pages {
			u, _ := url.Parse(pg.path)
			if re.MatchString(u.Path) {
				covered = true
			}
		}
		if !covered {
			t.Errorf("the route %s of app.js is not visited by the accessibility test", re)
		}
	}
}

// consentPath registers an OAuth client and returns the authorization request that shows the
// consent page to the signed-in browser.
func consentPath(t *testing.T, base string) string {
	t.Helper()
	const redirect = "http://127.0.0.1:1/callback"
	reg, _ := json.Marshal(map[string]any{"client_name": "Claude Desktop", "redirect_uris": []string{redirect},
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}, "token_endpoint_auth_method": "none"})
	resp, err := http.Post(base+"/oauth/register", "application/json", strings.NewReader(string(reg)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var client struct {
		ClientID string `json:"client_id"`
	}
	if resp.StatusCode != http.StatusCreated || json.NewDecoder(resp.Body).Decode(&client) != nil || client.ClientID == "" {
		t.Fatalf("register: %d", resp.StatusCode)
	}
	q := url.Values{"response_type": {"code"}, "client_id": {client.ClientID}, "redirect_uri": {redirect},
		"code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"}, "code_challenge_method": {"S256"},
		"state": {"s-" + uuid.NewString()}, "scope": {"mcp offline_access"}, "resource": {base + "/mcp"}}
	return "/oauth/authorize?" + q.Encode()
}
