package portal

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func newHandler(t *testing.T) http.Handler {
	t.Helper()
	h, err := Handler(nil)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func serve(h http.Handler, method, target string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	return rec
}

// assetVersion reads the assets' version from the served index.html.
func assetVersion(t *testing.T, h http.Handler) string {
	t.Helper()
	body := serve(h, http.MethodGet, "/").Body.String()
	m := regexp.MustCompile(`/assets/([0-9a-f]{12})/app\.js`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("index.html names no versioned app.js:\n%s", body)
	}
	return m[1]
}

func TestRoutes(t *testing.T) {
	h := newHandler(t)
	v := assetVersion(t, h)
	const token = "eyJhIjoiMSJ9.c2lnbmF0dXJlLW9mLTMyLWJ5dGVzLWJhc2U2NHVybA"
	tests := []struct {
		name        string
		method      string
		path        string
		status      int
		contentType string // prefix
		contains    string
	}{
		{"root is the app", "GET", "/", 200, "text/html", `<div id="app"`},
		{"a client route is the app", "GET", "/integrations", 200, "text/html", `<div id="app"`},
		{"a nested client route is the app", "GET", "/some/deep/route", 200, "text/html", `<div id="app"`},
		{"query strings do not matter", "GET", "/?connected=acme", 200, "text/html", `<div id="app"`},
		{"sign-in with next", "GET", "/signin?next=%2Foauth%2Fauthorize%3Fclient_id%3Dx", 200, "text/html", `<div id="app"`},
		{"HEAD of a client route", "HEAD", "/key", 200, "text/html", ""},
		{"a claim link whose token holds a dot", "GET", "/connect/" + token, 200, "text/html", `<div id="app"`},
		{"a client route named like the MCP path", "GET", "/mcp-clients", 200, "text/html", `<div id="app"`},
		{"an approval's page, the link an agent is given", "GET", "/approvals/0b7e2c1a-4f3d-4c8e-9a51-6d2f0e8b7c34", 200, "text/html", `<div id="app"`},
		{"the approvals page module", "GET", "/assets/" + v + "/pages/approvals.js", 200, "text/javascript", "export const one"},
		{"unknown API path is JSON", "GET", "/api/nope", 404, "application/json", `"not_found"`},
		{"unknown API POST is JSON", "POST", "/api/apikey/nope", 404, "application/json", `"not_found"`},
		{"MCP endpoint", "GET", "/mcp", 404, "text/plain", "404"},
		{"under MCP", "GET", "/mcp/x", 404, "text/plain", "404"},
		{"OAuth", "GET", "/oauth/authorize", 404, "text/plain", "404"},
		{"well-known", "GET", "/.well-known/oauth-authorization-server", 404, "text/plain", "404"},
		{"jots", "GET", "/j/site/", 404, "text/plain", "404"},
		{"curl sessions", "GET", "/c/abc", 404, "text/plain", "404"},
		{"sign-in links", "GET", "/auth/link/abc", 404, "text/plain", "404"},
		{"bare reserved name", "GET", "/auth", 404, "text/plain", "404"},
		{"a file that is not there", "GET", "/favicon.ico", 404, "text/plain", "404"},
		{"a file in a folder", "GET", "/static/app.js", 404, "text/plain", "404"},
		{"a claim link with a further segment", "GET", "/connect/a.b/c.js", 404, "text/plain", "404"},
		{"POST to a client route", "POST", "/integrations", 405, "text/plain", "405"},
		{"the versioned app module", "GET", "/assets/" + v + "/app.js", 200, "text/javascript", "import "},
		{"a page module", "GET", "/assets/" + v + "/pages/apikey.js", 200, "text/javascript", "export async function render"},
		{"the stylesheet", "GET", "/assets/" + v + "/style.css", 200, "text/css", "--accent"},
		{"the icon", "GET", "/assets/" + v + "/favicon.svg", 200, "image/svg+xml", "<svg"},
		{"an asset that is not there", "GET", "/assets/" + v + "/nope.js", 404, "text/plain", "404"},
		{"an asset path escaping", "GET", "/assets/" + v + "/../index.html", 404, "text/plain", "404"},
		{"no version", "GET", "/assets/app.js", 404, "text/plain", "404"},
		{"POST to an asset", "POST", "/assets/" + v + "/app.js", 405, "text/plain", "405"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := serve(h, tt.method, tt.path)
			if rec.Code != tt.status {
				t.Fatalf("%s %s: status %d, want %d\n%s", tt.method, tt.path, rec.Code, tt.status, rec.Body.String())
			}
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, tt.contentType) {
				t.Errorf("Content-Type %q, want %s…", ct, tt.contentType)
			}
			if !strings.Contains(rec.Body.String(), tt.contains) {
				t.Errorf("body lacks %q:\n%.300s", tt.contains, rec.Body.String())
			}
			if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Error("no X-Content-Type-Options: nosniff")
			}
			if rec.Header().Get("Content-Security-Policy") != ContentSecurityPolicy {
				t.Errorf("CSP %q", rec.Header().Get("Content-Security-Policy"))
			}
		})
	}
}

