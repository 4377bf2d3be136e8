package plugins

import (
	"strings"
	"testing"
)

// Google issues a refresh token only for access_type=offline, and again on a later consent only with
// prompt=consent (developers.google.com/identity/protocols/oauth2/web-server#offline), so every
// Google integration must ask for both.
func TestGoogleManifestsAskForOfflineAccess(t *testing.T) {
	r := builtinRegistry(t)
	seen := 0
	for _, in := range r.Integrations() {
		if !strings.HasPrefix(in.Name, "google-") {
			continue
		}
		seen++
		o := in.Auth.OAuth2
		if o == nil || o.AuthorizeParams["access_type"] != "offline" || o.AuthorizeParams["prompt"] != "consent" {
			t.Errorf("%s: authorize_params %v, want access_type=offline and prompt=consent", in.Name, o)
		}
	}
	if seen < 3 {
		t.Fatalf("found %d Google integrations, want gmail, drive and calendar", seen)
	}
}
