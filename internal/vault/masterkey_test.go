package vault_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workbench/workbench/internal/vault"
)

func TestParseMasterKey(t *testing.T) {
	raw := bytes.Repeat([]byte{0xa7, 0x3c, 0xfe, 0x01}, 8) // 32 bytes, includes bytes that differ in std and URL base64
	want, err := vault.ParseMasterKey(hex.EncodeToString(raw))
	if err != nil {
		t.Fatalf("parse reference key: %v", err)
	}
	good := []struct {
		name  string
		value string
	}{
		{"base64 std padded", base64.StdEncoding.EncodeToString(raw)},
		{"base64 std unpadded", base64.RawStdEncoding.EncodeToString(raw)},
		{"base64 url padded", base64.URLEncoding.EncodeToString(raw)},
		{"base64 url unpadded", base64.RawURLEncoding.EncodeToString(raw)},
		{"hex lower", hex.EncodeToString(raw)},
		{"hex upper", strings.ToUpper(hex.EncodeToString(raw))},
		{"trailing newline from a file", base64.StdEncoding.EncodeToString(raw) + "\n"},
		{"surrounding spaces", "  " + hex.EncodeToString(raw) + " "},
	}
	for _, tc := range good {
		t.Run(tc.name, func(t *testing.T) {
			k, err := vault.ParseMasterKey(tc.value)
			if err != nil {
				t.Fatalf("ParseMasterKey: %v", err)
			}
			if !k.Equal(want) || k.ID() != want.ID() {
				t.Fatalf("got key %s, want %s", k, want)
			}
		})
	}

	bad := []struct {
		name  string
		value string
		hint  string // a further word the message must contain
	}{
		{"missing", "", "not set"},
		{"only spaces", "   \n", "not set"},
		{"short base64", base64.StdEncoding.EncodeToString(raw[:16]), "16 bytes"},
		{"long base64", base64.StdEncoding.EncodeToString(append(raw, raw...)), "64 bytes"},
		{"bad base64", "this is not a key, it has spaces & symbols!", "neither base64 nor hex"},
		{"base64 with a bad character", "p3z+Aac8/gGnPP4Bpzz+Aac8/gGnPP4Bpzz+Aac8/g*=", "neither base64 nor hex"},
		{"bad hex", strings.Repeat("0g", 32), "not valid hex"},
		{"hex with separators", strings.Repeat("a7:", 31) + "a7", "neither base64 nor hex"},
		{"short hex", hex.EncodeToString(raw[:31]), "62 hex characters"},
		{"long hex", hex.EncodeToString(append(raw, 0x01)), "66 hex characters"},
		{"all zero", hex.EncodeToString(make([]byte, 32)), "all zero"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			k, err := vault.ParseMasterKey(tc.value)
			if err == nil {
				t.Fatalf("ParseMasterKey accepted it as %s", k)
			}
			msg := err.Error()
			for _, w := range []string{"ENCRYPTION_KEY", "base64", "hex", "32", tc.hint} {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not mention %q", msg, w)
				}
			}
			if v := strings.TrimSpace(tc.value); len(v) >= 8 && strings.Contains(msg, v) {
				t.Errorf("error %q echoes the value", msg)
			}
		})
	}
}