func TestAPINotFoundIsTheErrorShape(t *testing.T) {
	rec := serve(newHandler(t), http.MethodDelete, "/api/mcp-clients/x/y")
	var body struct{ Error, Message string }
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Error != "not_found" || !strings.Contains(body.Message, "/api/mcp-clients/x/y") {
		t.Fatalf("body %q (%v)", rec.Body.String(), err)
	}
}

func TestCaching(t *testing.T) {
	h := newHandler(t)
	v := assetVersion(t, h)
	tests := []struct {
		name, path, cache string
	}{
		{"index.html is revalidated every time", "/", "no-cache"},
		{"a client route too", "/activity", "no-cache"},
		{"a current asset is immutable", "/assets/" + v + "/app.js", "public, max-age=31536000, immutable"},
		{"an older build's asset is not kept", "/assets/000000000000/app.js", "no-cache"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := serve(h, http.MethodGet, tt.path)
			if rec.Code != 200 || rec.Header().Get("Cache-Control") != tt.cache {
				t.Fatalf("%s: %d, Cache-Control %q, want %q", tt.path, rec.Code, rec.Header().Get("Cache-Control"), tt.cache)
			}
		})
	}
	// An asset answers a conditional request by its ETag.
	first := serve(h, http.MethodGet, "/assets/"+v+"/style.css")
	req := httptest.NewRequest(http.MethodGet, "/assets/"+v+"/style.css", nil)
	req.Header.Set("If-None-Match", first.Header().Get("ETag"))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if first.Header().Get("ETag") == "" || rec.Code != http.StatusNotModified {
		t.Fatalf("conditional GET: ETag %q, status %d", first.Header().Get("ETag"), rec.Code)
	}
}

func TestSecurityHeaders(t *testing.T) {
	rec := serve(newHandler(t), http.MethodGet, "/connect/a.b")
	for _, want := range []string{"default-src 'self'", "frame-ancestors 'none'", "script-src 'self'", "object-src 'none'", "require-trusted-types-for 'script'"} {
		if !strings.Contains(rec.Header().Get("Content-Security-Policy"), want) {
			t.Errorf("CSP lacks %s", want)
		}
	}
	if strings.Contains(rec.Header().Get("Content-Security-Policy"), "unsafe") {
		t.Error("CSP allows something unsafe")
	}
	for k, want := range map[string]string{"Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"} {
		if got := rec.Header().Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}

// TestIndexHasNoInlineScript keeps the page loadable under script-src 'self': every script is a
// module file, and no element carries an inline handler.
func TestIndexHasNoInlineScript(t *testing.T) {
	body, _ := io.ReadAll(serve(newHandler(t), http.MethodGet, "/").Body)
	for _, m := range regexp.MustCompile(`(?is)<script([^>]*)>(.*?)</script>`).FindAllStringSubmatch(string(body), -1) {
		if !strings.Contains(m[1], "src=") || strings.TrimSpace(m[2]) != "" {
			t.Errorf("inline script: %s", m[0])
		}
	}
	if regexp.MustCompile(`(?i)\son[a-z]+=`).Match(body) || strings.Contains(string(body), "<style") {
		t.Error("index.html has an inline handler or style")
	}
}

// TestAppWritesNoHTMLStrings keeps the app within its Trusted Types policy of none: no module
// assigns markup as a string.
func TestAppWritesNoHTMLStrings(t *testing.T) {
	h := newHandler(t)
	v := assetVersion(t, h)
	sink := regexp.MustCompile(`\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|\beval\(|new Function\(`)
	for name := range h.(*handler).assets {
		if !strings.HasSuffix(name, ".js") {
			continue
		}
		body := serve(h, http.MethodGet, "/assets/"+v+"/"+name).Body.String()
		if loc := sink.FindStringIndex(body); loc != nil {
			t.Errorf("%s writes HTML as a string: %q", name, body[loc[0]:loc[1]])
		}
	}
}

func TestIsClientRoute(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"/", true},
		{"/clients", true},
		{"/connect/abc.def", true},
		{"/connect/", true},
		{"/mcp", false},
		{"/mcpx", true},
		{"/api", false},
		{"/api/", false},
		{"/robots.txt", false},
		{"//evil.example", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := IsClientRoute(tt.path); got != tt.want {
			t.Errorf("IsClientRoute(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}
