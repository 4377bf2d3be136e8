package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// EnvOrgLimits sets the limits every organisation runs under, as one JSON object:
//
//	{"monthly_connector_calls": {"brave-search": 1000}, "max_mcp_servers": 10}
//
// Unset or blank is the open policy: no connector is capped and an organisation may add any number of
// its own MCP servers.
const EnvOrgLimits = "WORKBENCH_ORG_LIMITS"

// OrgLimits is the policy every organisation runs under.
type OrgLimits struct {
	// MonthlyConnectorCalls caps, by connector slug, the calls an organisation makes on platform logins
	// in one UTC month. A slug it does not name is uncapped.
	MonthlyConnectorCalls map[string]int `json:"monthly_connector_calls,omitempty"`
	// MaxMCPServers caps how many MCP servers an organisation adds of its own; 0 is no cap.
	MaxMCPServers int `json:"max_mcp_servers,omitempty"`
}

// MonthlyCap returns the monthly cap on platform-login calls of the connector slug, and whether there is one.
func (l OrgLimits) MonthlyCap(slug string) (int, bool) {
	n, ok := l.MonthlyConnectorCalls[slug]
	return n, ok
}

// readOrgLimits parses WORKBENCH_ORG_LIMITS; an unknown key, a negative number or a blank slug is an
// error naming the variable.
func readOrgLimits(getenv func(string) string) (OrgLimits, error) {
	raw := reader(getenv).text(EnvOrgLimits)
	if raw == "" {
		return OrgLimits{}, nil
	}
	var l OrgLimits
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return OrgLimits{}, fmt.Errorf("%s: %w", EnvOrgLimits, err)
	}
	if dec.More() {
		return OrgLimits{}, fmt.Errorf("%s: one JSON object expected", EnvOrgLimits)
	}
	if l.MaxMCPServers < 0 {
		return OrgLimits{}, fmt.Errorf("%s: max_mcp_servers is %d; it cannot be negative", EnvOrgLimits, l.MaxMCPServers)
	}
	for slug, n := range l.MonthlyConnectorCalls {
		if strings.TrimSpace(slug) == "" {
			return OrgLimits{}, fmt.Errorf("%s: monthly_connector_calls names a blank connector slug", EnvOrgLimits)
		}
		if n < 0 {
			return OrgLimits{}, fmt.Errorf("%s: monthly_connector_calls[%q] is %d; it cannot be negative", EnvOrgLimits, slug, n)
		}
	}
	return l, nil
}
