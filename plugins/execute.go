package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/workbench/workbench/domain"
)

// maxErrorMessage caps the provider message quoted in a tool error.
// MaxErrorMessage is the most bytes of a provider's message a tool error quotes.
const MaxErrorMessage = 300

// compiledTemplate is an HTTPTemplate split once at load.
type compiledTemplate struct {
	*HTTPTemplate
	path []pathPart
}

type pathPart struct {
	literal string
	arg     string
}

func compileTemplate(h *HTTPTemplate) *compiledTemplate {
	ct := &compiledTemplate{HTTPTemplate: h}
	rest := h.Path
	for _, loc := range placeholderRE.FindAllStringSubmatchIndex(h.Path, -1) {
		offset := len(h.Path) - len(rest)
		ct.path = append(ct.path, pathPart{literal: rest[:loc[0]-offset]}, pathPart{arg: h.Path[loc[2]:loc[3]]})
		rest = h.Path[loc[1]:]
	}
	ct.path = append(ct.path, pathPart{literal: rest})
	return ct
}

// Execute runs a tool with arguments returned by ValidateArgs (they are not validated again) in the
// runtime context rc, which must have been made by NewContext for the tool's integration. A Go
// handler's panic is recovered and reported as an internal error. Errors carry a *domain.Error whose
// Message is safe to show to the agent.
func (r *Registry) Execute(ctx context.Context, t *Tool, rc Context, args json.RawMessage) (result json.RawMessage, err error) {
	if rc.integration != t.integration {
		return nil, fmt.Errorf("execute %s: the runtime context was not made for integration %s", t.Name, t.Integration)
	}
	if t.http != nil {
		return r.executeHTTP(ctx, t, rc, args)
	}
	defer func() {
		if p := recover(); p != nil {
			rc.Logger().Error("tool handler panicked", "tool", t.Name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			result, err = nil, &domain.Error{Code: domain.CodeInternal, Message: t.Name + " failed: internal error", Err: fmt.Errorf("panic: %v", p)}
		}
	}()
	out, err := t.handler(ctx, rc, args)
	if err != nil {
		var de *domain.Error
		if errors.As(err, &de) {
			return nil, err
		}
		return nil, &domain.Error{Code: domain.CodeInternal, Message: t.Name + " failed: " + err.Error(), Err: err}
	}
	if raw, ok := out.(json.RawMessage); ok {
		return raw, nil
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return nil, &domain.Error{Code: domain.CodeInternal, Message: t.Name + " failed: its result is not JSON", Err: err}
	}
	return raw, nil
}

func invalid(t *Tool, format string, args ...any) error {
	return &domain.Error{Code: domain.CodeInvalid, Message: t.Name + ": " + fmt.Sprintf(format, args...)}
}

// BuildRequest builds the request a declarative tool sends, without sending it and without the
// credential (the runtime client adds that). The URL always stays on the integration's base URL:
// path arguments are escaped (a "/" becomes %2F) and "." or ".." is refused, so an argument can
// neither climb out of the base path nor change the host.
//
// Placeholders filled from the credential ({credential.<key>}) need the values a runtime context
// carries: BuildRequest has none, so a tool or base URL holding one fails here; Execute fills them.
func (r *Registry) BuildRequest(ctx context.Context, t *Tool, args json.RawMessage) (*http.Request, error) {
	base, err := t.integration.resolveCredentialURL(t.integration.BaseURL, nil)
	if err != nil {
		return nil, err
	}
	return r.buildRequest(ctx, t, base, nil, args)
}

func (r *Registry) buildRequest(ctx context.Context, t *Tool, base *url.URL, credential map[string]string, args json.RawMessage) (*http.Request, error) {
	if t.http == nil {
		return nil, fmt.Errorf("build request: %s is not a declarative tool", t.Name)
	}
	if base == nil {
		return nil, fmt.Errorf("build request: integration %s has no base_url", t.Integration)
	}
	tpl := t.http
	var argv map[string]any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&argv); err != nil {
		return nil, invalid(t, "arguments must be a JSON object")
	}

	var p strings.Builder
	p.WriteString(strings.TrimSuffix(base.EscapedPath(), "/"))
	for _, part := range tpl.path {
		if part.arg == "" {
			p.WriteString(part.literal)
			continue
		}
		if key, ok := strings.CutPrefix(part.arg, CredentialPrefix); ok {
			v, err := credentialValue(t.integration, key, credential)
			if err != nil {
				return nil, err
			}
			p.WriteString(url.PathEscape(v))
			continue
		}
		s, err := ScalarString(argv[part.arg])
		switch {
		case err != nil:
			return nil, invalid(t, "path argument %s: %v", part.arg, err)
		case s == "":
			return nil, invalid(t, "path argument %s may not be empty", part.arg)
		case s == "." || s == "..":
			return nil, invalid(t, "path argument %s may not be %q", part.arg, s)
		}
		p.WriteString(url.PathEscape(s))
	}
	u := *base
	unescaped, err := url.PathUnescape(p.String())
	if err != nil {
		return nil, invalid(t, "bad path: %v", err)
	}
	u.Path, u.RawPath = unescaped, p.String()

	q := url.Values{}
	for _, name := range sortedKeys(tpl.Query) {
		v := tpl.Query[name]
		if v.Arg == "" {
			q.Set(name, v.Literal)
			continue
		}
		val, ok := argv[v.Arg]
		if !ok || val == nil {
			continue
		}
		if list, isList := val.([]any); isList {
			parts := make([]string, 0, len(list))
			for _, e := range list {
				s, err := ScalarString(e)
				if err != nil {
					return nil, invalid(t, "query argument %s: %v", v.Arg, err)
				}
				parts = append(parts, s)
			}
			if v.Explode {
				for _, p := range parts {
					q.Add(name, p)
				}
				continue
			}
			if len(parts) > 0 {
				q.Set(name, strings.Join(parts, ","))
			}
			continue
		}
		s, err := ScalarString(val)
		if err != nil {
			return nil, invalid(t, "query argument %s: %v", v.Arg, err)
		}
		q.Set(name, s)
	}
	u.RawQuery = q.Encode()

	var body io.Reader
	var hasBody bool
	if tpl.Body != nil {
		rendered, present := renderBody(tpl.Body, argv)
		if present {
			b, err := json.Marshal(rendered)
			if err != nil {
				return nil, invalid(t, "body: %v", err)
			}
			body, hasBody = bytes.NewReader(b), true
		}
	}
	req, err := http.NewRequestWithContext(ctx, tpl.Method, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("build request for %s: %w", t.Name, err)
	}
	if t.integration.baseURL == nil || origin(req.URL) != origin(t.integration.baseURL) {
		return nil, fmt.Errorf("build request for %s: URL left the base URL's origin", t.Name) // cannot happen; checked anyway
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "workbench")
	if hasBody {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, k := range sortedKeys(t.integration.Headers) {
		req.Header.Set(k, t.integration.Headers[k])
	}
	for _, k := range sortedKeys(tpl.Headers) {
		v := tpl.Headers[k]
		if v.Arg == "" {
			req.Header.Set(k, v.Literal)
			continue
		}
		if val, ok := argv[v.Arg]; ok && val != nil {
			s, err := ScalarString(val)
			if err != nil || strings.ContainsAny(s, "\r\n") {
				return nil, invalid(t, "header argument %s must be a single-line scalar", v.Arg)
			}
			req.Header.Set(k, s)
		}
	}
	return req, nil
}

// ScalarString renders one scalar argument (string, number, boolean) as text for a URL or a header;
// nil is "is missing" and anything else "must be a string, number or boolean".
func ScalarString(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case json.Number:
		return v.String(), nil
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), nil
	case bool:
		return strconv.FormatBool(v), nil
	case nil:
		return "", errors.New("is missing")
	default:
		return "", errors.New("must be a string, number or boolean")
	}
}

