package metatools

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDecodeExecutionsAgreesWithTheSchema runs execute_tools' documents through decodeExecutions and
// through the schema validator the generic path uses: both accept the same documents (but those that
// repeat a member name, which decodeExecutions leaves to the validator), and accepted ones give the
// same calls, args byte for byte (the digests of the audit records depend on them).
func TestDecodeExecutionsAgreesWithTheSchema(t *testing.T) {
	e := newEnv(t, nil)
	v := e.set.validators["execute_tools"]
	long := strings.Repeat("é", maxToolNameLen)
	docs := map[string]string{
		"one":                `{"executions":[{"tool":"utils_echo","args":{"message":"hi"}}]}`,
		"no args":            `{"executions":[{"tool":"utils_uuid"}]}`,
		"empty args":         `{"executions":[{"tool":"utils_uuid","args":{}}]}`,
		"args first":         `{"executions":[{"args":{"b":[1,2.50,-0,1e3],"a":{"z":null,"y":true}},"tool":"x"}]}`,
		"white space":        " {\n \"executions\" : [ { \"tool\" : \"x\" , \"args\" : { } } ] } \n",
		"escapes":            `{"executions":[{"tool":"x","args":{"s":"<&>\u2028\u2029\ud800\/é"}}]}`,
		"escaped tool name":  `{"executions":[{"tool":"\u0078","args":{}}]}`,
		"many":               `{"executions":[` + strings.TrimSuffix(strings.Repeat(`{"tool":"a"},`, maxExecutions), ",") + `]}`,
		"too many":           `{"executions":[` + strings.TrimSuffix(strings.Repeat(`{"tool":"a"},`, maxExecutions+1), ",") + `]}`,
		"longest name":       `{"executions":[{"tool":"` + long + `"}]}`,
		"name too long":      `{"executions":[{"tool":"` + long + `e"}]}`,
		"empty name":         `{"executions":[{"tool":""}]}`,
		"no tool":            `{"executions":[{"args":{}}]}`,
		"tool not a string":  `{"executions":[{"tool":7}]}`,
		"args not an object": `{"executions":[{"tool":"x","args":[]}]}`,
		"args null":          `{"executions":[{"tool":"x","args":null}]}`,
		"args a string":      `{"executions":[{"tool":"x","args":"{}"}]}`,
		"extra member":       `{"executions":[{"tool":"x","arg":{}}]}`,
		"case-folded member": `{"executions":[{"Tool":"x"}]}`,
		"case-folded list":   `{"Executions":[{"tool":"x"}]}`,
		"extra top member":   `{"executions":[{"tool":"x"}],"more":1}`,
		"empty list":         `{"executions":[]}`,
		"list not an array":  `{"executions":{"tool":"x"}}`,
		"item not an object": `{"executions":["x"]}`,
		"no executions":      `{}`,
		"null":               `null`,
		"array":              `[{"tool":"x"}]`,
		"trailing data":      `{"executions":[{"tool":"x"}]} {}`,
		"not JSON":           `{"executions":[{"tool":"x"}`,
		"duplicate tool":     `{"executions":[{"tool":"x","tool":"y"}]}`,
		"duplicate in args":  `{"executions":[{"tool":"x","args":{"a":{"b":1,"b":2}}}]}`,
		"duplicate top":      `{"executions":[{"tool":"x"}],"executions":[{"tool":"y"}]}`,
	}
	// A document that repeats a member name is left to the validator (which keeps the last).
	declined := map[string]bool{"duplicate tool": true, "duplicate in args": true, "duplicate top": true}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			got, ok := decodeExecutions([]byte(doc))
			validated, err := v.Validate([]byte(doc))
			if declined[name] {
				if ok || err != nil {
					t.Fatalf("decodeExecutions ok=%v, the validator says %v; want it declined and accepted", ok, err)
				}
				return
			}
			if ok != (err == nil) {
				t.Fatalf("decodeExecutions ok=%v, the validator says %v", ok, err)
			}
			if !ok {
				return
			}
			want, err := callsOf(validated)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b []byte) bool { return bytes.Equal(a, b) })); diff != "" {
				t.Errorf("calls (-validator +decodeExecutions):\n%s", diff)
			}
		})
	}
}

// FuzzDecodeExecutions checks decodeExecutions against the schema validator on any document: what it
// takes, the validator takes too, with the same calls, args byte for byte.
func FuzzDecodeExecutions(f *testing.F) {
	for _, tc := range argsDigests {
		args := tc.args
		if args == "" {
			args = "{}"
		}
		f.Add(`{"executions":[{"tool":"x","args":` + args + `}]}`)
	}
	f.Add(`{"executions":[{"tool":"a"},{"args":{"z":[{"b":1,"a":"<\u2028>"}]},"tool":"b"}]}`)
	e := newEnv(f, nil)
	v := e.set.validators["execute_tools"]
	f.Fuzz(func(t *testing.T, doc string) {
		got, ok := decodeExecutions([]byte(doc))
		validated, err := v.Validate([]byte(doc))
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("decodeExecutions took %q, the validator refuses it: %v", doc, err)
		}
		want, err := callsOf(validated)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q: calls (-validator +decodeExecutions):\n%s", doc, diff)
		}
	})
}
