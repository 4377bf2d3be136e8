package connectorcatalog

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"sync"
	"time"

	"github.com/workbench/workbench/app/connectors/mcpclient"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/internal/ssrf"
)

// The registry index (CONNECTOR_REGISTRY_URL): one JSON document served over HTTPS,
//
//	{"connectors": [<connector.json object>, ...], "verified": ["<slug>", ...]}
//
// Each element of connectors is a manifest as a registry folder's connector.json holds it, named by
// its own "slug"; verified lists the slugs the registry vouches for. The index is fetched server-side
// through the address-checked transport (public addresses only; loopback only with
// WORKBENCH_DEV_ALLOW_LOOPBACK): https only, every redirect checked again like the first URL, at most
// MaxRegistryIndexBytes within RegistryIndexTimeout, and the reply must be 200 application/json. A
// fetched index is kept RegistryIndexTTL, so an admin's listing and the install that follows see the
// same entries; a failed fetch is not kept. A registry that cannot be fetched or does not answer an
// index is CodeUpstream (502) naming its host.
const (
	// MaxRegistryIndexBytes bounds the index document.
	MaxRegistryIndexBytes = 4 << 20
	// RegistryIndexTimeout bounds one fetch of the index, redirects included.
	RegistryIndexTimeout = 15 * time.Second
	// RegistryIndexTTL is how long a fetched index is reused.
	RegistryIndexTTL = 60 * time.Second
	// maxRegistryRedirects bounds the redirects followed to the index.
	maxRegistryRedirects = 3
)

// registryIndex is the index document.
type registryIndex struct {
	Connectors []json.RawMessage `json:"connectors"`
	Verified   []string          `json:"verified"`
}

type registryIndexCache struct {
	mu      sync.Mutex
	at      time.Time
	entries []RegistryEntry
}

// readRegistryIndex is readRegistry for an index at RegistryURL: the cached entries while fresh,
// else a fetch.
func (s *Service) readRegistryIndex(ctx context.Context) ([]RegistryEntry, error) {
	c := &s.index
	c.mu.Lock()
	defer c.mu.Unlock()
	now := s.Opts.Now()
	if c.entries != nil && now.Sub(c.at) >= 0 && now.Sub(c.at) < RegistryIndexTTL {
		return cloneEntries(c.entries), nil
	}
	entries, err := s.fetchRegistryIndex(ctx)
	if err != nil {
		return nil, err
	}
	c.entries, c.at = entries, now
	return cloneEntries(entries), nil
}

func cloneEntries(in []RegistryEntry) []RegistryEntry {
	out := make([]RegistryEntry, len(in))
	for i, e := range in {
		e.Problems = append([]string{}, e.Problems...)
		out[i] = e
	}
	return out
}