// renderBody replaces {"$arg": name} references with argument values. An absent argument drops its
// object member, and an object all of whose members were dropped is dropped in turn (so an optional
// {"filter": {"team": {"$arg": "team"}}} leaves no empty "filter"); a literal {} stays. The top-level
// object is always sent; a top-level {"$arg": name} that is absent means no body.
func renderBody(v any, args map[string]any) (any, bool) {
	out, present := renderValue(v, args)
	if _, isMap := v.(map[string]any); isMap && !present {
		return map[string]any{}, true
	}
	return out, present
}

func renderValue(v any, args map[string]any) (any, bool) {
	if name, ok := argRef(v); ok {
		val, present := args[name]
		return val, present
	}
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			if r, ok := renderValue(e, args); ok {
				out[k] = r
			}
		}
		if len(v) > 0 && len(out) == 0 {
			return nil, false
		}
		return out, true
	case []any:
		out := make([]any, 0, len(v))
		for _, e := range v {
			if r, ok := renderValue(e, args); ok {
				out = append(out, r)
			} else {
				out = append(out, nil)
			}
		}
		return out, true
	default:
		return v, true
	}
}

func (r *Registry) executeHTTP(ctx context.Context, t *Tool, rc Context, args json.RawMessage) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	if rc.baseErr != nil {
		return nil, rc.baseErr
	}
	req, err := r.buildRequest(ctx, t, rc.baseURL, rc.credential, args)
	if err != nil {
		return nil, err
	}
	in := t.integration
	resp, err := rc.client.Do(req)
	if err != nil {
		var de *domain.Error
		if errors.As(err, &de) {
			return nil, err // the injector's own error (not connected, refresh failed)
		}
		cause := err
		var ue *url.Error
		if errors.As(err, &ue) {
			cause = ue.Err // the URL may carry an injected query credential: never echo it
		}
		return nil, &domain.Error{Code: domain.CodeUnavailable,
			Message: fmt.Sprintf("%s: request to %s failed: %v", t.Name, origin(req.URL), cause), Err: cause}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, r.maxResponse+1))
	if err != nil {
		return nil, &domain.Error{Code: domain.CodeUnavailable, Message: fmt.Sprintf("%s: reading the response from %s failed: %v", t.Name, in.DisplayName, err), Err: err}
	}
	if int64(len(data)) > r.maxResponse {
		return nil, &domain.Error{Code: domain.CodeUnavailable, Message: fmt.Sprintf("%s: the response from %s is larger than %d bytes", t.Name, in.DisplayName, r.maxResponse)}
	}
	if resp.StatusCode >= 400 {
		return nil, upstreamError(t, resp, data)
	}
	return shapeResponse(t, resp, data)
}

