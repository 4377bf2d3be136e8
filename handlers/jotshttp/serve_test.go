package jotshttp_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workbench/workbench/app/jots"
	"github.com/workbench/workbench/app/jots/jotstest"
	"github.com/workbench/workbench/domain"

	"github.com/workbench/workbench/handlers/jotshttp"
)

func sandboxed(t *testing.T, r response) {
	t.Helper()
	if got := r.Header.Get("Content-Security-Policy"); got != jotshttp.SandboxCSP || strings.Contains(got, "allow-same-origin") {
		t.Errorf("%s: CSP %q", r.Request.URL.Path, got)
	}
	if r.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("%s: no nosniff", r.Request.URL.Path)
	}
}

func TestServing(t *testing.T) {
	h := newHost(t, jots.Options{}, jotshttp.Options{}, nil)
	h.deploy(t, "site", jots.SettingsInput{},
		jotstest.File{Path: "index.html", Body: "<h1>home</h1>"},
		jotstest.File{Path: "docs/index.html", Body: "<h1>docs</h1>"},
		jotstest.File{Path: "app.js", Body: "console.log(1)"},
		jotstest.File{Path: "style.css", Body: "h1{}"},
		jotstest.File{Path: "data.json", Body: `{"a":1}`},
		jotstest.File{Path: "logo.svg", Body: "<svg/>"},
		jotstest.File{Path: "blob.bin", Body: "<script>alert(1)</script>"},
	)
	cases := []struct {
		name, path, status, contentType, body string
	}{
		{"root serves index.html", "/j/site/", "200", "text/html; charset=utf-8", "<h1>home</h1>"},
		{"a directory serves its index.html", "/j/site/docs/", "200", "text/html; charset=utf-8", "<h1>docs</h1>"},
		{"javascript", "/j/site/app.js", "200", "text/javascript; charset=utf-8", "console.log(1)"},
		{"css", "/j/site/style.css", "200", "text/css; charset=utf-8", "h1{}"},
		{"json", "/j/site/data.json", "200", "application/json", `{"a":1}`},
		{"svg", "/j/site/logo.svg", "200", "image/svg+xml", "<svg/>"},
		{"unknown extension is never sniffed", "/j/site/blob.bin", "200", "application/octet-stream", "<script>alert(1)</script>"},
		{"missing file", "/j/site/nope.html", "404", "text/plain; charset=utf-8", "not found\n"},
		{"unknown jot", "/j/nosuch/", "404", "text/plain; charset=utf-8", "no such jot\n"},
		{"encoded traversal", "/j/site/%2e%2e/%2e%2e/etc/passwd", "404", "text/plain; charset=utf-8", "not found\n"},
		{"encoded slash traversal", "/j/site/..%2f..%2fsecret", "404", "text/plain; charset=utf-8", "not found\n"},
		{"bad name", "/j/Bad_Name/", "404", "text/plain; charset=utf-8", "no such jot\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := h.get(t, tc.path, nil)
			if got := r.Status[:3]; got != tc.status || r.Header.Get("Content-Type") != tc.contentType || r.body != tc.body {
				t.Errorf("got %s %q %q", r.Status, r.Header.Get("Content-Type"), r.body)
			}
			sandboxed(t, r)
		})
	}

	t.Run("the bare name redirects to the root", func(t *testing.T) {
		r := h.get(t, "/j/site", nil)
		if r.StatusCode != http.StatusMovedPermanently || r.Header.Get("Location") != "/j/site/" {
			t.Errorf("got %s to %q", r.Status, r.Header.Get("Location"))
		}
	})
	t.Run("etag and revalidation", func(t *testing.T) {
		r := h.get(t, "/j/site/app.js", nil)
		etag := `"` + jots.SumOf([]byte("console.log(1)")) + `"`
		if r.Header.Get("ETag") != etag || r.Header.Get("Cache-Control") != "no-cache" {
			t.Fatalf("etag %q cache %q", r.Header.Get("ETag"), r.Header.Get("Cache-Control"))
		}
		for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
			r := h.get(t, "/j/site/app.js", http.Header{"If-None-Match": {inm}})
			if r.StatusCode != http.StatusNotModified || r.body != "" || r.Header.Get("ETag") != etag {
				t.Errorf("If-None-Match %s: %s %q", inm, r.Status, r.body)
			}
			sandboxed(t, r)
		}
		if r := h.get(t, "/j/site/app.js", http.Header{"If-None-Match": {`"stale"`}}); r.StatusCode != http.StatusOK {
			t.Errorf("stale etag: %s", r.Status)
		}
	})
	t.Run("a redeploy changes the etag", func(t *testing.T) {
		if _, err := h.Service.Update(h.Ctx, alice, "site", []jots.FileInput{{Path: "app.js", Body: []byte("console.log(2)")}}, jots.SettingsInput{}, md); err != nil {
			t.Fatal(err)
		}
		r := h.get(t, "/j/site/app.js", http.Header{"If-None-Match": {`"` + jots.SumOf([]byte("console.log(1)")) + `"`}})
		if r.StatusCode != http.StatusOK || r.body != "console.log(2)" {
			t.Errorf("got %s %q", r.Status, r.body)
		}
	})
	t.Run("head and ranges", func(t *testing.T) {
		r := h.do(t, http.MethodHead, "/j/site/", "", nil, nil)
		if r.StatusCode != 200 || r.body != "" || r.Header.Get("Content-Length") != "13" {
			t.Errorf("HEAD: %s %q len %q", r.Status, r.body, r.Header.Get("Content-Length"))
		}
		r = h.get(t, "/j/site/", http.Header{"Range": {"bytes=1-2"}})
		if r.StatusCode != http.StatusPartialContent || r.body != "h1" {
			t.Errorf("range: %s %q", r.Status, r.body)
		}
	})
	t.Run("other methods", func(t *testing.T) {
		for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodOptions} {
			if r := h.do(t, m, "/j/site/", "", nil, nil); r.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("%s: %s", m, r.Status)
			}
		}
	})
	t.Run("no cors without cors", func(t *testing.T) {
		if r := h.get(t, "/j/site/data.json", http.Header{"Origin": {"null"}}); r.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("ACAO %q", r.Header.Get("Access-Control-Allow-Origin"))
		}
	})
}

