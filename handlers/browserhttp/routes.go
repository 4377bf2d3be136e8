package browserhttp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/browser/replicaauth"
	"github.com/workbench/workbench/app/browserpool"
	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/plugins"
)

// Error codes of these routes beyond the application codes (handlers.ErrorBody.Error).
const (
	CodeBusy         = "BROWSER_SESSION_BUSY" // the session is starting or being reset
	CodeCrossOrigin  = "CROSS_ORIGIN"         // the request did not come from the portal's origin
	CodeNotInControl = "NOT_IN_CONTROL"       // input while the agent holds the session
	CodeLinkInvalid  = "INVALID_LINK"         // a forged, malformed or expired live-view token
)

// maxBody bounds the JSON bodies of these routes (an input batch is the largest).
const maxBody = 64 << 10

// Sessions names the signed-in portal user of a request (handlers/websession.Manager).
type Sessions interface {
	User(r *http.Request) (uuid.UUID, bool)
}

// Browser is the part of app/browser's Service the routes use: the user's session, its reset, the
// hand-over of control, and the live-view links.
type Browser interface {
	Acquire(ctx context.Context, user uuid.UUID) (*browserpool.Session, error)
	Reset(ctx context.Context, user uuid.UUID) error
	HandOver(ctx context.Context, sess *browserpool.Session, md eventstore.Metadata) error
	TakeBack(ctx context.Context, sess *browserpool.Session, md eventstore.Metadata) error
	LiveURL(user uuid.UUID) (string, time.Time, error)
	OpenLiveToken(tok string) (uuid.UUID, error)
}

// Capturer stores a cookie integration's bundle from the user's browser (app/browserpool.Capture).
type Capturer interface {
	Capture(ctx context.Context, user uuid.UUID, integration, account string) (connections.CookieBundle, error)
}

// Integrations finds a plugin integration by name (*plugins.Registry).
type Integrations interface {
	Integration(name string) (*plugins.Integration, bool)
}

// Deps is what the routes need; Sessions, PublicURL, Browser and Capture are required.
type Deps struct {
	Sessions Sessions
	// PublicURL is SERVER_PUBLIC_URL; its origin is the only one the routes accept.
	PublicURL string
	Browser   Browser
	Capture   Capturer
	// Integrations, when set, names the cookie integration a live-view link is asked for: the answer
	// carries its display name, and {"signin": true} opens its sign-in page in the browser. Nil: any
	// integration name is taken as it is, and nothing is opened.
	Integrations Integrations
	Logger       *slog.Logger
	// Keepalive is how often an idle stream sends a comment (default 15s).
	Keepalive time.Duration
	// Done, when closed, ends every open stream (the server is shutting down: a stream would otherwise
	// hold the drain until the browser hangs up).
	Done <-chan struct{}
	// Replicas and Holders, both set, turn on replica routing (replica.go): requests for a session
	// another replica holds are proxied there, and the signed internal routes are mounted.
	Replicas *replicaauth.Signer
	Holders  Holders
	// ReplicaTransport reaches the other replicas (default: no proxy, 3s dial).
	ReplicaTransport http.RoundTripper
}

type routes struct {
	Deps
	origin           string
	replicaTransport http.RoundTripper

	mu      sync.Mutex
	streams map[uuid.UUID]int        // open live streams per user
	inputs  map[uuid.UUID]*inputTurn // the batch of input each user's browser is running
}

// inputTurn serialises a user's input batches: two tabs (or one page's overlapping requests) never
// interleave their commands.
type inputTurn struct {
	sync.Mutex
	waiters int
}

// Mount adds the routes to r.
func Mount(r chi.Router, d Deps) {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Keepalive <= 0 {
		d.Keepalive = 15 * time.Second
	}
	h := &routes{Deps: d, origin: originOf(d.PublicURL), streams: map[uuid.UUID]int{}, inputs: map[uuid.UUID]*inputTurn{}}
	h.replicaTransport = d.ReplicaTransport
	if h.replicaTransport == nil {
		h.replicaTransport = defaultReplicaTransport()
	}
	r.Post("/api/browser-session/live-url", h.portal(h.routed(h.liveURL)))
	r.Post("/api/browser-session/reset", h.portal(h.routed(h.reset)))
	r.Post("/api/browser-session/capture", h.portal(h.routed(h.capture)))
	r.Get("/api/browser-session/live/stream", h.live(h.routed(h.stream)))
	r.Post("/api/browser-session/live/input", h.live(h.routed(h.input)))
	r.Post("/api/browser-session/live/control", h.live(h.routed(h.control)))
	r.Get("/api/browser-session/live/check", h.live(h.check))
	if d.Replicas != nil && d.Holders != nil {
		h.mountInternal(r)
	}
}

