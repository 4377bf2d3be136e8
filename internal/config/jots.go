package config

import (
	"fmt"
	"net/url"
	"strings"
)

// readJots reads the jots' origin and limits; a limit left unset stays zero, the jots package's
// default.
func readJots(r reader, c *Config) error {
	if v := strings.TrimRight(r.text("JOTS_ORIGIN"), "/"); v != "" {
		if !origin(v) {
			return fmt.Errorf("JOTS_ORIGIN=%q: want an origin such as https://jots.example.com (scheme and host only)", v)
		}
		c.JotsOrigin = v
	}
	var err error
	if c.JotsMaxBytes, _, err = r.whole("JOTS_MAX_BYTES"); err != nil {
		return err
	}
	if c.JotsMaxFiles, err = r.wholeInt("JOTS_MAX_FILES", 0); err != nil {
		return err
	}
	if c.JotsUploadTTL, err = r.seconds("JOTS_UPLOAD_TTL_SECONDS", 0); err != nil {
		return err
	}
	if c.JotsMaxPerUser, err = r.wholeInt("JOTS_MAX_PER_USER", 0); err != nil {
		return err
	}
	c.JotsQuotaBytes, _, err = r.whole("JOTS_QUOTA_BYTES")
	return err
}

// origin reports whether v is an http or https origin: scheme and host, no path or query.
func origin(v string) bool {
	u, err := url.Parse(v)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && (u.Path == "" || u.Path == "/") && u.RawQuery == ""
}
