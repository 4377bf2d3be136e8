package plugins

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// formatTools exercise explode, response.default and the dropping of all-absent body objects.
const formatTools = `[
 {"name":"local_list","description":"d","input_schema":{"type":"object","properties":{
   "status":{"type":"array","items":{"type":"string"}},"tag":{"type":"array","items":{"type":"string"}},"q":{"type":"string"}}},
  "http":{"method":"GET","path":"/list","query":{"statuses[]":{"$arg":"status","explode":true},"tags":{"$arg":"tag"},"q":{"$arg":"q"}},
   "response":{"pointer":"/messages","default":[],"fields":["id"],"cursor":{"from":"body","pointer":"/next"}}}},
 {"name":"local_strict","description":"d","input_schema":{"type":"object"},
  "http":{"method":"GET","path":"/strict","response":{"pointer":"/messages"}}},
 {"name":"local_post","description":"d","input_schema":{"type":"object","properties":{"team":{"type":"string"},"state":{"type":"string"},"title":{"type":"string"}}},
  "http":{"method":"POST","path":"/post","body":{"title":{"$arg":"title"},"filter":{"team":{"id":{"$arg":"team"}},"state":{"$arg":"state"}},"options":{}}}}
]`

func TestTemplateFormat(t *testing.T) {
	var gotQuery string
	var gotBody []byte
	var respond string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotQuery = r.URL.RawQuery
		gotBody = make([]byte, r.ContentLength)
		_, _ = r.Body.Read(gotBody)
		_, _ = w.Write([]byte(respond))
	}))
	defer srv.Close()
	r := localPlugin(t, srv.URL, `,"auth":{"mode":"none"}`, formatTools, Options{})
	tests := []struct {
		name, tool, args, respond string
		query, body, want         string
		wantErr                   string
	}{
		{name: "explode repeats the parameter, a plain array is comma-joined", tool: "local_list",
			args: `{"status":["triggered","acknowledged"],"tag":["a","b"]}`, respond: `{"messages":[{"id":"1","x":2}]}`,
			query: "statuses%5B%5D=triggered&statuses%5B%5D=acknowledged&tags=a%2Cb", want: `{"items":[{"id":"1"}]}`},
		{name: "an empty exploded array sends nothing", tool: "local_list", args: `{"status":[]}`, respond: `{"messages":[]}`,
			query: "", want: `{"items":[]}`},
		{name: "default when the pointer finds nothing", tool: "local_list", args: `{"q":"none"}`, respond: `{"resultSizeEstimate":0}`,
			query: "q=none", want: `{"items":[]}`},
		{name: "no default: a missing pointer fails", tool: "local_strict", args: `{}`, respond: `{"resultSizeEstimate":0}`,
			wantErr: "unavailable: local_strict: the response from Local API has no value at /messages"},
		{name: "an object of absent arguments is dropped, a literal {} stays", tool: "local_post", args: `{"title":"t"}`, respond: `{}`,
			body: `{"title":"t","options":{}}`, want: `{}`},
		{name: "nested objects keep what is present", tool: "local_post", args: `{"team":"T1"}`, respond: `{}`,
			body: `{"filter":{"team":{"id":"T1"}},"options":{}}`, want: `{}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			respond, gotQuery, gotBody = tc.respond, "", nil
			out, err := call(t, r, tc.tool, tc.args, ContextOptions{})
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("got %v, want %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if gotQuery != tc.query {
				t.Errorf("query %q, want %q", gotQuery, tc.query)
			}
			if tc.body != "" {
				if diff := cmp.Diff(mustJSON(t, []byte(tc.body)), mustJSON(t, gotBody)); diff != "" {
					t.Errorf("body (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(mustJSON(t, []byte(tc.want)), mustJSON(t, out)); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValueDecoding(t *testing.T) {
	tests := []struct {
		in      string
		want    Value
		wantErr bool
	}{
		{in: `"literal"`, want: Value{Literal: "literal"}},
		{in: `{"$arg":"x"}`, want: Value{Arg: "x"}},
		{in: `{"$arg":"x","explode":true}`, want: Value{Arg: "x", Explode: true}},
		{in: `{"$arg":"x","explode":"yes"}`, wantErr: true},
		{in: `{"$arg":"x","join":","}`, wantErr: true},
		{in: `{"explode":true}`, wantErr: true},
		{in: `3`, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			var v Value
			err := v.UnmarshalJSON([]byte(tc.in))
			if (err != nil) != tc.wantErr || (!tc.wantErr && v != tc.want) {
				t.Fatalf("got %+v, %v", v, err)
			}
			if !tc.wantErr {
				b, _ := v.MarshalJSON()
				var back Value
				if back.UnmarshalJSON(b) != nil || back != v {
					t.Fatalf("round trip %s gave %+v", b, back)
				}
			}
		})
	}
}
