package plugins

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

func init() {
	contractTokens["google-calendar"] = calendarToken
	contractCases = append(contractCases,
		contractCase{
			tool: "google_calendar_list_calendars", args: `{"min_access_role":"writer"}`,
			method: "GET", path: "/calendar/v3/users/me/calendarList", query: "maxResults=100&minAccessRole=writer&showHidden=false", header: calendarHeaders,
			status: 200, respond: map[string]any{"kind": "calendar#calendarList", "nextSyncToken": "CPDAlvWDx70CEPDAlvWDx70CGAU=", "items": []any{
				map[string]any{"kind": "calendar#calendarListEntry", "id": "ada@example.com", "summary": "ada@example.com", "timeZone": "America/Los_Angeles",
					"colorId": "14", "backgroundColor": "#9fe1e7", "selected": true, "accessRole": "owner", "primary": true,
					"defaultReminders": []any{map[string]any{"method": "popup", "minutes": 10}}},
			}},
			want: `{"items":[{"id":"ada@example.com","summary":"ada@example.com","timeZone":"America/Los_Angeles","selected":true,"accessRole":"owner","primary":true}]}`,
		},
		contractCase{
			tool: "google_calendar_get_calendar", args: `{}`,
			method: "GET", path: "/calendar/v3/calendars/primary", header: calendarHeaders,
			status: 200, respond: map[string]any{"kind": "calendar#calendar", "etag": "\"x\"", "id": "ada@example.com", "summary": "ada@example.com", "timeZone": "America/Los_Angeles",
				"conferenceProperties": map[string]any{"allowedConferenceSolutionTypes": []any{"hangoutsMeet"}}},
			want: `{"id":"ada@example.com","summary":"ada@example.com","timeZone":"America/Los_Angeles"}`,
		},
		contractCase{
			tool: "google_calendar_list_events", args: `{"time_min":"2024-05-01T00:00:00Z","time_max":"2024-05-08T00:00:00Z","order_by":"startTime","max_results":10}`,
			method: "GET", path: "/calendar/v3/calendars/primary/events",
			query:  "maxResults=10&orderBy=startTime&showDeleted=false&singleEvents=true&timeMax=2024-05-08T00%3A00%3A00Z&timeMin=2024-05-01T00%3A00%3A00Z",
			header: calendarHeaders,
			status: 200, respond: map[string]any{"kind": "calendar#events", "summary": "ada@example.com", "timeZone": "America/Los_Angeles",
				"nextPageToken": "CigKGjdjYmg4cnBj", "items": []any{calendarEvent}},
			want: `{"items":[` + calendarEventShaped + `],"next_cursor":"CigKGjdjYmg4cnBj"}`,
		},
		contractCase{
			tool: "google_calendar_get_event", args: `{"calendar_id":"team@group.calendar.google.com","event_id":"7cbh8rpc10lrc0ckih9tafss99"}`,
			method: "GET", path: "/calendar/v3/calendars/team@group.calendar.google.com/events/7cbh8rpc10lrc0ckih9tafss99", header: calendarHeaders,
			status: 200, respond: calendarEvent, want: calendarEventShaped,
		},
		contractCase{
			tool: "google_calendar_create_event",
			args: `{"summary":"Design review","location":"Room 4","start":{"dateTime":"2024-05-02T15:00:00","timeZone":"America/Los_Angeles"},
			 "end":{"dateTime":"2024-05-02T16:00:00","timeZone":"America/Los_Angeles"},"attendees":[{"email":"bob@example.com"}],
			 "reminders":{"useDefault":false,"overrides":[{"method":"popup","minutes":10}]},"send_updates":"all"}`,
			method: "POST", path: "/calendar/v3/calendars/primary/events", query: "sendUpdates=all", header: calendarJSONHeaders,
			body: `{"summary":"Design review","location":"Room 4","start":{"dateTime":"2024-05-02T15:00:00","timeZone":"America/Los_Angeles"},
			 "end":{"dateTime":"2024-05-02T16:00:00","timeZone":"America/Los_Angeles"},"attendees":[{"email":"bob@example.com"}],
			 "reminders":{"useDefault":false,"overrides":[{"method":"popup","minutes":10}]}}`,
			status: 200, respond: calendarEvent, want: calendarEventShaped,
		},
		contractCase{
			tool: "google_calendar_update_event", args: `{"event_id":"7cbh8rpc10lrc0ckih9tafss99","summary":"Design review (moved)","color_id":"5"}`,
			method: "PATCH", path: "/calendar/v3/calendars/primary/events/7cbh8rpc10lrc0ckih9tafss99", query: "sendUpdates=none", header: calendarJSONHeaders,
			body:   `{"summary":"Design review (moved)","colorId":"5"}`,
			status: 200, respond: calendarEvent, want: calendarEventShaped,
		},
		contractCase{
			tool: "google_calendar_delete_event", args: `{"event_id":"7cbh8rpc10lrc0ckih9tafss99","send_updates":"all"}`,
			method: "DELETE", path: "/calendar/v3/calendars/primary/events/7cbh8rpc10lrc0ckih9tafss99", query: "sendUpdates=all", header: calendarHeaders,
			status: 204, respond: nil, want: `{"ok":true,"status":204}`,
		},
		contractCase{
			tool: "google_calendar_quick_add_event", args: `{"text":"Lunch with Ana tomorrow 12:30-13:30"}`,
			method: "POST", path: "/calendar/v3/calendars/primary/events/quickAdd", query: "sendUpdates=none&text=Lunch+with+Ana+tomorrow+12%3A30-13%3A30", header: calendarHeaders,
			status: 200, respond: calendarEvent, want: calendarEventShaped,
		},
		contractCase{
			tool: "google_calendar_query_freebusy", args: `{"time_min":"2024-05-02T00:00:00Z","time_max":"2024-05-03T00:00:00Z","items":[{"id":"primary"},{"id":"bob@example.com"}]}`,
			method: "POST", path: "/calendar/v3/freeBusy", header: calendarJSONHeaders,
			body:   `{"timeMin":"2024-05-02T00:00:00Z","timeMax":"2024-05-03T00:00:00Z","items":[{"id":"primary"},{"id":"bob@example.com"}]}`,
			status: 200, respond: map[string]any{"kind": "calendar#freeBusy", "timeMin": "2024-05-02T00:00:00.000Z", "timeMax": "2024-05-03T00:00:00.000Z",
				"calendars": map[string]any{
					"primary":         map[string]any{"busy": []any{map[string]any{"start": "2024-05-02T22:00:00Z", "end": "2024-05-02T23:00:00Z"}}},
					"bob@example.com": map[string]any{"errors": []any{map[string]any{"domain": "global", "reason": "notFound"}}, "busy": []any{}},
				}},
			want: `{"timeMin":"2024-05-02T00:00:00.000Z","timeMax":"2024-05-03T00:00:00.000Z","calendars":{
			 "primary":{"busy":[{"start":"2024-05-02T22:00:00Z","end":"2024-05-02T23:00:00Z"}]},
			 "bob@example.com":{"errors":[{"domain":"global","reason":"notFound"}],"busy":[]}}}`,
		},
		contractCase{
			tool: "google_calendar_list_event_instances", args: `{"event_id":"weekly123","time_min":"2024-05-01T00:00:00Z"}`,
			method: "GET", path: "/calendar/v3/calendars/primary/events/weekly123/instances", query: "maxResults=50&timeMin=2024-05-01T00%3A00%3A00Z", header: calendarHeaders,
			status: 200, respond: map[string]any{"kind": "calendar#events", "items": []any{map[string]any{"id": "weekly123_20240506T160000Z", "status": "confirmed",
				"summary": "Standup", "recurringEventId": "weekly123", "start": map[string]any{"dateTime": "2024-05-06T09:00:00-07:00"},
				"end": map[string]any{"dateTime": "2024-05-06T09:15:00-07:00"}, "originalStartTime": map[string]any{"dateTime": "2024-05-06T09:00:00-07:00"}}}},
			want: `{"items":[{"id":"weekly123_20240506T160000Z","status":"confirmed","summary":"Standup","recurringEventId":"weekly123",
			 "start":{"dateTime":"2024-05-06T09:00:00-07:00"},"end":{"dateTime":"2024-05-06T09:15:00-07:00"}}]}`,
		},
		contractCase{
			tool: "google_calendar_move_event", args: `{"event_id":"7cbh8rpc10lrc0ckih9tafss99","destination":"team@group.calendar.google.com"}`,
			method: "POST", path: "/calendar/v3/calendars/primary/events/7cbh8rpc10lrc0ckih9tafss99/move",
			query: "destination=team%40group.calendar.google.com&sendUpdates=none", header: calendarHeaders,
			status: 200, respond: calendarEvent, want: calendarEventShaped,
		},
	)
}