func TestParseMasterKeys(t *testing.T) {
	a, b, c := mustKeyT(t), mustKeyT(t), mustKeyT(t)
	tests := []struct {
		name     string
		current  string
		previous string
		wantPrev []string // ids
		wantErr  []string // words the error must contain
	}{
		{name: "no previous", current: a.Encode(), previous: "", wantPrev: nil},
		{name: "two previous", current: a.Encode(), previous: b.Encode() + "," + c.Encode(), wantPrev: []string{b.ID(), c.ID()}},
		{name: "spaces and duplicates dropped", current: a.Encode(), previous: " " + b.Encode() + " , " + a.Encode() + "," + b.Encode(), wantPrev: []string{b.ID()}},
		{name: "bad current", current: "nope", previous: b.Encode(), wantErr: []string{"ENCRYPTION_KEY "}},
		{name: "missing current", current: "", previous: b.Encode(), wantErr: []string{"ENCRYPTION_KEY is not set"}},
		{name: "bad second previous", current: a.Encode(), previous: b.Encode() + ",abc", wantErr: []string{"ENCRYPTION_KEY_PREVIOUS", "item 2"}},
		{name: "empty item", current: a.Encode(), previous: b.Encode() + ",", wantErr: []string{"ENCRYPTION_KEY_PREVIOUS", "item 2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cur, prev, err := vault.ParseMasterKeys(tc.current, tc.previous)
			if tc.wantErr != nil {
				if err == nil {
					t.Fatal("no error")
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not mention %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cur.ID() != a.ID() {
				t.Errorf("current %s, want %s", cur, a)
			}
			var ids []string
			for _, p := range prev {
				ids = append(ids, p.ID())
			}
			if fmt.Sprint(ids) != fmt.Sprint(tc.wantPrev) {
				t.Errorf("previous %v, want %v", ids, tc.wantPrev)
			}
		})
	}
}

func mustKeyT(t *testing.T) vault.MasterKey { return mustKey(t) }

func TestMasterKeyNeverPrinted(t *testing.T) {
	k := mustKey(t)
	secret := k.Encode()
	raw, _ := base64.StdEncoding.DecodeString(secret)
	var logged bytes.Buffer
	slog.New(slog.NewTextHandler(&logged, nil)).Info("key", "k", k)
	for name, out := range map[string]string{
		"%v":     fmt.Sprintf("%v", k),
		"%+v":    fmt.Sprintf("%+v", k),
		"%#v":    fmt.Sprintf("%#v", k),
		"String": k.String(),
		"slog":   logged.String(),
	} {
		if strings.Contains(out, secret) || strings.Contains(out, hex.EncodeToString(raw)) || strings.Contains(out, fmt.Sprint(raw)) {
			t.Errorf("%s prints the key: %s", name, out)
		}
		if !strings.Contains(out, k.ID()) {
			t.Errorf("%s does not print the id: %s", name, out)
		}
	}
}

func TestLoadOrCreateKeyFile(t *testing.T) {
	t.Run("creates, then reads the same key", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "data")
		path := filepath.Join(dir, vault.DefaultKeyFile)
		k1, created, err := vault.LoadOrCreateKeyFile(path)
		if err != nil || !created {
			t.Fatalf("first call: created=%v err=%v", created, err)
		}
		assertMode(t, dir, 0o700)
		assertMode(t, path, 0o600)
		k2, created, err := vault.LoadOrCreateKeyFile(path)
		if err != nil || created {
			t.Fatalf("second call: created=%v err=%v", created, err)
		}
		if !k1.Equal(k2) {
			t.Fatalf("second call read %s, first created %s", k2, k1)
		}
		body, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if k3, err := vault.ParseMasterKey(string(body)); err != nil || !k3.Equal(k1) {
			t.Fatalf("the file does not hold the key as ENCRYPTION_KEY would take it: %v", err)
		}
	})
	t.Run("refuses a file others can read", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), vault.DefaultKeyFile)
		if err := os.WriteFile(path, []byte(mustKey(t).Encode()+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := vault.LoadOrCreateKeyFile(path)
		if err == nil {
			t.Fatal("a world-readable key file was accepted")
		}
		for _, w := range []string{path, "0644", "chmod 600"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not mention %q", err, w)
			}
		}
	})
	t.Run("reports a malformed file by its path", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), vault.DefaultKeyFile)
		if err := os.WriteFile(path, []byte("too short\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, err := vault.LoadOrCreateKeyFile(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "base64") {
			t.Fatalf("got %v, want an error naming %s and the expected form", err, path)
		}
	})
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != want {
		t.Errorf("%s has mode %04o, want %04o", path, got, want)
	}
}
