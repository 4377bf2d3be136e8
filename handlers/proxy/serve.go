package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/domain/curlsession"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/internal/httpserve"
	"github.com/workbench/workbench/plugins"
)

// Error codes recorded in curlsession.RequestProxied (and, lowercased, answered as "error").
const (
	codeUnknownIntegration = "UNKNOWN_INTEGRATION"
	codeForbidden          = "FORBIDDEN_INTEGRATION"
	codeProxyDisabled      = "PROXY_DISABLED"
	codeMethod             = "METHOD_NOT_ALLOWED"
	codeBadPath            = "BAD_PATH"
	codeUpgrade            = "UPGRADE_REFUSED"
	codeNotConnected       = "NOT_CONNECTED"
	codeRequestTooLarge    = "REQUEST_TOO_LARGE"
	codeResponseTooLarge   = "RESPONSE_TOO_LARGE"
	codeUpstream           = "UPSTREAM_ERROR"
	codeCredential         = "CREDENTIAL_ERROR"
	codeClientGone         = "CLIENT_GONE"
	codeStreamAborted      = "STREAM_ABORTED"
	// codeAuditUnavailable answers a request refused because its audit record could not be made
	// durable; it is never recorded (the log is what failed).
	codeAuditUnavailable = "AUDIT_UNAVAILABLE"
)

// auditRetryAfter is the Retry-After of a 503 for an unwritable audit log, in seconds.
const auditRetryAfter = "5"

// statusClientGone is recorded (never sent) when the caller left before an answer.
const statusClientGone = 499

// allowedMethods are the methods the proxy forwards (spec: "GET/POST/PUT/PATCH/DELETE"; HEAD is
// GET without a body).
var allowedMethods = map[string]bool{
	http.MethodGet: true, http.MethodHead: true, http.MethodPost: true,
	http.MethodPut: true, http.MethodPatch: true, http.MethodDelete: true,
}

var (
	errResponseTooLarge = errors.New("upstream response over the cap")
	errRequestTooLarge  = errors.New("request body over the cap")
)

// call is one proxied request's state, shared by the ReverseProxy hooks through the context.
type call struct {
	id       uuid.UUID
	start    time.Time
	claims   Claims
	name     string
	method   string
	rest     string
	in       *plugins.Integration
	base     *url.URL
	target   *url.URL
	rt       http.RoundTripper
	access   connections.Access
	reqBody  *cappedBody
	respBody *cappedBody
	status   int
	errCode  string
	// queryKeys are the request's query parameter names (queryKeys), read once for both records.
	queryKeys []string
	keysRead  bool
	// forwarded: the RequestForwarded record is durable and the request went to the ReverseProxy;
	// its outcome is queued when it is over. recorded: the proxy refused the request and its whole
	// RequestProxied record is durable already. Neither: the audit log failed and the caller got 503.
	forwarded, recorded bool
}

type callKey struct{}

func callFrom(ctx context.Context) *call { return ctx.Value(callKey{}).(*call) }

// ServeHTTP forwards /c/<integration>/<path> to the integration's proxy base URL with the user's
// credential, after checking the token, its scope, the method and the path. Every request that
// carries a valid token is recorded, refused or not.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := p.now()
	name, rest, ok := splitPath(r.URL.EscapedPath())
	if !ok {
		p.writeError(w, r, nil, http.StatusNotFound, codeUnknownIntegration, "Proxy URLs are "+p.publicURL+"/c/<integration>/<path>.")
		return
	}
	claims, err := p.authenticate(r)
	if err != nil {
		w.Header().Set("WWW-Authenticate", `Bearer realm="workbench-curl-session", error="invalid_token"`)
		p.writeError(w, r, nil, http.StatusUnauthorized, "INVALID_TOKEN", err.Error())
		return
	}
	// Authenticated: bodies now stream both ways for as long as they need, past the server's deadlines.
	httpserve.LiftDeadlines(w)
	c := &call{id: uuid.Must(uuid.NewV7()), start: start, claims: claims, name: name, method: r.Method, rest: rest}
	defer func() {
		if v := recover(); v != nil {
			// The ReverseProxy aborts a response it cannot finish (http.ErrAbortHandler): the
			// caller sees a cut stream, never a short body passed off as whole.
			if c.errCode == "" {
				c.errCode = codeStreamAborted
				if c.respBody != nil && c.respBody.over.Load() {
					c.errCode = codeResponseTooLarge
				} else if r.Context().Err() != nil {
					c.errCode = codeClientGone
				}
			}
			p.recordOutcome(r, c)
			panic(v)
		}
		p.recordOutcome(r, c)
	}()
	p.forward(w, r, c)
}

