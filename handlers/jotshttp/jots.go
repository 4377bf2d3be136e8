package jotshttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/httprate"

	"github.com/workbench/workbench/app/jots"
	"github.com/workbench/workbench/domain/jot"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/signed"
)

// Service is what the host needs of app/jots.Service.
type Service interface {
	Site(ctx context.Context, name string) (jots.Site, error)
	File(ctx context.Context, name, path string) (jot.File, error)
	Body(ctx context.Context, f jot.File) ([]byte, error)
	Upload(ctx context.Context, name, token string, body io.Reader, md eventstore.Metadata) (jots.Deployment, error)
	CheckPassword(ctx context.Context, hash, pw string) (bool, error)
	Limits() jots.Limits
}

var _ Service = (*jots.Service)(nil)

// DefaultCookieTTL is how long a jot's password cookie lasts.
const DefaultCookieTTL = 12 * time.Hour

// Default limits on password guesses, per minute.
const (
	DefaultGuessesPerAddress = 10
	DefaultGuessesPerJot     = 60
)

// Options wire a Handler.
type Options struct {
	Service Service
	// CookieKey is the secret password cookies are signed under (internal/signed derives the key); at
	// least 32 bytes, the same on every replica (derive it from ENCRYPTION_KEY).
	CookieKey []byte
	// CookieTTL is how long a password cookie lasts (default 12 hours).
	CookieTTL time.Duration
	// SecureCookies adds the Secure attribute to password cookies even on a plain-HTTP request (set it
	// when TLS ends at a proxy in front of the server).
	SecureCookies bool
	// JotsOrigin is JOTS_ORIGIN; when set, /j/ requests arriving on another host are redirected there.
	JotsOrigin string
	// GuessesPerAddress is how many passwords one client address may try per minute, over all jots
	// (default DefaultGuessesPerAddress).
	GuessesPerAddress int
	// GuessesPerJot is how many passwords may be tried on one jot per minute, from every address
	// together (default DefaultGuessesPerJot).
	GuessesPerJot int
	Logger        *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Handler serves jots and takes uploads.
type Handler struct {
	svc       Service
	cookies   *signed.Sealer[access]
	cookieTTL time.Duration
	secure    bool
	jotsHost  string
	jotsBase  string
	// perAddress and perJot count password guesses (see login).
	perAddress *httprate.RateLimiter
	perJot     *httprate.RateLimiter
	log        *slog.Logger
	now        func() time.Time
}

// New builds a Handler.
func New(opts Options) (*Handler, error) {
	if opts.Service == nil {
		return nil, errors.New("handlers/jotshttp: Service is required")
	}
	if len(opts.CookieKey) < 32 {
		return nil, errors.New("handlers/jotshttp: CookieKey must be at least 32 bytes")
	}
	h := &Handler{svc: opts.Service, cookieTTL: opts.CookieTTL, secure: opts.SecureCookies, log: opts.Logger, now: opts.Now}
	if opts.JotsOrigin != "" {
		u, err := url.Parse(opts.JotsOrigin)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, fmt.Errorf("handlers/jotshttp: JOTS_ORIGIN %q: want an origin such as https://jots.example.com", opts.JotsOrigin)
		}
		h.jotsHost, h.jotsBase = u.Host, u.Scheme+"://"+u.Host
	}
	if opts.GuessesPerAddress <= 0 {
		opts.GuessesPerAddress = DefaultGuessesPerAddress
	}
	if opts.GuessesPerJot <= 0 {
		opts.GuessesPerJot = DefaultGuessesPerJot
	}
	h.perAddress = httprate.NewRateLimiter(opts.GuessesPerAddress, time.Minute)
	h.perJot = httprate.NewRateLimiter(opts.GuessesPerJot, time.Minute)
	if h.cookieTTL <= 0 {
		h.cookieTTL = DefaultCookieTTL
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if h.now == nil {
		h.now = time.Now
	}
	cookies, err := newCookieSealer(opts.CookieKey, h.now)
	if err != nil {
		return nil, fmt.Errorf("handlers/jotshttp: %w", err)
	}
	h.cookies = cookies
	return h, nil
}

// Mount registers the routes: the jots host under /j/ and the upload endpoint. Mount it outside any
// middleware that sets cookies or session state: the host must never answer with the app's cookies.
func (h *Handler) Mount(r chi.Router) {
	r.HandleFunc("/j/{name}", h.redirectToRoot)
	r.HandleFunc("/j/{name}/*", h.serve)
	r.Put("/jots/upload/{name}/{token}", h.upload)
	r.Post("/jots/upload/{name}/{token}", h.upload)
}
