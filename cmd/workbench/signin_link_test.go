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
	t.Parallel()
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
	for _, args := range [][]string{{"signin-link", "extra"}, {"signin-link", "--email", "a@example.com", "extra"}} {
		if err := run(context.Background(), args, envFunc(env), io.Discard, io.Discard); err != errUsage {
			t.Errorf("%v: %v, want the usage error", args, err)
		}
	}
}

// TestSigninLinkFollowsTheRunningServer: a newcomer starts the server on another port and, in a second
// shell with its settings but none of its address settings, runs `signin-link` with no flags. The link is for the admin
// user and points at the running server (the address `serve` recorded in the data directory), not at
// the default :8080; the command's own PORT or SERVER_PUBLIC_URL, when set, still wins.
func TestSigninLinkFollowsTheRunningServer(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "wb.db")
	s := startE2E(t, db, map[string]string{"WORKBENCH_ADMIN_EMAIL": "Owner@Example.com"}, slog.LevelInfo)
	cli := map[string]string{} // the second shell: the server's settings without PORT or SERVER_PUBLIC_URL
	for k, v := range s.Env {
		if k != "PORT" && k != "SERVER_PUBLIC_URL" {
			cli[k] = v
		}
	}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"signin-link"}, envFunc(cli), &out, &errOut); err != nil {
		t.Fatalf("signin-link: %v\n%s", err, errOut.String())
	}
	link := strings.TrimSpace(out.String())
	if !strings.HasPrefix(link, s.Base+"/auth/link/") {
		t.Fatalf("signin-link beside a server on %s printed %q (%s)", s.Base, link, errOut.String())
	}
	if !strings.Contains(errOut.String(), "owner@example.com") || !strings.Contains(errOut.String(), "recorded in") {
		t.Fatalf("signin-link said %q; want the admin user and where the address came from", errOut.String())
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	resp, err := browser.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp, err = browser.Get(s.Base + "/api/me")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"owner@example.com"`) {
		t.Fatalf("/api/me after the link: %d %s", resp.StatusCode, body)
	}

	cli["PORT"] = "19001"
	out.Reset()
	errOut.Reset()
	if err := run(context.Background(), []string{"signin-link"}, envFunc(cli), &out, &errOut); err != nil {
		t.Fatalf("signin-link with PORT: %v\n%s", err, errOut.String())
	}
	if link := strings.TrimSpace(out.String()); !strings.HasPrefix(link, "http://localhost:19001/auth/link/") {
		t.Fatalf("signin-link with its own PORT=19001 printed %q", link)
	}
}