// UpstreamError is a provider's HTTP error answer.
type UpstreamError struct {
	Status  int
	Message string
}

func (e *UpstreamError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Status, e.Message) }

func upstreamError(t *Tool, resp *http.Response, data []byte) error {
	return ProviderHTTPError(t.Name, t.integration.DisplayName, resp, data)
}

// providerMessage finds the human-readable message in an error body: the common JSON fields
// (message, error_description, error, errors[].message) or else the text itself.
func providerMessage(data []byte) string {
	var doc any
	if json.Unmarshal(data, &doc) != nil {
		return strings.TrimSpace(string(data))
	}
	if m, ok := doc.(map[string]any); ok {
		for _, k := range []string{"message", "error_description", "error"} {
			switch v := m[k].(type) {
			case string:
				if v != "" {
					return v
				}
			case map[string]any:
				if s, ok := v["message"].(string); ok && s != "" {
					return s
				}
			}
		}
		if msgs := ErrorMessages(m["errors"]); msgs != "" {
			return msgs
		}
	}
	return strings.TrimSpace(string(data))
}

// ErrorMessages joins the messages of a GraphQL-style errors array.
func ErrorMessages(v any) string {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return ""
	}
	var msgs []string
	for _, e := range list {
		switch e := e.(type) {
		case map[string]any:
			if s, ok := e["message"].(string); ok {
				msgs = append(msgs, s)
				continue
			}
			b, _ := json.Marshal(e)
			msgs = append(msgs, string(b))
		case string:
			msgs = append(msgs, e)
		}
	}
	return strings.Join(msgs, "; ")
}

