package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/plugins"
)

// The Slack Web API answers most failures with HTTP 200 and {"ok": false, "error": "<code>"}
// (https://docs.slack.dev/apis/web-api/#responses). A declarative template's error_pointer only fails
// on a non-empty array, so it cannot see a false "ok" next to a string "error": every slack_* tool is a
// Go handler built from a slackMethod, which checks "ok" and then shapes the answer the way a
// declarative response block would (pointer, fields, cursor).

const (
	slackTimeout     = 30 * time.Second
	slackMaxResponse = 8 << 20
)

// slackMethod is one Slack Web API method called by one slack_* tool. The tool's arguments carry
// Slack's own parameter names, so they go to Slack as they are.
type slackMethod struct {
	// method is the Web API method name, appended to the base URL: "conversations.history".
	method string
	// write methods POST the arguments as a JSON body; read methods send them as a GET query string
	// (both are documented for every method; JSON bodies are the documented form for writes).
	write bool
	// pointer selects the part of the answer to return; fields keeps only these (dotted) fields of it.
	pointer string
	fields  []string
	// cursor: the method pages by cursor, and the result is {"items": …, "next_cursor": …} with the
	// cursor from response_metadata.next_cursor (empty on the last page).
	cursor bool
}

// handlers are the slack plugin's Go handlers, by tool name: one per slack_* tool.
func handlers() map[string]plugins.Handler {
	return map[string]plugins.Handler{
		"slack_auth_test":                slackTool("slack_auth_test"),
		"slack_list_conversations":       slackTool("slack_list_conversations"),
		"slack_get_conversation_info":    slackTool("slack_get_conversation_info"),
		"slack_get_conversation_history": slackTool("slack_get_conversation_history"),
		"slack_get_thread_replies":       slackTool("slack_get_thread_replies"),
		"slack_join_conversation":        slackTool("slack_join_conversation"),
		"slack_post_message":             slackTool("slack_post_message"),
		"slack_update_message":           slackTool("slack_update_message"),
		"slack_delete_message":           slackTool("slack_delete_message"),
		"slack_add_reaction":             slackTool("slack_add_reaction"),
		"slack_list_users":               slackTool("slack_list_users"),
		"slack_get_user_info":            slackTool("slack_get_user_info"),
		"slack_lookup_user_by_email":     slackTool("slack_lookup_user_by_email"),
		"slack_search_messages":          slackTool("slack_search_messages"),
		"slack_list_files":               slackTool("slack_list_files"),
		"slack_list_pins":                slackTool("slack_list_pins"),
		"slack_add_pin":                  slackTool("slack_add_pin"),
	}
}

