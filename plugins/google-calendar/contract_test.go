package googlecalendar_test

import (
	"testing"

	"github.com/workbench/workbench/plugins/google-calendar"
	"github.com/workbench/workbench/plugins/plugintest"
)

// Contract cases for the google-calendar plugin, against the Calendar API v3 reference
// (developers.google.com/calendar/api/v3/reference: calendarList, calendars, events, freebusy).

const calendarToken = "ya29.calendar-contract"

var calendarHeaders = map[string]string{"Authorization": "Bearer " + calendarToken, "Accept": "application/json"}

var calendarJSONHeaders = map[string]string{"Authorization": "Bearer " + calendarToken, "Content-Type": "application/json"}

var calendarEvent = map[string]any{
	"kind": "calendar#event", "etag": "\"3181161784712000\"", "id": "7cbh8rpc10lrc0ckih9tafss99", "status": "confirmed",
	"htmlLink": "https://www.google.com/calendar/event?eid=N2NiaDhycGMxMGxyYzBja2loOXRhZnNzOTk", "created": "2024-04-20T10:00:00.000Z",
	"updated": "2024-04-20T10:00:00.000Z", "summary": "Design review", "description": "Agenda in the doc", "location": "Room 4",
	"creator":   map[string]any{"email": "ada@example.com", "self": true},
	"organizer": map[string]any{"email": "ada@example.com", "self": true},
	"start":     map[string]any{"dateTime": "2024-05-02T15:00:00-07:00", "timeZone": "America/Los_Angeles"},
	"end":       map[string]any{"dateTime": "2024-05-02T16:00:00-07:00", "timeZone": "America/Los_Angeles"},
	"iCalUID":   "7cbh8rpc10lrc0ckih9tafss99@google.com", "sequence": 0, "eventType": "default",
	"attendees": []any{map[string]any{"email": "bob@example.com", "responseStatus": "needsAction"}},
	"reminders": map[string]any{"useDefault": true},
}

const calendarEventShaped = `{"id":"7cbh8rpc10lrc0ckih9tafss99","status":"confirmed",
 "htmlLink":"https://www.google.com/calendar/event?eid=N2NiaDhycGMxMGxyYzBja2loOXRhZnNzOTk","created":"2024-04-20T10:00:00.000Z",
 "updated":"2024-04-20T10:00:00.000Z","summary":"Design review","description":"Agenda in the doc","location":"Room 4",
 "organizer":{"email":"ada@example.com"},"start":{"dateTime":"2024-05-02T15:00:00-07:00","timeZone":"America/Los_Angeles"},
 "end":{"dateTime":"2024-05-02T16:00:00-07:00","timeZone":"America/Los_Angeles"},"eventType":"default",
 "attendees":[{"email":"bob@example.com","responseStatus":"needsAction"}]}`

// creds are what the fake expects of the google-calendar connection.
var creds = plugintest.Credentials{Token: calendarToken}

// TestContracts calls every google-calendar tool against a fake that checks the request as the provider documents it.
func TestContracts(t *testing.T) {
	plugintest.Contracts(t, googlecalendar.Plugin(), creds, contracts())
}

