package config

import (
	"reflect"
	"testing"
)

func TestPluginClients(t *testing.T) {
	env := map[string]string{
		"GOOGLE_GMAIL_CLIENT_ID":     " gmail-id ",
		"GOOGLE_GMAIL_CLIENT_SECRET": "gmail-secret",
		"ACME_IO_CLIENT_ID":          "acme-id", // a public client: no secret
		"NOID_CLIENT_SECRET":         "orphan",  // a secret without an id configures nothing
	}
	got := PluginClients(func(k string) string { return env[k] }, []string{"google-gmail", "acme.io", "noid", "unset"})
	want := map[string]OAuthClient{
		"google-gmail": {ID: "gmail-id", Secret: "gmail-secret"},
		"acme.io":      {ID: "acme-id"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("PluginClients = %+v, want %+v", got, want)
	}
}
