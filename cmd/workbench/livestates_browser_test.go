package main

// The live view's states (issue 30, item 7) in real headless Chromium, with the server's own Chromium
// as the user's browser session: a forged link stops at once with the server's reason and a way back
// (no broken screen, no endless "Reconnecting…"), as does another account's link (403); a cookie
// sign-in started from the Integrations card opens the integration's own sign-in page
// (auth.cookie.signin_url) under its display name, not its slug; a banner says who is in control as it
// changes hands; and Back, Forward and Reload drive the browser's history.

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-rod/rod"
)

func TestLiveViewStatesInChromium(t *testing.T) {
	t.Parallel()
	human := launchChromium(t)
	bin := os.Getenv("WORKBENCH_CHROMIUM")
	if bin == "" {
		bin = "/usr/bin/chromium"
	}
	var homes atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Intranet sign-in</title><h1>Sign in</h1>`)
	})
	mux.HandleFunc("GET /home", func(w http.ResponseWriter, r *http.Request) {
		homes.Add(1)
		fmt.Fprint(w, `<!doctype html><title>Intranet</title><h1>Home</h1>`)
	})
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	plugDir := t.TempDir()
	d := filepath.Join(plugDir, "intranet")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := fmt.Sprintf(`{"name":"intranet","version":"1.0.0","display_name":"Acme Intranet","description":"A test cookie integration.",
		"base_url":%q,"auth":{"mode":"cookie","cookie":{"domains":["127.0.0.1"],"signin_url":%q}}}`, site.URL, site.URL+"/login")
	for name, body := range map[string]string{"manifest.json": manifest, "tools.json": `[]`} {
		if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{
		"PLUGINS_DIR": plugDir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true", "WORKBENCH_CHROMIUM": bin,
	}, slog.LevelWarn)
	ada, bob := srv.user(t, "ada@example.com"), srv.user(t, "bob@example.com")

	// A forged link: the page stops with the server's reason and a link back; it never streams.
	tb := openTab(t, human, srv.Base)
	tb.signIn(srv, ada.ID)
	tb.open("/portal/browser/live?t=forged-token&integration=intranet")
	tb.el(`[data-testid=live-stopped] .notice-error`, `cannot be opened`)
	tb.el(`[data-testid=live-stopped] .notice-body`, `^The live-view link is not valid\. Ask your agent for a new link`)
	tb.el(`[data-testid=live-back-link][href="/integrations"]`, `Back to Integrations`)
	for _, sel := range []string{`[data-testid=live-screen]`, `[data-testid=live-status] .notice-warning`} {
		if has, _, err := tb.page().Has(sel); err != nil || has {
			t.Fatalf("a forged link's page shows %s (%v)", sel, err)
		}
	}
	tb.shot("live-forged")
	tb.click(`[data-testid=live-back-link]`, "")
	tb.waitURL(`^/integrations$`)

	// The cookie sign-in from the card: the browser opens the integration's sign-in page, and the view
	// is titled with its display name.
	tb.click(`article[data-integration=intranet] [data-testid=connect]`, `Sign in live`)
	tb.waitURL(`^/portal/browser/live\?t=[^&]+&integration=intranet$`)
	tb.el(`h1`, `^Sign in to Acme Intranet$`)
	tb.waitJS("the tab titled with the display name", `() => document.title === 'Sign in to Acme Intranet · Workbench'`)
	urlIs := func(want string) {
		t.Helper()
		if err := tb.page().Wait(rod.Eval(`(want) => { const u = document.querySelector('[data-testid=live-url]'); return !!u && u.value === want && u.dataset.loading === 'false'; }`, want)); err != nil {
			got, _ := tb.p.Timeout(2 * time.Second).Eval(`() => { const u = document.querySelector('[data-testid=live-url]'); return u ? u.value + ' loading=' + u.dataset.loading : 'none'; }`)
			var bar string
			if got != nil {
				bar = got.Value.String()
			}
			t.Fatalf("the URL bar never read %s, loaded (%v): it reads %s", want, err, bar)
		}
	}
	urlIs(site.URL + "/login")
	tb.el(`img[data-frames]`, "")
	tb.el(`[data-testid=live-controller][data-who=you]`, `You are in control`)
	tb.shot("live-signin-page")

	ownLink := strings.TrimPrefix(tb.url(), srv.Base)

	// Back, Forward and Reload.
	bar := tb.el(`[data-testid=live-url]`, "")
	if err := bar.SelectAllText(); err != nil {
		t.Fatal(err)
	}
	if err := bar.Input(site.URL + "/home"); err != nil {
		t.Fatal(err)
	}
	tb.click(`[data-testid=live-go]`, "")
	urlIs(site.URL + "/home")
	tb.click(`[data-testid=live-back]`, "")
	urlIs(site.URL + "/login")
	tb.click(`[data-testid=live-forward]`, "")
	urlIs(site.URL + "/home")
	before := homes.Load()
	tb.click(`[data-testid=live-reload]`, "")
	deadline := time.Now().Add(20 * time.Second)
	for homes.Load() == before {
		if time.Now().After(deadline) {
			t.Fatalf("Reload did not load /home again (%d loads)", before)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// Control changes hands, and the banner says so.
	tb.click(`[data-testid=live-control]`, `Give control back`)
	tb.el(`[data-testid=live-controller][data-who=agent]`, `Your agent is in control`)
	tb.shot("live-agent-in-control")
	tb.click(`[data-testid=live-control]`, `Take control`)
	tb.el(`[data-testid=live-controller][data-who=you]`, `You are in control`)

	// On a phone the live view takes the screen's width, its frame is drawn large enough to read (it
	// scrolls inside its card), and the address bar and every control stay on the screen.
	tb.phone()
	tb.waitJS("the live view on a phone fills the width with a readable frame and its controls on screen", `() => {
		const cw = document.documentElement.clientWidth;
		const card = document.querySelector('.card.live').getBoundingClientRect();
		const frame = document.querySelector('[data-testid=live-screen]').getBoundingClientRect();
		const onScreen = ['live-url', 'live-go', 'live-back', 'live-forward', 'live-reload', 'live-control', 'live-reset'].every((id) => {
			const r = document.querySelector('[data-testid=' + id + ']').getBoundingClientRect();
			return r.width > 0 && r.left >= 0 && r.right <= cw;
		});
		return card.width >= cw - 24 && frame.width >= 600 && onScreen;
	}`)
	tb.fits("the live view on a phone")
	tb.shot("live-phone")

	// Another account's link, opened in a browser signed in as bob: 403, said so, and stopped.
	incognito, err := human.Incognito()
	if err != nil {
		t.Fatal(err)
	}
	tb2 := openTab(t, incognito, srv.Base)
	tb2.signIn(srv, bob.ID)
	tb2.open(ownLink)
	tb2.el(`[data-testid=live-stopped] .notice-error`, `not yours`)
}
