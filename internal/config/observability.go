package config

import (
	"errors"
	"fmt"
	"strings"
)

// readObservability reads the log level and the token /metrics asks for. Tracing's variables
// (OTEL_*) are read by internal/tracing when the server starts.
func readObservability(r reader, c *Config) error {
	c.LogLevel = strings.ToLower(r.text("LOG_LEVEL"))
	switch c.LogLevel {
	case "", "info", "debug", "warn", "error":
	default:
		return fmt.Errorf("LOG_LEVEL=%q: want debug, info, warn or error", c.LogLevel)
	}
	if v := r.raw("METRICS_TOKEN"); v != "" {
		if len(v) < 16 || strings.ContainsAny(v, " \t\r\n") {
			return errors.New("METRICS_TOKEN: want at least 16 characters without white space (`openssl rand -hex 32`)")
		}
		c.MetricsToken = v
	}
	return nil
}
