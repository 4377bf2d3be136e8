package slack_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/plugins/plugintest"
	"github.com/workbench/workbench/plugins/slack"
)

// Contract cases for the slack plugin (Slack Web API, https://docs.slack.dev/reference/methods). Reads
// are GET <method>?<args>, writes POST a JSON body with a charset; every call carries the bot or user
// token as a Bearer header. Responses are trimmed from the documented examples.

const slackToken = "xoxb-17653672481-19874698323-contract"

var (
	slackGetHeaders  = map[string]string{"Authorization": "Bearer " + slackToken, "Accept": "application/json"}
	slackPostHeaders = map[string]string{"Authorization": "Bearer " + slackToken, "Content-Type": "application/json; charset=utf-8"}
)

var slackChannel = map[string]any{
	"id": "C012AB3CD", "name": "general", "is_channel": true, "is_group": false, "is_im": false, "is_mpim": false,
	"is_private": false, "created": 1449252889, "is_archived": false, "is_general": true, "unlinked": 0,
	"name_normalized": "general", "is_shared": false, "is_member": true, "creator": "U012A3CDE",
	"topic":          map[string]any{"value": "Company-wide announcements", "creator": "", "last_set": 0},
	"purpose":        map[string]any{"value": "This channel is for team-wide communication.", "creator": "", "last_set": 0},
	"previous_names": []any{}, "num_members": 4,
}

const slackChannelShaped = `{"id":"C012AB3CD","name":"general","is_channel":true,"is_group":false,"is_im":false,"is_mpim":false,
 "is_private":false,"created":1449252889,"is_archived":false,"is_general":true,"is_member":true,"creator":"U012A3CDE",
 "topic":{"value":"Company-wide announcements"},"purpose":{"value":"This channel is for team-wide communication."},"num_members":4}`

var slackUser = map[string]any{
	"id": "W012A3CDE", "team_id": "T012AB3C4", "name": "spengler", "deleted": false, "color": "9f69e7",
	"real_name": "Egon Spengler", "tz": "America/Los_Angeles", "tz_offset": -25200, "is_admin": true, "is_owner": false,
	"is_bot": false, "updated": 1502138686,
	"profile": map[string]any{"title": "Ghostbuster", "phone": "", "real_name": "Egon Spengler", "display_name": "spengler",
		"email": "spengler@ghostbusters.example.com", "image_24": "https://.../image_24.jpg", "team": "T012AB3C4"},
}

const slackUserShaped = `{"id":"W012A3CDE","name":"spengler","deleted":false,"real_name":"Egon Spengler","tz":"America/Los_Angeles",
 "is_admin":true,"is_bot":false,"profile":{"title":"Ghostbuster","real_name":"Egon Spengler","display_name":"spengler",
 "email":"spengler@ghostbusters.example.com"}}`

var slackMessage = map[string]any{
	"type": "message", "user": "U012AB3CDE", "text": "I find you punny and would like to smell your nose letter",
	"ts": "1512085950.000216", "client_msg_id": "a1b2", "team": "T012AB3C4", "blocks": []any{},
	"thread_ts": "1512085950.000216", "reply_count": 2, "reply_users_count": 1, "latest_reply": "1512104434.000490",
	"reactions": []any{map[string]any{"name": "thumbsup", "users": []any{"U012AB3CDE"}, "count": 1}},
}

const slackMessageShaped = `{"type":"message","user":"U012AB3CDE","text":"I find you punny and would like to smell your nose letter",
 "ts":"1512085950.000216","thread_ts":"1512085950.000216","reply_count":2,"reply_users_count":1,"latest_reply":"1512104434.000490",
 "reactions":[{"name":"thumbsup","count":1}]}`

// creds are what the fake expects of the slack connection.
var creds = plugintest.Credentials{Token: slackToken}

// TestContracts calls every slack tool against a fake that checks the request as the provider documents it.
func TestContracts(t *testing.T) {
	plugintest.Contracts(t, slack.Plugin(), creds, contracts())
}

