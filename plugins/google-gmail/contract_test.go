package gmail_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/workbench/workbench/plugins/google-gmail"
	"github.com/workbench/workbench/plugins/plugintest"
)

// Contract cases for the google-gmail plugin, against the Gmail API v1 reference
// (developers.google.com/gmail/api/reference/rest: users.getProfile, users.messages, users.threads,
// users.labels, users.drafts). Outgoing mail travels as a base64url RFC 2822 message in "raw".

const gmailToken = "ya29.gmail-contract"

var gmailHeaders = map[string]string{"Authorization": "Bearer " + gmailToken, "Accept": "application/json"}

var gmailJSONHeaders = map[string]string{"Authorization": "Bearer " + gmailToken, "Content-Type": "application/json"}

// gmailRawBody is the JSON body the fake must receive for an outgoing message: the exact RFC 2822
// text, base64url-encoded, with the optional threadId beside it (wrapped in "message" for drafts).
func gmailRawBody(message, threadID string, draft bool) string {
	m := map[string]any{"raw": base64.URLEncoding.EncodeToString([]byte(message))}
	if threadID != "" {
		m["threadId"] = threadID
	}
	var v any = m
	if draft {
		v = map[string]any{"message": m}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

var gmailMessage = map[string]any{
	"id": "18c2b3f0a1d2e3f4", "threadId": "18c2b3f0a1d2e3f4", "labelIds": []any{"INBOX", "UNREAD"},
	"snippet": "Hi team, the report is attached", "historyId": "987654", "internalDate": "1704067200000", "sizeEstimate": 5120,
	"payload": map[string]any{
		"partId": "", "mimeType": "multipart/alternative", "filename": "",
		"headers": []any{
			map[string]any{"name": "From", "value": "Alice <alice@example.com>"},
			map[string]any{"name": "Subject", "value": "Weekly report"},
		},
		"body": map[string]any{"size": 0},
		"parts": []any{map[string]any{"partId": "0", "mimeType": "text/plain", "filename": "",
			"headers": []any{map[string]any{"name": "Content-Type", "value": "text/plain; charset=\"UTF-8\""}},
			"body":    map[string]any{"size": 31, "data": "SGkgdGVhbSwgdGhlIHJlcG9ydCBpcyBhdHRhY2hlZA"}}},
	},
}

// creds are what the fake expects of the google-gmail connection.
var creds = plugintest.Credentials{Token: gmailToken}

// TestContracts calls every google-gmail tool against a fake that checks the request as the provider documents it.
func TestContracts(t *testing.T) {
	plugintest.Contracts(t, gmail.Plugin(), creds, contracts())
}

// contracts are the google-gmail tools' contract cases.
func contracts() []plugintest.Case {
	return []plugintest.Case{
		{
			Tool: "google_gmail_get_profile", Args: `{}`,
			Method: "GET", Path: "/gmail/v1/users/me/profile", Header: gmailHeaders,
			Status: 200, Respond: map[string]any{"emailAddress": "ada@example.com", "messagesTotal": 5321, "threadsTotal": 2876, "historyId": "987654"},
			Want: `{"emailAddress":"ada@example.com","messagesTotal":5321,"threadsTotal":2876,"historyId":"987654"}`,
		},
		{
			Tool: "google_gmail_list_messages", Args: `{"q":"from:alice@example.com is:unread","label_ids":["INBOX","UNREAD"],"page_token":"09876"}`,
			Method: "GET", Path: "/gmail/v1/users/me/messages",
			Query:  "includeSpamTrash=false&labelIds=INBOX&labelIds=UNREAD&maxResults=20&pageToken=09876&q=from%3Aalice%40example.com+is%3Aunread",
			Header: gmailHeaders,
			Status: 200, Respond: map[string]any{
				"messages":           []any{map[string]any{"id": "18c2b3f0a1d2e3f4", "threadId": "18c2b3f0a1d2e3f4"}},
				"nextPageToken":      "12345678901234567890",
				"resultSizeEstimate": 201,
			},
			Want: `{"items":[{"id":"18c2b3f0a1d2e3f4","threadId":"18c2b3f0a1d2e3f4"}],"next_cursor":"12345678901234567890"}`,
		},
		{
			Tool: "google_gmail_get_message", Args: `{"message_id":"18c2b3f0a1d2e3f4"}`,
			Method: "GET", Path: "/gmail/v1/users/me/messages/18c2b3f0a1d2e3f4", Query: "format=full", Header: gmailHeaders,
			Status: 200, Respond: gmailMessage,
			Want: `{"id":"18c2b3f0a1d2e3f4","threadId":"18c2b3f0a1d2e3f4","labelIds":["INBOX","UNREAD"],"snippet":"Hi team, the report is attached",
			 "internalDate":"1704067200000","sizeEstimate":5120,"payload":{"mimeType":"multipart/alternative",
			 "headers":[{"name":"From","value":"Alice <alice@example.com>"},{"name":"Subject","value":"Weekly report"}],
			 "body":{"size":0},"parts":[{"partId":"0","mimeType":"text/plain","filename":"",
			 "headers":[{"name":"Content-Type","value":"text/plain; charset=\"UTF-8\""}],
			 "body":{"size":31,"data":"SGkgdGVhbSwgdGhlIHJlcG9ydCBpcyBhdHRhY2hlZA"}}]}}`,
		},
		{
			Tool: "google_gmail_read_message", Args: `{"message_id":"18c2b3f0a1d2e3f4"}`,
			Method: "GET", Path: "/gmail/v1/users/me/messages/18c2b3f0a1d2e3f4", Query: "format=full", Header: gmailHeaders,
			Status: 200, Respond: map[string]any{
				"id": "18c2b3f0a1d2e3f4", "threadId": "18c2b3f0a1d2e3f4", "labelIds": []any{"INBOX"}, "snippet": "Hi team, the report is attached",
				"internalDate": "1704067200000",
				"payload": map[string]any{"mimeType": "multipart/mixed", "filename": "",
					"headers": []any{
						map[string]any{"name": "From", "value": "Alice <alice@example.com>"},
						map[string]any{"name": "To", "value": "team@example.com"},
						map[string]any{"name": "Subject", "value": "Weekly report"},
						map[string]any{"name": "Date", "value": "Mon, 1 Jan 2024 00:00:00 +0000"},
						map[string]any{"name": "Message-ID", "value": "<CAF123@mail.gmail.com>"},
					},
					"body": map[string]any{"size": 0},
					"parts": []any{
						map[string]any{"mimeType": "multipart/alternative", "filename": "", "body": map[string]any{"size": 0}, "parts": []any{
							map[string]any{"mimeType": "text/plain", "filename": "", "body": map[string]any{"size": 31, "data": "SGkgdGVhbSwgdGhlIHJlcG9ydCBpcyBhdHRhY2hlZC4K"}},
							map[string]any{"mimeType": "text/html", "filename": "", "body": map[string]any{"size": 40, "data": "PHA-SGkgdGVhbTwvcD4="}},
						}},
						map[string]any{"mimeType": "application/pdf", "filename": "report.pdf", "body": map[string]any{"size": 48213, "attachmentId": "ANGjdJ8"}},
					}},
			},
			Want: `{"id":"18c2b3f0a1d2e3f4","threadId":"18c2b3f0a1d2e3f4","labelIds":["INBOX"],"snippet":"Hi team, the report is attached",
			 "internalDate":"1704067200000","from":"Alice <alice@example.com>","to":"team@example.com","cc":"","reply_to":"","subject":"Weekly report",
			 "date":"Mon, 1 Jan 2024 00:00:00 +0000","message_id":"<CAF123@mail.gmail.com>","body_format":"text/plain",
			 "body":"Hi team, the report is attached.\n","body_truncated":false,
			 "attachments":[{"filename":"report.pdf","mimeType":"application/pdf","size":48213,"attachmentId":"ANGjdJ8"}]}`,
		},
		{
			Tool: "google_gmail_send_message",
			Args: `{"to":["Ada Lovelace <ada@example.com>","bob@example.com"],"cc":["carol@example.com"],"subject":"Résumé review",
			 "body":"Hi Ada,\nsee attached.","thread_id":"18c2b3f0a1d2e3f4","in_reply_to":"<CAF123@mail.gmail.com>"}`,
			Method: "POST", Path: "/gmail/v1/users/me/messages/send", Header: gmailJSONHeaders,
			Body: gmailRawBody("To: \"Ada Lovelace\" <ada@example.com>, <bob@example.com>\r\n"+
				"Cc: <carol@example.com>\r\n"+
				"Subject: =?UTF-8?b?UsOpc3Vtw6kgcmV2aWV3?=\r\n"+
				"In-Reply-To: <CAF123@mail.gmail.com>\r\nReferences: <CAF123@mail.gmail.com>\r\n"+
				"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=\"UTF-8\"\r\nContent-Transfer-Encoding: base64\r\n\r\n"+
				"SGkgQWRhLApzZWUgYXR0YWNoZWQu\r\n", "18c2b3f0a1d2e3f4", false),
			Status: 200, Respond: map[string]any{"id": "18c2b40000000001", "threadId": "18c2b3f0a1d2e3f4", "labelIds": []any{"SENT"}},
			Want: `{"id":"18c2b40000000001","threadId":"18c2b3f0a1d2e3f4","labelIds":["SENT"]}`,
		},
		{
			Tool: "google_gmail_list_threads", Args: `{"q":"subject:invoice","max_results":2}`,
			Method: "GET", Path: "/gmail/v1/users/me/threads", Query: "includeSpamTrash=false&maxResults=2&q=subject%3Ainvoice", Header: gmailHeaders,
			Status: 200, Respond: map[string]any{
				"threads":            []any{map[string]any{"id": "18c1", "snippet": "Invoice #42 is due", "historyId": "5555"}},
				"resultSizeEstimate": 1,
			},
			Want: `{"items":[{"id":"18c1","snippet":"Invoice #42 is due","historyId":"5555"}]}`,
		},
		{
			Tool: "google_gmail_get_thread", Args: `{"thread_id":"18c2b3f0a1d2e3f4"}`,
			Method: "GET", Path: "/gmail/v1/users/me/threads/18c2b3f0a1d2e3f4", Query: "format=metadata", Header: gmailHeaders,
			Status: 200, Respond: map[string]any{"id": "18c2b3f0a1d2e3f4", "historyId": "987654", "messages": []any{gmailMessage}},
			Want: `{"id":"18c2b3f0a1d2e3f4","historyId":"987654","messages":[{"id":"18c2b3f0a1d2e3f4","labelIds":["INBOX","UNREAD"],
			 "snippet":"Hi team, the report is attached","internalDate":"1704067200000","payload":{"mimeType":"multipart/alternative",
			 "headers":[{"name":"From","value":"Alice <alice@example.com>"},{"name":"Subject","value":"Weekly report"}],
			 "body":{"size":0},"parts":[{"partId":"0","mimeType":"text/plain","filename":"",
			 "headers":[{"name":"Content-Type","value":"text/plain; charset=\"UTF-8\""}],
			 "body":{"size":31,"data":"SGkgdGVhbSwgdGhlIHJlcG9ydCBpcyBhdHRhY2hlZA"}}]}}]}`,
		},
		{
			Tool: "google_gmail_list_labels", Args: `{}`,
			Method: "GET", Path: "/gmail/v1/users/me/labels", Header: gmailHeaders,
			Status: 200, Respond: map[string]any{"labels": []any{
				map[string]any{"id": "INBOX", "name": "INBOX", "messageListVisibility": "hide", "labelListVisibility": "labelShow", "type": "system"},
				map[string]any{"id": "Label_12", "name": "Projects/Acme", "type": "user", "messageListVisibility": "show", "labelListVisibility": "labelShow",
					"color": map[string]any{"textColor": "#000000", "backgroundColor": "#ffffff"}},
			}},
			Want: `[{"id":"INBOX","name":"INBOX","type":"system","messageListVisibility":"hide","labelListVisibility":"labelShow"},
			 {"id":"Label_12","name":"Projects/Acme","type":"user","messageListVisibility":"show","labelListVisibility":"labelShow"}]`,
		},
		{
			Tool: "google_gmail_create_label", Args: `{"name":"Projects/Acme","label_list_visibility":"labelShowIfUnread"}`,
			Method: "POST", Path: "/gmail/v1/users/me/labels", Header: gmailJSONHeaders,
			Body:   `{"name":"Projects/Acme","labelListVisibility":"labelShowIfUnread","messageListVisibility":"show"}`,
			Status: 200, Respond: map[string]any{"id": "Label_12", "name": "Projects/Acme", "messageListVisibility": "show", "labelListVisibility": "labelShowIfUnread", "type": "user"},
			Want: `{"id":"Label_12","name":"Projects/Acme","type":"user","messageListVisibility":"show","labelListVisibility":"labelShowIfUnread"}`,
		},
		{
			Tool: "google_gmail_modify_message", Args: `{"message_id":"18c2b3f0a1d2e3f4","add_label_ids":["Label_12"],"remove_label_ids":["INBOX","UNREAD"]}`,
			Method: "POST", Path: "/gmail/v1/users/me/messages/18c2b3f0a1d2e3f4/modify", Header: gmailJSONHeaders,
			Body:   `{"addLabelIds":["Label_12"],"removeLabelIds":["INBOX","UNREAD"]}`,
			Status: 200, Respond: map[string]any{"id": "18c2b3f0a1d2e3f4", "threadId": "18c2b3f0a1d2e3f4", "labelIds": []any{"Label_12"}, "snippet": "Hi team"},
			Want: `{"id":"18c2b3f0a1d2e3f4","threadId":"18c2b3f0a1d2e3f4","labelIds":["Label_12"]}`,
		},
		{
			Tool: "google_gmail_trash_message", Args: `{"message_id":"18c2b3f0a1d2e3f4"}`,
			Method: "POST", Path: "/gmail/v1/users/me/messages/18c2b3f0a1d2e3f4/trash", Header: gmailHeaders,
			Status: 200, Respond: map[string]any{"id": "18c2b3f0a1d2e3f4", "threadId": "18c2b3f0a1d2e3f4", "labelIds": []any{"TRASH"}},
			Want: `{"id":"18c2b3f0a1d2e3f4","threadId":"18c2b3f0a1d2e3f4","labelIds":["TRASH"]}`,
		},
		{
			Tool: "google_gmail_create_draft", Args: `{"to":["ada@example.com"],"subject":"Weekly report","body":"<p>The numbers are in.</p>","html":true}`,
			Method: "POST", Path: "/gmail/v1/users/me/drafts", Header: gmailJSONHeaders,
			Body: gmailRawBody("To: <ada@example.com>\r\nSubject: Weekly report\r\n"+
				"MIME-Version: 1.0\r\nContent-Type: text/html; charset=\"UTF-8\"\r\nContent-Transfer-Encoding: base64\r\n\r\n"+
				"PHA+VGhlIG51bWJlcnMgYXJlIGluLjwvcD4=\r\n", "", true),
			Status: 200, Respond: map[string]any{"id": "r-123456789", "message": map[string]any{"id": "18c2b50000000002", "threadId": "18c2b50000000002", "labelIds": []any{"DRAFT"}}},
			Want: `{"id":"r-123456789","message":{"id":"18c2b50000000002","threadId":"18c2b50000000002","labelIds":["DRAFT"]}}`,
		},
		{
			Tool: "google_gmail_list_drafts", Args: `{}`,
			Method: "GET", Path: "/gmail/v1/users/me/drafts", Query: "maxResults=20", Header: gmailHeaders,
			Status: 200, Respond: map[string]any{
				"drafts":             []any{map[string]any{"id": "r-123456789", "message": map[string]any{"id": "18c2b50000000002", "threadId": "18c2b50000000002"}}},
				"resultSizeEstimate": 1, "nextPageToken": "abc",
			},
			Want: `{"items":[{"id":"r-123456789","message":{"id":"18c2b50000000002","threadId":"18c2b50000000002"}}],"next_cursor":"abc"}`,
		},
		{
			Tool: "google_gmail_send_draft", Args: `{"draft_id":"r-123456789"}`,
			Method: "POST", Path: "/gmail/v1/users/me/drafts/send", Header: gmailJSONHeaders,
			Body:   `{"id":"r-123456789"}`,
			Status: 200, Respond: map[string]any{"id": "18c2b50000000002", "threadId": "18c2b50000000002", "labelIds": []any{"SENT"}},
			Want: `{"id":"18c2b50000000002","threadId":"18c2b50000000002","labelIds":["SENT"]}`,
		},
	}
}

func TestGmailComposeErrors(t *testing.T) {
	r := plugintest.Registry(t, gmail.Plugin())
	tests := []struct {
		name, args string
		status     int
		respond    any
		want       string
		requests   int
	}{
		{name: "bad recipient", args: `{"to":["not an address"],"subject":"s","body":"b"}`,
			want: `invalid: google_gmail_send_message: to: "not an address" is not an email address: mail: no angle-addr`},
		{name: "header injection in a display name", args: `{"to":["Eve\r\nBcc: x@example.com <eve@example.com>"],"subject":"s","body":"b"}`,
			want: `invalid: google_gmail_send_message: to: "Eve\r\nBcc: x@example.com <eve@example.com>" is not an email address: mail: missing '@' or angle-addr`},
		{name: "provider error", args: `{"to":["ada@example.com"],"subject":"s","body":"b"}`, requests: 1,
			status: 400, respond: map[string]any{"error": map[string]any{"code": 400, "message": "Invalid To header", "status": "INVALID_ARGUMENT"}},
			want: "invalid: google_gmail_send_message: Gmail answered HTTP 400: Invalid To header: HTTP 400: Invalid To header"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake, seen := plugintest.NewFake(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) { plugintest.WriteJSON(w, tc.status, tc.respond) })
			_, err := plugintest.Call(t, r, "google_gmail_send_message", tc.args, plugintest.ContextFor(t, r, "google_gmail_send_message", creds, fake))
			if err == nil || err.Error() != tc.want {
				t.Errorf("got %v, want %s", err, tc.want)
			}
			if len(*seen) != tc.requests {
				t.Errorf("%d requests reached Gmail, want %d", len(*seen), tc.requests)
			}
		})
	}
}
