package config

import (
	"strings"
	"testing"
)

func TestReadOrgLimits(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvOrgLimits {
				return v
			}
			return ""
		}
	}
	l, err := readOrgLimits(env(""))
	if err != nil || l.MaxMCPServers != 0 || len(l.MonthlyConnectorCalls) != 0 {
		t.Fatalf("blank: %+v, %v", l, err)
	}
	l, err = readOrgLimits(env(`{"monthly_connector_calls":{"brave-search":3},"max_mcp_servers":2}`))
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := l.MonthlyCap("brave-search"); !ok || n != 3 {
		t.Fatalf("cap = %d, %v", n, ok)
	}
	if _, ok := l.MonthlyCap("sentry"); ok {
		t.Fatal("an unnamed slug is capped")
	}
	if l.MaxMCPServers != 2 {
		t.Fatalf("max = %d", l.MaxMCPServers)
	}
	for _, bad := range []string{
		`{"max_mcp_servers":-1}`,
		`{"monthly_connector_calls":{"x":-2}}`,
		`{"monthly_connector_calls":{" ":1}}`,
		`{"maxMcpServers":1}`,
		`{} {}`,
		`[`,
	} {
		if _, err := readOrgLimits(env(bad)); err == nil || !strings.Contains(err.Error(), EnvOrgLimits) {
			t.Errorf("%s: err = %v", bad, err)
		}
	}
}
