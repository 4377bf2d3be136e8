package datadog_test

import (
	"testing"

	"github.com/workbench/workbench/plugins/datadog"
	"github.com/workbench/workbench/plugins/plugintest"
)

// Contract cases for the datadog plugin, against the Datadog API as documented at
// docs.datadoghq.com/api/latest (monitors v1, events v2, metrics query v1, logs search v2, dashboards
// v1, incidents v2, hosts v1). Responses are the documented examples, trimmed.
//
// Datadog authenticates every call but key validation with two headers, DD-API-KEY and
// DD-APPLICATION-KEY: the manifest injects the first with auth.apikey.inject and the second with
// auth.apikey.extra_inject, and every case checks both.

const (
	datadogAPIKey = "9775a026f1ca7d1c6c5af9d94d9595a4"
	datadogAppKey = "dd0fd9d0a2a4e3cc7b0c3e2aa2f5e1f1cbd3ff0e"
)

var datadogHeaders = map[string]string{"DD-API-KEY": datadogAPIKey, "DD-APPLICATION-KEY": datadogAppKey, "Accept": "application/json"}

var ddMonitor = map[string]any{
	"id": 666, "name": "Bytes received on host0", "type": "metric alert", "query": "avg(last_1h):sum:system.net.bytes_rcvd{host:host0} > 100",
	"message": "We may need to add web hosts if this is consistently high. @ops@example.com", "overall_state": "OK", "priority": 2,
	"tags": []any{"env:prod"}, "created": "2015-12-18T18:09:44.111Z", "modified": "2015-12-18T18:09:44.111Z", "multi": false,
	"creator": map[string]any{"email": "ops@example.com", "handle": "ops@example.com", "name": "Ops"},
	"options": map[string]any{"notify_no_data": false, "silenced": map[string]any{}, "thresholds": map[string]any{"critical": 100}},
	"state":   map[string]any{"groups": map[string]any{"host:host0": map[string]any{"name": "host:host0", "status": "OK", "last_triggered_ts": 1481052226}}},
}

// creds are what the fake expects of the datadog connection.
var creds = plugintest.Credentials{APIKeys: map[string]string{"api_key": datadogAPIKey, "application_key": datadogAppKey}}

// TestContracts calls every datadog tool against a fake that checks the request as the provider documents it.
func TestContracts(t *testing.T) {
	plugintest.Contracts(t, datadog.Plugin(), creds, contracts())
}

