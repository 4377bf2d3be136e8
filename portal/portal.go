package portal

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers"
)

//go:embed static
var static embed.FS

// ContentSecurityPolicy is sent with every portal response. The app loads only its own modules and
// styles, talks only to its own origin, cannot be framed, and runs under Trusted Types with no policy
// at all: it builds every element through the DOM and never assigns HTML as a string, so any sink
// that would parse markup (innerHTML, document.write, javascript: URLs) throws instead.
// Integration logos come from /api/integrations/{name}/logo on the same origin; a logo hosted
// elsewhere is blocked and the app shows the integration's initial instead.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; " +
	"frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types 'none'"

// assetsPrefix is where the versioned assets live: /assets/<version>/<file>.
const assetsPrefix = "/assets/"

// versionPlaceholder is replaced in index.html by the assets' base path.
const versionPlaceholder = "/assets/VERSION/"

// reservedPrefixes are the server's own namespaces: the app never answers under them. "/mcp" is
// matched as a whole segment, so a client route such as /mcp-clients would still be the app's.
var reservedPrefixes = []string{"/api/", "/oauth/", "/.well-known/", "/j/", "/c/", "/auth/"}

// Options tune the handler; nil means defaults.
type Options struct {
	// Logger receives the rare server-side failure; default discards.
	Logger *slog.Logger
}

type asset struct {
	body        []byte
	contentType string
	etag        string
}

type handler struct {
	log     *slog.Logger
	version string
	index   []byte
	assets  map[string]asset // file name under static/assets → content
}

// Handler returns the portal: mount it as the router's NotFound fallback, after every API route.
func Handler(opts *Options) (http.Handler, error) {
	h := &handler{log: slog.New(slog.DiscardHandler), assets: map[string]asset{}}
	if opts != nil && opts.Logger != nil {
		h.log = opts.Logger
	}
	sum := sha256.New()
	var names []string
	err := fs.WalkDir(static, "static/assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		names = append(names, p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("portal: list the embedded assets: %w", err)
	}
	sort.Strings(names)
	for _, p := range names {
		body, err := static.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("portal: read %s: %w", p, err)
		}
		fileSum := sha256.Sum256(body)
		fmt.Fprintf(sum, "%s\x00%x\x00", p, fileSum)
		name := strings.TrimPrefix(p, "static/assets/")
		h.assets[name] = asset{body: body, contentType: contentType(name), etag: `"` + hex.EncodeToString(fileSum[:8]) + `"`}
	}
	h.version = hex.EncodeToString(sum.Sum(nil)[:6])
	index, err := static.ReadFile("static/index.html")
	if err != nil {
		return nil, fmt.Errorf("portal: read index.html: %w", err)
	}
	if !bytes.Contains(index, []byte(versionPlaceholder)) {
		return nil, errors.New("portal: index.html does not reference " + versionPlaceholder)
	}
	h.index = bytes.ReplaceAll(index, []byte(versionPlaceholder), []byte(assetsPrefix+h.version+"/"))
	return h, nil
}

// contentType names the media type of an asset by its extension; the app ships no other kind.
func contentType(name string) string {
	switch path.Ext(name) {
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case ".png":
		return "image/png"
	case ".woff2":
		return "font/woff2"
	case ".json":
		return "application/json"
	}
	return "application/octet-stream"
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", ContentSecurityPolicy)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")

	p := r.URL.Path
	if rest, ok := strings.CutPrefix(p, assetsPrefix); ok {
		h.serveAsset(w, r, rest)
		return
	}
	if strings.HasPrefix(p, "/api/") {
		handlers.WriteError(w, r, h.log, domain.Errorf(domain.CodeNotFound, "no API route %s %s", r.Method, p))
		return
	}
	if !IsClientRoute(p) {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(h.index))
}

// IsClientRoute reports whether p is a path the app may answer with index.html: not under a server
// namespace, and with no file extension in its last segment. /connect/<token> always is, since the
// claim link's token is "<payload>.<signature>".
func IsClientRoute(p string) bool {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") {
		return false
	}
	if p == "/mcp" || strings.HasPrefix(p, "/mcp/") {
		return false
	}
	for _, prefix := range reservedPrefixes {
		if strings.HasPrefix(p, prefix) || p == strings.TrimSuffix(prefix, "/") {
			return false
		}
	}
	if rest, ok := strings.CutPrefix(p, "/connect/"); ok && rest != "" && !strings.Contains(rest, "/") {
		return true
	}
	return path.Ext(p) == ""
}

func (h *handler) serveAsset(w http.ResponseWriter, r *http.Request, rest string) {
	version, name, ok := strings.Cut(rest, "/")
	a, found := h.assets[name]
	if !ok || !found || !fs.ValidPath(name) {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if version == h.version {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		// A page loaded from an older build asks for its version; answer with today's file but let
		// nothing keep it under that name.
		w.Header().Set("Cache-Control", "no-cache")
	}
	w.Header().Set("Content-Type", a.contentType)
	w.Header().Set("ETag", a.etag)
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(a.body))
}
