package plugins

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// contractCase is one reference-plugin tool called against a fake that checks the request exactly as
// the provider documents it (GitHub REST API 2022-11-28; New Relic NerdGraph).
type contractCase struct {
	tool string
	args string
	// the request the provider must receive (declarative tools)
	method, path, query string
	header              map[string]string
	body                string // JSON; "" means no body
	// the provider's answer
	status   int
	respond  any
	linkNext string
	// what the agent gets back
	want string
}

const githubToken = "gho_contract_token"

var githubHeaders = map[string]string{
	"Authorization":        "Bearer " + githubToken,
	"Accept":               "application/vnd.github+json",
	"X-Github-Api-Version": "2022-11-28",
}

var ghOwner = map[string]any{"login": "octocat", "id": 1, "avatar_url": "https://avatars.githubusercontent.com/u/1", "type": "User", "site_admin": false}

var ghRepo = map[string]any{
	"id": 1296269, "node_id": "MDEwOlJlcG9zaXRvcnkxMjk2MjY5", "name": "Hello-World", "full_name": "octocat/Hello-World",
	"owner": ghOwner, "private": false, "visibility": "public", "html_url": "https://github.com/octocat/Hello-World",
	"description": "This your first repo!", "fork": false, "url": "https://api.github.com/repos/octocat/Hello-World",
	"default_branch": "master", "language": "C", "topics": []any{"octocat", "api"}, "stargazers_count": 80, "watchers_count": 80,
	"forks_count": 9, "open_issues_count": 0, "archived": false, "pushed_at": "2011-01-26T19:06:43Z",
	"created_at": "2011-01-26T19:01:12Z", "updated_at": "2011-01-26T19:14:43Z", "permissions": map[string]any{"admin": false, "push": false, "pull": true},
}

const ghRepoShaped = `{"full_name":"octocat/Hello-World","name":"Hello-World","owner":{"login":"octocat"},"private":false,
 "visibility":"public","description":"This your first repo!","html_url":"https://github.com/octocat/Hello-World",
 "default_branch":"master","language":"C","topics":["octocat","api"],"stargazers_count":80,"forks_count":9,
 "open_issues_count":0,"archived":false,"pushed_at":"2011-01-26T19:06:43Z","created_at":"2011-01-26T19:01:12Z",
 "updated_at":"2011-01-26T19:14:43Z"}`

var ghPull = map[string]any{
	"url": "https://api.github.com/repos/octocat/Hello-World/pulls/1347", "id": 1, "number": 1347, "state": "open",
	"locked": true, "title": "Amazing new feature", "user": ghOwner, "body": "Please pull these awesome changes in!",
	"draft": false, "head": map[string]any{"label": "octocat:new-topic", "ref": "new-topic", "sha": "6dcb09b"},
	"base":     map[string]any{"label": "octocat:master", "ref": "master", "sha": "6dcb09b"},
	"html_url": "https://github.com/octocat/Hello-World/pull/1347", "created_at": "2011-01-26T19:01:12Z",
	"updated_at": "2011-01-26T19:01:12Z", "merged_at": nil,
}