// slackMethods maps each slack_* tool (tools.json declares its schema and description) to its method.
func slackMethods() map[string]slackMethod {
	msgFields := []string{"type", "subtype", "ts", "user", "bot_id", "text", "thread_ts", "reply_count",
		"reply_users_count", "latest_reply", "reactions.name", "reactions.count", "files.id", "files.name", "edited.ts"}
	convFields := []string{"id", "name", "is_channel", "is_group", "is_im", "is_mpim", "is_private", "is_archived",
		"is_general", "is_member", "num_members", "topic.value", "purpose.value", "created", "creator", "user"}
	userFields := []string{"id", "name", "real_name", "deleted", "is_bot", "is_admin", "tz", "profile.display_name",
		"profile.real_name", "profile.email", "profile.title"}
	return map[string]slackMethod{
		"slack_auth_test":                {method: "auth.test", fields: []string{"url", "team", "user", "team_id", "user_id", "bot_id", "is_enterprise_install"}},
		"slack_list_conversations":       {method: "conversations.list", pointer: "/channels", fields: convFields, cursor: true},
		"slack_get_conversation_info":    {method: "conversations.info", pointer: "/channel", fields: convFields},
		"slack_get_conversation_history": {method: "conversations.history", pointer: "/messages", fields: msgFields, cursor: true},
		"slack_get_thread_replies":       {method: "conversations.replies", pointer: "/messages", fields: msgFields, cursor: true},
		"slack_join_conversation":        {method: "conversations.join", write: true, pointer: "/channel", fields: convFields},
		"slack_post_message":             {method: "chat.postMessage", write: true, fields: []string{"channel", "ts", "message.text", "message.thread_ts", "message.user", "message.bot_id"}},
		"slack_update_message":           {method: "chat.update", write: true, fields: []string{"channel", "ts", "text"}},
		"slack_delete_message":           {method: "chat.delete", write: true, fields: []string{"channel", "ts"}},
		"slack_add_reaction":             {method: "reactions.add", write: true, fields: []string{"ok"}},
		"slack_list_users":               {method: "users.list", pointer: "/members", fields: userFields, cursor: true},
		"slack_get_user_info":            {method: "users.info", pointer: "/user", fields: userFields},
		"slack_lookup_user_by_email":     {method: "users.lookupByEmail", pointer: "/user", fields: userFields},
		"slack_search_messages": {method: "search.messages", pointer: "/messages", fields: []string{"total", "paging",
			"matches.ts", "matches.text", "matches.user", "matches.username", "matches.channel.id", "matches.channel.name", "matches.permalink"}},
		"slack_list_files": {method: "files.list", fields: []string{"paging", "files.id", "files.name", "files.title", "files.filetype",
			"files.size", "files.user", "files.created", "files.channels", "files.permalink", "files.url_private"}},
		"slack_list_pins": {method: "pins.list", pointer: "/items", fields: []string{"type", "created", "created_by", "channel",
			"message.ts", "message.text", "message.user", "message.permalink", "file.id", "file.name"}},
		"slack_add_pin": {method: "pins.add", write: true, fields: []string{"ok"}},
	}
}

// slackTool returns the Go handler of one slack_* tool (handlers lists them). A name without a
// slackMethod yields a handler that fails every call, so a typo shows in the contract tests.
func slackTool(name string) plugins.Handler {
	m, ok := slackMethods()[name]
	if !ok {
		return func(context.Context, plugins.Context, json.RawMessage) (any, error) {
			return nil, &domain.Error{Code: domain.CodeInternal, Message: name + " failed: no Slack method is declared for it"}
		}
	}
	return slackHandler(name, m)
}

func slackHandler(tool string, m slackMethod) plugins.Handler {
	return func(ctx context.Context, rc plugins.Context, args json.RawMessage) (any, error) {
		ctx, cancel := context.WithTimeout(ctx, slackTimeout)
		defer cancel()
		req, err := slackRequest(ctx, tool, rc, m, args)
		if err != nil {
			return nil, err
		}
		resp, data, err := plugins.Send(rc, tool, "Slack", req, slackMaxResponse)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode >= 400 {
			return nil, slackHTTPError(tool, resp, data)
		}
		var doc map[string]any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			return nil, &domain.Error{Code: domain.CodeUnavailable, Message: fmt.Sprintf("%s: Slack answered HTTP %d with a body that is not a JSON object", tool, resp.StatusCode), Err: err}
		}
		if ok, _ := doc["ok"].(bool); !ok {
			return nil, slackAPIError(tool, doc)
		}
		return slackShape(tool, m, doc)
	}
}

