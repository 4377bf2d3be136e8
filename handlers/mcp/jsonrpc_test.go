package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestDecodeBody pins what the strict decoder extracts and refuses, below the HTTP layer.
func TestDecodeBody(t *testing.T) {
	cases := []struct {
		name, body string
		batch      bool
		n          int
		invalid    []string // per message; "" valid, else a fragment of Invalid
		parseErr   bool
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, false, 1, []string{""}, false},
		{"whitespace everywhere", " {\n\"jsonrpc\" : \"2.0\" ,\t\"id\" : \"x\" , \"method\" : \"ping\" , \"params\" : { } }\n", false, 1, []string{""}, false},
		{"case variant", `{"jsonrpc":"2.0","id":1,"Method":"ping"}`, false, 1, []string{`"Method"`}, false},
		{"duplicate", `{"jsonrpc":"2.0","id":1,"id":1,"method":"ping"}`, false, 1, []string{`duplicate member "id"`}, false},
		{"escaped duplicate", `{"jsonrpc":"2.0","id":1,"\u0069d":2,"method":"ping"}`, false, 1, []string{`duplicate member "id"`}, false},
		{"nested duplicate", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":{"b":[{"c":1,"c":2}]}}}`, false, 1, []string{`duplicate member "c"`}, false},
		{"same name at two depths is fine", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"id":1,"method":{"id":2}}}`, false, 1, []string{""}, false},
		{"many members", `{"jsonrpc":"2.0","id":1,"method":"x","params":{` + manyMembers(40, -1) + `}}`, false, 1, []string{""}, false},
		{"many members, one repeated", `{"jsonrpc":"2.0","id":1,"method":"x","params":{` + manyMembers(40, 33) + `}}`, false, 1, []string{`duplicate member "k3"`}, false},
		{"scalar", `"ping"`, false, 1, []string{"must be an object"}, false},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"},7]`, true, 3, []string{"", "", "must be an object"}, false},
		{"empty batch", `[]`, true, 0, nil, false},
		{"long name is cut in the message", `{"` + strings.Repeat("k", 500) + `":1,"` + strings.Repeat("k", 500) + `":2}`, false, 1, []string{`duplicate member "` + strings.Repeat("k", 64) + `"…`}, false},
		{"nested array element", `[[{"a":1,"a":2}]]`, true, 1, []string{`duplicate member "a"`}, false},
		{"trailing garbage", `{"jsonrpc":"2.0","id":1,"method":"ping"}x`, false, 0, nil, true},
		{"unclosed batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}`, true, 0, nil, true},
		{"empty body", ``, false, 0, nil, true},
		{"not UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"\x8c\":1,\"\x82\":2}}", false, 0, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msgs, batch, err := decodeBody([]byte(tc.body))
			if tc.parseErr {
				if err == nil {
					t.Fatalf("want a parse error, got %+v", msgs)
				}
				return
			}
			if err != nil || batch != tc.batch || len(msgs) != tc.n {
				t.Fatalf("err %v batch %v n %d", err, batch, len(msgs))
			}
			for i, want := range tc.invalid {
				if got := msgs[i].Invalid; (want == "") != (got == "") || !strings.Contains(got, want) {
					t.Fatalf("message %d: Invalid %q, want %q", i, got, want)
				}
			}
		})
	}
	msgs, _, _ := decodeBody([]byte(`{"params" : {"name":"echo","arguments":{"x":[1,2]}} ,"id": "a b","method":"tools/call","jsonrpc":"2.0"}`))
	m := msgs[0]
	if string(m.Params) != `{"name":"echo","arguments":{"x":[1,2]}}` || string(m.ID) != `"a b"` || m.Method != "tools/call" || string(m.JSONRPC) != `"2.0"` {
		t.Fatalf("extracted %+v", m)
	}
}

func manyMembers(n, repeat int) string {
	parts := make([]string, n)
	for i := range parts {
		k := i
		if i == repeat {
			k = 3
		}
		parts[i] = fmt.Sprintf(`"k%d":%d`, k, i)
	}
	return strings.Join(parts, ",")
}

// BenchmarkDecode compares the strict one-pass decode with the plain struct decode it replaced.
func BenchmarkDecode(b *testing.B) {
	small := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"execute_tools","arguments":{"executions":[{"tool":"github_list_repos","args":{"owner":"octocat","per_page":30}}]}}}`)
	var ex []string
	for i := range 50 {
		ex = append(ex, fmt.Sprintf(`{"tool":"utils_echo","args":{"message":%q}}`, strings.Repeat("x", 200)+fmt.Sprint(i)))
	}
	large := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"execute_tools","arguments":{"executions":[` + strings.Join(ex, ",") + `]}}}`)
	type plain struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id,omitempty"`
		Method  string          `json:"method,omitempty"`
		Params  json.RawMessage `json:"params,omitempty"`
		Result  json.RawMessage `json:"result,omitempty"`
		Error   json.RawMessage `json:"error,omitempty"`
	}
	for _, body := range []struct {
		name string
		b    []byte
	}{{"small", small}, {"large", large}} {
		b.Run(body.name+"/strict", func(b *testing.B) {
			b.SetBytes(int64(len(body.b)))
			for b.Loop() {
				if _, _, err := decodeBody(body.b); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(body.name+"/unmarshal", func(b *testing.B) {
			b.SetBytes(int64(len(body.b)))
			for b.Loop() {
				var p plain
				if err := json.Unmarshal(body.b, &p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// validID's shortcut for plain integers answers what decoding the id as a json.Number would.
func TestValidIDShortcut(t *testing.T) {
	for _, id := range []string{"0", "7", "42", "00", "01", "-1", "1.5", "1e3", "12a", "9999999999999999999999", "-", "0x1"} {
		var n json.Number
		if got, want := validID(json.RawMessage(id)), json.Unmarshal([]byte(id), &n) == nil; got != want {
			t.Errorf("validID(%s) = %v, decoding says %v", id, got, want)
		}
	}
}
