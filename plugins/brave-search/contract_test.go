package brave_test

import (
	"testing"

	"github.com/workbench/workbench/plugins/brave-search"
	"github.com/workbench/workbench/plugins/plugintest"
)

// Contract cases for the brave-search plugin, against the Brave Search API as documented at
// api-dashboard.search.brave.com (web, news, images, videos and suggest endpoints of /res/v1).

const braveKey = "BSA-contract-key"

var braveHeaders = map[string]string{"X-Subscription-Token": braveKey, "Accept": "application/json"}

// creds are what the fake expects of the brave-search connection.
var creds = plugintest.Credentials{APIKeys: map[string]string{"api_key": braveKey}}

// TestContracts calls every brave-search tool against a fake that checks the request as the provider documents it.
func TestContracts(t *testing.T) {
	plugintest.Contracts(t, brave.Plugin(), creds, contracts())
}

// contracts are the brave-search tools' contract cases.
func contracts() []plugintest.Case {
	return []plugintest.Case{
		{
			Tool: "brave_search_web", Args: `{"q":"go generics tutorial","freshness":"pm","result_filter":["web","news"],"offset":1}`,
			Method: "GET", Path: "/res/v1/web/search", Query: "count=10&freshness=pm&offset=1&q=go+generics+tutorial&result_filter=web%2Cnews",
			Header: braveHeaders,
			Status: 200, Respond: map[string]any{
				"type":  "search",
				"query": map[string]any{"original": "go generics tutorial", "show_strict_warning": false, "is_navigational": false, "country": "us", "more_results_available": true},
				"mixed": map[string]any{"type": "mixed", "main": []any{map[string]any{"type": "web", "index": 0, "all": false}}},
				"web": map[string]any{"type": "search", "family_friendly": true, "results": []any{map[string]any{
					"title": "Tutorial: Getting started with generics", "url": "https://go.dev/doc/tutorial/generics",
					"is_source_local": false, "description": "This tutorial introduces the basics of generics in Go.",
					"age": "March 15, 2022", "page_age": "2022-03-15T00:00:00", "language": "en",
					"profile":  map[string]any{"name": "Go", "url": "https://go.dev/doc/tutorial/generics"},
					"meta_url": map[string]any{"scheme": "https", "netloc": "go.dev", "hostname": "go.dev"}}}},
				"news": map[string]any{"type": "news", "results": []any{map[string]any{
					"title": "Go 1.24 is released", "url": "https://go.dev/blog/go1.24", "description": "Generic type aliases arrive.",
					"age": "2 weeks ago", "breaking": false}}},
			},
			Want: `{"query":{"original":"go generics tutorial","more_results_available":true},
			 "web":{"results":[{"title":"Tutorial: Getting started with generics","url":"https://go.dev/doc/tutorial/generics",
			   "description":"This tutorial introduces the basics of generics in Go.","age":"March 15, 2022","page_age":"2022-03-15T00:00:00"}]},
			 "news":{"results":[{"title":"Go 1.24 is released","url":"https://go.dev/blog/go1.24","description":"Generic type aliases arrive.","age":"2 weeks ago"}]}}`,
		},
		{
			Tool: "brave_search_news", Args: `{"q":"cybersecurity","country":"US","freshness":"pd"}`,
			Method: "GET", Path: "/res/v1/news/search", Query: "count=20&country=US&freshness=pd&offset=0&q=cybersecurity",
			Header: braveHeaders,
			Status: 200, Respond: map[string]any{
				"type":  "news",
				"query": map[string]any{"original": "cybersecurity", "spellcheck_off": false},
				"results": []any{map[string]any{"type": "news_result", "title": "Major breach disclosed", "url": "https://news.example.com/breach",
					"description": "A vendor disclosed a breach.", "age": "3 hours ago", "page_age": "2026-01-05T09:00:00",
					"page_fetched": "2026-01-05T09:10:00Z", "breaking": true,
					"thumbnail": map[string]any{"src": "https://imgs.search.brave.com/x.jpg"},
					"meta_url":  map[string]any{"scheme": "https", "netloc": "news.example.com", "hostname": "news.example.com", "path": "› breach"}}},
			},
			Want: `{"query":{"original":"cybersecurity"},"results":[{"title":"Major breach disclosed","url":"https://news.example.com/breach",
			 "description":"A vendor disclosed a breach.","age":"3 hours ago","page_age":"2026-01-05T09:00:00","breaking":true,
			 "meta_url":{"hostname":"news.example.com"}}]}`,
		},
		{
			Tool: "brave_search_images", Args: `{"q":"northern lights","count":2,"safesearch":"strict"}`,
			Method: "GET", Path: "/res/v1/images/search", Query: "count=2&q=northern+lights&safesearch=strict",
			Header: braveHeaders,
			Status: 200, Respond: map[string]any{
				"type":  "images",
				"query": map[string]any{"original": "northern lights", "altered": nil, "spellcheck_off": false},
				"results": []any{map[string]any{"type": "image_result", "title": "Aurora over Tromsø", "url": "https://example.com/aurora",
					"source": "example.com", "page_fetched": "2025-09-15T10:30:00Z",
					"thumbnail":  map[string]any{"src": "https://imgs.search.brave.com/t.jpg", "width": 200, "height": 150},
					"properties": map[string]any{"url": "https://example.com/aurora.jpg", "placeholder": "https://imgs.search.brave.com/p.jpg", "width": 1920, "height": 1080},
					"meta_url":   map[string]any{"hostname": "example.com"}, "confidence": "high"}},
				"extra": map[string]any{"might_be_offensive": false},
			},
			Want: `{"query":{"original":"northern lights","altered":null},"results":[{"title":"Aurora over Tromsø","url":"https://example.com/aurora",
			 "source":"example.com","properties":{"url":"https://example.com/aurora.jpg","width":1920,"height":1080},
			 "thumbnail":{"src":"https://imgs.search.brave.com/t.jpg"}}]}`,
		},
		{
			Tool: "brave_search_videos", Args: `{"q":"kubernetes operators"}`,
			Method: "GET", Path: "/res/v1/videos/search", Query: "count=20&offset=0&q=kubernetes+operators",
			Header: braveHeaders,
			Status: 200, Respond: map[string]any{
				"type":  "videos",
				"query": map[string]any{"original": "kubernetes operators"},
				"results": []any{map[string]any{"type": "video_result", "title": "Kubernetes Operators Explained", "url": "https://www.youtube.com/watch?v=abc",
					"description": "What an operator is.", "age": "1 year ago",
					"video":     map[string]any{"duration": "09:12", "views": 120000, "creator": "IBM Technology", "publisher": "YouTube"},
					"thumbnail": map[string]any{"src": "https://imgs.search.brave.com/v.jpg"}}},
			},
			Want: `{"query":{"original":"kubernetes operators"},"results":[{"title":"Kubernetes Operators Explained","url":"https://www.youtube.com/watch?v=abc",
			 "description":"What an operator is.","age":"1 year ago","video":{"duration":"09:12","creator":"IBM Technology","publisher":"YouTube"}}]}`,
		},
		{
			Tool: "brave_search_suggest", Args: `{"q":"hello","country":"US"}`,
			Method: "GET", Path: "/res/v1/suggest/search", Query: "count=5&country=US&q=hello",
			Header: braveHeaders,
			Status: 200, Respond: map[string]any{
				"type":    "suggest",
				"query":   map[string]any{"original": "hello"},
				"results": []any{map[string]any{"query": "hello world"}, map[string]any{"query": "hello kitty"}},
			},
			Want: `{"query":{"original":"hello"},"results":[{"query":"hello world"},{"query":"hello kitty"}]}`,
		},
	}
}