// authenticate reads the token from "Authorization: Bearer" (RFC 6750 section 2.1), the only place
// it is accepted, and verifies it.
func (p *Proxy) authenticate(r *http.Request) (Claims, error) {
	h := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if h == "" || !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
		return Claims{}, errors.New("send the curl_session token as Authorization: Bearer <token>")
	}
	tok = strings.TrimSpace(tok)
	now := p.now().Unix()
	if c, ok := p.tokens.get(tok, now); ok {
		return c, nil
	}
	c, err := p.signer.verify(tok)
	if err == nil {
		p.tokens.put(tok, c)
	}
	return c, err
}

func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, c *call) {
	if !c.claims.Allows(c.name) {
		p.writeError(w, r, c, http.StatusForbidden, codeForbidden, fmt.Sprintf("This token is scoped to %s, not %s: call curl_session with %s (after the user approves).",
			strings.Join(c.claims.Integrations, ", "), c.name, c.name))
		return
	}
	in, ok := p.catalog.Integration(c.name)
	if !ok {
		p.writeError(w, r, c, http.StatusNotFound, codeUnknownIntegration, fmt.Sprintf("%s is not an integration of this server.", c.name))
		return
	}
	c.in = in
	if in.ProxyBaseURL() == "" {
		p.writeError(w, r, c, http.StatusForbidden, codeProxyDisabled, fmt.Sprintf("%s has no proxy block in its manifest.", c.name))
		return
	}
	if !allowedMethods[r.Method] {
		w.Header().Set("Allow", "GET, HEAD, POST, PUT, PATCH, DELETE")
		p.writeError(w, r, c, http.StatusMethodNotAllowed, codeMethod, fmt.Sprintf("%s is not proxied; use GET, HEAD, POST, PUT, PATCH or DELETE.", r.Method))
		return
	}
	if r.Header.Get("Upgrade") != "" {
		p.writeError(w, r, c, http.StatusBadRequest, codeUpgrade, "Protocol upgrades (WebSocket, h2c) are not proxied.")
		return
	}
	if err := checkRest(c.rest); err != nil {
		p.writeError(w, r, c, http.StatusBadRequest, codeBadPath, "The path may not hold empty segments (//), . or .. segments (encoded or not), backslashes or control characters.")
		return
	}
	if r.ContentLength > p.maxReq {
		p.writeError(w, r, c, http.StatusRequestEntityTooLarge, codeRequestTooLarge, fmt.Sprintf("The request body is %d bytes; the proxy accepts at most %d.", r.ContentLength, p.maxReq))
		return
	}
	a, err := p.accessFor(r.Context(), c.claims.UserID, in, c.claims.Account)
	if err != nil {
		p.credentialError(w, r, c, err)
		return
	}
	c.access, c.rt = a.access, a.rt
	if a.baseErr != nil {
		p.credentialError(w, r, c, a.baseErr)
		return
	}
	c.base = a.base
	if c.target, err = joinTarget(c.base, c.rest, r.URL.RawQuery); err != nil {
		p.writeError(w, r, c, http.StatusBadRequest, codeBadPath, "The path does not decode.")
		return
	}
	// The request is in the log before a byte of it leaves for the provider.
	if err := p.appendForwarded(r, c); err != nil {
		p.auditUnavailable(w, r, c, err)
		return
	}
	c.forwarded = true
	out := r.WithContext(context.WithValue(r.Context(), callKey{}, c))
	if r.Body != nil && r.Body != http.NoBody {
		c.reqBody = &cappedBody{rc: r.Body, max: p.maxReq, err: errRequestTooLarge}
		out.Body = c.reqBody
	}
	p.rp.ServeHTTP(w, out)
}

// rewrite builds the upstream request: the manifest's origin and base path (never the inbound Host
// or an absolute request URI), no inbound credential of any kind, no hop-by-hop header (the
// ReverseProxy drops those of RFC 9110 section 7.6.1 and the Connection header's list, and the
// X-Forwarded-* trio), and the manifest's default headers where the caller set none.
func (p *Proxy) rewrite(pr *httputil.ProxyRequest) {
	c := callFrom(pr.In.Context())
	pr.Out.URL = c.target
	pr.Out.Host = ""
	h := pr.Out.Header
	for k := range h {
		if dropRequestHeader(k) {
			delete(h, k)
		}
	}
	for k, v := range c.in.Headers {
		if h.Get(k) == "" {
			h.Set(k, v)
		}
	}
	if h.Get("User-Agent") == "" {
		h.Set("User-Agent", "workbench")
	}
}

// dropRequestHeader says which inbound headers never reach a provider: every credential the caller
// might carry (the curl_session token rides in Authorization), workbench's own headers, and what
// describes the hop to workbench rather than the request.
func dropRequestHeader(canonical string) bool {
	switch canonical {
	case "Authorization", "Cookie", "Cookie2", "Proxy-Authorization", "Forwarded", "X-Real-Ip", "Via":
		return true
	}
	return strings.HasPrefix(canonical, "X-Workbench-") || strings.HasPrefix(canonical, "X-Forwarded-")
}

