package config

import (
	"fmt"
	"net/url"
	"strings"
)

// readServer reads the port, the public URL (default http://localhost:<port>) and how the server
// listens (http.go).
func readServer(r reader, c *Config) error {
	var err error
	if c.Port, err = r.wholeInt("PORT", DefaultPort); err != nil {
		return err
	}
	c.ServerPublicURL = strings.TrimRight(r.text("SERVER_PUBLIC_URL"), "/")
	if c.ServerPublicURL == "" {
		c.ServerPublicURL = fmt.Sprintf("http://localhost:%d", c.Port)
	}
	if u, err := url.Parse(c.ServerPublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("SERVER_PUBLIC_URL=%q: want an absolute http:// or https:// URL with no query or fragment, e.g. https://workbench.example.com", c.ServerPublicURL)
	}
	return c.HTTP.read(r)
}