// contractCases holds every tool's contract case. This file holds the reference plugins'; each catalog
// integration adds its own from contract_<integration>_test.go in an init function, together with the
// credential its fake expects (contractTokens for oauth2, contractAPIKeys for apikey).
var contractCases = []contractCase{
	{
		tool: "github_get_authenticated_user", args: `{}`,
		method: "GET", path: "/user", header: githubHeaders,
		status: 200, respond: map[string]any{"login": "octocat", "id": 1, "node_id": "MDQ6VXNlcjE=", "name": "monalisa octocat",
			"company": "GitHub", "blog": "https://github.com/blog", "location": "San Francisco", "email": "octocat@github.com",
			"bio": "There once was...", "public_repos": 2, "followers": 20, "following": 0, "html_url": "https://github.com/octocat",
			"created_at": "2008-01-14T04:33:35Z", "plan": map[string]any{"name": "Medium", "space": 400}},
		want: `{"login":"octocat","id":1,"name":"monalisa octocat","email":"octocat@github.com","company":"GitHub",
		 "location":"San Francisco","bio":"There once was...","public_repos":2,"followers":20,"html_url":"https://github.com/octocat",
		 "created_at":"2008-01-14T04:33:35Z"}`,
	},
	{
		tool: "github_list_repos", args: `{"visibility":"private"}`,
		method: "GET", path: "/user/repos", query: "page=1&per_page=30&sort=updated&visibility=private", header: githubHeaders,
		status: 200, respond: []any{ghRepo},
		linkNext: `<https://api.github.com/user/repos?page=2&per_page=30&sort=updated&visibility=private>; rel="next", <https://api.github.com/user/repos?page=5>; rel="last"`,
		want: `{"items":[{"full_name":"octocat/Hello-World","name":"Hello-World","owner":{"login":"octocat"},"private":false,
		 "description":"This your first repo!","html_url":"https://github.com/octocat/Hello-World","default_branch":"master",
		 "language":"C","stargazers_count":80,"open_issues_count":0,"pushed_at":"2011-01-26T19:06:43Z","updated_at":"2011-01-26T19:14:43Z"}],
		 "next_cursor":"2"}`,
	},
	{
		tool: "github_get_repo", args: `{"owner":"octocat","repo":"Hello-World"}`,
		method: "GET", path: "/repos/octocat/Hello-World", header: githubHeaders,
		status: 200, respond: ghRepo, want: ghRepoShaped,
	},
	{
		tool: "github_list_pull_requests", args: `{"owner":"octocat","repo":"Hello-World","state":"all","base":"master","page":3}`,
		method: "GET", path: "/repos/octocat/Hello-World/pulls", query: "base=master&page=3&per_page=30&sort=created&state=all", header: githubHeaders,
		status: 200, respond: []any{ghPull},
		want: `{"items":[{"number":1347,"title":"Amazing new feature","state":"open","draft":false,"user":{"login":"octocat"},
		 "head":{"ref":"new-topic"},"base":{"ref":"master"},"html_url":"https://github.com/octocat/Hello-World/pull/1347",
		 "created_at":"2011-01-26T19:01:12Z","updated_at":"2011-01-26T19:01:12Z","merged_at":null}]}`,
	},
	{
		tool: "github_create_issue", args: `{"owner":"octocat","repo":"Hello-World","title":"Found a bug","body":"I'm having a problem with this.","labels":["bug"],"milestone":1}`,
		method: "POST", path: "/repos/octocat/Hello-World/issues", header: map[string]string{
			"Authorization": "Bearer " + githubToken, "Accept": "application/vnd.github+json", "X-Github-Api-Version": "2022-11-28",
			"Content-Type": "application/json"},
		body:   `{"title":"Found a bug","body":"I'm having a problem with this.","labels":["bug"],"milestone":1}`,
		status: 201, respond: map[string]any{"id": 1, "number": 1347, "state": "open", "title": "Found a bug", "body": "I'm having a problem with this.",
			"user": ghOwner, "labels": []any{map[string]any{"id": 208045946, "name": "bug", "color": "f29513"}}, "assignees": []any{},
			"html_url": "https://github.com/octocat/Hello-World/issues/1347", "created_at": "2011-04-22T13:33:48Z"},
		want: `{"number":1347,"title":"Found a bug","state":"open","html_url":"https://github.com/octocat/Hello-World/issues/1347",
		 "labels":[{"name":"bug"}],"assignees":[],"created_at":"2011-04-22T13:33:48Z"}`,
	},
	{
		tool: "newrelic_get_current_user", args: `{}`,
		method: "POST", path: "/graphql", header: map[string]string{"Api-Key": "NRAK-contract", "Content-Type": "application/json"},
		body:   `{"query":"{ actor { user { id name email } accounts { id name } } }"}`,
		status: 200, respond: map[string]any{"data": map[string]any{"actor": map[string]any{
			"user":     map[string]any{"id": 1000, "name": "Ada", "email": "ada@example.com"},
			"accounts": []any{map[string]any{"id": 1234567, "name": "Production"}}}}},
		want: `{"user":{"id":1000,"name":"Ada","email":"ada@example.com"},"accounts":[{"id":1234567,"name":"Production"}]}`,
	},
	{
		tool: "newrelic_run_nrql", args: `{"account_id":1234567,"nrql":"SELECT count(*) FROM Transaction SINCE 1 hour ago"}`,
		method: "POST", path: "/graphql", header: map[string]string{"Api-Key": "NRAK-contract", "Content-Type": "application/json"},
		body: `{"query":"query($accountId: Int!, $nrql: Nrql!, $timeout: Seconds) { actor { account(id: $accountId) { nrql(query: $nrql, timeout: $timeout) { results } } } }",
		 "variables":{"accountId":1234567,"nrql":"SELECT count(*) FROM Transaction SINCE 1 hour ago","timeout":30}}`,
		status: 200, respond: map[string]any{"data": map[string]any{"actor": map[string]any{"account": map[string]any{"nrql": map[string]any{
			"results": []any{map[string]any{"count": 4242}}}}}}},
		want: `[{"count":4242}]`,
	},
	{tool: "utils_echo", args: `{"message":"hello, world"}`, want: `{"message":"hello, world"}`},
	{tool: "utils_hash", args: `{"text":"abc"}`, want: `{"algorithm":"sha256","encoding":"hex","digest":"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}`},
	{tool: "utils_time", args: `{"timezone":"Asia/Kolkata"}`}, // checked below: the clock moves
	{tool: "utils_uuid", args: `{"version":7,"count":3}`},     // checked below: random
}

