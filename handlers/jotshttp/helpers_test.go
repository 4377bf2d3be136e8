package jotshttp_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/jots"
	"github.com/workbench/workbench/app/jots/jotstest"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers/jotshttp"
)

var (
	alice = uuid.New()
	md    = eventstore.Metadata{Actor: "test"}
	key   = bytes.Repeat([]byte{7}, 32)
)

type host struct {
	*jotstest.Env
	srv    *httptest.Server
	client *http.Client
}

// newHost serves the jots routes on a test server. extra, when set, adds routes (the app's pages).
func newHost(t *testing.T, svcOpts jots.Options, hOpts jotshttp.Options, extra func(chi.Router)) *host {
	t.Helper()
	e := jotstest.New(t, svcOpts)
	hOpts.Service = e.Service
	if hOpts.CookieKey == nil {
		hOpts.CookieKey = key
	}
	h, err := jotshttp.New(hOpts)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	h.Mount(r)
	if extra != nil {
		extra(r)
	}
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }, Timeout: 30 * time.Second}
	return &host{Env: e, srv: srv, client: client}
}

// deploy runs deploy_jot and uploads files through the HTTP endpoint.
func (h *host) deploy(t *testing.T, name string, settings jots.SettingsInput, files ...jotstest.File) {
	t.Helper()
	tk, err := h.Service.Deploy(h.Ctx, alice, name, settings, md)
	if err != nil {
		t.Fatal(err)
	}
	resp := h.do(t, http.MethodPut, uploadPath(t, tk), "application/gzip", jotstest.Archive(t, files...), nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("upload: %d %s", resp.StatusCode, resp.body)
	}
}

func uploadPath(t *testing.T, tk jots.Ticket) string {
	u, err := url.Parse(tk.UploadURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Path
}

type response struct {
	*http.Response
	body string
}

func (h *host) do(t *testing.T, method, p, contentType string, body []byte, header http.Header) response {
	t.Helper()
	req, err := http.NewRequest(method, h.srv.URL+p, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	// The host never sets any cookie but a jot's own password cookie.
	for _, c := range resp.Cookies() {
		if c.Name != "jot_access" || !strings.HasPrefix(c.Path, "/j/") {
			t.Errorf("%s %s set cookie %s (path %q)", method, p, c.Name, c.Path)
		}
	}
	return response{resp, string(b)}
}

func (h *host) get(t *testing.T, p string, header http.Header) response {
	return h.do(t, http.MethodGet, p, "", nil, header)
}

func errorMessage(t *testing.T, body string) string {
	var e struct{ Message string }
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatalf("not a JSON error: %q", body)
	}
	return e.Message
}
