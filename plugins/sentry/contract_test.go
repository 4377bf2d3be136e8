package sentry_test

import (
	"testing"

	"github.com/workbench/workbench/plugins/plugintest"
	"github.com/workbench/workbench/plugins/sentry"
)

// Contract cases for the sentry plugin, against the Sentry web API as documented at docs.sentry.io/api
// (organizations, projects, events & issues, releases). Responses are the documented examples, trimmed.

const sentryToken = "sentry-oauth-contract-token"

var sentryHeaders = map[string]string{"Authorization": "Bearer " + sentryToken, "Accept": "application/json"}

var sentryWriteHeaders = map[string]string{"Authorization": "Bearer " + sentryToken, "Content-Type": "application/json"}

// sentryLink is Sentry's pagination header: a previous and a next link, each saying whether it has results.
// sentryLastLink ends the pages: the next link says it has no results.
const sentryLastLink = `<https://sentry.io/api/0/organizations/the-interstellar-jurisdiction/issues/?cursor=1420837533:0:1>; rel="previous"; results="true"; cursor="1420837533:0:1", ` +
	`<https://sentry.io/api/0/organizations/the-interstellar-jurisdiction/issues/?cursor=1420837533:100:0>; rel="next"; results="false"; cursor="1420837533:100:0"`

const sentryLink = `<https://sentry.io/api/0/organizations/the-interstellar-jurisdiction/issues/?cursor=1420837590:0:1>; rel="previous"; results="false"; cursor="1420837590:0:1", ` +
	`<https://sentry.io/api/0/organizations/the-interstellar-jurisdiction/issues/?cursor=1420837533:0:0>; rel="next"; results="true"; cursor="1420837533:0:0"`

var sentryIssue = map[string]any{
	"id": "1", "shortId": "PUMP-STATION-1", "title": "This is an example Python exception", "culprit": "raven.scripts.runner in main",
	"level": "error", "status": "unresolved", "statusDetails": map[string]any{}, "substatus": "ongoing", "priority": "high", "isUnhandled": false,
	"platform": "python", "metadata": map[string]any{"title": "This is an example Python exception"}, "count": "150", "userCount": 0,
	"firstSeen": "2018-11-06T21:19:55Z", "lastSeen": "2018-11-06T21:19:55Z", "numComments": 0, "isBookmarked": false, "hasSeen": false,
	"firstRelease": map[string]any{"version": "17642328ead24b51867165985996d04b29310337", "shortVersion": "1764232"}, "lastRelease": nil,
	"assignedTo": nil, "permalink": "https://sentry.io/the-interstellar-jurisdiction/pump-station/issues/1/",
	"project": map[string]any{"id": "2", "name": "Pump Station", "slug": "pump-station"}, "stats": map[string]any{"24h": []any{[]any{1541455200, 473}}},
}

var sentryEvent = map[string]any{
	"id": "9999aaafcc8b46d797c23c6077c6ff01", "eventID": "9999aaaaca8b46d797c23c6077c6ff01", "groupID": "1341191803",
	"title": "This is an example Python exception", "message": "", "dateCreated": "2020-06-17T22:26:56.098086Z", "platform": "javascript",
	"type": "error", "culprit": "", "location": "example.py:123", "size": 107762,
	"tags":     []any{map[string]any{"key": "browser", "value": "Chrome 83.0.4103"}},
	"user":     map[string]any{"id": nil, "email": "hello@example.com", "ip_address": "0.0.0.0"},
	"contexts": map[string]any{"browser": map[string]any{"name": "Chrome", "version": "83.0.4103", "type": "browser"}},
	"entries": []any{map[string]any{"type": "exception", "data": map[string]any{"values": []any{map[string]any{"type": "ForbiddenError",
		"value": "GET /organizations/hellboy-meowmeow/users/ 403", "stacktrace": map[string]any{"frames": []any{map[string]any{
			"function": "ignoreOnError", "filename": "../node_modules/@sentry/browser/esm/helpers.js", "lineNo": 96, "colNo": 17, "inApp": false}}}}}}}},
	"release": map[string]any{"version": "frontend@c35d8fe", "shortVersion": "c35d8fe"}, "previousEventID": nil, "nextEventID": "99f9e199e9a74a14bfef6196ad741619",
	"errors": []any{}, "_meta": map[string]any{}, "sdk": map[string]any{"name": "sentry.javascript.react"},
}

