package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadConnectorRegistry(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvConnectorRegistryDir {
				return v
			}
			return ""
		}
	}
	if r, err := readConnectorRegistry(env(" "), false); err != nil || r.Dir != "" {
		t.Fatalf("blank: %+v, %v", r, err)
	}
	dir := t.TempDir()
	if r, err := readConnectorRegistry(env(dir), false); err != nil || r.Dir != dir {
		t.Fatalf("dir: %+v, %v", r, err)
	}
	file := filepath.Join(dir, "x.json")
	if err := os.WriteFile(file, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{file, filepath.Join(dir, "missing")} {
		if _, err := readConnectorRegistry(env(bad), false); err == nil || !strings.Contains(err.Error(), EnvConnectorRegistryDir) {
			t.Errorf("%s: %v", bad, err)
		}
	}
	// Read at start with the rest: a bad value stops FromEnv.
	if _, err := FromEnv(env(file)); err == nil || !strings.Contains(err.Error(), EnvConnectorRegistryDir) {
		t.Fatalf("FromEnv: %v", err)
	}
}

// CONNECTOR_REGISTRY_URL: https, or http on a loopback address with the dev loopback setting; never
// beside CONNECTOR_REGISTRY_DIR; a bad value names the variable and stops the start.
func TestReadConnectorRegistryURL(t *testing.T) {
	env := func(dir, u string) func(string) string {
		return func(k string) string {
			switch k {
			case EnvConnectorRegistryDir:
				return dir
			case EnvConnectorRegistryURL:
				return u
			}
			return ""
		}
	}
	if r, err := readConnectorRegistry(env("", " https://registry.example.com/index.json "), false); err != nil || r.URL != "https://registry.example.com/index.json" || r.Dir != "" {
		t.Fatalf("https: %+v, %v", r, err)
	}
	if r, err := readConnectorRegistry(env("", "http://127.0.0.1:8080/index.json"), true); err != nil || r.URL != "http://127.0.0.1:8080/index.json" {
		t.Fatalf("dev loopback http: %+v, %v", r, err)
	}
	for _, c := range []struct {
		dir, u   string
		loopback bool
		want     string
	}{
		{t.TempDir(), "https://registry.example.com/index.json", false, "CONNECTOR_REGISTRY_DIR and CONNECTOR_REGISTRY_URL are both set"},
		{"", "http://registry.example.com/index.json", false, "must use https"},
		{"", "http://127.0.0.1:8080/index.json", false, "must use https"},
		{"", "http://registry.example.com/index.json", true, "must use https"},
		{"", "ftp://registry.example.com/index.json", false, `scheme "ftp"`},
		{"", "registry.example.com/index.json", false, "not an absolute URL"},
		{"", "https://user:pw@registry.example.com/index.json", false, "user information"},
	} {
		if _, err := readConnectorRegistry(env(c.dir, c.u), c.loopback); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), EnvConnectorRegistryURL) {
			t.Errorf("%q (dir %q, loopback %v): %v, want %q", c.u, c.dir, c.loopback, err, c.want)
		}
	}
	if _, err := FromEnv(env("", "http://registry.example.com/index.json")); err == nil || !strings.Contains(err.Error(), EnvConnectorRegistryURL) {
		t.Fatalf("FromEnv: %v", err)
	}
}
