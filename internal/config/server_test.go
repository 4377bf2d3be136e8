package config

import (
	"testing"
	"time"
)

func TestReadServer(t *testing.T) {
	runArea(t, readServer, []areaCase{
		{name: "defaults", env: map[string]string{}, check: func(t *testing.T, c Config) {
			if c.Port != 8080 || c.ServerPublicURL != "http://localhost:8080" || c.HTTP.ListenAddr(c.Port) != ":8080" || c.HTTP.MaxConnsPerClient != 256 {
				t.Errorf("got %+v", c)
			}
		}},
		{name: "public url follows the port", env: map[string]string{"PORT": "19001"}, check: func(t *testing.T, c Config) {
			if c.ServerPublicURL != "http://localhost:19001" {
				t.Errorf("got %q", c.ServerPublicURL)
			}
		}},
		{name: "public url trailing slash dropped", env: map[string]string{"SERVER_PUBLIC_URL": " https://wb.example.com/ "}, check: func(t *testing.T, c Config) {
			if c.ServerPublicURL != "https://wb.example.com" {
				t.Errorf("got %q", c.ServerPublicURL)
			}
		}},
		{name: "timeouts", env: map[string]string{"HTTP_READ_HEADER_TIMEOUT_SECONDS": "1", "HTTP_IDLE_TIMEOUT_SECONDS": "3600"}, check: func(t *testing.T, c Config) {
			if c.HTTP.ReadHeaderTimeout != time.Second || c.HTTP.IdleTimeout != time.Hour || c.HTTP.ReadTimeout != 0 || c.HTTP.WriteTimeout != 0 {
				t.Errorf("got %+v", c.HTTP)
			}
		}},
		{name: "no connection cap", env: map[string]string{"MAX_CONNS_PER_CLIENT": "0"}, check: func(t *testing.T, c Config) {
			if c.HTTP.MaxConnsPerClient != 0 {
				t.Errorf("got %d", c.HTTP.MaxConnsPerClient)
			}
		}},
		{name: "port zero", env: map[string]string{"PORT": "0"}, wantErr: []string{`PORT="0"`, "a TCP port number from 1 to 65535"}},
		{name: "public url with a query", env: map[string]string{"SERVER_PUBLIC_URL": "https://wb.example.com/?a=1"}, wantErr: []string{"SERVER_PUBLIC_URL", "no query or fragment"}},
		{name: "public url ftp", env: map[string]string{"SERVER_PUBLIC_URL": "ftp://wb.example.com"}, wantErr: []string{"SERVER_PUBLIC_URL", "http:// or https://"}},
		{name: "host with a path", env: map[string]string{"HOST": "127.0.0.1/x"}, wantErr: []string{"HOST", "an IP address to bind"}},
		{name: "negative cap", env: map[string]string{"MAX_CONNS_PER_CLIENT": "-1"}, wantErr: []string{"MAX_CONNS_PER_CLIENT", "0 for no cap"}},
		{name: "write timeout too long", env: map[string]string{"HTTP_WRITE_TIMEOUT_SECONDS": "3601"}, wantErr: []string{"HTTP_WRITE_TIMEOUT_SECONDS", "whole seconds from 1 to 3600"}},
	})
}