func TestCORS(t *testing.T) {
	h := newHost(t, jots.Options{}, jotshttp.Options{}, nil)
	yes := true
	h.deploy(t, "open", jots.SettingsInput{CORS: &yes}, jotstest.File{Path: "data.json", Body: "[]"})
	r := h.get(t, "/j/open/data.json", http.Header{"Origin": {"null"}})
	if r.Header.Get("Access-Control-Allow-Origin") != "*" || r.Header.Get("Access-Control-Allow-Credentials") != "" {
		t.Errorf("ACAO %q ACAC %q", r.Header.Get("Access-Control-Allow-Origin"), r.Header.Get("Access-Control-Allow-Credentials"))
	}
	sandboxed(t, r) // cors does not weaken the sandbox
	r = h.do(t, http.MethodOptions, "/j/open/data.json", "", nil, http.Header{"Origin": {"null"}, "Access-Control-Request-Method": {"GET"}})
	if r.StatusCode != http.StatusNoContent || r.Header.Get("Access-Control-Allow-Methods") != "GET, HEAD" {
		t.Errorf("preflight %s %q", r.Status, r.Header.Get("Access-Control-Allow-Methods"))
	}
}

func TestPasswordGate(t *testing.T) {
	now := time.Now()
	clock := func() time.Time { return now }
	h := newHost(t, jots.Options{}, jotshttp.Options{Now: clock, CookieTTL: time.Hour}, nil)
	pw := "open sesame"
	h.deploy(t, "secret", jots.SettingsInput{Password: &pw}, jotstest.File{Path: "index.html", Body: "the secret"}, jotstest.File{Path: "a.css", Body: "x"})
	h.deploy(t, "other", jots.SettingsInput{Password: &pw}, jotstest.File{Path: "index.html", Body: "other secret"})

	r := h.get(t, "/j/secret/", nil)
	if r.StatusCode != http.StatusUnauthorized || !strings.Contains(r.body, `<form method="post"`) || strings.Contains(r.body, "the secret") || r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("without a cookie: %s %q", r.Status, r.body)
	}
	sandboxed(t, r)
	if r := h.get(t, "/j/secret/a.css", nil); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("a file without a cookie: %s", r.Status)
	}
	r = h.do(t, http.MethodPost, "/j/secret/", "application/x-www-form-urlencoded", []byte("password=wrong"), nil)
	if r.StatusCode != http.StatusUnauthorized || !strings.Contains(r.body, "Wrong password") || len(r.Cookies()) != 0 {
		t.Fatalf("wrong password: %s %q", r.Status, r.body)
	}
	r = h.do(t, http.MethodPost, "/j/secret/", "application/x-www-form-urlencoded", []byte("password=open+sesame"), nil)
	gate := "/j/secret/~gate/"
	if r.StatusCode != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), gate) || !strings.HasSuffix(r.Header.Get("Location"), "/") {
		t.Fatalf("right password: %s to %q", r.Status, r.Header.Get("Location"))
	}
	cookies := r.Cookies()
	if len(cookies) != 1 || cookies[0].Path != "/j/secret/" || !cookies[0].HttpOnly || cookies[0].MaxAge != 3600 || cookies[0].SameSite != http.SameSiteLaxMode {
		t.Fatalf("cookie %+v", cookies)
	}
	good := cookies[0].Value
	document := r.Header.Get("Location")
	r = h.get(t, document, nil)
	if r.StatusCode != http.StatusOK || r.body != "the secret" || r.Header.Get("Cache-Control") != "private, no-cache" {
		t.Fatalf("the document under its token: %s %q %q", r.Status, r.body, r.Header.Get("Cache-Control"))
	}
	sandboxed(t, r)
	// A relative subresource resolves under the token and needs no cookie.
	if r := h.get(t, strings.TrimSuffix(document, "/")+"/a.css", nil); r.StatusCode != 200 || r.body != "x" {
		t.Errorf("subresource: %s %q", r.Status, r.body)
	}
	// A later visit with the cookie (the jar sends it) moves under a fresh token, keeping the path.
	r = h.get(t, "/j/secret/a.css?v=2", nil)
	if loc := r.Header.Get("Location"); r.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, gate) || !strings.HasSuffix(loc, "/a.css?v=2") {
		t.Errorf("with the cookie: %s to %q", r.Status, loc)
	}

	fresh := &http.Client{CheckRedirect: h.client.CheckRedirect}
	status := func(p, cookie string) int {
		req, _ := http.NewRequest(http.MethodGet, h.srv.URL+p, nil)
		if cookie != "" {
			req.AddCookie(&http.Cookie{Name: "jot_access", Value: cookie})
		}
		resp, err := fresh.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	tampered := good[:len(good)-2] + "AA"
	cases := []struct {
		name   string
		path   string
		cookie string
		want   int
	}{
		{"the signed token", gate + good + "/", "", 200},
		{"a tampered token", gate + tampered + "/", "", 401},
		{"a garbage token", gate + "garbage/", "", 401},
		{"the token of another jot", "/j/other/~gate/" + good + "/", "", 401},
		{"the signed cookie", "/j/secret/", good, 303},
		{"a tampered cookie", "/j/secret/", tampered, 401},
		{"the cookie of another jot", "/j/other/", good, 401},
		{"a token that climbs", gate + good + "/../../other/", "", 404},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := status(tc.path, tc.cookie); got != tc.want {
				t.Errorf("got %d, want %d", got, tc.want)
			}
		})
	}
	withCookie := func(p, value string) int {
		if value == "" {
			return status(p, "")
		}
		return status(gate+value+"/", "")
	}
	t.Run("expired", func(t *testing.T) {
		now = now.Add(time.Hour)
		defer func() { now = now.Add(-time.Hour) }()
		if got := withCookie("/j/secret/", good); got != 401 {
			t.Errorf("got %d", got)
		}
	})
	t.Run("a new password logs everyone out", func(t *testing.T) {
		npw := "new password"
		if _, err := h.Service.Update(h.Ctx, alice, "secret", nil, jots.SettingsInput{Password: &npw}, md); err != nil {
			t.Fatal(err)
		}
		if got := withCookie("/j/secret/", good); got != 401 {
			t.Errorf("got %d", got)
		}
	})
	t.Run("made public, no cookie needed", func(t *testing.T) {
		public := "public"
		if _, err := h.Service.Update(h.Ctx, alice, "secret", nil, jots.SettingsInput{Access: &public}, md); err != nil {
			t.Fatal(err)
		}
		if got := withCookie("/j/secret/", ""); got != 200 {
			t.Errorf("got %d", got)
		}
	})
}