func (s *Service) fetchRegistryIndex(ctx context.Context) ([]RegistryEntry, error) {
	raw := s.Opts.RegistryURL
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, domain.Errorf(domain.CodeUnavailable, "the connector registry URL %q is not an absolute URL", raw)
	}
	host := u.Host
	upstream := func(format string, args ...any) error {
		return domain.Errorf(domain.CodeUpstream, "the connector registry at %s %s", host, fmt.Sprintf(format, args...))
	}
	if err := mcpclient.CheckURL(ctx, raw, s.Opts.AllowLoopback, s.Opts.Resolver); err != nil {
		return nil, upstream("is refused: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, RegistryIndexTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, upstream("cannot be asked: %v", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.registryClient().Do(req)
	if err != nil {
		var refused *redirectRefused
		if errors.As(err, &refused) {
			return nil, upstream("redirected to %s, which is refused: %v", refused.to, refused.err)
		}
		if errors.Is(err, ssrf.ErrForbiddenAddress) || errors.Is(err, mcpclient.ErrAddress) {
			return nil, upstream("is at a refused address: %v", err)
		}
		if ctx.Err() != nil {
			return nil, upstream("did not answer within %s", RegistryIndexTimeout)
		}
		s.Log.WarnContext(ctx, "the connector registry index cannot be fetched", "host", host, "err", err)
		return nil, upstream("cannot be reached")
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, upstream("answered %d", resp.StatusCode)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "application/json" {
		return nil, upstream("answered %q, not application/json", resp.Header.Get("Content-Type"))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxRegistryIndexBytes+1))
	if err != nil {
		return nil, upstream("answered an unreadable index")
	}
	if len(body) > MaxRegistryIndexBytes {
		return nil, upstream("answered an index over %d bytes", MaxRegistryIndexBytes)
	}
	return parseRegistryIndex(body, upstream)
}

// parseRegistryIndex reads the index document into entries; a document that is not an index is an
// error (upstream names the registry), a bad connector in it is an entry with its problems.
func parseRegistryIndex(body []byte, upstream func(string, ...any) error) ([]RegistryEntry, error) {
	var idx registryIndex
	if err := json.Unmarshal(body, &idx); err != nil {
		return nil, upstream("answered a document that is not a registry index ({\"connectors\": [...], \"verified\": [...]}): %v", err)
	}
	if idx.Connectors == nil {
		return nil, upstream("answered a document with no \"connectors\" list")
	}
	verified := map[string]bool{}
	for _, v := range idx.Verified {
		verified[v] = true
	}
	seen := map[string]int{}
	out := make([]RegistryEntry, 0, len(idx.Connectors))
	for i, raw := range idx.Connectors {
		var head struct {
			Slug any `json:"slug"`
		}
		slug := ""
		if err := json.Unmarshal(raw, &head); err == nil {
			slug, _ = head.Slug.(string)
		}
		if slug == "" {
			out = append(out, RegistryEntry{Slug: fmt.Sprintf("connectors[%d]", i), Problems: []string{fmt.Sprintf("connectors[%d] is not a connector.json object with a \"slug\"", i)}})
			continue
		}
		seen[slug]++
		if len(raw) > MaxRegistryManifestBytes {
			out = append(out, RegistryEntry{Slug: slug, Verified: verified[slug], Problems: []string{fmt.Sprintf("connectors[%d] is over %d bytes", i, MaxRegistryManifestBytes)}})
			continue
		}
		out = append(out, registryEntry(slug, append([]byte(nil), raw...), verified[slug]))
	}
	// A slug the index holds twice is ambiguous: neither of its entries installs.
	for i := range out {
		if n := seen[out[i].Slug]; n > 1 {
			out[i].Problems = append(out[i].Problems, fmt.Sprintf("slug %q appears %d times in the index", out[i].Slug, n))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Slug < out[j].Slug })
	return out, nil
}

// redirectRefused is a redirect of the index fetch that the checks refuse.
type redirectRefused struct {
	to  string
	err error
}

func (e *redirectRefused) Error() string { return fmt.Sprintf("redirect to %s: %v", e.to, e.err) }

// registryClient is the client of the index fetch: the address-checked transport (trusting
// RegistryRootCAs when set), each redirect checked like the first URL and at most
// maxRegistryRedirects of them.
func (s *Service) registryClient() *http.Client {
	t := ssrf.NewTransport(ssrf.Options{AllowLoopback: s.Opts.AllowLoopback, Resolver: s.Opts.Resolver})
	t.DisableKeepAlives = true // a fetch a minute at most: no idle connection outlives it
	if s.Opts.RegistryRootCAs != nil {
		t.TLSClientConfig = &tls.Config{RootCAs: s.Opts.RegistryRootCAs, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{Transport: t, Timeout: RegistryIndexTimeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > maxRegistryRedirects {
			return &redirectRefused{to: req.URL.Redacted(), err: fmt.Errorf("more than %d redirects", maxRegistryRedirects)}
		}
		if err := mcpclient.CheckURL(req.Context(), req.URL.String(), s.Opts.AllowLoopback, s.Opts.Resolver); err != nil {
			return &redirectRefused{to: req.URL.Redacted(), err: err}
		}
		return nil
	}}
}