// originOf is scheme://host[:port] of a URL, lowercased.
func originOf(raw string) string {
	raw = strings.TrimRight(raw, "/")
	if i := strings.Index(raw, "://"); i >= 0 {
		if j := strings.IndexByte(raw[i+3:], '/'); j >= 0 {
			raw = raw[:i+3+j]
		}
	}
	return strings.ToLower(raw)
}

// sameOrigin is the origin gate of every route: the Origin header, when sent, must be the public
// origin; without it the browser must vouch that the request is same-origin (Sec-Fetch-Site).
func (h *routes) sameOrigin(w http.ResponseWriter, r *http.Request) bool {
	o := r.Header.Get("Origin")
	if (o != "" && strings.EqualFold(o, h.origin)) || (o == "" && r.Header.Get("Sec-Fetch-Site") == "same-origin") {
		return true
	}
	handlers.WriteJSON(w, http.StatusForbidden, handlers.ErrorBody{Error: CodeCrossOrigin,
		Message: "the live browser answers only the workbench portal at " + h.origin})
	return false
}

// portal requires the portal's origin and a signed-in user.
func (h *routes) portal(next func(w http.ResponseWriter, r *http.Request, user uuid.UUID)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !h.sameOrigin(w, r) {
			return
		}
		user, ok := h.Sessions.User(r)
		if !ok {
			handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeUnauthenticated, "sign in to the workbench portal first"))
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		next(w, r, user)
	}
}

// live requires the portal's origin, a genuine live-view token and the portal session of the user
// it was minted for.
func (h *routes) live(next func(w http.ResponseWriter, r *http.Request, user uuid.UUID)) http.HandlerFunc {
	return h.portal(func(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
		owner, err := h.Browser.OpenLiveToken(r.URL.Query().Get("t"))
		if err != nil {
			handlers.WriteJSON(w, http.StatusBadRequest, handlers.ErrorBody{Error: CodeLinkInvalid, Message: domain.ErrorMessage(err)})
			return
		}
		if owner != user {
			handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeForbidden,
				"this live view belongs to another workbench account; sign in as that account, or ask for a link of your own"))
			return
		}
		next(w, r, user)
	})
}

// busy answers BROWSER_SESSION_BUSY with status.
func busy(w http.ResponseWriter, status int) {
	w.Header().Set("Retry-After", "2")
	handlers.WriteJSON(w, status, handlers.ErrorBody{Error: CodeBusy,
		Message: "your browser session is starting or being reset; try again in a moment"})
}

// acquire claims the user's session; on failure it has answered (busy with busyStatus).
func (h *routes) acquire(w http.ResponseWriter, r *http.Request, user uuid.UUID, busyStatus int) (*browserpool.Session, bool) {
	s, err := h.Browser.Acquire(r.Context(), user)
	if err != nil {
		if errors.Is(err, browserpool.ErrBusy) {
			busy(w, busyStatus)
			return nil, false
		}
		handlers.WriteError(w, r, h.Logger, err)
		return nil, false
	}
	return s, true
}

// md is the metadata of what the signed-in user does here.
func md(user uuid.UUID) eventstore.Metadata { return eventstore.Metadata{Actor: user.String()} }

type liveURLRequest struct {
	Integration string `json:"integration"`
	// SignIn opens the integration's sign-in page (plugins.Cookie.SignInPage) in the browser: a person
	// starting a cookie sign-in, not a live view renewing its link.
	SignIn bool `json:"signin,omitempty"`
}

type liveURLResponse struct {
	URL       string    `json:"url"`
	ExpiresAt time.Time `json:"expires_at"`
	// DisplayName is the integration's display name, when the link is for one.
	DisplayName string `json:"display_name,omitempty"`
}

// signInTimeout bounds opening an integration's sign-in page (the page goes on loading in the view).
const signInTimeout = 10 * time.Second

// liveURL starts (or finds) the user's browser and answers a live-view URL for it; with an
// integration and signin, the browser first opens that integration's sign-in page.
func (h *routes) liveURL(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	var req liveURLRequest
	if err := decodeOptional(r, &req); err != nil || (req.SignIn && req.Integration == "") {
		handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeInvalid, `the body must be empty or {"integration": "<a cookie integration>", "signin": true|false}`))
		return
	}
	var in *plugins.Integration
	if req.Integration != "" && h.Integrations != nil {
		found, ok := h.Integrations.Integration(req.Integration)
		if !ok || found.Auth.Mode != plugins.AuthCookie || found.Auth.Cookie == nil {
			handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeInvalid, "%q is not a cookie integration of this server", req.Integration))
			return
		}
		in = found
	}
	s, ok := h.acquire(w, r, user, http.StatusConflict)
	if !ok {
		return
	}
	s.Touch()
	if in != nil && req.SignIn {
		h.openSignIn(r.Context(), s, in)
	}
	s.Release()
	u, exp, err := h.Browser.LiveURL(user)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	res := liveURLResponse{URL: u, ExpiresAt: exp}
	if req.Integration != "" {
		res.URL += "&integration=" + url.QueryEscape(req.Integration)
	}
	if in != nil {
		res.DisplayName = in.DisplayName
	}
	handlers.WriteJSON(w, http.StatusOK, res)
}

