package jotshttp

import (
	"bytes"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workbench/workbench/app/jots"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/jot"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/projections/jotsrm"
)

// SandboxCSP is the Content-Security-Policy of every jot response: scripts run, but in an opaque
// origin (no allow-same-origin), and never navigate the top window.
const SandboxCSP = "sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads"

// secure sets the headers every response under /j/ carries, whatever its status.
func secure(w http.ResponseWriter) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", SandboxCSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
}

// failed answers a lookup that failed: 503 with Retry-After when the storage is unavailable (the jot
// is still there; a visitor or a cache should retry), 500 otherwise.
func failed(w http.ResponseWriter, err error) {
	if handlers.IsStorageFailure(err) || domain.ErrorCode(err) == domain.CodeUnavailable {
		w.Header().Set("Retry-After", handlers.RetryAfterSeconds)
		plain(w, http.StatusServiceUnavailable, "temporarily unavailable; retry shortly")
		return
	}
	plain(w, http.StatusInternalServerError, "internal error")
}

func plain(w http.ResponseWriter, status int, msg string) {
	secure(w)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(msg + "\n"))
}

// onJotsOrigin redirects a request that arrived on another host than JOTS_ORIGIN, and reports whether
// it did.
func (h *Handler) offOrigin(w http.ResponseWriter, r *http.Request) bool {
	if h.jotsHost == "" || strings.EqualFold(r.Host, h.jotsHost) {
		return false
	}
	secure(w)
	http.Redirect(w, r, h.jotsBase+r.URL.RequestURI(), http.StatusPermanentRedirect)
	return true
}

