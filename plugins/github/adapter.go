// The github connector's adapter (connectors/github): an adapter-only connector (no MCP endpoint) signing
// in with the github_app strategy, so every call carries an installation access token of the box's
// GitHub App (the connectors use case gets and renews it). It calls GitHub's REST API
// (https://docs.github.com/rest) with the headers GitHub documents: Accept application/vnd.github+json,
// X-GitHub-Api-Version 2022-11-28 and the token as a Bearer token.

package github

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/workbench/workbench/plugins/connector"
)

// DefaultAPIURL is GitHub's REST API.
const DefaultAPIURL = "https://api.github.com"

// maxBody bounds a response read from GitHub.
const maxBody = 1 << 20

// Adapter implements connector.Caller; listing falls back to the manifest's tools.
type Adapter struct {
	APIURL string
}

// New returns the adapter calling api (DefaultAPIURL when empty).
func New(api string) *Adapter {
	if api == "" {
		api = DefaultAPIURL
	}
	return &Adapter{APIURL: strings.TrimRight(api, "/")}
}

// Slug implements connector.Adapter.
func (*Adapter) Slug() string { return "github" }

var _ connector.Caller = (*Adapter)(nil)

func (a *Adapter) do(ctx context.Context, ac connector.Context, creds map[string]string, method, path string, body any) (json.RawMessage, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.APIURL+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("Authorization", "Bearer "+creds["token"])
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	b, err := ac.Send(req, "GitHub", maxBody)
	var ce *connector.Error
	if errors.As(err, &ce) && ce.Status != 0 {
		// GitHub says why in its own message: add it when it is short.
		var e struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(b, &e) == nil && e.Message != "" && len(e.Message) < 200 {
			ce.Message += ": " + e.Message
		}
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

// repoPath checks an owner/name and makes its path.
func repoPath(repo string) (string, error) {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") || name == "." || name == ".." {
		return "", &connector.Error{Status: http.StatusUnprocessableEntity, Message: fmt.Sprintf("repository %q is not owner/name", repo)}
	}
	return "/repos/" + url.PathEscape(owner) + "/" + url.PathEscape(name), nil
}

func page(p int) string {
	if p < 1 {
		p = 1
	}
	return strconv.Itoa(p)
}

// Call implements connector.Caller.
func (a *Adapter) Call(ctx context.Context, name string, args json.RawMessage, creds map[string]string, ac connector.Context) (json.RawMessage, error) {
	var in struct {
		Repository string `json:"repository"`
		State      string `json:"state"`
		Page       int    `json:"page"`
		Title      string `json:"title"`
		Body       string `json:"body"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, &connector.Error{Status: http.StatusUnprocessableEntity, Message: "the arguments are not an object"}
	}
	switch name {
	case "list_repositories":
		raw, err := a.do(ctx, ac, creds, http.MethodGet, "/installation/repositories?per_page=100&page="+page(in.Page), nil)
		if err != nil {
			return nil, err
		}
		var r struct {
			TotalCount   int `json:"total_count"`
			Repositories []struct {
				FullName      string `json:"full_name"`
				Private       bool   `json:"private"`
				Description   string `json:"description"`
				DefaultBranch string `json:"default_branch"`
			} `json:"repositories"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, &connector.Error{Message: "GitHub's repositories answer is not JSON"}
		}
		return json.Marshal(r)
	case "list_issues":
		p, err := repoPath(in.Repository)
		if err != nil {
			return nil, err
		}
		state := in.State
		if state == "" {
			state = "open"
		}
		raw, err := a.do(ctx, ac, creds, http.MethodGet, p+"/issues?"+url.Values{"state": {state}, "per_page": {"30"}, "page": {page(in.Page)}}.Encode(), nil)
		if err != nil {
			return nil, err
		}
		var issues []struct {
			Number int    `json:"number"`
			Title  string `json:"title"`
			State  string `json:"state"`
			User   struct {
				Login string `json:"login"`
			} `json:"user"`
			Labels []struct {
				Name string `json:"name"`
			} `json:"labels"`
			HTMLURL string `json:"html_url"`
		}
		if err := json.Unmarshal(raw, &issues); err != nil {
			return nil, &connector.Error{Message: "GitHub's issues answer is not JSON"}
		}
		return json.Marshal(map[string]any{"issues": issues})
	case "create_issue":
		p, err := repoPath(in.Repository)
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(in.Title) == "" {
			return nil, &connector.Error{Status: http.StatusUnprocessableEntity, Message: "title is required"}
		}
		body := map[string]string{"title": in.Title}
		if in.Body != "" {
			body["body"] = in.Body
		}
		raw, err := a.do(ctx, ac, creds, http.MethodPost, p+"/issues", body)
		if err != nil {
			return nil, err
		}
		var r struct {
			Number  int    `json:"number"`
			HTMLURL string `json:"html_url"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, &connector.Error{Message: "GitHub's issue answer is not JSON"}
		}
		return json.Marshal(r)
	}
	return nil, &connector.Error{Status: http.StatusNotFound, Message: "GitHub has no tool " + name}
}