const sentryEventShaped = `"eventID":"9999aaaaca8b46d797c23c6077c6ff01","groupID":"1341191803","title":"This is an example Python exception",
 "message":"","dateCreated":"2020-06-17T22:26:56.098086Z","platform":"javascript","type":"error","culprit":"","location":"example.py:123",
 "tags":[{"key":"browser","value":"Chrome 83.0.4103"}],"user":{"id":null,"email":"hello@example.com","ip_address":"0.0.0.0"},
 "contexts":{"browser":{"name":"Chrome","version":"83.0.4103","type":"browser"}},
 "entries":[{"type":"exception","data":{"values":[{"type":"ForbiddenError","value":"GET /organizations/hellboy-meowmeow/users/ 403",
   "stacktrace":{"frames":[{"function":"ignoreOnError","filename":"../node_modules/@sentry/browser/esm/helpers.js","lineNo":96,"colNo":17,"inApp":false}]}}]}}],
 "release":{"version":"frontend@c35d8fe"}`

var sentryRelease = map[string]any{
	"id": 2, "version": "2.0rc2", "shortVersion": "2.0rc2", "ref": "6ba09a7c53235ee8a8fa5ee4c1ca8ca886e7fdbb", "url": nil,
	"status": "open", "dateCreated": "2019-01-03T00:12:55.109Z", "dateReleased": nil, "newGroups": 0, "commitCount": 0, "deployCount": 0,
	"lastDeploy": nil, "lastCommit": nil, "firstEvent": nil, "lastEvent": nil, "authors": []any{},
	"projects": []any{map[string]any{"id": 2, "name": "Pump Station", "slug": "pump-station", "platform": "python"}},
	"data":     map[string]any{}, "owner": nil,
}

// creds are what the fake expects of the sentry connection.
var creds = plugintest.Credentials{Token: sentryToken}

// TestContracts calls every sentry tool against a fake that checks the request as the provider documents it.
func TestContracts(t *testing.T) {
	plugintest.Contracts(t, sentry.Plugin(), creds, contracts())
}