// contractTokens is the bearer token each oauth2 integration's fake expects (default "contract-token").
var contractTokens = map[string]string{"github": githubToken}

// contractCredentials are the post-consent values (auth.oauth2.post_consent) each integration's
// connection stored, passed as ContextOptions.Credential.
var contractCredentials = map[string]map[string]string{}

// contractAPIKeys are the portal fields each apikey integration's fake expects.
var contractAPIKeys = map[string]map[string]string{"newrelic": {"api_key": "NRAK-contract"}}

func contextFor(t *testing.T, r *Registry, tool string, fake *fakeProvider) ContextOptions {
	t.Helper()
	tl, _ := r.Tool(tool)
	opts := ContextOptions{UserID: "user-1", Credential: contractCredentials[tl.Integration]}
	if fake != nil {
		opts.Transport = fake.transport
	}
	switch tl.Owner().Auth.Mode {
	case AuthOAuth2:
		token := contractTokens[tl.Integration]
		if token == "" {
			token = "contract-token"
		}
		getToken := func(context.Context) (string, error) { return token, nil }
		opts.GetToken, opts.Injector = getToken, BearerInjector(getToken)
	case AuthAPIKey:
		fields, ok := contractAPIKeys[tl.Integration]
		if !ok {
			t.Fatalf("no contractAPIKeys entry for %s", tl.Integration)
		}
		inj, err := tl.Owner().APIKeyInjector(fields)
		if err != nil {
			t.Fatal(err)
		}
		opts.Injector = inj
	}
	return opts
}