// dropResponseHeaders are provider headers that would act on workbench's own origin if relayed.
var dropResponseHeaders = []string{
	"Set-Cookie", "Set-Cookie2", "Clear-Site-Data", "Strict-Transport-Security", "Alt-Svc",
	"Public-Key-Pins", "Public-Key-Pins-Report-Only", "Access-Control-Allow-Origin", "Access-Control-Allow-Credentials",
}

func (p *Proxy) roundTrip(req *http.Request) (*http.Response, error) {
	return callFrom(req.Context()).rt.RoundTrip(req)
}

// modifyResponse caps the body, keeps provider cookies and origin-wide policies off workbench's
// origin, sandboxes whatever the body is, and rewrites a redirect: never followed here, it points
// back through the proxy when it stays under the proxy base, and to the absolute upstream URL
// otherwise (so a relative one is not resolved against workbench).
func (p *Proxy) modifyResponse(resp *http.Response) error {
	c := callFrom(resp.Request.Context())
	c.status = resp.StatusCode
	if resp.ContentLength > p.maxResp {
		return errResponseTooLarge
	}
	c.respBody = &cappedBody{rc: resp.Body, max: p.maxResp, err: errResponseTooLarge}
	resp.Body = c.respBody
	for _, k := range dropResponseHeaders {
		resp.Header.Del(k)
	}
	resp.Header.Set("X-Content-Type-Options", "nosniff")
	resp.Header.Set("Content-Security-Policy", "sandbox")
	if loc := resp.Header.Get("Location"); loc != "" {
		resp.Header.Set("Location", p.relocate(c, loc))
	}
	return nil
}

func (p *Proxy) relocate(c *call, loc string) string {
	u, err := c.target.Parse(loc)
	if err != nil {
		return loc
	}
	if !strings.EqualFold(u.Scheme, c.base.Scheme) || !strings.EqualFold(u.Host, c.base.Host) {
		return u.String()
	}
	basePath := strings.TrimRight(c.base.EscapedPath(), "/")
	ep := u.EscapedPath()
	if ep != basePath && !strings.HasPrefix(ep, basePath+"/") {
		return u.String()
	}
	out := p.publicURL + "/c/" + c.name + strings.TrimPrefix(ep, basePath)
	if u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	return out
}

// upstreamError answers a request the ReverseProxy could not complete.
func (p *Proxy) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	c := callFrom(r.Context())
	switch {
	case errors.Is(err, errResponseTooLarge):
		p.writeError(w, r, c, http.StatusBadGateway, codeResponseTooLarge, fmt.Sprintf("The upstream response is larger than the proxy's cap of %d bytes.", p.maxResp))
	case c.reqBody != nil && c.reqBody.over.Load():
		p.writeError(w, r, c, http.StatusRequestEntityTooLarge, codeRequestTooLarge, fmt.Sprintf("The request body is larger than the proxy's cap of %d bytes.", p.maxReq))
	case r.Context().Err() != nil:
		c.status, c.errCode = statusClientGone, codeClientGone
	case domain.ErrorCode(err) != domain.CodeInternal:
		// The injector failed: the lazy refresh found the grant revoked, or could not refresh.
		p.credentialError(w, r, c, err)
	default:
		p.log.WarnContext(r.Context(), "curl proxy: upstream failed", "integration", c.name, "err", err)
		p.writeError(w, r, c, http.StatusBadGateway, codeUpstream, fmt.Sprintf("%s could not be reached.", c.name))
	}
}

func (p *Proxy) credentialError(w http.ResponseWriter, r *http.Request, c *call, err error) {
	if domain.ErrorCode(err) == domain.CodeNotConnected {
		p.writeError(w, r, c, http.StatusConflict, codeNotConnected, fmt.Sprintf("%s is no longer connected for this user: call connect({\"integration\":%q}), give the user the URL, then wait_for_connection.", c.name, c.name))
		return
	}
	p.log.ErrorContext(r.Context(), "curl proxy: credential unavailable", "integration", c.name, "user", c.claims.UserID, "err", err)
	p.writeError(w, r, c, http.StatusBadGateway, codeCredential, fmt.Sprintf("The %s credential could not be used: %s", c.name, domain.ErrorMessage(err)))
}

