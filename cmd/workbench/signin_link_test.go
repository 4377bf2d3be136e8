package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"path/filepath"
	"strings"
	"testing"
)

// TestSigninLink: an operator mints a one-time link for another user with the CLI, against the
// database a running server uses; the link signs that user in to the portal once.
func TestSigninLink(t *testing.T) {
	s := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), nil, slog.LevelInfo)
	base, env := s.Base, s.Env

	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"signin-link", "--email", "Grace@Example.com"}, envFunc(env), &out, &errOut); err != nil {
		t.Fatalf("signin-link: %v\n%s", err, errOut.String())
	}
	link := strings.TrimSpace(out.String())
	if !strings.HasPrefix(link, base+"/auth/link/") || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("signin-link printed %q", out.String())
	}
	if !strings.Contains(errOut.String(), "grace@example.com") {
		t.Fatalf("signin-link said %q", errOut.String())
	}

	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	resp, err := browser.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp, err = browser.Get(base + "/api/me")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var me struct {
		Email string `json:"email"`
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &me) != nil || me.Email != "grace@example.com" {
		t.Fatalf("/api/me after the link: %d %s", resp.StatusCode, body)
	}

	// Once only.
	again, err := (&http.Client{}).Get(link)
	if err != nil {
		t.Fatal(err)
	}
	again.Body.Close()
	if again.StatusCode == http.StatusOK && again.Request.URL.Path == "/" {
		t.Fatalf("the link worked twice")
	}
	if code := again.StatusCode; code != http.StatusConflict && code != http.StatusNotFound && code != http.StatusGone {
		t.Fatalf("second use: %d", code)
	}

	// Usage errors.
	for _, args := range [][]string{{"signin-link"}, {"signin-link", "--email", "a@example.com", "extra"}} {
		if err := run(context.Background(), args, envFunc(env), io.Discard, io.Discard); err != errUsage {
			t.Errorf("%v: %v, want the usage error", args, err)
		}
	}
}