func TestToolContracts(t *testing.T) {
	r := builtinRegistry(t)
	covered := map[string]bool{}
	for _, tc := range contractCases {
		covered[tc.tool] = true
		t.Run(tc.tool, func(t *testing.T) {
			var fake *fakeProvider
			var seen *[]seenRequest
			if tc.method != "" {
				fake, seen = newFakeProvider(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
					if tc.linkNext != "" {
						w.Header().Set("Link", tc.linkNext)
					}
					writeJSON(w, tc.status, tc.respond)
				})
			}
			out, err := call(t, r, tc.tool, tc.args, contextFor(t, r, tc.tool, fake))
			if err != nil {
				t.Fatalf("execute: %v", err)
			}
			if tc.method != "" {
				if len(*seen) != 1 {
					t.Fatalf("want one request, got %d", len(*seen))
				}
				got := (*seen)[0]
				tl, _ := r.Tool(tc.tool)
				wantHost := tl.Owner().baseURL.Host
				if got.Method != tc.method || got.Host != wantHost || got.Path != tc.path || got.RawQuery != tc.query {
					t.Errorf("request %s https://%s%s?%s, want %s https://%s%s?%s", got.Method, got.Host, got.Path, got.RawQuery, tc.method, wantHost, tc.path, tc.query)
				}
				for k, v := range tc.header {
					if got.Header.Get(k) != v {
						t.Errorf("header %s = %q, want %q", k, got.Header.Get(k), v)
					}
				}
				if tc.body == "" && len(got.Body) != 0 {
					t.Errorf("unexpected body %s", got.Body)
				}
				if tc.body != "" {
					if diff := cmp.Diff(mustJSON(t, []byte(tc.body)), mustJSON(t, got.Body)); diff != "" {
						t.Errorf("body (-want +got):\n%s", diff)
					}
				}
			}
			switch tc.tool {
			case "utils_time":
				var res map[string]any
				_ = json.Unmarshal(out, &res)
				if res["offset_seconds"] != float64(19800) || res["abbreviation"] != "IST" || !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+05:30$`).MatchString(res["time"].(string)) {
					t.Errorf("utils_time result %s", out)
				}
			case "utils_uuid":
				var res struct{ UUIDs []string }
				_ = json.Unmarshal(out, &res)
				v7 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
				if len(res.UUIDs) != 3 || res.UUIDs[0] == res.UUIDs[1] {
					t.Errorf("utils_uuid result %s", out)
				}
				for _, u := range res.UUIDs {
					if !v7.MatchString(u) {
						t.Errorf("%s is not a version 7 UUID", u)
					}
				}
			default:
				if diff := cmp.Diff(mustJSON(t, []byte(tc.want)), mustJSON(t, out)); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
			}
		})
	}
	for _, tl := range r.Tools() {
		if !covered[tl.Name] {
			t.Errorf("tool %s has no contract case", tl.Name)
		}
	}
}

func TestUtilsErrors(t *testing.T) {
	r := builtinRegistry(t)
	tests := []struct{ tool, args, want string }{
		{"utils_time", `{"timezone":"Mars/Olympus_Mons"}`, `utils_time: unknown IANA time zone "Mars/Olympus_Mons"`},
		{"utils_time", `{"timezone":"Local"}`, `utils_time: unknown IANA time zone "Local"`},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			_, err := call(t, r, tc.tool, tc.args, ContextOptions{})
			if err == nil || err.Error() != "invalid: "+tc.want {
				t.Errorf("got %v, want %s", err, tc.want)
			}
		})
	}
	t.Run("hash algorithms", func(t *testing.T) {
		for alg, want := range map[string]string{"md5": "900150983cd24fb0d6963f7d28e17f72", "sha1": "a9993e364706816aba3e25717850c26c9cd0d89d"} {
			out, err := call(t, r, "utils_hash", `{"text":"abc","algorithm":"`+alg+`"}`, ContextOptions{})
			if err != nil || string(out) != `{"algorithm":"`+alg+`","digest":"`+want+`","encoding":"hex"}` {
				t.Errorf("%s: %s %v", alg, out, err)
			}
		}
		out, _ := call(t, r, "utils_hash", `{"text":"abc","encoding":"base64"}`, ContextOptions{})
		if string(out) != `{"algorithm":"sha256","digest":"ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=","encoding":"base64"}` {
			t.Errorf("base64: %s", out)
		}
	})
}