// contracts are the slack tools' contract cases.
func contracts() []plugintest.Case {
	return []plugintest.Case{
		{
			Tool: "slack_auth_test", Args: `{}`,
			Method: "GET", Path: "/api/auth.test", Header: slackGetHeaders,
			Status: 200, Respond: map[string]any{"ok": true, "url": "https://subarachnoid.slack.com/", "team": "Subarachnoid Workspace",
				"user": "grace", "team_id": "T12345678", "user_id": "W12345678"},
			Want: `{"url":"https://subarachnoid.slack.com/","team":"Subarachnoid Workspace","user":"grace","team_id":"T12345678","user_id":"W12345678"}`,
		},
		{
			Tool: "slack_list_conversations", Args: `{"types":["public_channel","private_channel"],"limit":2}`,
			Method: "GET", Path: "/api/conversations.list", Query: "exclude_archived=true&limit=2&types=public_channel%2Cprivate_channel",
			Header: slackGetHeaders,
			Status: 200, Respond: map[string]any{"ok": true, "channels": []any{slackChannel},
				"response_metadata": map[string]any{"next_cursor": "dGVhbTpDMDYxRkE1UEI="}},
			Want: `{"items":[` + slackChannelShaped + `],"next_cursor":"dGVhbTpDMDYxRkE1UEI="}`,
		},
		{
			Tool: "slack_get_conversation_info", Args: `{"channel":"C012AB3CD","include_num_members":true}`,
			Method: "GET", Path: "/api/conversations.info", Query: "channel=C012AB3CD&include_num_members=true", Header: slackGetHeaders,
			Status: 200, Respond: map[string]any{"ok": true, "channel": slackChannel},
			Want: slackChannelShaped,
		},
		{
			Tool: "slack_get_conversation_history", Args: `{"channel":"C123ABC456","oldest":"1512085950.000216","cursor":"bmV4dF90czoxNTEyMDg1ODYxMDAwNTQz"}`,
			Method: "GET", Path: "/api/conversations.history",
			Query: "channel=C123ABC456&cursor=bmV4dF90czoxNTEyMDg1ODYxMDAwNTQz&limit=50&oldest=1512085950.000216", Header: slackGetHeaders,
			Status: 200, Respond: map[string]any{"ok": true, "messages": []any{slackMessage}, "has_more": true, "pin_count": 0,
				"response_metadata": map[string]any{"next_cursor": "bmV4dF90czoxNTEyMDg1ODYxMDAwNTQz"}},
			Want: `{"items":[` + slackMessageShaped + `],"next_cursor":"bmV4dF90czoxNTEyMDg1ODYxMDAwNTQz","has_more":true}`,
		},
		{
			Tool: "slack_get_thread_replies", Args: `{"channel":"C123ABC456","ts":"1512085950.000216"}`,
			Method: "GET", Path: "/api/conversations.replies", Query: "channel=C123ABC456&limit=100&ts=1512085950.000216", Header: slackGetHeaders,
			Status: 200, Respond: map[string]any{"ok": true, "messages": []any{slackMessage,
				map[string]any{"type": "message", "user": "U061F7AUR", "text": "reply", "thread_ts": "1512085950.000216",
					"parent_user_id": "U012AB3CDE", "ts": "1512104434.000490"}},
				"has_more": false, "response_metadata": map[string]any{"next_cursor": ""}},
			Want: `{"items":[` + slackMessageShaped + `,{"type":"message","user":"U061F7AUR","text":"reply","thread_ts":"1512085950.000216",
			 "ts":"1512104434.000490"}],"has_more":false}`,
		},
		{
			Tool: "slack_join_conversation", Args: `{"channel":"C012AB3CD"}`,
			Method: "POST", Path: "/api/conversations.join", Header: slackPostHeaders, Body: `{"channel":"C012AB3CD"}`,
			Status: 200, Respond: map[string]any{"ok": true, "channel": slackChannel, "warning": "already_in_channel",
				"response_metadata": map[string]any{"warnings": []any{"already_in_channel"}}},
			Want: slackChannelShaped,
		},
		{
			Tool: "slack_post_message", Args: `{"channel":"C123ABC456","text":"Here's a message for you","thread_ts":"1503435956.000247"}`,
			Method: "POST", Path: "/api/chat.postMessage", Header: slackPostHeaders,
			Body:   `{"channel":"C123ABC456","text":"Here's a message for you","thread_ts":"1503435956.000247"}`,
			Status: 200, Respond: map[string]any{"ok": true, "channel": "C123ABC456", "ts": "1503435956.000247",
				"message": map[string]any{"text": "Here's a message for you", "username": "ecto1", "bot_id": "B123ABC456",
					"thread_ts": "1503435956.000247", "type": "message", "subtype": "bot_message", "ts": "1503435956.000247"}},
			Want: `{"channel":"C123ABC456","ts":"1503435956.000247","message":{"text":"Here's a message for you","bot_id":"B123ABC456",
			 "thread_ts":"1503435956.000247"}}`,
		},
		{
			Tool: "slack_update_message", Args: `{"channel":"C123ABC456","ts":"1401383885.000061","text":"Updated text you carefully authored"}`,
			Method: "POST", Path: "/api/chat.update", Header: slackPostHeaders,
			Body:   `{"channel":"C123ABC456","ts":"1401383885.000061","text":"Updated text you carefully authored"}`,
			Status: 200, Respond: map[string]any{"ok": true, "channel": "C123ABC456", "ts": "1401383885.000061",
				"text": "Updated text you carefully authored", "message": map[string]any{"text": "Updated text you carefully authored", "user": "U34567890"}},
			Want: `{"channel":"C123ABC456","ts":"1401383885.000061","text":"Updated text you carefully authored"}`,
		},
		{
			Tool: "slack_delete_message", Args: `{"channel":"C123ABC456","ts":"1401383885.000061"}`,
			Method: "POST", Path: "/api/chat.delete", Header: slackPostHeaders, Body: `{"channel":"C123ABC456","ts":"1401383885.000061"}`,
			Status: 200, Respond: map[string]any{"ok": true, "channel": "C123ABC456", "ts": "1401383885.000061"},
			Want: `{"channel":"C123ABC456","ts":"1401383885.000061"}`,
		},
		{
			Tool: "slack_add_reaction", Args: `{"channel":"C123ABC456","timestamp":"1234567890.123456","name":"thumbsup"}`,
			Method: "POST", Path: "/api/reactions.add", Header: slackPostHeaders,
			Body:   `{"channel":"C123ABC456","timestamp":"1234567890.123456","name":"thumbsup"}`,
			Status: 200, Respond: map[string]any{"ok": true}, Want: `{"ok":true}`,
		},
		{
			Tool: "slack_list_users", Args: `{"limit":1}`,
			Method: "GET", Path: "/api/users.list", Query: "limit=1", Header: slackGetHeaders,
			Status: 200, Respond: map[string]any{"ok": true, "members": []any{slackUser}, "cache_ts": 1498777272,
				"response_metadata": map[string]any{"next_cursor": "dXNlcjpVMEc5V0ZYTlo="}},
			Want: `{"items":[` + slackUserShaped + `],"next_cursor":"dXNlcjpVMEc5V0ZYTlo="}`,
		},
		{
			Tool: "slack_get_user_info", Args: `{"user":"W012A3CDE"}`,
			Method: "GET", Path: "/api/users.info", Query: "user=W012A3CDE", Header: slackGetHeaders,
			Status: 200, Respond: map[string]any{"ok": true, "user": slackUser}, Want: slackUserShaped,
		},
		{
			Tool: "slack_lookup_user_by_email", Args: `{"email":"spengler@ghostbusters.example.com"}`,
			Method: "GET", Path: "/api/users.lookupByEmail", Query: "email=spengler%40ghostbusters.example.com", Header: slackGetHeaders,
			Status: 200, Respond: map[string]any{"ok": true, "user": slackUser}, Want: slackUserShaped,
		},
		{
			Tool: "slack_search_messages", Args: `{"query":"pickleface in:#general","sort":"timestamp"}`,
			Method: "GET", Path: "/api/search.messages", Query: "count=20&page=1&query=pickleface+in%3A%23general&sort=timestamp&sort_dir=desc",
			Header: slackGetHeaders,
			Status: 200, Respond: map[string]any{"ok": true, "query": "pickleface in:#general", "messages": map[string]any{
				"matches": []any{map[string]any{"channel": map[string]any{"id": "C12345678", "is_ext_shared": false, "name": "general"},
					"iid": "cb64bdaa", "permalink": "https://example.slack.com/archives/C12345678/p1508795665000236",
					"team": "T12345678", "text": "The meaning of life the universe and everything is 101010", "ts": "1508795665.000236",
					"type": "message", "user": "U2U85N1RV", "username": "roach"}},
				"pagination": map[string]any{"first": 1, "last": 2, "page": 1, "page_count": 1, "per_page": 20, "total_count": 2},
				"paging":     map[string]any{"count": 20, "page": 1, "pages": 1, "total": 2}, "total": 2}},
			Want: `{"total":2,"paging":{"count":20,"page":1,"pages":1,"total":2},"matches":[{"channel":{"id":"C12345678","name":"general"},
			 "permalink":"https://example.slack.com/archives/C12345678/p1508795665000236","text":"The meaning of life the universe and everything is 101010",
			 "ts":"1508795665.000236","user":"U2U85N1RV","username":"roach"}]}`,
		},
		{
			Tool: "slack_list_files", Args: `{"channel":"C0T8SE4AU","types":["images","pdfs"],"count":1}`,
			Method: "GET", Path: "/api/files.list", Query: "channel=C0T8SE4AU&count=1&page=1&types=images%2Cpdfs", Header: slackGetHeaders,
			Status: 200, Respond: map[string]any{"ok": true, "files": []any{map[string]any{"id": "F0S43P1CZ", "created": 1531763342,
				"timestamp": 1531763342, "name": "tedair.gif", "title": "tedair.gif", "mimetype": "image/gif", "filetype": "gif",
				"pretty_type": "GIF", "user": "U0L4B9NSU", "editable": false, "size": 137531, "mode": "hosted", "is_external": false,
				"is_public": true, "url_private": "https://.../tedair.gif", "permalink": "https://.../tedair.gif",
				"channels": []any{"C0T8SE4AU"}, "groups": []any{}, "ims": []any{}}},
				"paging": map[string]any{"count": 1, "total": 2, "page": 1, "pages": 2}},
			Want: `{"paging":{"count":1,"total":2,"page":1,"pages":2},"files":[{"id":"F0S43P1CZ","created":1531763342,"name":"tedair.gif",
			 "title":"tedair.gif","filetype":"gif","user":"U0L4B9NSU","size":137531,"url_private":"https://.../tedair.gif",
			 "permalink":"https://.../tedair.gif","channels":["C0T8SE4AU"]}]}`,
		},
		{
			Tool: "slack_list_pins", Args: `{"channel":"C2U86NC6H"}`,
			Method: "GET", Path: "/api/pins.list", Query: "channel=C2U86NC6H", Header: slackGetHeaders,
			Status: 200, Respond: map[string]any{"ok": true, "items": []any{map[string]any{"channel": "C2U86NC6H", "created": 1508881078,
				"created_by": "U2U85N1RZ", "type": "message", "message": map[string]any{"permalink": "https://hitchhikers.slack.com/archives/C2U86NC6H/p1508197641000151",
					"pinned_to": []any{"C2U86NC6H"}, "text": "What is the meaning of life?", "ts": "1508197641.000151", "type": "message", "user": "U2U85N1RZ"}}}},
			Want: `[{"channel":"C2U86NC6H","created":1508881078,"created_by":"U2U85N1RZ","type":"message","message":{
			 "permalink":"https://hitchhikers.slack.com/archives/C2U86NC6H/p1508197641000151","text":"What is the meaning of life?",
			 "ts":"1508197641.000151","user":"U2U85N1RZ"}}]`,
		},
		{
			Tool: "slack_add_pin", Args: `{"channel":"C1234567890","timestamp":"1234567890.123456"}`,
			Method: "POST", Path: "/api/pins.add", Header: slackPostHeaders, Body: `{"channel":"C1234567890","timestamp":"1234567890.123456"}`,
			Status: 200, Respond: map[string]any{"ok": true}, Want: `{"ok":true}`,
		},
	}
}

