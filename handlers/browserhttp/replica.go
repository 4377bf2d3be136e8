package browserhttp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/internal/httpserve"
)

// Replica routing. A user's browser session lives in one replica's Chromium (the holder, recorded in
// its BrowserSessionStarted). A replica that does not hold it proxies the portal's requests for it to
// the holder's internal twin of the route (/api/internal/browser-session/...), signed for the user
// with replicaauth: the user's cookie and live-view token are checked here and never sent on. The
// holder's internal routes accept only signed requests. A holder that does not answer at all is
// gone: the request runs here, which starts the session on this replica.

// internalPrefix is where the internal twins of the routes live.
const internalPrefix = "/api/internal"

// Holders names the replica holding a user's session and serves tool calls forwarded to this one
// (app/browser.Service).
type Holders interface {
	// Holder is the base URL of the other replica holding the user's session, or "".
	Holder(ctx context.Context, user uuid.UUID) (string, error)
	// ServeForwarded runs a forwarded browser tool call here and answers its result.
	ServeForwarded(ctx context.Context, user uuid.UUID, body []byte) ([]byte, error)
}

// mountInternal adds the signed internal routes another replica reaches.
func (h *routes) mountInternal(r chi.Router) {
	r.Post(internalPrefix+"/browser/tool", h.internal(h.forwardedTool))
	r.Post(internalPrefix+"/browser-session/live-url", h.internal(h.liveURL))
	r.Post(internalPrefix+"/browser-session/reset", h.internal(h.reset))
	r.Post(internalPrefix+"/browser-session/capture", h.internal(h.capture))
	r.Get(internalPrefix+"/browser-session/live/stream", h.internal(h.stream))
	r.Post(internalPrefix+"/browser-session/live/input", h.internal(h.input))
	r.Post(internalPrefix+"/browser-session/live/control", h.internal(h.control))
}

// internal admits a request signed by a replica of this server, for the user it names.
func (h *routes) internal(next func(w http.ResponseWriter, r *http.Request, user uuid.UUID)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		user, err := h.Replicas.Verify(r)
		if err != nil {
			handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeUnauthenticated, "this endpoint answers the server's own replicas only"))
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		next(w, r, user)
	}
}

// forwardedTool runs a browser tool call another replica forwarded.
func (h *routes) forwardedTool(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeInvalid, "unreadable body"))
		return
	}
	out, err := h.Holders.ServeForwarded(r.Context(), user, body)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(out) //nolint:errcheck // the caller sees a cut answer as an error
}

// routed runs next here, or proxies the request to the replica holding the user's session.
func (h *routes) routed(next func(w http.ResponseWriter, r *http.Request, user uuid.UUID)) func(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	if h.Replicas == nil || h.Holders == nil {
		return next
	}
	return func(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
		holder, err := h.Holders.Holder(r.Context(), user)
		if err != nil {
			handlers.WriteError(w, r, h.Logger, err)
			return
		}
		if holder == "" {
			next(w, r, user)
			return
		}
		target, err := url.Parse(holder)
		if err != nil || target.Host == "" {
			handlers.WriteError(w, r, h.Logger, &domain.Error{Code: domain.CodeInternal, Message: "the browser session's replica is recorded with a bad address", Err: err})
			return
		}
		var body []byte
		if r.Body != nil {
			body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
			if err != nil {
				handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeInvalid, "the body is too large"))
				return
			}
		}
		if strings.HasSuffix(r.URL.Path, "/live/stream") {
			httpserve.LiftDeadlines(w)
		}
		unreachable := false
		proxy := &httputil.ReverseProxy{
			Transport:     h.replicaTransport,
			FlushInterval: -1,
			Rewrite: func(pr *httputil.ProxyRequest) {
				out := pr.Out
				out.URL.Scheme, out.URL.Host = target.Scheme, target.Host
				out.URL.Path = internalPrefix + strings.TrimPrefix(r.URL.Path, "/api")
				out.URL.RawPath = ""
				out.Host = ""
				for _, k := range []string{"Cookie", "Authorization", "Origin", "Referer"} {
					out.Header.Del(k)
				}
				out.Body = io.NopCloser(bytes.NewReader(body))
				out.ContentLength = int64(len(body))
				h.Replicas.Sign(out, user, body)
			},
			ModifyResponse: func(resp *http.Response) error {
				if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusUnauthorized {
					// Not a replica of this server any more (another process took its address).
					resp.Body.Close()
					return errNotReplica
				}
				return nil
			},
			ErrorHandler: func(w http.ResponseWriter, pr *http.Request, err error) {
				if isDialError(err) || errors.Is(err, errNotReplica) {
					unreachable = true
					return
				}
				if errors.Is(err, context.Canceled) {
					return
				}
				h.Logger.WarnContext(pr.Context(), "browser: proxy to the session's replica", "holder", holder, "err", err)
				handlers.WriteError(w, r, h.Logger, &domain.Error{Code: domain.CodeUnavailable, Message: "the replica holding your browser session did not answer; retry shortly", Err: err})
			},
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		go func() {
			select {
			case <-h.Done:
				cancel()
			case <-ctx.Done():
			}
		}()
		proxy.ServeHTTP(w, r.WithContext(ctx))
		if unreachable {
			h.Logger.WarnContext(r.Context(), "browser: the session's replica is unreachable; serving the session here", "holder", holder, "user", user)
			r.Body = io.NopCloser(bytes.NewReader(body))
			next(w, r, user)
		}
	}
}

// errNotReplica: the recorded holder's address answers, but not as a replica of this server.
var errNotReplica = errors.New("handlers/browserhttp: the recorded holder is not a replica of this server")

// isDialError: the holder was never reached (its process is gone or its address is dead).
func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// defaultReplicaTransport reaches other replicas: no proxy, a short dial.
func defaultReplicaTransport() http.RoundTripper {
	return &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 3 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
	}
}
