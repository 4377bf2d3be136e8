// The brave connector's adapter (connectors/brave), Brave Web Search: an adapter-only connector that calls
// the Brave Search API's web search (https://api-dashboard.search.brave.com/app/documentation/web-search/get-started),
// GET /res/v1/web/search?q=...&count=..., with the key in the X-Subscription-Token header. Its manifest
// names auth.instance {integration: brave-search, field: api_key}: with no login of its own, an
// organisation searches on the platform's Brave Search key (spec connectors.md, Platform logins).

package brave

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/workbench/workbench/plugins/connector"
)

// DefaultBaseURL is the Brave Search API's host.
const DefaultBaseURL = "https://api.search.brave.com"

// maxBody bounds a response read from Brave.
const maxBody = 2 << 20

// Adapter implements connector.Validator and Caller; listing falls back to the manifest.
type Adapter struct {
	BaseURL string
}

// New returns the adapter calling base (DefaultBaseURL when empty).
func New(base string) *Adapter {
	if base == "" {
		base = DefaultBaseURL
	}
	return &Adapter{BaseURL: strings.TrimRight(base, "/")}
}

// Slug implements connector.Adapter.
func (*Adapter) Slug() string { return "brave" }

var (
	_ connector.Validator = (*Adapter)(nil)
	_ connector.Caller    = (*Adapter)(nil)
)

// Result is one web result as the tool answers it.
type Result struct {
	Title       string `json:"title"`
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
}

func (a *Adapter) search(ctx context.Context, ac connector.Context, key, q string, count int) ([]Result, error) {
	v := url.Values{"q": {q}, "count": {strconv.Itoa(count)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.BaseURL+"/res/v1/web/search?"+v.Encode(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", key)
	b, err := ac.Send(req, "Brave Search", maxBody)
	if err != nil {
		return nil, err
	}
	var r struct {
		Web struct {
			Results []Result `json:"results"`
		} `json:"web"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, &connector.Error{Message: "Brave Search's answer is not JSON"}
	}
	if r.Web.Results == nil {
		r.Web.Results = []Result{}
	}
	return r.Web.Results, nil
}

// Validate makes one search of one result with the key; a refused key is the provider's 401 or 403.
func (a *Adapter) Validate(ctx context.Context, creds map[string]string, ac connector.Context) (string, error) {
	if _, err := a.search(ctx, ac, creds["api_key"], "workbench", 1); err != nil {
		return "", err
	}
	return "Brave Search API", nil
}

// Call runs web_search.
func (a *Adapter) Call(ctx context.Context, name string, args json.RawMessage, creds map[string]string, ac connector.Context) (json.RawMessage, error) {
	if name != "web_search" {
		return nil, &connector.Error{Status: http.StatusNotFound, Message: "no tool " + name}
	}
	var in struct {
		Query string `json:"query"`
		Count int    `json:"count"`
	}
	if err := json.Unmarshal(args, &in); err != nil || strings.TrimSpace(in.Query) == "" {
		return nil, &connector.Error{Status: http.StatusBadRequest, Message: "web_search needs a query"}
	}
	if in.Count <= 0 || in.Count > 20 {
		in.Count = 10
	}
	results, err := a.search(ctx, ac, creds["api_key"], in.Query, in.Count)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{"results": results})
}
