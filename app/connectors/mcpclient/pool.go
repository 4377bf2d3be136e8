package mcpclient

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/internal/mcppeer"
	"github.com/workbench/workbench/internal/ssrf"
)

// Limits (spec connectors.md, Limits).
const (
	CallTimeout     = 90 * time.Second
	ListTimeout     = 15 * time.Second
	AdapterTimeout  = 30 * time.Second
	MaxListedTools  = 200
	MaxListingBytes = 1 << 20
)

// Tool is one listed tool: its remote name and hints (nil when absent).
type Tool struct {
	Name            string
	Description     string
	InputSchema     json.RawMessage
	ReadOnlyHint    *bool
	DestructiveHint *bool
	// TaskSupport is the tool's execution.taskSupport: "required", "optional", "forbidden", or "" when
	// the listing gave none (2025-11-25 task augmentation).
	TaskSupport string
	// OutputSchema is the tool's outputSchema (nil when none was given).
	OutputSchema json.RawMessage
}

// Error is a failure of an endpoint: Status is 401 or 403 when it refused the credentials.
type Error struct {
	Status  int
	Message string
}

func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("endpoint answered %d: %s", e.Status, e.Message)
	}
	return e.Message
}

// Rejected reports whether err says the endpoint refused the credentials (401 or 403).
func Rejected(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden)
}

// Endpoint is where a login's session goes and the header its token travels in.
type Endpoint struct {
	URL         string
	HeaderName  string // empty: no credential header
	HeaderValue string
}

func (e Endpoint) fingerprint() [32]byte {
	return sha256.Sum256([]byte(e.URL + "\x00" + e.HeaderName + "\x00" + e.HeaderValue))
}

// Options configure a Pool.
type Options struct {
	AllowLoopback bool
	Resolver      ssrf.Resolver // nil: the system resolver
	Logger        *slog.Logger
	// CallTimeout and ListTimeout default to the spec's limits; tests shorten them.
	CallTimeout, ListTimeout time.Duration
	// ClientName is the clientInfo name sent at initialize (default "workbench").
	ClientName, ClientVersion string
	// MaxResponseBytes bounds one answer of an endpoint on a login's session (a POST's JSON body or
	// its event stream, progress and relayed requests included), read before the SDK decodes it
	// (default DefaultMaxResponseBytes): a remote cannot make Workbench hold an answer of any size.
	MaxResponseBytes int64
}

// DefaultMaxResponseBytes is the default of Options.MaxResponseBytes: four times what one
// execute_tools result may carry.
const DefaultMaxResponseBytes = 32 << 20

// Pool holds one MCP client session per login. It is safe for concurrent use.
type Pool struct {
	opts   Options
	log    *slog.Logger
	client *mcp.Client
	base   http.RoundTripper

	mu       sync.Mutex
	sessions map[uuid.UUID]*entry

	// progress maps the progressToken of each call in flight to the context its progress is
	// reported under (mcppeer).
	progress sync.Map // string → context.Context

	// clients are the SDK clients by the capabilities they declare (relay.go); idle are the leased
	// sessions no call holds; leased maps each held one to its call's context. All under mu but
	// leased.
	clients map[mcppeer.Caps]*mcp.Client
	idle    map[leaseKey][]*entry
	leased  sync.Map // *mcp.ClientSession → context.Context
	closed  bool

	// watch holds the resource subscriptions (subscribe.go).
	watchOnce sync.Once
	watch     *watches
}

type entry struct {
	fp     [32]byte
	ready  chan struct{} // closed once cs or err is set
	cs     *mcp.ClientSession
	err    error
	status atomic.Int32 // the last 401 or 403 an endpoint answered on this session
	hints  listingHints // which listed tools gave a readOnlyHint
	// overCap is the MaxResponseBytes an answer on this session went over (0 when none did): the SDK
	// reports only that the request ended without a response.
	overCap atomic.Int64
	// barrier orders the session's notifications before the responses that follow them (ordered.go).
	barrier *barrier
}