// slackRequest builds the request for one call: GET <base>/<method>?<args> for reads, POST
// <base>/<method> with the arguments as a JSON body for writes. Arrays in a query are joined with
// commas, Slack's form for list parameters such as types.
func slackRequest(ctx context.Context, tool string, rc plugins.Context, m slackMethod, args json.RawMessage) (*http.Request, error) {
	var argv map[string]any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&argv); err != nil {
		return nil, &domain.Error{Code: domain.CodeInvalid, Message: tool + ": arguments must be a JSON object", Err: err}
	}
	u, err := rc.BaseURL()
	if err != nil {
		return nil, err
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/" + m.method
	u.RawPath = ""
	var body io.Reader
	if m.write {
		b, err := json.Marshal(argv)
		if err != nil {
			return nil, &domain.Error{Code: domain.CodeInvalid, Message: tool + ": body: " + err.Error(), Err: err}
		}
		body = bytes.NewReader(b)
	} else {
		q := url.Values{}
		names := make([]string, 0, len(argv))
		for k := range argv {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			v := argv[k]
			if list, ok := v.([]any); ok {
				parts := make([]string, 0, len(list))
				for _, e := range list {
					s, err := plugins.ScalarString(e)
					if err != nil {
						return nil, &domain.Error{Code: domain.CodeInvalid, Message: fmt.Sprintf("%s: argument %s: %v", tool, k, err)}
					}
					parts = append(parts, s)
				}
				q.Set(k, strings.Join(parts, ","))
				continue
			}
			s, err := plugins.ScalarString(v)
			if err != nil {
				return nil, &domain.Error{Code: domain.CodeInvalid, Message: fmt.Sprintf("%s: argument %s: %v", tool, k, err)}
			}
			q.Set(k, s)
		}
		u.RawQuery = q.Encode()
	}
	method := http.MethodGet
	if m.write {
		method = http.MethodPost
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("build request for %s: %w", tool, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "workbench")
	if m.write {
		// Slack warns (missing_charset) when a JSON body's Content-Type names no charset.
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
	}
	for k, v := range rc.Integration().Headers {
		req.Header.Set(k, v)
	}
	return req, nil
}

// slackAPIError turns {"ok": false, "error": …} into a tool error. missing_scope answers also name
// the scope that was needed.
func slackAPIError(tool string, doc map[string]any) error {
	code, _ := doc["error"].(string)
	if code == "" {
		code = "unknown_error"
	}
	msg := "Slack answered error " + code
	if needed, _ := doc["needed"].(string); needed != "" {
		msg += " (needed scope: " + needed + ")"
	}
	if md, ok := doc["response_metadata"].(map[string]any); ok {
		if s := plugins.ErrorMessages(md["messages"]); s != "" {
			msg += ": " + s
		}
	}
	dc := domain.CodeInvalid
	switch code {
	case "not_authed", "invalid_auth", "account_inactive", "token_revoked", "token_expired", "no_permission",
		"missing_scope", "not_allowed_token_type", "ekm_access_denied", "access_denied":
		dc = domain.CodeForbidden
	case "channel_not_found", "user_not_found", "users_not_found", "message_not_found", "thread_not_found", "file_not_found", "not_found":
		dc = domain.CodeNotFound
	case "ratelimited", "rate_limited", "internal_error", "fatal_error", "service_unavailable", "request_timeout":
		dc = domain.CodeUnavailable
	}
	return &domain.Error{Code: dc, Message: fmt.Sprintf("%s: %s", tool, plugins.Truncate(msg, plugins.MaxErrorMessage)),
		Err: &plugins.UpstreamError{Status: http.StatusOK, Message: code}}
}

func slackHTTPError(tool string, resp *http.Response, data []byte) error {
	return plugins.ProviderHTTPError(tool, "Slack", resp, data)
}

// slackShape applies the method's pointer, fields and cursor, as a declarative response block would.
func slackShape(tool string, m slackMethod, doc map[string]any) (json.RawMessage, error) {
	var selected any = doc
	if m.pointer != "" {
		v, ok := plugins.JSONPointer(doc, m.pointer)
		if !ok {
			return nil, &domain.Error{Code: domain.CodeUnavailable, Message: fmt.Sprintf("%s: the response from Slack has no value at %s", tool, m.pointer)}
		}
		selected = v
	}
	if len(m.fields) > 0 {
		paths := make([][]string, len(m.fields))
		for i, f := range m.fields {
			paths[i] = strings.Split(f, ".")
		}
		selected = plugins.Project(selected, paths)
	}
	if m.cursor {
		out := map[string]any{"items": selected}
		if c, ok := plugins.JSONPointer(doc, "/response_metadata/next_cursor"); ok {
			if s, _ := c.(string); s != "" {
				out["next_cursor"] = s
			}
		}
		if more, ok := doc["has_more"].(bool); ok {
			out["has_more"] = more
		}
		selected = out
	}
	b, err := json.Marshal(selected)
	if err != nil {
		return nil, &domain.Error{Code: domain.CodeInternal, Message: tool + " failed: its result is not JSON", Err: err}
	}
	return b, nil
}
