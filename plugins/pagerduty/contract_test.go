package pagerduty_test

import (
	"testing"

	"github.com/workbench/workbench/plugins/pagerduty"
	"github.com/workbench/workbench/plugins/plugintest"
)

// Contract cases for the pagerduty plugin, against the PagerDuty REST API v2 as documented at
// developer.pagerduty.com/api-reference (incidents, notes, services, on-calls, schedules, users):
// "Authorization: Token token=<key>", the versioned Accept header, and the From header on writes.
// Responses are the documented examples, trimmed.

const pagerdutyKey = "y_NbAkKc66ryYTWUXYEu"

var pagerdutyHeaders = map[string]string{
	"Authorization": "Token token=" + pagerdutyKey,
	"Accept":        "application/vnd.pagerduty+json;version=2",
}

var pagerdutyWriteHeaders = map[string]string{
	"Authorization": "Token token=" + pagerdutyKey,
	"Accept":        "application/vnd.pagerduty+json;version=2",
	"Content-Type":  "application/json",
	"From":          "jane@example.com",
}

var pdRef = func(id, typ, summary string) map[string]any {
	return map[string]any{"id": id, "type": typ, "summary": summary, "self": "https://api.pagerduty.com/" + typ + "s/" + id,
		"html_url": "https://subdomain.pagerduty.com/" + typ + "s/" + id}
}

var pdIncident = map[string]any{
	"id": "PT4KHLK", "type": "incident", "summary": "[#1234] The server is on fire.", "self": "https://api.pagerduty.com/incidents/PT4KHLK",
	"html_url": "https://subdomain.pagerduty.com/incidents/PT4KHLK", "incident_number": 1234, "title": "The server is on fire.",
	"description": "The server is on fire.", "created_at": "2015-10-06T21:30:42Z", "updated_at": "2015-10-06T21:40:23Z", "status": "resolved",
	"incident_key": "baf7cf21b1da41b4b0221008339ff357", "service": pdRef("PIJ90N7", "service_reference", "My Mail Service"),
	"assignments":           []any{map[string]any{"at": "2015-11-10T00:31:52Z", "assignee": pdRef("PXPGF42", "user_reference", "Earline Greenholt")}},
	"acknowledgements":      []any{map[string]any{"at": "2015-11-10T00:32:52Z", "acknowledger": pdRef("PXPGF42", "user_reference", "Earline Greenholt")}},
	"last_status_change_at": "2015-10-06T21:38:23Z", "resolved_at": "2015-10-06T21:38:23Z",
	"escalation_policy": pdRef("PT20YPA", "escalation_policy_reference", "Another Escalation Policy"),
	"priority":          map[string]any{"id": "P53ZZH5", "type": "priority_reference", "summary": "P2"}, "urgency": "high",
	"alert_counts": map[string]any{"all": 2, "triggered": 0, "resolved": 2},
}

// creds are what the fake expects of the pagerduty connection.
var creds = plugintest.Credentials{APIKeys: map[string]string{"api_key": pagerdutyKey}}

// TestContracts calls every pagerduty tool against a fake that checks the request as the provider documents it.
func TestContracts(t *testing.T) {
	plugintest.Contracts(t, pagerduty.Plugin(), creds, contracts())
}