// New returns a pool.
func New(o Options) *Pool {
	if o.CallTimeout <= 0 {
		o.CallTimeout = CallTimeout
	}
	if o.ListTimeout <= 0 {
		o.ListTimeout = ListTimeout
	}
	if o.ClientName == "" {
		o.ClientName = "workbench"
	}
	if o.ClientVersion == "" {
		o.ClientVersion = "1"
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := ssrf.NewTransport(ssrf.Options{AllowLoopback: o.AllowLoopback, Resolver: o.Resolver})
	t.MaxIdleConnsPerHost = 256
	p := &Pool{opts: o, log: log, base: t, sessions: map[uuid.UUID]*entry{}, clients: map[mcppeer.Caps]*mcp.Client{}, idle: map[leaseKey][]*entry{}}
	p.client = p.clientFor(mcppeer.AllCaps)
	return p
}

// onProgress passes a remote's notifications/progress to the call that gave its token; a token no
// call in flight gave is dropped.
func (p *Pool) onProgress(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
	defer handledNotification(ctx)
	if req == nil || req.Params == nil {
		return
	}
	tok, ok := req.Params.ProgressToken.(string)
	if !ok {
		return
	}
	v, ok := p.progress.Load(tok)
	if !ok {
		return
	}
	mcppeer.Report(v.(context.Context), req.Params.Progress, req.Params.Total, req.Params.Message)
}

// HTTPClient is the guarded client adapters get as ctx.http: the adapter timeout and the SSRF dialer,
// every request's host checked first. A redirect to another origin than the first request's is followed
// with only the headers in redirectSafe: net/http drops Authorization and Cookie there, but an adapter's
// own credential headers (X-Api-Key, X-GitHub-Api-Version beside a token, …) would go along.
func (p *Pool) HTTPClient() *http.Client {
	return &http.Client{Timeout: AdapterTimeout, Transport: &checked{pool: p, next: p.base}, CheckRedirect: stripForeign}
}

// redirectSafe are the request headers an adapter's request keeps on a redirect to another origin.
var redirectSafe = map[string]bool{
	"Accept": true, "Accept-Encoding": true, "Accept-Language": true, "Content-Type": true, "User-Agent": true,
}

func stripForeign(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if origin(req.URL) == origin(via[0].URL) {
		return nil
	}
	for name := range req.Header {
		if !redirectSafe[http.CanonicalHeaderKey(name)] {
			req.Header.Del(name)
		}
	}
	return nil
}

// Close ends every session.
func (p *Pool) Close() {
	p.mu.Lock()
	all := p.sessions
	p.sessions = map[uuid.UUID]*entry{}
	p.closed = true
	p.mu.Unlock()
	p.dropLeased(uuid.Nil, true)
	p.dropWatch(uuid.Nil)
	for _, e := range all {
		<-e.ready
		if e.cs != nil {
			_ = e.cs.Close()
		}
	}
}

// Drop ends a login's session (after an error, a credential change, a removal).
func (p *Pool) Drop(login uuid.UUID) {
	p.dropLeased(login, false)
	p.dropWatch(login)
	p.mu.Lock()
	e := p.sessions[login]
	delete(p.sessions, login)
	p.mu.Unlock()
	if e != nil {
		go func() {
			<-e.ready
			if e.cs != nil {
				_ = e.cs.Close()
			}
		}()
	}
}

func (p *Pool) dropEntry(login uuid.UUID, e *entry) {
	p.mu.Lock()
	if p.sessions[login] == e {
		delete(p.sessions, login)
	}
	p.mu.Unlock()
	<-e.ready
	if e.cs != nil {
		_ = e.cs.Close()
	}
}

// session returns the login's session, connecting (initialize) when there is none or the endpoint
// or credentials changed.
func (p *Pool) session(ctx context.Context, login uuid.UUID, ep Endpoint) (*entry, error) {
	fp := ep.fingerprint()
	p.mu.Lock()
	e := p.sessions[login]
	if e != nil && e.fp != fp {
		delete(p.sessions, login)
		old := e
		go func() {
			<-old.ready
			if old.cs != nil {
				_ = old.cs.Close()
			}
		}()
		e = nil
	}
	if e == nil {
		e = &entry{fp: fp, ready: make(chan struct{}), barrier: newBarrier()}
		p.sessions[login] = e
		p.mu.Unlock()
		e.cs, e.err = p.connect(ctx, ep, e)
		close(e.ready)
		if e.err != nil {
			p.mu.Lock()
			if p.sessions[login] == e {
				delete(p.sessions, login)
			}
			p.mu.Unlock()
		}
	} else {
		p.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if e.err != nil {
		return e, e.err
	}
	return e, nil
}

func (p *Pool) connect(ctx context.Context, ep Endpoint, e *entry) (*mcp.ClientSession, error) {
	return p.connectWith(ctx, p.client, ep, e)
}

// connectWith opens a session of client (which fixes the capabilities it declares), without the
// standalone GET stream: what the remote sends goes on each request's own stream.
func (p *Pool) connectWith(ctx context.Context, client *mcp.Client, ep Endpoint, e *entry) (*mcp.ClientSession, error) {
	return p.dial(ctx, client, ep, e, false)
}

// dial opens a session of client; standalone keeps a GET stream open for what the remote sends
// unprompted (resource updates, subscribe.go).
func (p *Pool) dial(ctx context.Context, client *mcp.Client, ep Endpoint, e *entry, standalone bool) (*mcp.ClientSession, error) {
	u, err := url.Parse(ep.URL)
	if err != nil {
		return nil, fmt.Errorf("%w: bad URL", ErrAddress)
	}
	home := origin(u)
	hc := &http.Client{
		Transport: &checked{pool: p, next: p.base, header: ep.HeaderName, value: ep.HeaderValue, origin: home, entry: e},
		// The credential goes to the endpoint's origin only: a redirect elsewhere is refused.
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if origin(req.URL) != home {
				return &Error{Message: fmt.Sprintf("the endpoint redirected to %s, another origin than its own; a login's credential is sent only to its endpoint's origin", req.URL.Host)}
			}
			if len(via) >= 10 {
				return &Error{Message: "the endpoint redirected more than 10 times"}
			}
			return nil
		},
	}
	t := &mcp.StreamableClientTransport{Endpoint: ep.URL, HTTPClient: hc, DisableStandaloneSSE: !standalone, MaxRetries: -1}
	// The session outlives this request: connect under a context without its cancellation, bounded
	// by the listing limit.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.opts.ListTimeout)
	if e != nil {
		// The connection keeps this context's values: the notification handlers find the session's
		// barrier in theirs (ordered.go).
		cctx = context.WithValue(cctx, barrierKey{}, e.barrier)
	}
	defer cancel()
	cs, err := client.Connect(cctx, t, nil)
	if err != nil {
		return nil, p.classify(e, err)
	}
	return cs, nil
}

// classify turns a session error into a Error carrying the endpoint's 401 or 403 when it
// answered one, or keeps an address refusal.
func (p *Pool) classify(e *entry, err error) error {
	if errors.Is(err, ErrAddress) || errors.Is(err, ssrf.ErrForbiddenAddress) {
		return fmt.Errorf("%w: %v", ErrAddress, err)
	}
	var ce *Error
	if errors.As(err, &ce) {
		return ce
	}
	if e != nil {
		if n := e.overCap.Swap(0); n != 0 {
			return overCap(n)
		}
		if s := e.status.Load(); s != 0 {
			return &Error{Status: int(s), Message: "the endpoint refused the credentials"}
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Message: "the endpoint did not answer in time"}
	}
	return &Error{Message: "the endpoint failed: " + err.Error()}
}

// Initialize opens (or reuses) the login's session and returns the server's name and instructions:
// the default validate.
func (p *Pool) Initialize(ctx context.Context, login uuid.UUID, ep Endpoint) (name, instructions string, err error) {
	e, err := p.session(ctx, login, ep)
	if err != nil {
		return "", "", err
	}
	r := e.cs.InitializeResult()
	if r == nil {
		return "", "", nil
	}
	if r.ServerInfo != nil {
		name = r.ServerInfo.Name
	}
	return name, r.Instructions, nil
}

// ListTools lists the endpoint's tools within the listing limits.
func (p *Pool) ListTools(ctx context.Context, login uuid.UUID, ep Endpoint) ([]Tool, error) {
	var out []Tool
	err := p.withSession(ctx, login, ep, p.opts.ListTimeout, true, func(ctx context.Context, e *entry) error {
		cs := e.cs
		out = nil
		size := 0
		cursor := ""
		for {
			res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
			if err != nil {
				return err
			}
			b, _ := json.Marshal(res)
			size += len(b)
			if size > MaxListingBytes {
				return &Error{Message: fmt.Sprintf("the listing is over %d bytes", MaxListingBytes)}
			}
			for _, t := range res.Tools {
				if t == nil {
					continue
				}
				ct := Tool{Name: t.Name, Description: t.Description, TaskSupport: e.hints.taskSupport(t.Name)}
				if t.InputSchema != nil {
					ct.InputSchema, _ = json.Marshal(t.InputSchema)
				}
				if t.OutputSchema != nil {
					ct.OutputSchema, _ = json.Marshal(t.OutputSchema)
				}
				if a := t.Annotations; a != nil {
					// An absent readOnlyHint stays nil (the SDK reads it as false).
					if given, known := e.hints.readOnlyGiven(t.Name); given || !known && a.ReadOnlyHint {
						ro := a.ReadOnlyHint
						ct.ReadOnlyHint = &ro
					}
					ct.DestructiveHint = a.DestructiveHint
				}
				out = append(out, ct)
			}
			if len(out) > MaxListedTools {
				return &Error{Message: fmt.Sprintf("the listing has more than %d tools", MaxListedTools)}
			}
			if res.NextCursor == "" || res.NextCursor == cursor {
				return nil
			}
			cursor = res.NextCursor
		}
	})
	return out, err
}

// CallTool calls one tool by its remote name and returns the result as JSON ({"content": [...],
// "structuredContent": ..., "isError": ...}). args are sent as given (they must be JSON).
func (p *Pool) CallTool(ctx context.Context, login uuid.UUID, ep Endpoint, name string, args json.RawMessage) (json.RawMessage, error) {
	res, err := p.Call(ctx, login, ep, name, args)
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// Call calls one tool by its remote name and returns the remote's result as the SDK decoded it: its
// content blocks (text, image, audio, resource, resource_link, with their annotations), its
// structuredContent and isError. args are sent as given (they must be JSON).
func (p *Pool) Call(ctx context.Context, login uuid.UUID, ep Endpoint, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	var out *mcp.CallToolResult
	call := func(ctx context.Context, e *entry) error {
		cs := e.cs
		// The arguments travel as they came (checked, not decoded and encoded again).
		var a any
		if len(args) > 0 {
			if !json.Valid(args) {
				return &Error{Message: "arguments are not JSON"}
			}
			a = args
		}
		params := &mcp.CallToolParams{Name: name, Arguments: a}
		if mcppeer.Reporting(ctx) {
			// A token of this call only: the remote's progress is routed back by it.
			tok := uuid.NewString()
			p.progress.Store(tok, ctx)
			defer p.progress.Delete(tok)
			params.SetProgressToken(tok)
		}
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			return err
		}
		out = res
		return nil
	}
	var err error
	if caps := mcppeer.ClientCaps(ctx); caps != 0 || mcppeer.Logging(ctx) {
		// The remote may ask this agent's client, or log to it: a session of that capability set, held
		// alone, so that what the remote sends on it belongs to this call.
		err = p.withLease(ctx, login, ep, caps, p.opts.CallTimeout, call)
	} else {
		err = p.withSession(ctx, login, ep, p.opts.CallTimeout, false, call)
	}
	return out, err
}

// withSession runs fn on the login's session under timeout. On an error the session is dropped (unless
// the remote answered a JSON-RPC error: the session is sound) and fn runs once more on a new session
// when that cannot repeat what the remote did: a listing (idempotent) after any failure but a refusal
// of the credentials or the address; a call only when its request provably never reached the remote
// (the dial or the write failed before any byte of the body went out, or the remote answered 404 for a
// session it no longer knows).
func (p *Pool) withSession(parent context.Context, login uuid.UUID, ep Endpoint, timeout time.Duration, idempotent bool, fn func(context.Context, *entry) error) error {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	var last error
	for attempt := 0; attempt < 2; attempt++ {
		e, err := p.session(ctx, login, ep)
		if err != nil {
			return err
		}
		e.status.Store(0)
		err = fn(ctx, e)
		if err == nil {
			return nil
		}
		if parent.Err() != nil {
			// The caller cancelled (the agent sent notifications/cancelled, or went away): the SDK has
			// sent the remote notifications/cancelled for the request, and the session is sound.
			return &Error{Message: "the call was cancelled"}
		}
		var ce *Error
		if errors.As(err, &ce) && ce.Status == 0 && e.status.Load() == 0 {
			return err // our own limit, not the session's fault
		}
		if answered(err) && e.status.Load() == 0 && e.overCap.Load() == 0 {
			return p.classify(e, err) // the remote handled the request and answered an error
		}
		last = p.classify(e, err)
		p.dropEntry(login, e)
		if Rejected(last) || errors.Is(last, ErrAddress) || ctx.Err() != nil {
			return last
		}
		if !idempotent && !neverReached(err) {
			return last
		}
	}
	return last
}

// answered reports whether err is the remote's JSON-RPC error reply: a JSON-RPC error with no HTTP
// failure under it (the SDK's transport refusals are JSON-RPC errors too).
func answered(err error) bool {
	var rpc *jsonrpc.Error
	var ue *url.Error
	return errors.As(err, &rpc) && !errors.As(err, &ue) && !neverReached(err)
}

// neverReached reports whether err proves that the request was not handled by the remote.
func neverReached(err error) bool {
	var ns *notSent
	return errors.As(err, &ns) || errors.Is(err, mcp.ErrSessionMissing)
}

// notSent is a transport failure before any byte of the request's body was written.
type notSent struct{ err error }

func (e *notSent) Error() string { return e.err.Error() }
func (e *notSent) Unwrap() error { return e.err }

// countingBody counts the bytes the transport read from a request's body (at least those it sent).
type countingBody struct {
	rc io.ReadCloser
	n  *atomic.Int64
}

func (b *countingBody) Read(q []byte) (int, error) {
	n, err := b.rc.Read(q)
	b.n.Add(int64(n))
	return n, err
}

func (b *countingBody) Close() error { return b.rc.Close() }

// cappedBody fails a response body once it has given more than limit bytes.
type cappedBody struct {
	rc          io.ReadCloser
	left, limit int64
	hit         *atomic.Int64
}

func (b *cappedBody) Read(q []byte) (int, error) {
	if b.left >= 0 {
		if int64(len(q)) > b.left+1 {
			q = q[:b.left+1]
		}
		n, err := b.rc.Read(q)
		if b.left -= int64(n); b.left >= 0 {
			return n, err
		}
	}
	b.hit.Store(b.limit)
	return 0, overCap(b.limit)
}

// eventCapped caps each SSE event of a lasting stream at limit bytes (the bytes since the last blank
// line).
type eventCapped struct {
	rc    io.ReadCloser
	limit int64
	run   int64 // bytes since the last event's end
	last  byte  // the previous byte, to see a blank line split over reads
	hit   *atomic.Int64
}

func (b *eventCapped) Read(q []byte) (int, error) {
	n, err := b.rc.Read(q)
	for _, c := range q[:n] {
		if c == '\n' && b.last == '\n' {
			b.run = 0
		} else if c != '\r' {
			b.run++
		}
		if c != '\r' {
			b.last = c
		}
		if b.run > b.limit {
			b.hit.Store(b.limit)
			return 0, overCap(b.limit)
		}
	}
	return n, err
}

func (b *eventCapped) Close() error { return b.rc.Close() }

func overCap(limit int64) error {
	return &Error{Message: fmt.Sprintf("the endpoint's answer is over %d bytes", limit)}
}

func (b *cappedBody) Close() error { return b.rc.Close() }

// origin is u's scheme, host and port (the scheme's default when none is given), lower case.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// checked sends one request after checking its host's addresses, adds the credential header, and
// notes a 401 or 403 on its session.
type checked struct {
	pool          *Pool
	next          http.RoundTripper
	header, value string
	origin        string // the endpoint's: the only one the header goes to
	entry         *entry
}

func (c *checked) RoundTrip(req *http.Request) (*http.Response, error) {
	if _, err := Resolve(req.Context(), req.URL.Hostname(), c.pool.opts.AllowLoopback, c.pool.opts.Resolver); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	listing := c.entry != nil && isListing(req) // before the body is counted
	var sent *atomic.Int64
	if c.header != "" && origin(req.URL) == c.origin || req.Body != nil && req.Body != http.NoBody {
		req = req.Clone(req.Context())
	}
	if c.header != "" && origin(req.URL) == c.origin {
		req.Header.Set(c.header, c.value)
	}
	if req.Body != nil && req.Body != http.NoBody {
		sent = new(atomic.Int64)
		req.Body = &countingBody{rc: req.Body, n: sent}
		if gb := req.GetBody; gb != nil {
			req.GetBody = func() (io.ReadCloser, error) {
				b, err := gb()
				if err != nil {
					return nil, err
				}
				return &countingBody{rc: b, n: sent}, nil
			}
		}
	}
	resp, err := c.next.RoundTrip(req)
	if err != nil && sent != nil && sent.Load() == 0 {
		return nil, &notSent{err: err}
	}
	if err == nil && c.entry != nil {
		limit := c.pool.opts.MaxResponseBytes
		if limit <= 0 {
			limit = DefaultMaxResponseBytes
		}
		sse := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
		switch {
		case req.Method == http.MethodGet && sse:
			// The standalone stream of a watch (subscribe.go) lasts: each event is capped, not the whole.
			resp.Body = &eventCapped{rc: resp.Body, limit: limit, hit: &c.entry.overCap}
		case req.Method == http.MethodPost && sse:
			resp.Body = &ordered{rc: &cappedBody{rc: resp.Body, left: limit, limit: limit, hit: &c.entry.overCap}, b: c.entry.barrier}
		default:
			resp.Body = &cappedBody{rc: resp.Body, left: limit, limit: limit, hit: &c.entry.overCap}
		}
	}
	if err == nil && listing {
		watchListing(resp, &c.entry.hints)
	}
	if err == nil && c.entry != nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
		c.entry.status.Store(int32(resp.StatusCode))
	}
	return resp, err
}

