package metatools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/eventstore"
)

// argsDigests are argument documents of one execution and the args_sha256 their ToolExecuted
// record carries. The digest is taken over the arguments re-encoded canonically (members sorted by
// name, no insignificant white space, numbers as written, strings in encoding/json's escaping), so the
// same arguments give the same digest however the client spelled them. The values were recorded
// before execute_tools was given its own decoder; they must never change, or records written before
// and after a release could not be compared.
var argsDigests = []struct {
	name, args string
	sha256     string
}{
	{"absent", ``, "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"},
	{"empty object", `{}`, "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"},
	{"message", `{"message":"hi"}`, "adbd982b8fe0bbd8477f09262028d3ac264001dc36e3c7579905e72c0b718755"},
	{"members in order", `{"a":2,"b":1}`, "d3626ac30a87e6f7a6428233b3c68299976865fa5508e4267c5415c76af7a772"},
	{"members reversed", `{"b":1,"a":2}`, "d3626ac30a87e6f7a6428233b3c68299976865fa5508e4267c5415c76af7a772"},
	{"white space", " {\n\t\"b\" : 1 ,\r\n \"a\":2 } ", "d3626ac30a87e6f7a6428233b3c68299976865fa5508e4267c5415c76af7a772"},
	{"nested order", `{"z":{"y":[{"b":true,"a":null}],"x":{}},"a":[]}`, "0a5c7664680cf941e7601825356b336e3625633c6025cf8b414060039ff248bd"},
	{"integer", `{"n":1}`, "2bfd14f43d17fc7cea24e0917a8879b4b2f880b8baeec1b9d90fbaad655e71bd"},
	{"one point zero", `{"n":1.0}`, "3b6b06ecd1c968c8e738e0f11c4bb361fca80a9a694de22fe66a05286afbd081"},
	{"exponent", `{"n":1e2}`, "477bbdd93b24d7ebe5b110b7bd76f53e82c2831cd361d557779cbf3f1da9c522"},
	{"upper exponent", `{"n":1.5E-3}`, "7ce744f62e7d27469e3152eb9d8914db82dfb1294ccb409906be80cf04e538ea"},
	{"negative zero", `{"n":-0}`, "d54829e5b2d6e184fe2005d0b3ee73c1931163e1c1fd461a7449c9f7255ea2d2"},
	{"big integer", `{"n":123456789012345678901234567890}`, "03b8f78ef5e8a305f4cda82942db0c6accec4046b40457ae19055ea5e4fff2ac"},
	{"escapes", `{"s":"<&>\u00e9\/\"q\"\t\u0001\u2028"}`, "034c71039fbefa0dc6e95948b094fdfb4946423038ea5a71ef90e9297e8d21b2"},
	{"raw unicode", `{"s":"é漢字😀"}`, "12dd48f692bd134f88582b4587508aae3d712636f31d3c8242d5bc4b97778576"},
	{"lone surrogate", `{"s":"\ud800"}`, "7513ecfd87d7bd3c5671d16e2a24074dc15ea73c79a51ffda3ffc1cd8ede8389"},
	{"invalid utf-8", "{\"s\":\"\xff\"}", "7513ecfd87d7bd3c5671d16e2a24074dc15ea73c79a51ffda3ffc1cd8ede8389"},
	{"escaped member name", `{"\u0061":1}`, "015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862"},
	{"array of mixed", `{"a":[1,"x",false,null,{"k":-2.50}]}`, "1b67abbd5be24950e55bad2353df204991d7816478033efc3a807927dc85cde5"},
}

// TestArgsDigestIsCanonical pins args_sha256 for argument documents that differ in member order,
// number forms, white space and string escapes, and checks it against a reference canonical encoding
// (decode with json.Number, encode with encoding/json).
func TestArgsDigestIsCanonical(t *testing.T) {
	e := newEnv(t, nil)
	regen := os.Getenv("WORKBENCH_REGEN_DIGESTS") != ""
	for _, tc := range argsDigests {
		t.Run(tc.name, func(t *testing.T) {
			before, err := e.store.ReadAll(context.Background(), eventstore.Start, 10_000)
			if err != nil {
				t.Fatal(err)
			}
			ex := `{"tool":"nope_tool"}`
			if tc.args != "" {
				ex = `{"tool":"nope_tool","args":` + tc.args + `}`
			}
			call(t, e.set, "execute_tools", `{"executions":[`+ex+`]}`)
			envs, err := e.store.ReadAll(context.Background(), eventstore.Start, 10_000)
			if err != nil {
				t.Fatal(err)
			}
			if len(envs) != len(before)+1 {
				t.Fatalf("%d events appended, want 1", len(envs)-len(before))
			}
			var rec execution.ToolExecuted
			if err := json.Unmarshal(envs[len(envs)-1].Data, &rec); err != nil {
				t.Fatal(err)
			}
			if regen {
				t.Logf("%q: %s", tc.name, rec.ArgsSHA256)
				return
			}
			if rec.ArgsSHA256 != tc.sha256 {
				t.Errorf("args_sha256 %s, want %s", rec.ArgsSHA256, tc.sha256)
			}
			if want := referenceDigest(t, tc.args); rec.ArgsSHA256 != want {
				t.Errorf("args_sha256 %s, the reference canonical encoding hashes to %s", rec.ArgsSHA256, want)
			}
		})
	}
	same := func(a, b string) {
		t.Helper()
		var da, db string
		for _, tc := range argsDigests {
			switch tc.name {
			case a:
				da = tc.sha256
			case b:
				db = tc.sha256
			}
		}
		if da != db || da == "" {
			t.Errorf("%s and %s: digests %s and %s, want the same", a, b, da, db)
		}
	}
	same("absent", "empty object")
	same("members in order", "members reversed")
	same("members in order", "white space")
}

// referenceDigest is the digest of args canonically re-encoded: decoded with json.Number (numbers
// keep their text), encoded by encoding/json (members sorted, compact, HTML-safe escapes).
func referenceDigest(t *testing.T, args string) string {
	t.Helper()
	if args == "" {
		args = "{}"
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(args)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