// TestSlackOKFalse checks that Slack's HTTP 200 {"ok": false} answers fail the call with Slack's error
// code, the needed scope where Slack names it, and a matching error code; and that HTTP 429 keeps
// Retry-After.
func TestSlackOKFalse(t *testing.T) {
	r := plugintest.Registry(t, slack.Plugin())
	tests := []struct {
		name     string
		status   int
		respond  any
		wantCode domain.Code
		wantMsg  string
	}{
		{"channel not found", 200, map[string]any{"ok": false, "error": "channel_not_found"}, domain.CodeNotFound,
			"slack_get_conversation_history: Slack answered error channel_not_found"},
		{"missing scope", 200, map[string]any{"ok": false, "error": "missing_scope", "needed": "channels:history", "provided": "chat:write"},
			domain.CodeForbidden, "slack_get_conversation_history: Slack answered error missing_scope (needed scope: channels:history)"},
		{"invalid arguments", 200, map[string]any{"ok": false, "error": "invalid_arguments",
			"response_metadata": map[string]any{"messages": []any{"[ERROR] missing required field: channel"}}},
			domain.CodeInvalid, "slack_get_conversation_history: Slack answered error invalid_arguments: [ERROR] missing required field: channel"},
		{"no ok field", 200, map[string]any{"messages": []any{}}, domain.CodeInvalid,
			"slack_get_conversation_history: Slack answered error unknown_error"},
		{"rate limited", 429, map[string]any{"ok": false, "error": "ratelimited"}, domain.CodeUnavailable,
			"slack_get_conversation_history: Slack answered HTTP 429: ratelimited (retry after 30 s)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake, _ := plugintest.NewFake(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
				w.Header().Set("Retry-After", "30")
				plugintest.WriteJSON(w, tc.status, tc.respond)
			})
			_, err := plugintest.Call(t, r, "slack_get_conversation_history", `{"channel":"C123"}`, plugintest.ContextFor(t, r, "slack_get_conversation_history", creds, fake))
			var de *domain.Error
			if !errors.As(err, &de) {
				t.Fatalf("want a domain error, got %v", err)
			}
			if de.Code != tc.wantCode || de.Message != tc.wantMsg {
				t.Errorf("got %s %q, want %s %q", de.Code, de.Message, tc.wantCode, tc.wantMsg)
			}
		})
	}
}