// contracts are the pagerduty tools' contract cases.
func contracts() []plugintest.Case {
	return []plugintest.Case{
		{
			Tool: "pagerduty_list_incidents", Args: `{"statuses":["triggered","acknowledged"],"service_ids":["PIJ90N7"],"urgencies":["high"],"limit":1}`,
			Method: "GET", Path: "/incidents",
			Query: "limit=1&offset=0&service_ids%5B%5D=PIJ90N7&sort_by=created_at%3Adesc&statuses%5B%5D=triggered&statuses%5B%5D=acknowledged&urgencies%5B%5D=high", Header: pagerdutyHeaders,
			Status: 200, Respond: map[string]any{"incidents": []any{pdIncident}, "limit": 1, "offset": 0, "total": nil, "more": true},
			Want: `{"incidents":[{"id":"PT4KHLK","incident_number":1234,"title":"The server is on fire.","status":"resolved","urgency":"high",
			 "priority":{"summary":"P2"},"service":{"id":"PIJ90N7","summary":"My Mail Service"},"assignments":[{"assignee":{"summary":"Earline Greenholt"}}],
			 "created_at":"2015-10-06T21:30:42Z","last_status_change_at":"2015-10-06T21:38:23Z","html_url":"https://subdomain.pagerduty.com/incidents/PT4KHLK"}],
			 "offset":0,"limit":1,"more":true}`,
		},
		{
			Tool: "pagerduty_get_incident", Args: `{"incident_id":"PT4KHLK"}`,
			Method: "GET", Path: "/incidents/PT4KHLK", Header: pagerdutyHeaders,
			Status: 200, Respond: map[string]any{"incident": pdIncident},
			Want: `{"id":"PT4KHLK","incident_number":1234,"title":"The server is on fire.","description":"The server is on fire.","status":"resolved",
			 "urgency":"high","priority":{"summary":"P2"},"service":{"id":"PIJ90N7","summary":"My Mail Service"},
			 "escalation_policy":{"summary":"Another Escalation Policy"},"assignments":[{"assignee":{"id":"PXPGF42","summary":"Earline Greenholt"}}],
			 "acknowledgements":[{"acknowledger":{"summary":"Earline Greenholt"}}],"incident_key":"baf7cf21b1da41b4b0221008339ff357",
			 "created_at":"2015-10-06T21:30:42Z","last_status_change_at":"2015-10-06T21:38:23Z","resolved_at":"2015-10-06T21:38:23Z",
			 "html_url":"https://subdomain.pagerduty.com/incidents/PT4KHLK"}`,
		},
		{
			Tool: "pagerduty_create_incident", Args: `{"from_email":"jane@example.com","title":"The server is on fire.","service_id":"PWIXJZS","details":"A disk is getting full on this machine. You should investigate what is causing the disk to fill, and ensure that there is an automated process in place for ensuring data is rotated.","urgency":"high","incident_key":"baf7cf21b1da41b4b0221008339ff357"}`,
			Method: "POST", Path: "/incidents", Header: pagerdutyWriteHeaders,
			Body: `{"incident":{"type":"incident","title":"The server is on fire.","service":{"id":"PWIXJZS","type":"service_reference"},"urgency":"high",
			 "incident_key":"baf7cf21b1da41b4b0221008339ff357","body":{"type":"incident_body","details":"A disk is getting full on this machine. You should investigate what is causing the disk to fill, and ensure that there is an automated process in place for ensuring data is rotated."}}}`,
			Status: 201, Respond: map[string]any{"incident": func() map[string]any {
				in := map[string]any{}
				for k, v := range pdIncident {
					in[k] = v
				}
				in["status"], in["resolved_at"] = "triggered", nil
				return in
			}()},
			Want: `{"id":"PT4KHLK","incident_number":1234,"title":"The server is on fire.","status":"triggered","urgency":"high",
			 "service":{"summary":"My Mail Service"},"assignments":[{"assignee":{"summary":"Earline Greenholt"}}],"created_at":"2015-10-06T21:30:42Z",
			 "html_url":"https://subdomain.pagerduty.com/incidents/PT4KHLK"}`,
		},
		{
			Tool: "pagerduty_update_incident", Args: `{"from_email":"jane@example.com","incident_id":"PT4KHLK","status":"resolved","resolution":"Rebooted the server."}`,
			Method: "PUT", Path: "/incidents/PT4KHLK", Header: pagerdutyWriteHeaders,
			Body:   `{"incident":{"type":"incident_reference","status":"resolved","resolution":"Rebooted the server."}}`,
			Status: 200, Respond: map[string]any{"incident": pdIncident},
			Want: `{"id":"PT4KHLK","incident_number":1234,"title":"The server is on fire.","status":"resolved","urgency":"high",
			 "last_status_change_at":"2015-10-06T21:38:23Z","resolved_at":"2015-10-06T21:38:23Z","html_url":"https://subdomain.pagerduty.com/incidents/PT4KHLK"}`,
		},
		{
			Tool: "pagerduty_list_incident_notes", Args: `{"incident_id":"PT4KHLK"}`,
			Method: "GET", Path: "/incidents/PT4KHLK/notes", Header: pagerdutyHeaders,
			Status: 200, Respond: map[string]any{"notes": []any{map[string]any{"id": "PWL7QXS", "user": pdRef("PXPGF42", "user_reference", "Earline Greenholt"),
				"channel": map[string]any{"summary": "The PagerDuty website or APIs"}, "content": "Firefighters are on the scene.", "created_at": "2013-03-06T15:28:51-05:00"}}},
			Want: `[{"id":"PWL7QXS","content":"Firefighters are on the scene.","user":{"summary":"Earline Greenholt"},"created_at":"2013-03-06T15:28:51-05:00"}]`,
		},
		{
			Tool: "pagerduty_create_incident_note", Args: `{"from_email":"jane@example.com","incident_id":"PT4KHLK","content":"Firefighters are on the scene."}`,
			Method: "POST", Path: "/incidents/PT4KHLK/notes", Header: pagerdutyWriteHeaders,
			Body:   `{"note":{"content":"Firefighters are on the scene."}}`,
			Status: 201, Respond: map[string]any{"note": map[string]any{"id": "PWL7QXS", "user": pdRef("PXPGF42", "user_reference", "Earline Greenholt"),
				"content": "Firefighters are on the scene.", "created_at": "2013-03-06T15:28:51-05:00"}},
			Want: `{"id":"PWL7QXS","content":"Firefighters are on the scene.","user":{"summary":"Earline Greenholt"},"created_at":"2013-03-06T15:28:51-05:00"}`,
		},
		{
			Tool: "pagerduty_list_services", Args: `{"query":"mail"}`,
			Method: "GET", Path: "/services", Query: "limit=25&offset=0&query=mail&sort_by=name", Header: pagerdutyHeaders,
			Status: 200, Respond: map[string]any{"services": []any{map[string]any{"id": "PIJ90N7", "type": "service", "summary": "My Application Service",
				"name": "My Application Service", "description": "My cool service", "status": "active", "auto_resolve_timeout": 14400,
				"escalation_policy":       pdRef("PT20YPA", "escalation_policy_reference", "Another Escalation Policy"),
				"last_incident_timestamp": "2015-11-10T00:31:52Z", "html_url": "https://subdomain.pagerduty.com/service-directory/PIJ90N7",
				"teams": []any{}, "integrations": []any{}}}, "limit": 25, "offset": 0, "total": nil, "more": false},
			Want: `{"services":[{"id":"PIJ90N7","name":"My Application Service","description":"My cool service","status":"active",
			 "escalation_policy":{"id":"PT20YPA","summary":"Another Escalation Policy"},"last_incident_timestamp":"2015-11-10T00:31:52Z",
			 "html_url":"https://subdomain.pagerduty.com/service-directory/PIJ90N7"}],"offset":0,"limit":25,"more":false}`,
		},
		{
			Tool: "pagerduty_list_oncalls", Args: `{"schedule_ids":["PI7DH85","PQ2ZR8L"],"earliest":true}`,
			Method: "GET", Path: "/oncalls", Query: "earliest=true&limit=25&offset=0&schedule_ids%5B%5D=PI7DH85&schedule_ids%5B%5D=PQ2ZR8L", Header: pagerdutyHeaders,
			Status: 200, Respond: map[string]any{"oncalls": []any{map[string]any{
				"user":              pdRef("PT23IWX", "user_reference", "Tim Wright"),
				"schedule":          pdRef("PI7DH85", "schedule_reference", "Daily Engineering Rotation"),
				"escalation_policy": pdRef("PT20YPA", "escalation_policy_reference", "Engineering Escalation Policy"),
				"escalation_level":  2, "start": "2015-03-06T15:28:51-05:00", "end": "2015-03-07T15:28:51-05:00"}},
				"limit": 25, "offset": 0, "more": false, "total": nil},
			Want: `{"oncalls":[{"user":{"id":"PT23IWX","summary":"Tim Wright"},"schedule":{"id":"PI7DH85","summary":"Daily Engineering Rotation"},
			 "escalation_policy":{"id":"PT20YPA","summary":"Engineering Escalation Policy"},"escalation_level":2,
			 "start":"2015-03-06T15:28:51-05:00","end":"2015-03-07T15:28:51-05:00"}],"offset":0,"limit":25,"more":false}`,
		},
		{
			Tool: "pagerduty_list_schedules", Args: `{"query":"engineering"}`,
			Method: "GET", Path: "/schedules", Query: "limit=25&offset=0&query=engineering", Header: pagerdutyHeaders,
			Status: 200, Respond: map[string]any{"schedules": []any{map[string]any{"id": "PI7DH85", "type": "schedule", "summary": "Daily Engineering Rotation",
				"name": "Daily Engineering Rotation", "time_zone": "America/New_York", "description": "Rotation schedule for engineering",
				"html_url": "https://subdomain.pagerduty.com/schedules/PI7DH85", "users": []any{}, "escalation_policies": []any{}}},
				"limit": 25, "offset": 0, "more": false, "total": nil},
			Want: `{"schedules":[{"id":"PI7DH85","name":"Daily Engineering Rotation","summary":"Daily Engineering Rotation","time_zone":"America/New_York",
			 "description":"Rotation schedule for engineering","html_url":"https://subdomain.pagerduty.com/schedules/PI7DH85"}],"offset":0,"limit":25,"more":false}`,
		},
		{
			Tool: "pagerduty_get_schedule", Args: `{"schedule_id":"PI7DH85","since":"2015-11-09T00:00:00Z","until":"2015-11-11T00:00:00Z","time_zone":"UTC"}`,
			Method: "GET", Path: "/schedules/PI7DH85", Query: "since=2015-11-09T00%3A00%3A00Z&time_zone=UTC&until=2015-11-11T00%3A00%3A00Z", Header: pagerdutyHeaders,
			Status: 200, Respond: map[string]any{"schedule": map[string]any{"id": "PI7DH85", "type": "schedule", "name": "Daily Engineering Rotation",
				"time_zone": "UTC", "description": "Rotation schedule for engineering", "html_url": "https://subdomain.pagerduty.com/schedules/PI7DH85",
				"schedule_layers": []any{map[string]any{"name": "Layer 1"}},
				"final_schedule": map[string]any{"name": "Final Schedule", "rendered_coverage_percentage": 100, "rendered_schedule_entries": []any{
					map[string]any{"start": "2015-11-09T08:00:00Z", "end": "2015-11-10T08:00:00Z", "user": pdRef("PXPGF42", "user_reference", "Earline Greenholt")}}}}},
			Want: `{"id":"PI7DH85","name":"Daily Engineering Rotation","time_zone":"UTC","description":"Rotation schedule for engineering",
			 "html_url":"https://subdomain.pagerduty.com/schedules/PI7DH85","final_schedule":{"rendered_schedule_entries":[
			   {"start":"2015-11-09T08:00:00Z","end":"2015-11-10T08:00:00Z","user":{"id":"PXPGF42","summary":"Earline Greenholt"}}]}}`,
		},
		{
			Tool: "pagerduty_list_users", Args: `{"query":"earline","limit":10,"offset":10}`,
			Method: "GET", Path: "/users", Query: "limit=10&offset=10&query=earline", Header: pagerdutyHeaders,
			Status: 200, Respond: map[string]any{"users": []any{map[string]any{"id": "PXPGF42", "type": "user", "summary": "Earline Greenholt",
				"name": "Earline Greenholt", "email": "125.greenholt.earline@graham.name", "time_zone": "America/Lima", "color": "green",
				"role": "admin", "html_url": "https://subdomain.pagerduty.com/users/PXPGF42", "contact_methods": []any{}}},
				"limit": 10, "offset": 10, "more": false, "total": nil},
			Want: `{"users":[{"id":"PXPGF42","name":"Earline Greenholt","email":"125.greenholt.earline@graham.name","role":"admin",
			 "time_zone":"America/Lima","html_url":"https://subdomain.pagerduty.com/users/PXPGF42"}],"offset":10,"limit":10,"more":false}`,
		},
	}
}