// openSignIn has the session's page open in's sign-in page. A page that does not load (the service is
// down, the address rules refuse it) is the person's to see in the view: it is logged, not answered.
func (h *routes) openSignIn(ctx context.Context, s *browserpool.Session, in *plugins.Integration) {
	target := in.Auth.Cookie.SignInPage()
	if target == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, signInTimeout)
	defer cancel()
	page, err := s.Page(ctx)
	if err == nil {
		err = page.Context(ctx).Navigate(target)
	}
	if err != nil {
		h.Logger.WarnContext(ctx, "the sign-in page did not open in the live browser", "integration", in.Name, "err", err)
	}
}

// check answers 204 for a live-view link that is genuine, unexpired and the signed-in user's: the
// live view asks it before it streams, and when its stream is refused, so that a bad link stops with
// the server's reason (400 INVALID_LINK, 403, 401) instead of reconnecting for ever.
func (h *routes) check(w http.ResponseWriter, _ *http.Request, _ uuid.UUID) {
	w.WriteHeader(http.StatusNoContent)
}

// reset closes the user's browser and wipes its profile.
func (h *routes) reset(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	if err := h.Browser.Reset(r.Context(), user); err != nil {
		if errors.Is(err, browserpool.ErrBusy) {
			busy(w, http.StatusConflict)
			return
		}
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type captureRequest struct {
	Integration string `json:"integration"`
	// Account is the label of the account to store the bundle as; empty for the default account.
	Account string `json:"account,omitempty"`
}

type captureResponse struct {
	Integration string     `json:"integration"`
	Account     string     `json:"account,omitempty"`
	Cookies     int        `json:"cookies"`
	ExpiresAt   *time.Time `json:"expires_at"`
}

// capture stores the cookie bundle of a cookie integration from the user's browser.
func (h *routes) capture(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	var req captureRequest
	if err := decodeJSON(r, &req); err != nil || req.Integration == "" {
		handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeInvalid, `the body must be {"integration": "<a cookie integration>"}`))
		return
	}
	bundle, err := h.Capture.Capture(r.Context(), user, req.Integration, req.Account)
	if err != nil {
		if errors.Is(err, browserpool.ErrBusy) {
			busy(w, http.StatusBadRequest)
			return
		}
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	res := captureResponse{Integration: req.Integration, Account: req.Account, Cookies: bundle.Stored}
	if !bundle.ExpiresAt.IsZero() {
		res.ExpiresAt = &bundle.ExpiresAt
	}
	handlers.WriteJSON(w, http.StatusOK, res)
}

type controlRequest struct {
	Human *bool `json:"human"`
}

type controlResponse struct {
	Human bool `json:"human"`
}

// control takes control for the human, or gives it back to the agent.
func (h *routes) control(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	var req controlRequest
	if err := decodeJSON(r, &req); err != nil || req.Human == nil {
		handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeInvalid, `the body must be {"human": true} or {"human": false}`))
		return
	}
	s, ok := h.acquire(w, r, user, http.StatusConflict)
	if !ok {
		return
	}
	defer s.Release()
	var err error
	if *req.Human {
		err = h.Browser.HandOver(r.Context(), s, md(user))
	} else {
		err = h.Browser.TakeBack(r.Context(), s, md(user))
	}
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, controlResponse{Human: s.HumanInControl()})
}

// openStream counts a user's open streams; closeStream returns how many are left.
func (h *routes) openStream(user uuid.UUID) {
	h.mu.Lock()
	h.streams[user]++
	h.mu.Unlock()
}

func (h *routes) closeStream(user uuid.UUID) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.streams[user]--
	n := h.streams[user]
	if n <= 0 {
		delete(h.streams, user)
	}
	return n
}

// inputTurn takes the user's input turn; the returned function gives it up.
func (h *routes) inputTurn(user uuid.UUID) func() {
	h.mu.Lock()
	t := h.inputs[user]
	if t == nil {
		t = &inputTurn{}
		h.inputs[user] = t
	}
	t.waiters++
	h.mu.Unlock()
	t.Lock()
	return func() {
		t.Unlock()
		h.mu.Lock()
		if t.waiters--; t.waiters == 0 {
			delete(h.inputs, user)
		}
		h.mu.Unlock()
	}
}

// detached is a context for the work that must finish after the request has gone (giving control
// back when the last stream closes).
func detached(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(r.Context()), 10*time.Second)
}

// decodeJSON reads one JSON object, refusing unknown fields and trailing data.
func decodeJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data")
	}
	return nil
}

// decodeOptional is decodeJSON for a body that may be empty.
func decodeOptional(r *http.Request, v any) error {
	if r.ContentLength == 0 {
		return nil
	}
	return decodeJSON(r, v)
}
