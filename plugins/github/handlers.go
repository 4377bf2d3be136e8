package github

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/plugins"
)

// handlers are the github plugin's Go handlers, by tool name.
func handlers() map[string]plugins.Handler {
	return map[string]plugins.Handler{"github_get_file_contents": getFileContents}
}

// githubMaxContents caps the contents response read by github_get_file_contents. GitHub returns a
// file's content in this endpoint only up to 1 MB (base64 makes that about 1.4 MB of JSON).
const githubMaxContents = 4 << 20

// getFileContents reads GET /repos/{owner}/{repo}/contents/{path}. It is a Go handler because
// the path argument spans several segments: a declarative template escapes "/" to %2F, which GitHub
// takes literally (a file named "a%2Fb", not b inside a), so each segment is escaped here on its own.
// A file's base64 content is decoded for the agent when it is UTF-8 text.
func getFileContents(ctx context.Context, rc plugins.Context, args json.RawMessage) (any, error) {
	const tool = "github_get_file_contents"
	var in struct {
		Owner string `json:"owner"`
		Repo  string `json:"repo"`
		Path  string `json:"path"`
		Ref   string `json:"ref"`
	}
	if err := plugins.DecodeArgs(tool, args, &in); err != nil {
		return nil, err
	}
	for name, v := range map[string]string{"owner": in.Owner, "repo": in.Repo} {
		if v == "" || v == "." || v == ".." || strings.Contains(v, "/") {
			return nil, &domain.Error{Code: domain.CodeInvalid, Message: fmt.Sprintf("%s: %s %q is not a single path segment", tool, name, v)}
		}
	}
	var segs []string
	if p := strings.Trim(in.Path, "/"); p != "" {
		for _, s := range strings.Split(p, "/") {
			if s == "" || s == "." || s == ".." {
				return nil, &domain.Error{Code: domain.CodeInvalid, Message: fmt.Sprintf("%s: path %q has an empty, . or .. segment", tool, in.Path)}
			}
			segs = append(segs, url.PathEscape(s))
		}
	}

	base, err := rc.BaseURL()
	if err != nil {
		return nil, err
	}
	raw := strings.TrimSuffix(base.EscapedPath(), "/") + "/repos/" + url.PathEscape(in.Owner) + "/" + url.PathEscape(in.Repo) +
		"/contents/" + strings.Join(segs, "/")
	u := *base
	unescaped, err := url.PathUnescape(raw)
	if err != nil {
		return nil, &domain.Error{Code: domain.CodeInvalid, Message: fmt.Sprintf("%s: bad path: %v", tool, err)}
	}
	u.Path, u.RawPath = unescaped, raw
	if in.Ref != "" {
		u.RawQuery = url.Values{"ref": {in.Ref}}.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("User-Agent", "workbench")
	headers := rc.Integration().Headers
	for _, k := range slices.Sorted(maps.Keys(headers)) {
		req.Header.Set(k, headers[k])
	}

	resp, data, err := plugins.Send(rc, tool, "GitHub", req, githubMaxContents)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 400 {
		return nil, plugins.ProviderHTTPError(tool, "GitHub", resp, data)
	}

	// A directory is an array of entries; anything else is one object.
	var entries []struct {
		Name string `json:"name"`
		Path string `json:"path"`
		Type string `json:"type"`
		Size int64  `json:"size"`
		SHA  string `json:"sha"`
	}
	if json.Unmarshal(data, &entries) == nil {
		out := make([]map[string]any, len(entries))
		for i, e := range entries {
			out[i] = map[string]any{"name": e.Name, "path": e.Path, "type": e.Type, "size": e.Size, "sha": e.SHA}
		}
		return map[string]any{"type": "dir", "path": strings.Trim(in.Path, "/"), "entries": out}, nil
	}
	var f struct {
		Type            string `json:"type"`
		Name            string `json:"name"`
		Path            string `json:"path"`
		SHA             string `json:"sha"`
		Size            int64  `json:"size"`
		HTMLURL         string `json:"html_url"`
		Encoding        string `json:"encoding"`
		Content         string `json:"content"`
		Target          string `json:"target"`
		SubmoduleGitURL string `json:"submodule_git_url"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, &domain.Error{Code: domain.CodeUnavailable, Message: tool + ": GitHub's response is not a contents object", Err: err}
	}
	out := map[string]any{"type": f.Type, "name": f.Name, "path": f.Path, "sha": f.SHA, "size": f.Size, "html_url": f.HTMLURL}
	switch f.Type {
	case "symlink":
		out["target"] = f.Target
	case "submodule":
		out["submodule_git_url"] = f.SubmoduleGitURL
	case "file":
		if f.Encoding != "base64" {
			// GitHub sends encoding "none" and no content for files between 1 and 100 MB.
			out["encoding"], out["content"] = f.Encoding, nil
			out["note"] = "GitHub does not return the content of files larger than 1 MB through this API"
			break
		}
		// GitHub wraps the base64 text at 60 columns.
		decoded, err := base64.StdEncoding.DecodeString(strings.NewReplacer("\n", "", "\r", "").Replace(f.Content))
		switch {
		case err != nil:
			out["encoding"], out["content"] = "base64", f.Content
		case utf8.Valid(decoded):
			out["encoding"], out["content"] = "utf-8", string(decoded)
		default:
			out["encoding"], out["content"] = "base64", base64.StdEncoding.EncodeToString(decoded)
		}
	}
	return out, nil
}
