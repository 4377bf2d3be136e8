package plugins

import (
	"net/http"
	"strings"
	"testing"

	"github.com/workbench/workbench/domain"
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

// The Atlassian tools take no cloud id: it comes from the connection (post_consent), and a
// connection without one is told to reconnect before any request leaves.
func TestAtlassianCloudIDFromTheConnection(t *testing.T) {
	r := builtinRegistry(t)
	for _, name := range []string{"atlassian-jira", "atlassian-confluence"} {
		in, _ := r.Integration(name)
		if keys := in.CredentialKeys(); len(keys) != 1 || keys[0] != "cloud_id" {
			t.Fatalf("%s: credential keys %v", name, keys)
		}
		for _, tl := range in.Tools() {
			if strings.Contains(string(tl.InputSchema), "cloud_id") {
				t.Errorf("%s still takes a cloud_id argument", tl.Name)
			}
		}
		proxy, err := in.ResolveProxyBaseURL(map[string]string{"cloud_id": "c1"})
		want := "https://api.atlassian.com/ex/" + strings.TrimPrefix(name, "atlassian-") + "/c1"
		if err != nil || proxy.String() != want {
			t.Errorf("%s proxy base %v %v, want %s", name, proxy, err, want)
		}
	}
	fake, seen := newFakeProvider(t, func(w http.ResponseWriter, r *http.Request, body []byte) { writeJSON(w, 200, map[string]any{}) })
	opts := contextFor(t, r, "atlassian_jira_get_myself", fake)
	opts.Credential = nil
	_, err := call(t, r, "atlassian_jira_get_myself", `{}`, opts)
	if domain.ErrorCode(err) != domain.CodeNotConnected || !strings.Contains(domain.ErrorMessage(err), "connect('atlassian-jira')") || len(*seen) != 0 {
		t.Fatalf("without a cloud id: %v after %d requests", err, len(*seen))
	}
	// list_sites needs no cloud id.
	if _, err := call(t, r, "atlassian_jira_list_sites", `{}`, opts); err != nil {
		t.Fatalf("list_sites: %v", err)
	}
}

// Slack's search.messages needs the user token: the manifest injects authed_user's token, falling back
// to the bot token, and accepts Slack's token types.
func TestSlackInjectsTheUserToken(t *testing.T) {
	r := builtinRegistry(t)
	slack, _ := r.Integration("slack")
	o := slack.Auth.OAuth2
	if got := o.Sources(); len(got) != 2 || got[0] != TokenFromAuthedUser || got[1] != TokenFromAccessToken {
		t.Fatalf("token sources %v", got)
	}
	if len(o.TokenTypes) != 2 || o.AuthorizeParams["user_scope"] == "" || !strings.Contains(o.AuthorizeParams["user_scope"], "search:read") {
		t.Fatalf("token_types %v, user_scope %q", o.TokenTypes, o.AuthorizeParams["user_scope"])
	}
}