// contracts are the datadog tools' contract cases.
func contracts() []plugintest.Case {
	return []plugintest.Case{
		{
			Tool: "datadog_list_monitors", Args: `{"name":"bytes","monitor_tags":["service:web","team:ops"]}`,
			Method: "GET", Path: "/api/v1/monitor", Query: "monitor_tags=service%3Aweb%2Cteam%3Aops&name=bytes&page=0&page_size=100", Header: datadogHeaders,
			Status: 200, Respond: []any{ddMonitor},
			Want: `[{"id":666,"name":"Bytes received on host0","type":"metric alert","query":"avg(last_1h):sum:system.net.bytes_rcvd{host:host0} > 100",
			 "overall_state":"OK","tags":["env:prod"],"priority":2,"options":{"silenced":{}},"modified":"2015-12-18T18:09:44.111Z",
			 "creator":{"email":"ops@example.com"}}]`,
		},
		{
			Tool: "datadog_get_monitor", Args: `{"monitor_id":666}`,
			Method: "GET", Path: "/api/v1/monitor/666", Query: "group_states=all", Header: datadogHeaders,
			Status: 200, Respond: ddMonitor,
			Want: `{"id":666,"name":"Bytes received on host0","type":"metric alert","query":"avg(last_1h):sum:system.net.bytes_rcvd{host:host0} > 100",
			 "message":"We may need to add web hosts if this is consistently high. @ops@example.com","overall_state":"OK",
			 "state":{"groups":{"host:host0":{"name":"host:host0","status":"OK","last_triggered_ts":1481052226}}},
			 "options":{"thresholds":{"critical":100},"silenced":{}},"tags":["env:prod"],"priority":2,"created":"2015-12-18T18:09:44.111Z",
			 "modified":"2015-12-18T18:09:44.111Z","creator":{"email":"ops@example.com"}}`,
		},
		{
			Tool: "datadog_mute_monitor", Args: `{"monitor_id":666,"scope":"host:host0","end":1700000000}`,
			Method: "POST", Path: "/api/v1/monitor/666/mute", Query: "end=1700000000&scope=host%3Ahost0", Header: datadogHeaders,
			Status: 200, Respond: func() map[string]any {
				m := map[string]any{}
				for k, v := range ddMonitor {
					m[k] = v
				}
				m["options"] = map[string]any{"silenced": map[string]any{"host:host0": 1700000000}}
				return m
			}(),
			Want: `{"id":666,"name":"Bytes received on host0","overall_state":"OK","options":{"silenced":{"host:host0":1700000000}}}`,
		},
		{
			Tool: "datadog_unmute_monitor", Args: `{"monitor_id":666,"all_scopes":true}`,
			Method: "POST", Path: "/api/v1/monitor/666/unmute", Query: "all_scopes=true", Header: datadogHeaders,
			Status: 200, Respond: ddMonitor,
			Want: `{"id":666,"name":"Bytes received on host0","overall_state":"OK","options":{"silenced":{}}}`,
		},
		{
			Tool: "datadog_list_events", Args: `{"query":"source:kubernetes","from":"now-1h"}`,
			Method: "GET", Path: "/api/v2/events",
			Query: "filter%5Bfrom%5D=now-1h&filter%5Bquery%5D=source%3Akubernetes&filter%5Bto%5D=now&page%5Blimit%5D=50&sort=-timestamp", Header: datadogHeaders,
			Status: 200, Respond: map[string]any{
				"data": []any{map[string]any{"id": "AAAAAWgN8Xwgr1vKDQAAAABBV2dOOFh3ZzZobm9mLXBqdnlZOUhRQUE", "type": "event", "attributes": map[string]any{
					"timestamp": "2019-01-02T09:42:36.320Z", "message": "Pod restarted", "tags": []any{"source:kubernetes", "env:prod"},
					"attributes": map[string]any{"title": "Pod web-1 restarted", "status": "warning", "priority": "normal", "service": "web", "evt": map[string]any{"id": "6509751066204996294"}}}}},
				"meta":  map[string]any{"page": map[string]any{"after": "eyJzdGFydEF0IjoiQVFBQUFYS2tMS3pPbm40NGV3QUFBQUJCV0V0clRFdDZVbG8zY3pCRmNsbHJiVmxDWlEifQ=="}, "elapsed": 132, "status": "done"},
				"links": map[string]any{"next": "https://app.datadoghq.com/api/v2/events?filter[query]=source:kubernetes&page[cursor]=eyJzdGFydEF0IjoiQVFBQUFYS2tMS3pPbm40NGV3QUFBQUJCV0V0clRFdDZVbG8zY3pCRmNsbHJiVmxDWlEifQ=="}},
			Want: `{"items":[{"id":"AAAAAWgN8Xwgr1vKDQAAAABBV2dOOFh3ZzZobm9mLXBqdnlZOUhRQUE","attributes":{"timestamp":"2019-01-02T09:42:36.320Z",
			 "message":"Pod restarted","tags":["source:kubernetes","env:prod"],"attributes":{"title":"Pod web-1 restarted","status":"warning",
			 "priority":"normal","service":"web"}}}],"next_cursor":"eyJzdGFydEF0IjoiQVFBQUFYS2tMS3pPbm40NGV3QUFBQUJCV0V0clRFdDZVbG8zY3pCRmNsbHJiVmxDWlEifQ=="}`,
		},
		{
			Tool: "datadog_query_metrics", Args: `{"query":"avg:system.cpu.user{env:prod}by{host}","from":1636542671,"to":1636629071}`,
			Method: "GET", Path: "/api/v1/query", Query: "from=1636542671&query=avg%3Asystem.cpu.user%7Benv%3Aprod%7Dby%7Bhost%7D&to=1636629071", Header: datadogHeaders,
			Status: 200, Respond: map[string]any{"status": "ok", "res_type": "time_series", "error": nil, "query": "avg:system.cpu.user{env:prod}by{host}",
				"from_date": 1636542671000, "to_date": 1636629071000, "group_by": []any{"host"}, "message": "",
				"series": []any{map[string]any{"metric": "system.cpu.user", "display_name": "system.cpu.user", "scope": "env:prod,host:web-1",
					"expression": "avg:system.cpu.user{env:prod,host:web-1}", "unit": []any{map[string]any{"family": "percentage", "name": "percent", "short_name": "%"}, nil},
					"interval": 300, "length": 2, "start": 1636542600000, "end": 1636628999000, "aggr": "avg", "tag_set": []any{"host:web-1"},
					"pointlist": []any{[]any{1636542600000, 12.5}, []any{1636542900000, 14.25}}}}},
			Want: `{"status":"ok","error":null,"query":"avg:system.cpu.user{env:prod}by{host}","from_date":1636542671000,"to_date":1636629071000,
			 "series":[{"metric":"system.cpu.user","display_name":"system.cpu.user","scope":"env:prod,host:web-1","expression":"avg:system.cpu.user{env:prod,host:web-1}",
			   "unit":[{"family":"percentage","name":"percent","short_name":"%"},null],"interval":300,"pointlist":[[1636542600000,12.5],[1636542900000,14.25]]}]}`,
		},
		{
			Tool: "datadog_search_logs", Args: `{"query":"service:web status:error","indexes":["main"],"limit":2}`,
			Method: "POST", Path: "/api/v2/logs/events/search", Header: map[string]string{"DD-API-KEY": datadogAPIKey, "DD-APPLICATION-KEY": datadogAppKey, "Content-Type": "application/json"},
			Body:   `{"filter":{"query":"service:web status:error","from":"now-15m","to":"now","indexes":["main"]},"sort":"-timestamp","page":{"limit":2}}`,
			Status: 200, Respond: map[string]any{
				"data": []any{map[string]any{"id": "AAAAAXGLdD0AAABPV-5whqgB", "type": "log", "attributes": map[string]any{
					"timestamp": "2019-01-02T09:42:36.320Z", "status": "error", "service": "web", "host": "i-0123", "message": "GET /api/cart 500",
					"tags": []any{"env:prod"}, "attributes": map[string]any{"http": map[string]any{"status_code": 500}}}}},
				"meta":  map[string]any{"page": map[string]any{"after": "eyJhZnRlciI6IkFRQUFBWE..."}, "elapsed": 132, "request_id": "MWlFUjVaWGZTTTZPYzM0VXp1OXU2d3xLSVpEMjZKQ0VKUTI0dEYtM3RSOFVR", "status": "done"},
				"links": map[string]any{"next": "https://app.datadoghq.com/api/v2/logs/event?filter[query]=service:web&page[cursor]=eyJhZnRlciI6IkFRQUFBWE..."}},
			Want: `{"items":[{"id":"AAAAAXGLdD0AAABPV-5whqgB","attributes":{"timestamp":"2019-01-02T09:42:36.320Z","status":"error","service":"web",
			 "host":"i-0123","message":"GET /api/cart 500","tags":["env:prod"]}}],"next_cursor":"eyJhZnRlciI6IkFRQUFBWE..."}`,
		},
		{
			Tool: "datadog_list_dashboards", Args: `{"filter_shared":false}`,
			Method: "GET", Path: "/api/v1/dashboard", Query: "count=100&filter%5Bshared%5D=false&start=0", Header: datadogHeaders,
			Status: 200, Respond: map[string]any{"dashboards": []any{map[string]any{"id": "q5j-nti-fv6", "title": "My Dashboard", "description": nil,
				"layout_type": "ordered", "url": "/dashboard/q5j-nti-fv6/my-dashboard", "author_handle": "test@datadoghq.com", "is_read_only": false,
				"created_at": "2019-09-19T10:00:00.000Z", "modified_at": "2019-09-19T10:00:00.000Z"}}},
			Want: `[{"id":"q5j-nti-fv6","title":"My Dashboard","description":null,"url":"/dashboard/q5j-nti-fv6/my-dashboard","layout_type":"ordered",
			 "author_handle":"test@datadoghq.com","created_at":"2019-09-19T10:00:00.000Z","modified_at":"2019-09-19T10:00:00.000Z"}]`,
		},
		{
			Tool: "datadog_get_dashboard", Args: `{"dashboard_id":"q5j-nti-fv6"}`,
			Method: "GET", Path: "/api/v1/dashboard/q5j-nti-fv6", Header: datadogHeaders,
			Status: 200, Respond: map[string]any{"id": "q5j-nti-fv6", "title": "My Dashboard", "description": "Web tier", "layout_type": "ordered",
				"url": "/dashboard/q5j-nti-fv6/my-dashboard", "author_handle": "test@datadoghq.com", "modified_at": "2019-09-19T10:00:00.000Z",
				"template_variables": []any{map[string]any{"name": "env", "prefix": "env", "default": "prod"}}, "notify_list": []any{},
				"widgets": []any{map[string]any{"id": 2471463, "definition": map[string]any{"type": "timeseries", "title": "CPU",
					"requests": []any{map[string]any{"q": "avg:system.cpu.user{$env}"}}}}}},
			Want: `{"id":"q5j-nti-fv6","title":"My Dashboard","description":"Web tier","url":"/dashboard/q5j-nti-fv6/my-dashboard","layout_type":"ordered",
			 "template_variables":[{"name":"env","prefix":"env","default":"prod"}],
			 "widgets":[{"id":2471463,"definition":{"type":"timeseries","title":"CPU","requests":[{"q":"avg:system.cpu.user{$env}"}]}}],
			 "author_handle":"test@datadoghq.com","modified_at":"2019-09-19T10:00:00.000Z"}`,
		},
		{
			Tool: "datadog_list_incidents", Args: `{"page_size":1}`,
			Method: "GET", Path: "/api/v2/incidents", Query: "page%5Boffset%5D=0&page%5Bsize%5D=1", Header: datadogHeaders,
			Status: 200, Respond: map[string]any{"data": []any{map[string]any{"id": "00000000-aaaa-0000-0000-000000000000", "type": "incidents",
				"attributes": map[string]any{"public_id": 1, "title": "Example Incident", "severity": "SEV-1", "state": "active",
					"customer_impacted": false, "created": "2020-04-21T15:34:08.627205+00:00", "modified": "2020-09-17T14:16:58.696424+00:00",
					"resolved": nil, "time_to_detect": 0, "detected": "2020-04-14T00:00:00+00:00"},
				"relationships": map[string]any{"commander_user": map[string]any{"data": nil}}}},
				"meta": map[string]any{"pagination": map[string]any{"next_offset": 1, "offset": 0, "size": 1}}},
			Want: `{"items":[{"id":"00000000-aaaa-0000-0000-000000000000","attributes":{"public_id":1,"title":"Example Incident","severity":"SEV-1",
			 "state":"active","customer_impacted":false,"created":"2020-04-21T15:34:08.627205+00:00","modified":"2020-09-17T14:16:58.696424+00:00",
			 "resolved":null}}],"next_cursor":1}`,
		},
		{
			Tool: "datadog_list_hosts", Args: `{"filter":"env:prod","sort_field":"cpu","sort_dir":"desc"}`,
			Method: "GET", Path: "/api/v1/hosts", Query: "count=100&filter=env%3Aprod&sort_dir=desc&sort_field=cpu&start=0", Header: datadogHeaders,
			Status: 200, Respond: map[string]any{"host_list": []any{map[string]any{"name": "i-deadbeef", "id": 123456, "host_name": "i-deadbeef",
				"aliases": []any{"mycoolhost-1"}, "apps": []any{"agent"}, "up": true, "is_muted": false, "last_reported_time": 1565000000,
				"sources": []any{"aws", "agent"}, "tags_by_source": map[string]any{"Datadog": []any{"host:i-deadbeef"}, "Amazon Web Services": []any{"account:staging"}},
				"meta": map[string]any{"platform": "linux"}, "metrics": map[string]any{"cpu": 99, "iowait": 3.2, "load": 0.5}}},
				"total_matching": 1, "total_returned": 1},
			Want: `{"host_list":[{"name":"i-deadbeef","id":123456,"aliases":["mycoolhost-1"],"apps":["agent"],"up":true,"is_muted":false,
			 "last_reported_time":1565000000,"tags_by_source":{"Datadog":["host:i-deadbeef"],"Amazon Web Services":["account:staging"]}}],
			 "total_matching":1,"total_returned":1}`,
		},
	}
}
