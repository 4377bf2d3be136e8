package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// publicURLFile is where `serve` records, in its data directory, the public URL it serves on. The
// commands that print links for people (signin-link) read it when their own environment names no
// address, so a link printed beside a server started with PORT=19001 points at :19001, not at the
// default :8080. It is a hint for the command line, not state: nothing else reads it.
const publicURLFile = "server-public-url"

// recordPublicURL writes the public URL into dataDir, replacing the file in one rename.
func recordPublicURL(dataDir, publicURL string) error {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dataDir, publicURLFile+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(publicURL + "\n"); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dataDir, publicURLFile))
}

// linkBaseURL is the base URL a command prints links under: the configured one when the command's own
// environment sets SERVER_PUBLIC_URL or PORT, otherwise the one the last server started on this data
// directory recorded (when it is a valid http(s) URL), otherwise the configured default. The second
// result says where it came from, for the command's message.
func linkBaseURL(getenv func(string) string, dataDir, configured string) (string, string) {
	if strings.TrimSpace(getenv("SERVER_PUBLIC_URL")) != "" {
		return configured, "SERVER_PUBLIC_URL"
	}
	if strings.TrimSpace(getenv("PORT")) != "" {
		return configured, "PORT"
	}
	path := filepath.Join(dataDir, publicURLFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return configured, "the default (no server has recorded its address in " + path + ")"
	}
	recorded := strings.TrimSpace(string(b))
	if u, err := url.Parse(recorded); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return configured, fmt.Sprintf("the default (%s holds no valid URL)", path)
	}
	return strings.TrimRight(recorded, "/"), "the running server's address, recorded in " + path
}