// contracts are the sentry tools' contract cases.
func contracts() []plugintest.Case {
	return []plugintest.Case{
		{
			Tool: "sentry_list_organizations", Args: `{"owner":true}`,
			Method: "GET", Path: "/api/0/organizations/", Query: "owner=true", Header: sentryHeaders,
			Status: 200, Respond: []any{map[string]any{"id": "7", "slug": "the-interstellar-jurisdiction", "name": "The Interstellar Jurisdiction",
				"dateCreated": "2018-11-06T21:19:55.101Z", "status": map[string]any{"id": "active", "name": "active"}, "isEarlyAdopter": false,
				"require2FA": false, "avatar": map[string]any{"avatarType": "letter_avatar", "avatarUuid": nil},
				"links":    map[string]any{"organizationUrl": "https://the-interstellar-jurisdiction.sentry.io", "regionUrl": "https://us.sentry.io"},
				"features": []any{"session-replay"}}},
			LinkNext: sentryLink,
			Want: `{"items":[{"id":"7","slug":"the-interstellar-jurisdiction","name":"The Interstellar Jurisdiction","dateCreated":"2018-11-06T21:19:55.101Z",
			 "links":{"organizationUrl":"https://the-interstellar-jurisdiction.sentry.io","regionUrl":"https://us.sentry.io"}}],"next_cursor":"1420837533:0:0"}`,
		},
		{
			Tool: "sentry_list_projects", Args: `{"organization_slug":"the-interstellar-jurisdiction","cursor":"0:100:0"}`,
			Method: "GET", Path: "/api/0/organizations/the-interstellar-jurisdiction/projects/", Query: "cursor=0%3A100%3A0", Header: sentryHeaders,
			Status: 200, Respond: []any{map[string]any{"id": "2", "slug": "pump-station", "name": "Pump Station", "platform": "python",
				"dateCreated": "2018-11-06T21:19:58.536Z", "isBookmarked": false, "isMember": true, "hasAccess": true, "firstEvent": "2018-11-06T21:19:58.536Z",
				"features": []any{"releases"}, "team": map[string]any{"slug": "powerful-abolitionist"}, "status": "active"}},
			Want: `{"items":[{"id":"2","slug":"pump-station","name":"Pump Station","platform":"python","dateCreated":"2018-11-06T21:19:58.536Z",
			 "isMember":true,"hasAccess":true,"firstEvent":"2018-11-06T21:19:58.536Z"}]}`,
		},
		{
			Tool: "sentry_list_issues", Args: `{"organization_slug":"the-interstellar-jurisdiction","query":"is:unresolved level:error","project":[2,3],"statsPeriod":"24h"}`,
			Method: "GET", Path: "/api/0/organizations/the-interstellar-jurisdiction/issues/",
			Query: "limit=25&project=2&project=3&query=is%3Aunresolved+level%3Aerror&sort=date&statsPeriod=24h", Header: sentryHeaders,
			Status: 200, Respond: []any{sentryIssue}, LinkNext: sentryLink,
			Want: `{"items":[{"id":"1","shortId":"PUMP-STATION-1","title":"This is an example Python exception","culprit":"raven.scripts.runner in main",
			 "level":"error","status":"unresolved","substatus":"ongoing","priority":"high","isUnhandled":false,"count":"150","userCount":0,
			 "firstSeen":"2018-11-06T21:19:55Z","lastSeen":"2018-11-06T21:19:55Z","permalink":"https://sentry.io/the-interstellar-jurisdiction/pump-station/issues/1/",
			 "project":{"slug":"pump-station"},"assignedTo":null}],"next_cursor":"1420837533:0:0"}`,
		},
		// The last page: Sentry still sends a next link, with results="false": no next_cursor.
		{
			Tool: "sentry_list_issues", Args: `{"organization_slug":"the-interstellar-jurisdiction","query":"is:unresolved level:error","project":[-1],"statsPeriod":"24h","cursor":"1420837533:0:0"}`,
			Method: "GET", Path: "/api/0/organizations/the-interstellar-jurisdiction/issues/",
			Query: "cursor=1420837533%3A0%3A0&limit=25&project=-1&query=is%3Aunresolved+level%3Aerror&sort=date&statsPeriod=24h", Header: sentryHeaders,
			Status: 200, Respond: []any{sentryIssue}, LinkNext: sentryLastLink,
			Want: `{"items":[{"id":"1","shortId":"PUMP-STATION-1","title":"This is an example Python exception","culprit":"raven.scripts.runner in main",
			 "level":"error","status":"unresolved","substatus":"ongoing","priority":"high","isUnhandled":false,"count":"150","userCount":0,
			 "firstSeen":"2018-11-06T21:19:55Z","lastSeen":"2018-11-06T21:19:55Z","permalink":"https://sentry.io/the-interstellar-jurisdiction/pump-station/issues/1/",
			 "project":{"slug":"pump-station"},"assignedTo":null}]}`,
		},
		{
			Tool: "sentry_get_issue", Args: `{"organization_slug":"the-interstellar-jurisdiction","issue_id":"1"}`,
			Method: "GET", Path: "/api/0/organizations/the-interstellar-jurisdiction/issues/1/", Header: sentryHeaders,
			Status: 200, Respond: sentryIssue,
			Want: `{"id":"1","shortId":"PUMP-STATION-1","title":"This is an example Python exception","culprit":"raven.scripts.runner in main",
			 "level":"error","status":"unresolved","statusDetails":{},"substatus":"ongoing","priority":"high","isUnhandled":false,"platform":"python",
			 "metadata":{"title":"This is an example Python exception"},"count":"150","userCount":0,"firstSeen":"2018-11-06T21:19:55Z",
			 "lastSeen":"2018-11-06T21:19:55Z","firstRelease":{"version":"17642328ead24b51867165985996d04b29310337"},"lastRelease":null,
			 "assignedTo":null,"project":{"slug":"pump-station"},"permalink":"https://sentry.io/the-interstellar-jurisdiction/pump-station/issues/1/"}`,
		},
		{
			Tool: "sentry_update_issue", Args: `{"organization_slug":"the-interstellar-jurisdiction","issue_id":"1","status":"ignored","statusDetails":{"ignoreDuration":60},"assignedTo":"jane"}`,
			Method: "PUT", Path: "/api/0/organizations/the-interstellar-jurisdiction/issues/1/", Header: sentryWriteHeaders,
			Body:   `{"status":"ignored","statusDetails":{"ignoreDuration":60},"assignedTo":"jane"}`,
			Status: 200, Respond: func() map[string]any {
				is := map[string]any{}
				for k, v := range sentryIssue {
					is[k] = v
				}
				is["status"], is["substatus"] = "ignored", "archived_until_condition_met"
				is["statusDetails"] = map[string]any{"ignoreUntil": "2018-11-06T22:19:55Z"}
				is["assignedTo"] = map[string]any{"type": "user", "id": "88", "name": "Jane Developer", "email": "jane@example.com"}
				is["isSubscribed"], is["isPublic"] = true, false
				return is
			}(),
			Want: `{"id":"1","shortId":"PUMP-STATION-1","title":"This is an example Python exception","status":"ignored",
			 "statusDetails":{"ignoreUntil":"2018-11-06T22:19:55Z"},"substatus":"archived_until_condition_met",
			 "assignedTo":{"type":"user","id":"88","name":"Jane Developer","email":"jane@example.com"},"hasSeen":false,"isBookmarked":false,
			 "isSubscribed":true,"isPublic":false}`,
		},
		{
			Tool: "sentry_list_issue_events", Args: `{"organization_slug":"the-interstellar-jurisdiction","issue_id":"1341191803","statsPeriod":"7d"}`,
			Method: "GET", Path: "/api/0/organizations/the-interstellar-jurisdiction/issues/1341191803/events/", Query: "full=false&statsPeriod=7d", Header: sentryHeaders,
			Status: 200, Respond: []any{map[string]any{"id": "9999aaafcc8b46d797c23c6077c6ff01", "eventID": "9999aaaaca8b46d797c23c6077c6ff01",
				"groupID": "1341191803", "title": "This is an example Python exception", "message": "", "dateCreated": "2020-06-17T22:26:56Z",
				"platform": "python", "event.type": "error", "tags": []any{map[string]any{"key": "level", "value": "error"}},
				"user": map[string]any{"id": "1", "email": "hello@example.com"}, "crashFile": nil, "location": nil}},
			Want: `{"items":[{"id":"9999aaafcc8b46d797c23c6077c6ff01","eventID":"9999aaaaca8b46d797c23c6077c6ff01","groupID":"1341191803",
			 "title":"This is an example Python exception","message":"","dateCreated":"2020-06-17T22:26:56Z","platform":"python",
			 "tags":[{"key":"level","value":"error"}],"user":{"id":"1","email":"hello@example.com"}}]}`,
		},
		{
			Tool: "sentry_get_issue_event", Args: `{"organization_slug":"the-interstellar-jurisdiction","issue_id":"1341191803","event_id":"latest"}`,
			Method: "GET", Path: "/api/0/organizations/the-interstellar-jurisdiction/issues/1341191803/events/latest/", Header: sentryHeaders,
			Status: 200, Respond: sentryEvent,
			Want: `{"id":"9999aaafcc8b46d797c23c6077c6ff01",` + sentryEventShaped + `,"previousEventID":null,"nextEventID":"99f9e199e9a74a14bfef6196ad741619"}`,
		},
		{
			Tool: "sentry_get_project_event", Args: `{"organization_slug":"the-interstellar-jurisdiction","project_slug":"pump-station","event_id":"9999aaaaca8b46d797c23c6077c6ff01"}`,
			Method: "GET", Path: "/api/0/projects/the-interstellar-jurisdiction/pump-station/events/9999aaaaca8b46d797c23c6077c6ff01/", Header: sentryHeaders,
			Status: 200, Respond: sentryEvent,
			Want: `{"id":"9999aaafcc8b46d797c23c6077c6ff01",` + sentryEventShaped + `}`,
		},
		{
			Tool: "sentry_list_releases", Args: `{"organization_slug":"the-interstellar-jurisdiction","query":"2.0"}`,
			Method: "GET", Path: "/api/0/organizations/the-interstellar-jurisdiction/releases/", Query: "query=2.0", Header: sentryHeaders,
			Status: 200, Respond: []any{sentryRelease},
			Want: `{"items":[{"version":"2.0rc2","shortVersion":"2.0rc2","ref":"6ba09a7c53235ee8a8fa5ee4c1ca8ca886e7fdbb","url":null,
			 "dateCreated":"2019-01-03T00:12:55.109Z","dateReleased":null,"newGroups":0,"commitCount":0,"deployCount":0,"lastDeploy":null,
			 "firstEvent":null,"lastEvent":null,"projects":[{"slug":"pump-station"}]}]}`,
		},
		{
			Tool: "sentry_get_release", Args: `{"organization_slug":"the-interstellar-jurisdiction","version":"2.0rc2"}`,
			Method: "GET", Path: "/api/0/organizations/the-interstellar-jurisdiction/releases/2.0rc2/", Header: sentryHeaders,
			Status: 200, Respond: sentryRelease,
			Want: `{"version":"2.0rc2","shortVersion":"2.0rc2","ref":"6ba09a7c53235ee8a8fa5ee4c1ca8ca886e7fdbb","url":null,
			 "dateCreated":"2019-01-03T00:12:55.109Z","dateReleased":null,"newGroups":0,"commitCount":0,"deployCount":0,"authors":[],
			 "lastCommit":null,"lastDeploy":null,"firstEvent":null,"lastEvent":null,"projects":[{"slug":"pump-station"}]}`,
		},
		{
			Tool: "sentry_create_release", Args: `{"organization_slug":"the-interstellar-jurisdiction","version":"2.0rc2","projects":["pump-station"],"ref":"6ba09a7c53235ee8a8fa5ee4c1ca8ca886e7fdbb"}`,
			Method: "POST", Path: "/api/0/organizations/the-interstellar-jurisdiction/releases/", Header: sentryWriteHeaders,
			Body:   `{"version":"2.0rc2","projects":["pump-station"],"ref":"6ba09a7c53235ee8a8fa5ee4c1ca8ca886e7fdbb"}`,
			Status: 201, Respond: sentryRelease,
			Want: `{"version":"2.0rc2","shortVersion":"2.0rc2","ref":"6ba09a7c53235ee8a8fa5ee4c1ca8ca886e7fdbb","url":null,
			 "dateCreated":"2019-01-03T00:12:55.109Z","dateReleased":null,"projects":[{"slug":"pump-station"}]}`,
		},
	}
}
