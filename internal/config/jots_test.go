package config

import (
	"testing"
	"time"
)

func TestReadJots(t *testing.T) {
	runArea(t, readJots, []areaCase{
		{name: "unset leaves the jots package's defaults", env: map[string]string{}, check: func(t *testing.T, c Config) {
			if c.JotsOrigin != "" || c.JotsMaxBytes != 0 || c.JotsMaxFiles != 0 || c.JotsUploadTTL != 0 || c.JotsMaxPerUser != 0 || c.JotsQuotaBytes != 0 {
				t.Errorf("got %+v", c)
			}
		}},
		{name: "settings", env: map[string]string{"JOTS_ORIGIN": "http://jots.localhost:8080/", "JOTS_MAX_BYTES": "1073741824", "JOTS_MAX_FILES": "100000",
			"JOTS_UPLOAD_TTL_SECONDS": "86400", "JOTS_MAX_PER_USER": "1", "JOTS_QUOTA_BYTES": "1099511627776"}, check: func(t *testing.T, c Config) {
			if c.JotsOrigin != "http://jots.localhost:8080" || c.JotsMaxBytes != 1<<30 || c.JotsMaxFiles != 100000 || c.JotsUploadTTL != 24*time.Hour ||
				c.JotsMaxPerUser != 1 || c.JotsQuotaBytes != 1<<40 {
				t.Errorf("got %+v", c)
			}
		}},
		{name: "origin with a query", env: map[string]string{"JOTS_ORIGIN": "https://jots.example.com?x=1"}, wantErr: []string{"JOTS_ORIGIN", "scheme and host only"}},
		{name: "origin without a scheme", env: map[string]string{"JOTS_ORIGIN": "jots.example.com"}, wantErr: []string{"JOTS_ORIGIN", "an origin such as"}},
		{name: "jot too small", env: map[string]string{"JOTS_MAX_BYTES": "1023"}, wantErr: []string{"JOTS_MAX_BYTES", "a size in bytes from 1024 to 1073741824"}},
		{name: "files past the cap", env: map[string]string{"JOTS_MAX_FILES": "100001"}, wantErr: []string{"JOTS_MAX_FILES", "a whole number from 1 to 100000"}},
		{name: "upload ttl in minutes", env: map[string]string{"JOTS_UPLOAD_TTL_SECONDS": "5m"}, wantErr: []string{"JOTS_UPLOAD_TTL_SECONDS", "whole seconds from 10 to 86400"}},
		{name: "no jots per user", env: map[string]string{"JOTS_MAX_PER_USER": "0"}, wantErr: []string{"JOTS_MAX_PER_USER", "a whole number from 1 to 1000000"}},
		{name: "quota past a TiB", env: map[string]string{"JOTS_QUOTA_BYTES": "1099511627777"}, wantErr: []string{"JOTS_QUOTA_BYTES", "a size in bytes from 1024 to 1099511627776"}},
	})
}