func (h *Handler) redirectToRoot(w http.ResponseWriter, r *http.Request) {
	if h.offOrigin(w, r) {
		return
	}
	name := chi.URLParam(r, "name")
	if jot.ValidateName(name) != nil {
		plain(w, http.StatusNotFound, "no such jot")
		return
	}
	secure(w)
	http.Redirect(w, r, "/j/"+name+"/", http.StatusMovedPermanently)
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request) {
	if h.offOrigin(w, r) {
		return
	}
	name := chi.URLParam(r, "name")
	if jot.ValidateName(name) != nil {
		plain(w, http.StatusNotFound, "no such jot")
		return
	}
	// A POST is a password guess, and every guess costs a bcrypt comparison: guesses are counted
	// before anything else is done for them (not even the jot is looked up), per client address over
	// all jots and per jot over all addresses. httprate sets Retry-After on a refusal.
	if r.Method == http.MethodPost && (h.perAddress.OnLimit(w, r, handlers.ClientAddress(r)) || h.perJot.OnLimit(w, r, name)) {
		h.form(w, name, http.StatusTooManyRequests, "Too many password attempts. Wait a minute and try again.")
		return
	}
	site, err := h.svc.Site(r.Context(), name)
	if errors.Is(err, jotsrm.ErrNotFound) {
		plain(w, http.StatusNotFound, "no such jot")
		return
	}
	if err != nil {
		h.log.ErrorContext(r.Context(), "jot lookup failed", "jot", name, "err", err)
		failed(w, err)
		return
	}
	cors := site.Settings.CORS && site.Settings.Access == jot.AccessPublic
	gated := site.Settings.Access == jot.AccessPassword

	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		if cors {
			secure(w)
			hd := w.Header()
			hd.Set("Access-Control-Allow-Origin", "*")
			hd.Set("Access-Control-Allow-Methods", "GET, HEAD")
			hd.Set("Access-Control-Allow-Headers", "If-None-Match, Range")
			hd.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		plain(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	case http.MethodPost:
		if gated {
			h.login(w, r, site)
			return
		}
		plain(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	default:
		plain(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	rest := strings.TrimPrefix(r.URL.Path, "/j/"+name+"/")
	if gated {
		var token string
		token, rest = splitGate(rest)
		switch {
		case token != "" && h.validCookie(token, name, site.Settings.PasswordHash):
			// A valid access token in the path: serve.
		case token == "" && h.hasValidCookie(r, site):
			// The visitor unlocked the jot before: move the document under a fresh path token so its
			// relative subresources carry it too.
			h.redirectToGate(w, r, site, rest)
			return
		default:
			h.form(w, name, http.StatusUnauthorized, "")
			return
		}
	}
	if rest == "" || strings.HasSuffix(rest, "/") {
		rest += "index.html"
	}
	if jot.ValidatePath(rest) != nil {
		plain(w, http.StatusNotFound, "not found")
		return
	}
	f, err := h.svc.File(r.Context(), name, rest)
	if errors.Is(err, jotsrm.ErrNotFound) {
		plain(w, http.StatusNotFound, "not found")
		return
	}
	if err != nil {
		h.log.ErrorContext(r.Context(), "jot file lookup failed", "jot", name, "path", rest, "err", err)
		failed(w, err)
		return
	}

	secure(w)
	hd := w.Header()
	etag := `"` + f.SHA256 + `"`
	hd.Set("ETag", etag)
	if gated {
		hd.Set("Cache-Control", "private, no-cache")
	} else {
		hd.Set("Cache-Control", "no-cache")
	}
	if cors {
		hd.Set("Access-Control-Allow-Origin", "*")
		hd.Set("Access-Control-Expose-Headers", "ETag")
	}
	if noneMatch(r.Header.Get("If-None-Match"), f.SHA256) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body, err := h.svc.Body(r.Context(), f)
	if err != nil {
		h.log.ErrorContext(r.Context(), "jot body missing", "jot", name, "path", rest, "sha256", f.SHA256, "err", err)
		hd.Del("ETag")
		failed(w, err)
		return
	}
	hd.Set("Content-Type", f.ContentType)
	// ServeContent answers HEAD and byte ranges; the Content-Type set above stops it from sniffing.
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// noneMatch reports whether an If-None-Match header matches the body's ETag, using the weak
// comparison RFC 9110 section 13.1.2 prescribes.
func noneMatch(header, sum string) bool {
	if header == "" {
		return false
	}
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" {
			return true
		}
		tag = strings.TrimPrefix(tag, "W/")
		if tag == `"`+sum+`"` {
			return true
		}
	}
	return false
}

var formPage = template.Must(template.New("form").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Name}} — password required</title>
<style>body{font:16px system-ui,sans-serif;display:grid;place-items:center;min-height:90vh;margin:0;background:#f6f6f4;color:#222}
form{background:#fff;padding:2rem;border-radius:12px;box-shadow:0 2px 12px #0001;min-width:18rem}
input{font:inherit;width:100%;box-sizing:border-box;padding:.5rem;margin:.5rem 0 1rem}button{font:inherit;padding:.5rem 1rem}
.err{color:#b00020}</style></head>
<body><form method="post" action="">
<h1 style="font-size:1.2rem;margin-top:0">{{.Name}}</h1>
<p>This jot is password protected.</p>
{{if .Error}}<p class="err">{{.Error}}</p>{{end}}
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" autofocus required>
<button type="submit">Open</button>
</form></body></html>
`))

func (h *Handler) form(w http.ResponseWriter, name string, status int, msg string) {
	secure(w)
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = formPage.Execute(w, struct{ Name, Error string }{name, msg})
}

// maxFormBytes bounds the login form body.
const maxFormBytes = 4 << 10

func (h *Handler) login(w http.ResponseWriter, r *http.Request, site jots.Site) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		h.form(w, site.Name, http.StatusBadRequest, "The form could not be read.")
		return
	}
	ok, err := h.svc.CheckPassword(r.Context(), site.Settings.PasswordHash, r.PostForm.Get("password"))
	if errors.Is(err, jots.ErrPasswordBusy) {
		w.Header().Set("Retry-After", "1")
		h.form(w, site.Name, http.StatusServiceUnavailable, "The server is busy checking passwords. Try again in a moment.")
		return
	}
	if err != nil {
		h.form(w, site.Name, http.StatusServiceUnavailable, "The password could not be checked. Try again in a moment.")
		return
	}
	if !ok {
		h.form(w, site.Name, http.StatusUnauthorized, "Wrong password.")
		return
	}
	exp := h.now().Add(h.cookieTTL)
	value, err := h.signCookie(site.Name, site.Settings.PasswordHash, exp)
	if err != nil {
		h.log.ErrorContext(r.Context(), "sign jot cookie", "jot", site.Name, "err", err)
		plain(w, http.StatusInternalServerError, "internal error")
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: value,
		Path: "/j/" + site.Name + "/", Expires: exp, MaxAge: int(h.cookieTTL.Seconds()),
		HttpOnly: true, Secure: h.secure || r.TLS != nil, SameSite: http.SameSiteLaxMode,
	})
	_, rest := splitGate(strings.TrimPrefix(r.URL.Path, "/j/"+site.Name+"/"))
	h.redirectToGate(w, r, site, rest)
}

// gateSegment starts the path of a gated jot's document and subresources: /j/<name>/~gate/<token>/….
//
// A cookie alone cannot gate a jot: its page is sandboxed into an opaque origin, so browsers treat the
// page's own subresource requests as cross-site (third-party) and send no cookie with them, whatever
// its SameSite. The cookie is sent with top-level navigations, though, so a navigation with a valid
// cookie is redirected under a fresh signed token in the path, and relative URLs in the page (app.js,
// data.json) resolve under it. The token is the same signed value as the cookie: it names the jot,
// expires, and dies with the password. Responses carry Referrer-Policy: no-referrer, so it does not
// leak through links; whoever is handed such a URL can open the jot until it expires.
const gateSegment = "~gate"

// splitGate splits "~gate/<token>/<rest>" into the token and the rest; other paths have no token.
func splitGate(p string) (token, rest string) {
	seg, after, ok := strings.Cut(p, "/")
	if !ok || seg != gateSegment {
		return "", p
	}
	token, rest, _ = strings.Cut(after, "/")
	return token, rest
}

func (h *Handler) hasValidCookie(r *http.Request, site jots.Site) bool {
	c, err := r.Cookie(cookieName)
	return err == nil && h.validCookie(c.Value, site.Name, site.Settings.PasswordHash)
}

// redirectToGate sends the visitor to rest under a fresh access token, with 303 so that a POST becomes
// a GET (RFC 9110 section 15.4.4).
func (h *Handler) redirectToGate(w http.ResponseWriter, r *http.Request, site jots.Site, rest string) {
	token, err := h.signCookie(site.Name, site.Settings.PasswordHash, h.now().Add(h.cookieTTL))
	if err != nil {
		h.log.ErrorContext(r.Context(), "sign jot access token", "jot", site.Name, "err", err)
		plain(w, http.StatusInternalServerError, "internal error")
		return
	}
	target := "/j/" + site.Name + "/" + gateSegment + "/" + token + "/" + escapePath(rest)
	if r.Method == http.MethodGet && r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	secure(w)
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, target, http.StatusSeeOther)
}

func escapePath(p string) string {
	return (&url.URL{Path: p}).EscapedPath()
}