// Truncate cuts s to at most n bytes on a UTF-8 boundary and marks the cut with "…".
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// shapeResponse applies the tool's response shaping: error pointer, cursor, pointer, fields.
func shapeResponse(t *Tool, resp *http.Response, data []byte) (json.RawMessage, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return json.Marshal(map[string]any{"ok": true, "status": resp.StatusCode})
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return json.Marshal(map[string]any{"status": resp.StatusCode, "text": Truncate(string(data), 64<<10)})
	}
	shape := t.http.Response
	if shape == nil {
		return json.RawMessage(data), nil
	}
	if shape.ErrorPointer != "" {
		if v, ok := JSONPointer(doc, shape.ErrorPointer); ok {
			if msgs := ErrorMessages(v); msgs != "" {
				return nil, &domain.Error{Code: domain.CodeInvalid,
					Message: fmt.Sprintf("%s: %s answered with errors: %s", t.Name, t.integration.DisplayName, Truncate(msgs, MaxErrorMessage))}
			}
		}
	}
	var cursor any
	if c := shape.Cursor; c != nil {
		switch c.From {
		case CursorLinkHeader:
			if next := nextLink(resp.Header.Values("Link")); next != "" {
				if u, err := url.Parse(next); err == nil {
					if v := u.Query().Get(c.Param); v != "" {
						cursor = v
					}
				}
			}
		case CursorBody:
			if v, ok := JSONPointer(doc, c.Pointer); ok && v != nil && v != "" {
				cursor = v
			}
		}
	}
	selected := doc
	if shape.Pointer != "" {
		v, ok := JSONPointer(doc, shape.Pointer)
		if !ok && shape.Default != nil {
			v, ok = deepCopy(shape.Default), true
		}
		if !ok {
			return nil, &domain.Error{Code: domain.CodeUnavailable,
				Message: fmt.Sprintf("%s: the response from %s has no value at %s", t.Name, t.integration.DisplayName, shape.Pointer)}
		}
		selected = v
	}
	if len(shape.Fields) > 0 {
		paths := make([][]string, len(shape.Fields))
		for i, f := range shape.Fields {
			paths[i] = strings.Split(f, ".")
		}
		selected = Project(selected, paths)
	}
	if shape.Cursor != nil {
		out := map[string]any{"items": selected}
		if cursor != nil {
			out["next_cursor"] = cursor
		}
		selected = out
	}
	return json.Marshal(selected)
}

// JSONPointer resolves an RFC 6901 pointer in a decoded JSON document ("" is the whole document).
func JSONPointer(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	cur := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[tok]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) {
				return nil, false
			}
			cur = v[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// Project keeps only the given field paths of an object, or of every object in an array; a path
// crossing an array applies to each of its elements.
func Project(v any, paths [][]string) any {
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = Project(e, paths)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		sub := map[string][][]string{}
		whole := map[string]bool{}
		for _, p := range paths {
			if len(p) == 1 {
				whole[p[0]] = true
			} else {
				sub[p[0]] = append(sub[p[0]], p[1:])
			}
		}
		for k, e := range v {
			switch {
			case whole[k]:
				out[k] = e
			case sub[k] != nil:
				if e == nil {
					out[k] = nil
				} else {
					out[k] = Project(e, sub[k])
				}
			}
		}
		return out
	default:
		return v
	}
}

// nextLink finds the rel="next" target in Link header values (RFC 8288 section 3).
func nextLink(values []string) string {
	for _, header := range values {
		// RFC 8288 section 3: a link is <target> followed by ;-separated parameters, links are separated
		// by commas. The target is scanned up to its closing '>' first, because a URL may itself hold
		// commas (a query such as keys=DEV,OPS).
		rest := header
		for {
			open := strings.IndexByte(rest, '<')
			if open < 0 {
				break
			}
			closing := strings.IndexByte(rest[open:], '>')
			if closing < 0 {
				break
			}
			target := rest[open+1 : open+closing]
			rest = rest[open+closing+1:]
			params := rest
			if next := strings.IndexByte(rest, '<'); next >= 0 {
				params = rest[:next]
			}
			isNext, noResults := false, false
			for _, param := range strings.Split(params, ";") {
				k, v, ok := strings.Cut(strings.TrimSpace(strings.Trim(strings.TrimSpace(param), ",")), "=")
				if !ok {
					continue
				}
				val := strings.Trim(strings.TrimSpace(strings.TrimRight(strings.TrimSpace(v), ",")), `"`)
				switch strings.ToLower(strings.TrimSpace(k)) {
				case "rel":
					for _, rel := range strings.Fields(val) {
						if strings.EqualFold(rel, "next") {
							isNext = true
						}
					}
				case "results":
					// Sentry always sends a next link and says with results="false" that it leads
					// to an empty page (docs.sentry.io/api/pagination).
					noResults = strings.EqualFold(val, "false")
				}
			}
			if isNext && !noResults {
				return target
			}
		}
	}
	return ""
}
