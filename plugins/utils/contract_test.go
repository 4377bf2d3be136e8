package utils_test

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/plugins/plugintest"
	"github.com/workbench/workbench/plugins/utils"
)

// TestContracts calls every utils tool; none makes a request.
func TestContracts(t *testing.T) {
	plugintest.Contracts(t, utils.Plugin(), plugintest.Credentials{}, []plugintest.Case{
		{Tool: "utils_echo", Args: `{"message":"hello, world"}`, Want: `{"message":"hello, world"}`},
		{Tool: "utils_hash", Args: `{"text":"abc"}`, Want: `{"algorithm":"sha256","encoding":"hex","digest":"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}`},
		{Tool: "utils_time", Args: `{"timezone":"Asia/Kolkata"}`, Check: func(t *testing.T, out json.RawMessage) { // the clock moves
			var res map[string]any
			_ = json.Unmarshal(out, &res)
			if res["offset_seconds"] != float64(19800) || res["abbreviation"] != "IST" || !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+05:30$`).MatchString(res["time"].(string)) {
				t.Errorf("utils_time result %s", out)
			}
		}},
		{Tool: "utils_uuid", Args: `{"version":7,"count":3}`, Check: func(t *testing.T, out json.RawMessage) { // random
			var res struct{ UUIDs []string }
			_ = json.Unmarshal(out, &res)
			v7 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
			if len(res.UUIDs) != 3 || res.UUIDs[0] == res.UUIDs[1] {
				t.Errorf("utils_uuid result %s", out)
			}
			for _, u := range res.UUIDs {
				if !v7.MatchString(u) {
					t.Errorf("%s is not a version 7 UUID", u)
				}
			}
		}},
	})
}

func TestUtilsErrors(t *testing.T) {
	r := plugintest.Registry(t, utils.Plugin())
	tests := []struct{ tool, args, want string }{
		{"utils_time", `{"timezone":"Mars/Olympus_Mons"}`, `utils_time: unknown IANA time zone "Mars/Olympus_Mons"`},
		{"utils_time", `{"timezone":"Local"}`, `utils_time: unknown IANA time zone "Local"`},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			_, err := plugintest.Call(t, r, tc.tool, tc.args, plugins.ContextOptions{})
			if err == nil || err.Error() != "invalid: "+tc.want {
				t.Errorf("got %v, want %s", err, tc.want)
			}
		})
	}
	t.Run("hash algorithms", func(t *testing.T) {
		for alg, want := range map[string]string{"md5": "900150983cd24fb0d6963f7d28e17f72", "sha1": "a9993e364706816aba3e25717850c26c9cd0d89d"} {
			out, err := plugintest.Call(t, r, "utils_hash", `{"text":"abc","algorithm":"`+alg+`"}`, plugins.ContextOptions{})
			if err != nil || string(out) != `{"algorithm":"`+alg+`","digest":"`+want+`","encoding":"hex"}` {
				t.Errorf("%s: %s %v", alg, out, err)
			}
		}
		out, _ := plugintest.Call(t, r, "utils_hash", `{"text":"abc","encoding":"base64"}`, plugins.ContextOptions{})
		if string(out) != `{"algorithm":"sha256","digest":"ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=","encoding":"base64"}` {
			t.Errorf("base64: %s", out)
		}
	})
}
