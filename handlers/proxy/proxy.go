package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/domain/curlsession"
	"github.com/workbench/workbench/plugins"
)

// Defaults of Options.
const (
	DefaultMaxRequestBytes  = 10 << 20 // 10 MiB
	DefaultMaxResponseBytes = 50 << 20 // 50 MiB
)

// Catalog is the part of the plugin registry the proxy reads.
type Catalog interface {
	Integration(name string) (*plugins.Integration, bool)
}

// Credentials is the part of the credential layer the proxy uses (*connections.Service): the
// user's credential for one integration, refreshed lazily by its injector, or a CodeNotConnected
// error.
type Credentials interface {
	Access(ctx context.Context, user uuid.UUID, in *plugins.Integration, account string) (connections.Access, error)
}

// Sessions is the curl session use case (*curlsessions.Service) the proxy records every request
// with a valid token through: Forwarded and Refused return nil only once their record is durable,
// Proxied takes a forwarded request's outcome (see app/curlsessions for the guarantee).
type Sessions interface {
	Forwarded(ctx context.Context, ev curlsession.RequestForwarded) error
	Refused(ctx context.Context, ev curlsession.RequestProxied) error
	Proxied(ctx context.Context, ev curlsession.RequestProxied)
}

// Options wire a Proxy. Catalog, Credentials, Sessions, Key and PublicURL are required.
type Options struct {
	Catalog     Catalog
	Credentials Credentials
	Sessions    Sessions
	// Key signs tokens: at least 32 bytes, the same on every replica (Main derives it from the
	// master key).
	Key []byte
	// PublicURL is SERVER_PUBLIC_URL; the proxy lives under <PublicURL>/c/.
	PublicURL string
	// MaxRequestBytes caps a request body (default DefaultMaxRequestBytes): larger is 413.
	MaxRequestBytes int64
	// MaxResponseBytes caps an upstream response body (default DefaultMaxResponseBytes): a larger
	// declared length is 502 before anything is relayed; a stream that grows past it is cut.
	MaxResponseBytes int64
	// Transport sends the upstream requests. An *http.Transport (Main's SSRF-guarded one) is cloned
	// with its dialer, so that the proxy keeps idle connections to the providers of its own and never
	// decompresses, so bodies pass through as sent; nil is http.DefaultTransport's settings, cloned
	// the same way (see upstreamTransport).
	Transport http.RoundTripper
	// CredentialTTL is how long a user's resolved credential is reused across requests (default
	// DefaultCredentialTTL; negative: resolved on every request). A disconnect reaches the proxy at
	// most this late.
	CredentialTTL time.Duration
	Logger        *slog.Logger
	Now           func() time.Time
}

// Proxy forwards /c/<integration>/<path> (ServeHTTP), recording each request through Sessions.
type Proxy struct {
	catalog   Catalog
	creds     Credentials
	sessions  Sessions
	signer    signer
	publicURL string
	maxReq    int64
	maxResp   int64
	transport http.RoundTripper
	log       *slog.Logger
	now       func() time.Time

	access accessCache
	tokens verifiedTokens
	rp     *httputil.ReverseProxy
	bufs   sync.Pool
}

var _ http.Handler = (*Proxy)(nil)

// New checks opts and returns a Proxy.
func New(opts Options) (*Proxy, error) {
	switch {
	case opts.Catalog == nil || opts.Credentials == nil || opts.Sessions == nil:
		return nil, errors.New("proxy: Catalog, Credentials and Sessions are required")
	case len(opts.Key) < 32:
		return nil, errors.New("proxy: the token key must be at least 32 bytes")
	}
	u, err := url.Parse(opts.PublicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("proxy: the public URL (SERVER_PUBLIC_URL) must be an absolute http or https URL")
	}
	p := &Proxy{
		catalog: opts.Catalog, creds: opts.Credentials, sessions: opts.Sessions,
		publicURL: strings.TrimRight(opts.PublicURL, "/"),
		maxReq:    opts.MaxRequestBytes, maxResp: opts.MaxResponseBytes,
		transport: opts.Transport, log: opts.Logger, now: opts.Now,
	}
	if p.maxReq <= 0 {
		p.maxReq = DefaultMaxRequestBytes
	}
	if p.maxResp <= 0 {
		p.maxResp = DefaultMaxResponseBytes
	}
	p.transport = upstreamTransport(p.transport)
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	if p.now == nil {
		p.now = time.Now
	}
	if p.signer, err = newSigner(opts.Key, p.now); err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	p.access = accessCache{ttl: opts.CredentialTTL, m: map[accessKey]cachedAccess{}}
	if opts.CredentialTTL == 0 {
		p.access.ttl = DefaultCredentialTTL
	}
	p.bufs.New = func() any { b := make([]byte, 32<<10); return &b }
	p.rp = &httputil.ReverseProxy{
		Rewrite:        p.rewrite,
		Transport:      roundTripperFunc(p.roundTrip),
		ModifyResponse: p.modifyResponse,
		ErrorHandler:   p.upstreamError,
		BufferPool:     bufferPool{&p.bufs},
		ErrorLog:       slog.NewLogLogger(p.log.Handler(), slog.LevelWarn),
	}
	return p, nil
}

// Idle connections the proxy keeps to the providers (see upstreamTransport).
const (
	maxIdleConns        = 256
	maxIdleConnsPerHost = 64
)

// upstreamTransport is what the proxy sends with. Given an *http.Transport (Main gives its SSRF-guarded
// one, shared with tool calls and token requests), the proxy sends through a clone of it: the same
// dialer, so every new connection is still resolved and checked (internal/ssrf), but a pool of its own
// with room for many concurrent requests to one provider (every user's traffic to a provider shares
// it), so a busy proxy reuses its connections rather than closing the surplus and dialling (and
// resolving) again, and no transparent decompression, so bodies pass through as the provider sent
// them. Without one, it is http.DefaultTransport's settings with the same changes. Any other
// RoundTripper (a test's) is used as given.
func upstreamTransport(rt http.RoundTripper) http.RoundTripper {
	var t *http.Transport
	switch given := rt.(type) {
	case nil:
		t = http.DefaultTransport.(*http.Transport).Clone()
	case *http.Transport:
		t = given.Clone()
	default:
		return rt
	}
	if t.MaxIdleConns != 0 { // 0 is no limit
		t.MaxIdleConns = max(t.MaxIdleConns, maxIdleConns)
	}
	t.MaxIdleConnsPerHost = max(t.MaxIdleConnsPerHost, maxIdleConnsPerHost)
	t.DisableCompression = true
	if t.ResponseHeaderTimeout == 0 {
		t.ResponseHeaderTimeout = 60 * time.Second
	}
	return t
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

type bufferPool struct{ p *sync.Pool }

func (b bufferPool) Get() []byte  { return *(b.p.Get().(*[]byte)) }
func (b bufferPool) Put(v []byte) { b.p.Put(&v) }