// contracts are the google-calendar tools' contract cases.
func contracts() []plugintest.Case {
	return []plugintest.Case{
		{
			Tool: "google_calendar_list_calendars", Args: `{"min_access_role":"writer"}`,
			Method: "GET", Path: "/calendar/v3/users/me/calendarList", Query: "maxResults=100&minAccessRole=writer&showHidden=false", Header: calendarHeaders,
			Status: 200, Respond: map[string]any{"kind": "calendar#calendarList", "nextSyncToken": "CPDAlvWDx70CEPDAlvWDx70CGAU=", "items": []any{
				map[string]any{"kind": "calendar#calendarListEntry", "id": "ada@example.com", "summary": "ada@example.com", "timeZone": "America/Los_Angeles",
					"colorId": "14", "backgroundColor": "#9fe1e7", "selected": true, "accessRole": "owner", "primary": true,
					"defaultReminders": []any{map[string]any{"method": "popup", "minutes": 10}}},
			}},
			Want: `{"items":[{"id":"ada@example.com","summary":"ada@example.com","timeZone":"America/Los_Angeles","selected":true,"accessRole":"owner","primary":true}]}`,
		},
		{
			Tool: "google_calendar_get_calendar", Args: `{}`,
			Method: "GET", Path: "/calendar/v3/calendars/primary", Header: calendarHeaders,
			Status: 200, Respond: map[string]any{"kind": "calendar#calendar", "etag": "\"x\"", "id": "ada@example.com", "summary": "ada@example.com", "timeZone": "America/Los_Angeles",
				"conferenceProperties": map[string]any{"allowedConferenceSolutionTypes": []any{"hangoutsMeet"}}},
			Want: `{"id":"ada@example.com","summary":"ada@example.com","timeZone":"America/Los_Angeles"}`,
		},
		{
			Tool: "google_calendar_list_events", Args: `{"time_min":"2024-05-01T00:00:00Z","time_max":"2024-05-08T00:00:00Z","order_by":"startTime","max_results":10}`,
			Method: "GET", Path: "/calendar/v3/calendars/primary/events",
			Query:  "maxResults=10&orderBy=startTime&showDeleted=false&singleEvents=true&timeMax=2024-05-08T00%3A00%3A00Z&timeMin=2024-05-01T00%3A00%3A00Z",
			Header: calendarHeaders,
			Status: 200, Respond: map[string]any{"kind": "calendar#events", "summary": "ada@example.com", "timeZone": "America/Los_Angeles",
				"nextPageToken": "CigKGjdjYmg4cnBj", "items": []any{calendarEvent}},
			Want: `{"items":[` + calendarEventShaped + `],"next_cursor":"CigKGjdjYmg4cnBj"}`,
		},
		{
			Tool: "google_calendar_get_event", Args: `{"calendar_id":"team@group.calendar.google.com","event_id":"7cbh8rpc10lrc0ckih9tafss99"}`,
			Method: "GET", Path: "/calendar/v3/calendars/team@group.calendar.google.com/events/7cbh8rpc10lrc0ckih9tafss99", Header: calendarHeaders,
			Status: 200, Respond: calendarEvent, Want: calendarEventShaped,
		},
		{
			Tool: "google_calendar_create_event",
			Args: `{"summary":"Design review","location":"Room 4","start":{"dateTime":"2024-05-02T15:00:00","timeZone":"America/Los_Angeles"},
			 "end":{"dateTime":"2024-05-02T16:00:00","timeZone":"America/Los_Angeles"},"attendees":[{"email":"bob@example.com"}],
			 "reminders":{"useDefault":false,"overrides":[{"method":"popup","minutes":10}]},"send_updates":"all"}`,
			Method: "POST", Path: "/calendar/v3/calendars/primary/events", Query: "sendUpdates=all", Header: calendarJSONHeaders,
			Body: `{"summary":"Design review","location":"Room 4","start":{"dateTime":"2024-05-02T15:00:00","timeZone":"America/Los_Angeles"},
			 "end":{"dateTime":"2024-05-02T16:00:00","timeZone":"America/Los_Angeles"},"attendees":[{"email":"bob@example.com"}],
			 "reminders":{"useDefault":false,"overrides":[{"method":"popup","minutes":10}]}}`,
			Status: 200, Respond: calendarEvent, Want: calendarEventShaped,
		},
		{
			Tool: "google_calendar_update_event", Args: `{"event_id":"7cbh8rpc10lrc0ckih9tafss99","summary":"Design review (moved)","color_id":"5"}`,
			Method: "PATCH", Path: "/calendar/v3/calendars/primary/events/7cbh8rpc10lrc0ckih9tafss99", Query: "sendUpdates=none", Header: calendarJSONHeaders,
			Body:   `{"summary":"Design review (moved)","colorId":"5"}`,
			Status: 200, Respond: calendarEvent, Want: calendarEventShaped,
		},
		{
			Tool: "google_calendar_delete_event", Args: `{"event_id":"7cbh8rpc10lrc0ckih9tafss99","send_updates":"all"}`,
			Method: "DELETE", Path: "/calendar/v3/calendars/primary/events/7cbh8rpc10lrc0ckih9tafss99", Query: "sendUpdates=all", Header: calendarHeaders,
			Status: 204, Respond: nil, Want: `{"ok":true,"status":204}`,
		},
		{
			Tool: "google_calendar_quick_add_event", Args: `{"text":"Lunch with Ana tomorrow 12:30-13:30"}`,
			Method: "POST", Path: "/calendar/v3/calendars/primary/events/quickAdd", Query: "sendUpdates=none&text=Lunch+with+Ana+tomorrow+12%3A30-13%3A30", Header: calendarHeaders,
			Status: 200, Respond: calendarEvent, Want: calendarEventShaped,
		},
		{
			Tool: "google_calendar_query_freebusy", Args: `{"time_min":"2024-05-02T00:00:00Z","time_max":"2024-05-03T00:00:00Z","items":[{"id":"primary"},{"id":"bob@example.com"}]}`,
			Method: "POST", Path: "/calendar/v3/freeBusy", Header: calendarJSONHeaders,
			Body:   `{"timeMin":"2024-05-02T00:00:00Z","timeMax":"2024-05-03T00:00:00Z","items":[{"id":"primary"},{"id":"bob@example.com"}]}`,
			Status: 200, Respond: map[string]any{"kind": "calendar#freeBusy", "timeMin": "2024-05-02T00:00:00.000Z", "timeMax": "2024-05-03T00:00:00.000Z",
				"calendars": map[string]any{
					"primary":         map[string]any{"busy": []any{map[string]any{"start": "2024-05-02T22:00:00Z", "end": "2024-05-02T23:00:00Z"}}},
					"bob@example.com": map[string]any{"errors": []any{map[string]any{"domain": "global", "reason": "notFound"}}, "busy": []any{}},
				}},
			Want: `{"timeMin":"2024-05-02T00:00:00.000Z","timeMax":"2024-05-03T00:00:00.000Z","calendars":{
			 "primary":{"busy":[{"start":"2024-05-02T22:00:00Z","end":"2024-05-02T23:00:00Z"}]},
			 "bob@example.com":{"errors":[{"domain":"global","reason":"notFound"}],"busy":[]}}}`,
		},
		{
			Tool: "google_calendar_list_event_instances", Args: `{"event_id":"weekly123","time_min":"2024-05-01T00:00:00Z"}`,
			Method: "GET", Path: "/calendar/v3/calendars/primary/events/weekly123/instances", Query: "maxResults=50&timeMin=2024-05-01T00%3A00%3A00Z", Header: calendarHeaders,
			Status: 200, Respond: map[string]any{"kind": "calendar#events", "items": []any{map[string]any{"id": "weekly123_20240506T160000Z", "status": "confirmed",
				"summary": "Standup", "recurringEventId": "weekly123", "start": map[string]any{"dateTime": "2024-05-06T09:00:00-07:00"},
				"end": map[string]any{"dateTime": "2024-05-06T09:15:00-07:00"}, "originalStartTime": map[string]any{"dateTime": "2024-05-06T09:00:00-07:00"}}}},
			Want: `{"items":[{"id":"weekly123_20240506T160000Z","status":"confirmed","summary":"Standup","recurringEventId":"weekly123",
			 "start":{"dateTime":"2024-05-06T09:00:00-07:00"},"end":{"dateTime":"2024-05-06T09:15:00-07:00"}}]}`,
		},
		{
			Tool: "google_calendar_move_event", Args: `{"event_id":"7cbh8rpc10lrc0ckih9tafss99","destination":"team@group.calendar.google.com"}`,
			Method: "POST", Path: "/calendar/v3/calendars/primary/events/7cbh8rpc10lrc0ckih9tafss99/move",
			Query: "destination=team%40group.calendar.google.com&sendUpdates=none", Header: calendarHeaders,
			Status: 200, Respond: calendarEvent, Want: calendarEventShaped,
		},
	}
}