// Resources lists the endpoint's resources and resource templates (each list at most MaxListedTools
// entries), as the remote gave them.
func (p *Pool) Resources(ctx context.Context, login uuid.UUID, ep Endpoint) ([]*mcp.Resource, []*mcp.ResourceTemplate, error) {
	var rs []*mcp.Resource
	var ts []*mcp.ResourceTemplate
	err := p.withSession(ctx, login, ep, p.opts.ListTimeout, true, func(ctx context.Context, e *entry) error {
		rs, ts = nil, nil
		if e.cs.InitializeResult() == nil || e.cs.InitializeResult().Capabilities == nil || e.cs.InitializeResult().Capabilities.Resources == nil {
			return nil // the remote offers none
		}
		for r, err := range e.cs.Resources(ctx, nil) {
			if err != nil {
				return err
			}
			if rs = append(rs, r); len(rs) > MaxListedTools {
				return &Error{Message: fmt.Sprintf("the remote lists more than %d resources", MaxListedTools)}
			}
		}
		for t, err := range e.cs.ResourceTemplates(ctx, nil) {
			if err != nil {
				return err
			}
			if ts = append(ts, t); len(ts) > MaxListedTools {
				return &Error{Message: fmt.Sprintf("the remote lists more than %d resource templates", MaxListedTools)}
			}
		}
		return nil
	})
	return rs, ts, err
}

// ReadResource reads one resource of the endpoint by its URI.
func (p *Pool) ReadResource(ctx context.Context, login uuid.UUID, ep Endpoint, uri string) (*mcp.ReadResourceResult, error) {
	var out *mcp.ReadResourceResult
	err := p.withSession(ctx, login, ep, p.opts.CallTimeout, true, func(ctx context.Context, e *entry) error {
		res, err := e.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		out = res
		return err
	})
	return out, err
}

// Prompts lists the endpoint's prompts (at most MaxListedTools).
func (p *Pool) Prompts(ctx context.Context, login uuid.UUID, ep Endpoint) ([]*mcp.Prompt, error) {
	var out []*mcp.Prompt
	err := p.withSession(ctx, login, ep, p.opts.ListTimeout, true, func(ctx context.Context, e *entry) error {
		out = nil
		if e.cs.InitializeResult() == nil || e.cs.InitializeResult().Capabilities == nil || e.cs.InitializeResult().Capabilities.Prompts == nil {
			return nil
		}
		for pr, err := range e.cs.Prompts(ctx, nil) {
			if err != nil {
				return err
			}
			if out = append(out, pr); len(out) > MaxListedTools {
				return &Error{Message: fmt.Sprintf("the remote lists more than %d prompts", MaxListedTools)}
			}
		}
		return nil
	})
	return out, err
}

// GetPrompt gets one prompt of the endpoint with its arguments.
func (p *Pool) GetPrompt(ctx context.Context, login uuid.UUID, ep Endpoint, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	var out *mcp.GetPromptResult
	err := p.withSession(ctx, login, ep, p.opts.CallTimeout, true, func(ctx context.Context, e *entry) error {
		res, err := e.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		out = res
		return err
	})
	return out, err
}

// Complete asks the endpoint to complete an argument of a prompt or a resource template.
func (p *Pool) Complete(ctx context.Context, login uuid.UUID, ep Endpoint, params *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	var out *mcp.CompleteResult
	err := p.withSession(ctx, login, ep, p.opts.CallTimeout, true, func(ctx context.Context, e *entry) error {
		res, err := e.cs.Complete(ctx, params)
		out = res
		return err
	})
	return out, err
}