// writeError answers a refusal as JSON, {"error": code, "message": text}. A refusal of a request
// with a valid token (c not nil) that was never forwarded is written to the log, durably, before the
// answer; if it cannot be, the answer is 503 instead. A request already forwarded (the upstream
// failed) has its RequestForwarded record: its outcome follows as ever.
func (p *Proxy) writeError(w http.ResponseWriter, r *http.Request, c *call, status int, code, msg string) {
	if c != nil {
		c.status, c.errCode = status, code
		if !c.forwarded {
			if err := p.sessions.Refused(r.Context(), p.outcome(r, c)); err != nil {
				p.auditUnavailable(w, r, c, err)
				return
			}
			c.recorded = true
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	handlers.WriteJSON(w, status, handlers.ErrorBody{Error: strings.ToLower(code), Message: msg})
}

// auditUnavailable answers 503 with Retry-After when a record that must precede the answer could not
// be written: the request went nowhere, and the caller may try again.
func (p *Proxy) auditUnavailable(w http.ResponseWriter, r *http.Request, c *call, err error) {
	c.status, c.errCode, c.recorded = http.StatusServiceUnavailable, codeAuditUnavailable, false
	p.log.WarnContext(r.Context(), "curl proxy: the audit log cannot be written; request refused", "err", err,
		"session_id", c.claims.SessionID, "user", c.claims.UserID, "integration", c.name, "method", c.method)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Retry-After", auditRetryAfter)
	handlers.WriteJSON(w, http.StatusServiceUnavailable, handlers.ErrorBody{Error: strings.ToLower(codeAuditUnavailable),
		Message: fmt.Sprintf("The audit log cannot be written right now, so nothing was sent to %s. Retry in a few seconds.", c.name)})
}

// recordedAccount is the account label a record names: none for the default label, as in every
// record made before accounts existed.
func recordedAccount(label string) string {
	if label == connection.DefaultAccount {
		return ""
	}
	return label
}

// appendForwarded makes the request's RequestForwarded record durable (app/curlsessions).
func (p *Proxy) appendForwarded(r *http.Request, c *call) error {
	ev := curlsession.RequestForwarded{
		RequestID: c.id, SessionID: c.claims.SessionID, UserID: c.claims.UserID, Integration: c.name,
		Method: c.method, Path: c.rest, QueryKeys: c.keys(r),
		ConnectionVersion: c.access.ConnectionVersion, Account: recordedAccount(c.access.Account), At: p.now().UTC(),
	}
	if ev.Path == "" {
		ev.Path = "/"
	}
	return p.sessions.Forwarded(r.Context(), ev)
}

// outcome is the request's RequestProxied record as things stand.
func (p *Proxy) outcome(r *http.Request, c *call) curlsession.RequestProxied {
	end := p.now()
	ev := curlsession.RequestProxied{
		RequestID: c.id, SessionID: c.claims.SessionID, UserID: c.claims.UserID, Integration: c.name,
		Method: c.method, Path: c.rest, QueryKeys: c.keys(r), Status: c.status, ErrorCode: c.errCode,
		ConnectionVersion: c.access.ConnectionVersion, Account: recordedAccount(c.access.Account), DurationMS: end.Sub(c.start).Milliseconds(), At: end.UTC(),
	}
	if ev.Path == "" {
		ev.Path = "/"
	}
	if c.reqBody != nil {
		ev.RequestBytes = c.reqBody.n.Load()
	}
	if c.respBody != nil {
		ev.ResponseBytes = c.respBody.n.Load()
	}
	if ev.Status == 0 {
		ev.Status, ev.ErrorCode = statusClientGone, codeClientGone
	}
	return ev
}

// recordOutcome hands a forwarded request's RequestProxied record, once it is over, to the session
// use case, which queues it (or appends it at once when its queue is full). A refusal is recorded
// already, and a request refused for want of the log is not recorded at all.
func (p *Proxy) recordOutcome(r *http.Request, c *call) {
	if !c.forwarded {
		return
	}
	p.sessions.Proxied(r.Context(), p.outcome(r, c))
}

// keys returns the names of r's query parameters (queryKeys), read on the first call.
func (c *call) keys(r *http.Request) []string {
	if !c.keysRead {
		c.queryKeys, c.keysRead = queryKeys(r.URL.RawQuery), true
	}
	return c.queryKeys
}

// queryKeys are the names of the query parameters, sorted and without duplicates; values are never
// recorded.
func queryKeys(raw string) []string {
	if raw == "" {
		return nil
	}
	q, _ := url.ParseQuery(raw)
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// cappedBody counts what passes through and fails with err once more than max bytes have.
type cappedBody struct {
	rc   io.ReadCloser
	max  int64
	err  error
	n    atomic.Int64
	over atomic.Bool
}

func (b *cappedBody) Read(buf []byte) (int, error) {
	n, err := b.rc.Read(buf)
	if total := b.n.Add(int64(n)); total > b.max {
		b.over.Store(true)
		return 0, b.err
	}
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }
