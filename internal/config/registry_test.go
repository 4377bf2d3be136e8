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
	if r, err := readConnectorRegistry(env(" ")); err != nil || r.Dir != "" {
		t.Fatalf("blank: %+v, %v", r, err)
	}
	dir := t.TempDir()
	if r, err := readConnectorRegistry(env(dir)); err != nil || r.Dir != dir {
		t.Fatalf("dir: %+v, %v", r, err)
	}
	file := filepath.Join(dir, "x.json")
	if err := os.WriteFile(file, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{file, filepath.Join(dir, "missing")} {
		if _, err := readConnectorRegistry(env(bad)); err == nil || !strings.Contains(err.Error(), EnvConnectorRegistryDir) {
			t.Errorf("%s: %v", bad, err)
		}
	}
	// Read at start with the rest: a bad value stops FromEnv.
	if _, err := FromEnv(env(file)); err == nil || !strings.Contains(err.Error(), EnvConnectorRegistryDir) {
		t.Fatalf("FromEnv: %v", err)
	}
}
