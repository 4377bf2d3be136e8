package config

import "testing"

func TestReadObservability(t *testing.T) {
	runArea(t, readObservability, []areaCase{
		{name: "defaults", env: map[string]string{}, check: func(t *testing.T, c Config) {
			if c.LogLevel != "" || c.MetricsToken != "" {
				t.Errorf("got %q %q", c.LogLevel, c.MetricsToken)
			}
		}},
		{name: "level any case, token kept", env: map[string]string{"LOG_LEVEL": " WARN ", "METRICS_TOKEN": "0123456789abcdef"}, check: func(t *testing.T, c Config) {
			if c.LogLevel != "warn" || c.MetricsToken != "0123456789abcdef" {
				t.Errorf("got %q %q", c.LogLevel, c.MetricsToken)
			}
		}},
		{name: "loud", env: map[string]string{"LOG_LEVEL": "loud"}, wantErr: []string{`LOG_LEVEL="loud"`, "debug, info, warn or error"}},
		{name: "short token", env: map[string]string{"METRICS_TOKEN": "0123456789abcde"}, wantErr: []string{"METRICS_TOKEN", "at least 16 characters"}},
		{name: "token with a space", env: map[string]string{"METRICS_TOKEN": "0123456789 abcdef"}, wantErr: []string{"METRICS_TOKEN", "without white space"}},
	})
}