func TestUploadEndpoint(t *testing.T) {
	h := newHost(t, jots.Options{Limits: jots.Limits{MaxBytes: 64 << 10, MaxFiles: 10}}, jotshttp.Options{}, nil)
	ticket := func() string {
		tk, err := h.Service.Deploy(h.Ctx, alice, "up", jots.SettingsInput{}, md)
		if err != nil {
			t.Fatal(err)
		}
		return uploadPath(t, tk)
	}
	good := jotstest.Archive(t, jotstest.File{Path: "index.html", Body: "ok"})
	t.Run("put deploys", func(t *testing.T) {
		r := h.do(t, http.MethodPut, ticket(), "application/gzip", good, nil)
		if r.StatusCode != 200 || !strings.Contains(r.body, `"path":"index.html"`) || !strings.Contains(r.body, `"generation":1`) {
			t.Fatalf("%s %s", r.Status, r.body)
		}
		if r := h.get(t, "/j/up/", nil); r.body != "ok" {
			t.Errorf("served %q", r.body)
		}
	})
	t.Run("post deploys", func(t *testing.T) {
		if r := h.do(t, http.MethodPost, ticket(), "application/octet-stream", good, nil); r.StatusCode != 200 {
			t.Fatalf("%s %s", r.Status, r.body)
		}
	})
	t.Run("a used URL", func(t *testing.T) {
		p := ticket()
		h.do(t, http.MethodPut, p, "", good, nil)
		r := h.do(t, http.MethodPut, p, "", good, nil)
		if r.StatusCode != 404 || !strings.Contains(errorMessage(t, r.body), "already been used") {
			t.Errorf("%s %s", r.Status, r.body)
		}
	})
	t.Run("a refused archive says why", func(t *testing.T) {
		var buf bytes.Buffer
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		tw.WriteHeader(&tar.Header{Name: "evil", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"})
		tw.Close()
		gz.Close()
		r := h.do(t, http.MethodPut, ticket(), "", buf.Bytes(), nil)
		if r.StatusCode != 400 || !strings.Contains(errorMessage(t, r.body), `archive entry "evil": is a symbolic link`) {
			t.Errorf("%s %s", r.Status, r.body)
		}
	})
	t.Run("a form upload is refused with the right command", func(t *testing.T) {
		r := h.do(t, http.MethodPost, ticket(), "multipart/form-data; boundary=x", good, nil)
		if r.StatusCode != 400 || !strings.Contains(errorMessage(t, r.body), "curl -T") {
			t.Errorf("%s %s", r.Status, r.body)
		}
	})
	t.Run("an oversized body is cut off", func(t *testing.T) {
		big := bytes.Repeat([]byte{0x1f}, int(jots.Limits{MaxBytes: 64 << 10, MaxFiles: 10}.MaxStreamBytes())+10)
		r := h.do(t, http.MethodPut, ticket(), "", big, nil)
		if r.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(errorMessage(t, r.body), "larger than") {
			t.Errorf("%s %s", r.Status, r.body)
		}
	})
}

func TestJotsOrigin(t *testing.T) {
	h := newHost(t, jots.Options{JotsOrigin: "https://jots.example.net"}, jotshttp.Options{JotsOrigin: "https://jots.example.net"}, nil)
	h.deploy(t, "far", jots.SettingsInput{}, jotstest.File{Path: "index.html", Body: "x"})
	r := h.get(t, "/j/far/index.html?x=1", nil)
	if r.StatusCode != http.StatusPermanentRedirect || r.Header.Get("Location") != "https://jots.example.net/j/far/index.html?x=1" {
		t.Errorf("%s to %q", r.Status, r.Header.Get("Location"))
	}
	if got := mustURL(t, h); got != "https://jots.example.net/j/far/" {
		t.Errorf("listed URL %q", got)
	}
}

func mustURL(t *testing.T, h *host) string {
	l, err := h.Service.ListFiles(h.Ctx, alice, "far")
	if err != nil {
		t.Fatal(err)
	}
	return l.URL
}

// Password guesses are limited per client address (over every jot) and per jot (over every address):
// past either limit the answer is 429 with Retry-After, and no password is checked, not even the right
// one.
func TestPasswordGuessesLimited(t *testing.T) {
	pw := "open sesame"
	guess := func(t *testing.T, h *host, name, password string) response {
		t.Helper()
		return h.do(t, http.MethodPost, "/j/"+name+"/", "application/x-www-form-urlencoded", []byte("password="+password), nil)
	}
	limited := func(t *testing.T, r response) {
		t.Helper()
		if r.StatusCode != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" || !strings.Contains(r.body, "Too many password attempts") || len(r.Cookies()) != 0 {
			t.Fatalf("past the limit: %s Retry-After %q %q", r.Status, r.Header.Get("Retry-After"), r.body)
		}
		sandboxed(t, r)
	}
	t.Run("per address", func(t *testing.T) {
		h := newHost(t, jots.Options{}, jotshttp.Options{GuessesPerAddress: 3, GuessesPerJot: 1000}, nil)
		h.deploy(t, "one", jots.SettingsInput{Password: &pw}, jotstest.File{Path: "index.html", Body: "1"})
		h.deploy(t, "two", jots.SettingsInput{Password: &pw}, jotstest.File{Path: "index.html", Body: "2"})
		for i, name := range []string{"one", "two", "one"} {
			if r := guess(t, h, name, "wrong"); r.StatusCode != http.StatusUnauthorized {
				t.Fatalf("guess %d: %s", i+1, r.Status)
			}
		}
		limited(t, guess(t, h, "two", "open+sesame"))
	})
	t.Run("per jot", func(t *testing.T) {
		h := newHost(t, jots.Options{}, jotshttp.Options{GuessesPerAddress: 1000, GuessesPerJot: 3}, nil)
		h.deploy(t, "one", jots.SettingsInput{Password: &pw}, jotstest.File{Path: "index.html", Body: "1"})
		h.deploy(t, "two", jots.SettingsInput{Password: &pw}, jotstest.File{Path: "index.html", Body: "2"})
		for i := range 3 {
			if r := guess(t, h, "one", "wrong"); r.StatusCode != http.StatusUnauthorized {
				t.Fatalf("guess %d: %s", i+1, r.Status)
			}
		}
		limited(t, guess(t, h, "one", "open+sesame"))
		// Another jot has its own count.
		if r := guess(t, h, "two", "open+sesame"); r.StatusCode != http.StatusSeeOther {
			t.Fatalf("the other jot: %s %q", r.Status, r.body)
		}
	})
}

// busyService answers every password check as the bcrypt slots do when none frees up in time.
type busyService struct{ jotshttp.Service }

func (busyService) CheckPassword(context.Context, string, string) (bool, error) {
	return false, &domain.Error{Code: domain.CodeUnavailable, Message: "busy", Err: jots.ErrPasswordBusy}
}

// A guess that finds every bcrypt slot taken is answered 503 with Retry-After, not 401.
func TestPasswordCheckBusy(t *testing.T) {
	pw := "open sesame"
	h := newHost(t, jots.Options{}, jotshttp.Options{}, nil)
	h.deploy(t, "one", jots.SettingsInput{Password: &pw}, jotstest.File{Path: "index.html", Body: "1"})
	busy, err := jotshttp.New(jotshttp.Options{Service: busyService{h.Service}, CookieKey: key})
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	busy.Mount(r)
	srv := httptest.NewServer(r)
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/j/one/", "application/x-www-form-urlencoded", strings.NewReader("password=open+sesame"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || len(resp.Cookies()) != 0 || !strings.Contains(string(body), "busy") {
		t.Fatalf("busy: %s Retry-After %q %q", resp.Status, resp.Header.Get("Retry-After"), body)
	}
}
