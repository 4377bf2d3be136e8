package github_test

// Contract cases for the github tools, against the GitHub REST API 2022-11-28 as documented at
// docs.github.com/en/rest (user, repos, issues, pulls, branches, commits, contents, search, releases,
// actions). Responses are the documented examples, trimmed.

import (
	"net/http"
	"strings"
	"testing"

	"github.com/workbench/workbench/plugins/github"
	"github.com/workbench/workbench/plugins/plugintest"
)

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

var ghWriteHeaders = map[string]string{
	"Authorization": "Bearer " + githubToken, "Accept": "application/vnd.github+json",
	"X-Github-Api-Version": "2022-11-28", "Content-Type": "application/json",
}

var ghIssue = map[string]any{
	"id": 1, "node_id": "MDU6SXNzdWUx", "url": "https://api.github.com/repos/octocat/Hello-World/issues/1347",
	"number": 1347, "state": "open", "state_reason": nil, "title": "Found a bug", "body": "I'm having a problem with this.",
	"user": ghOwner, "labels": []any{map[string]any{"id": 208045946, "name": "bug", "color": "f29513", "default": true}},
	"assignee": ghOwner, "assignees": []any{ghOwner}, "milestone": map[string]any{"id": 1002604, "number": 1, "title": "v1.0", "state": "open"},
	"locked": false, "comments": 0, "html_url": "https://github.com/octocat/Hello-World/issues/1347",
	"closed_at": nil, "created_at": "2011-04-22T13:33:48Z", "updated_at": "2011-04-22T13:33:48Z",
	"author_association": "COLLABORATOR",
}

var ghReview = map[string]any{
	"id": 80, "node_id": "MDE3OlB1bGxSZXF1ZXN0UmV2aWV3ODA=", "user": ghOwner,
	"body": "Here is the body for the review.", "state": "APPROVED",
	"html_url":  "https://github.com/octocat/Hello-World/pull/12#pullrequestreview-80",
	"commit_id": "ecdd80bb57125d7ba9641ffaa4d7d2c19d3f3091", "submitted_at": "2019-11-17T17:43:43Z", "author_association": "COLLABORATOR",
}

const ghReviewShaped = `{"id":80,"user":{"login":"octocat"},"state":"APPROVED","body":"Here is the body for the review.",
 "commit_id":"ecdd80bb57125d7ba9641ffaa4d7d2c19d3f3091","submitted_at":"2019-11-17T17:43:43Z",
 "html_url":"https://github.com/octocat/Hello-World/pull/12#pullrequestreview-80"}`

// creds are what the fake expects of the github connection.
var creds = plugintest.Credentials{Token: githubToken}

// TestContracts calls every github tool against a fake that checks the request as the provider documents it.
func TestContracts(t *testing.T) {
	plugintest.Contracts(t, github.Plugin(), creds, contracts())
}

// contracts are the github tools' contract cases.
func contracts() []plugintest.Case {
	return []plugintest.Case{
		{
			Tool: "github_get_authenticated_user", Args: `{}`,
			Method: "GET", Path: "/user", Header: githubHeaders,
			Status: 200, Respond: map[string]any{"login": "octocat", "id": 1, "node_id": "MDQ6VXNlcjE=", "name": "monalisa octocat",
				"company": "GitHub", "blog": "https://github.com/blog", "location": "San Francisco", "email": "octocat@github.com",
				"bio": "There once was...", "public_repos": 2, "followers": 20, "following": 0, "html_url": "https://github.com/octocat",
				"created_at": "2008-01-14T04:33:35Z", "plan": map[string]any{"name": "Medium", "space": 400}},
			Want: `{"login":"octocat","id":1,"name":"monalisa octocat","email":"octocat@github.com","company":"GitHub",
		 "location":"San Francisco","bio":"There once was...","public_repos":2,"followers":20,"html_url":"https://github.com/octocat",
		 "created_at":"2008-01-14T04:33:35Z"}`,
		},
		{
			Tool: "github_list_repos", Args: `{"visibility":"private"}`,
			Method: "GET", Path: "/user/repos", Query: "page=1&per_page=30&sort=updated&visibility=private", Header: githubHeaders,
			Status: 200, Respond: []any{ghRepo},
			LinkNext: `<https://api.github.com/user/repos?page=2&per_page=30&sort=updated&visibility=private>; rel="next", <https://api.github.com/user/repos?page=5>; rel="last"`,
			Want: `{"items":[{"full_name":"octocat/Hello-World","name":"Hello-World","owner":{"login":"octocat"},"private":false,
		 "description":"This your first repo!","html_url":"https://github.com/octocat/Hello-World","default_branch":"master",
		 "language":"C","stargazers_count":80,"open_issues_count":0,"pushed_at":"2011-01-26T19:06:43Z","updated_at":"2011-01-26T19:14:43Z"}],
		 "next_cursor":"2"}`,
		},
		{
			Tool: "github_get_repo", Args: `{"owner":"octocat","repo":"Hello-World"}`,
			Method: "GET", Path: "/repos/octocat/Hello-World", Header: githubHeaders,
			Status: 200, Respond: ghRepo, Want: ghRepoShaped,
		},
		{
			Tool: "github_list_pull_requests", Args: `{"owner":"octocat","repo":"Hello-World","state":"all","base":"master","page":3}`,
			Method: "GET", Path: "/repos/octocat/Hello-World/pulls", Query: "base=master&page=3&per_page=30&sort=created&state=all", Header: githubHeaders,
			Status: 200, Respond: []any{ghPull},
			Want: `{"items":[{"number":1347,"title":"Amazing new feature","state":"open","draft":false,"user":{"login":"octocat"},
		 "head":{"ref":"new-topic"},"base":{"ref":"master"},"html_url":"https://github.com/octocat/Hello-World/pull/1347",
		 "created_at":"2011-01-26T19:01:12Z","updated_at":"2011-01-26T19:01:12Z","merged_at":null}]}`,
		},
		{
			Tool: "github_create_issue", Args: `{"owner":"octocat","repo":"Hello-World","title":"Found a bug","body":"I'm having a problem with this.","labels":["bug"],"milestone":1}`,
			Method: "POST", Path: "/repos/octocat/Hello-World/issues", Header: map[string]string{
				"Authorization": "Bearer " + githubToken, "Accept": "application/vnd.github+json", "X-Github-Api-Version": "2022-11-28",
				"Content-Type": "application/json"},
			Body:   `{"title":"Found a bug","body":"I'm having a problem with this.","labels":["bug"],"milestone":1}`,
			Status: 201, Respond: map[string]any{"id": 1, "number": 1347, "state": "open", "title": "Found a bug", "body": "I'm having a problem with this.",
				"user": ghOwner, "labels": []any{map[string]any{"id": 208045946, "name": "bug", "color": "f29513"}}, "assignees": []any{},
				"html_url": "https://github.com/octocat/Hello-World/issues/1347", "created_at": "2011-04-22T13:33:48Z"},
			Want: `{"number":1347,"title":"Found a bug","state":"open","html_url":"https://github.com/octocat/Hello-World/issues/1347",
		 "labels":[{"name":"bug"}],"assignees":[],"created_at":"2011-04-22T13:33:48Z"}`,
		},
		{
			Tool: "github_list_issues", Args: `{"owner":"octocat","repo":"Hello-World","labels":["bug","ui"],"since":"2011-04-01T00:00:00Z","page":2}`,
			Method: "GET", Path: "/repos/octocat/Hello-World/issues",
			Query: "direction=desc&labels=bug%2Cui&page=2&per_page=30&since=2011-04-01T00%3A00%3A00Z&sort=created&state=open", Header: githubHeaders,
			Status: 200, Respond: []any{ghIssue},
			LinkNext: `<https://api.github.com/repositories/1300192/issues?page=3>; rel="next", <https://api.github.com/repositories/1300192/issues?page=1>; rel="prev"`,
			Want: `{"items":[{"number":1347,"title":"Found a bug","state":"open","user":{"login":"octocat"},"labels":[{"name":"bug"}],
			 "assignees":[{"login":"octocat"}],"comments":0,"html_url":"https://github.com/octocat/Hello-World/issues/1347",
			 "created_at":"2011-04-22T13:33:48Z","updated_at":"2011-04-22T13:33:48Z","closed_at":null}],"next_cursor":"3"}`,
		},
		{
			Tool: "github_get_issue", Args: `{"owner":"octocat","repo":"Hello-World","issue_number":1347}`,
			Method: "GET", Path: "/repos/octocat/Hello-World/issues/1347", Header: githubHeaders,
			Status: 200, Respond: ghIssue,
			Want: `{"number":1347,"title":"Found a bug","state":"open","state_reason":null,"body":"I'm having a problem with this.",
			 "user":{"login":"octocat"},"labels":[{"name":"bug"}],"assignees":[{"login":"octocat"}],"milestone":{"title":"v1.0"},
			 "comments":0,"html_url":"https://github.com/octocat/Hello-World/issues/1347","created_at":"2011-04-22T13:33:48Z",
			 "updated_at":"2011-04-22T13:33:48Z","closed_at":null}`,
		},
		{
			Tool: "github_create_issue_comment", Args: `{"owner":"octocat","repo":"Hello-World","issue_number":1347,"body":"Me too"}`,
			Method: "POST", Path: "/repos/octocat/Hello-World/issues/1347/comments", Header: ghWriteHeaders,
			Body:   `{"body":"Me too"}`,
			Status: 201, Respond: map[string]any{"id": 1, "node_id": "MDEyOklzc3VlQ29tbWVudDE=", "url": "https://api.github.com/repos/octocat/Hello-World/issues/comments/1",
				"html_url": "https://github.com/octocat/Hello-World/issues/1347#issuecomment-1", "body": "Me too", "user": ghOwner,
				"created_at": "2011-04-14T16:00:49Z", "updated_at": "2011-04-14T16:00:49Z", "author_association": "COLLABORATOR"},
			Want: `{"id":1,"html_url":"https://github.com/octocat/Hello-World/issues/1347#issuecomment-1","body":"Me too",
			 "user":{"login":"octocat"},"created_at":"2011-04-14T16:00:49Z"}`,
		},
		{
			Tool: "github_update_issue", Args: `{"owner":"octocat","repo":"Hello-World","issue_number":1347,"state":"closed","state_reason":"completed","labels":[],"milestone":null}`,
			Method: "PATCH", Path: "/repos/octocat/Hello-World/issues/1347", Header: ghWriteHeaders,
			Body:   `{"state":"closed","state_reason":"completed","labels":[],"milestone":null}`,
			Status: 200, Respond: map[string]any{"id": 1, "number": 1347, "state": "closed", "state_reason": "completed", "title": "Found a bug",
				"user": ghOwner, "labels": []any{}, "assignees": []any{ghOwner}, "milestone": nil,
				"html_url": "https://github.com/octocat/Hello-World/issues/1347", "updated_at": "2011-04-23T10:00:00Z", "closed_at": "2011-04-23T10:00:00Z"},
			Want: `{"number":1347,"title":"Found a bug","state":"closed","state_reason":"completed","labels":[],"assignees":[{"login":"octocat"}],
			 "milestone":null,"html_url":"https://github.com/octocat/Hello-World/issues/1347","updated_at":"2011-04-23T10:00:00Z","closed_at":"2011-04-23T10:00:00Z"}`,
		},
		{
			Tool: "github_get_pull_request", Args: `{"owner":"octocat","repo":"Hello-World","pull_number":1347}`,
			Method: "GET", Path: "/repos/octocat/Hello-World/pulls/1347", Header: githubHeaders,
			Status: 200, Respond: func() map[string]any {
				pr := map[string]any{"merged": false, "mergeable": true, "mergeable_state": "clean", "merged_by": nil, "comments": 10,
					"review_comments": 0, "commits": 3, "additions": 100, "deletions": 3, "changed_files": 5,
					"requested_reviewers": []any{map[string]any{"login": "other_user", "id": 2}}, "labels": []any{}}
				for k, v := range ghPull {
					pr[k] = v
				}
				return pr
			}(),
			Want: `{"number":1347,"title":"Amazing new feature","state":"open","draft":false,"merged":false,"mergeable":true,
			 "mergeable_state":"clean","body":"Please pull these awesome changes in!","user":{"login":"octocat"},
			 "head":{"ref":"new-topic","sha":"6dcb09b"},"base":{"ref":"master"},"html_url":"https://github.com/octocat/Hello-World/pull/1347",
			 "commits":3,"additions":100,"deletions":3,"changed_files":5,"comments":10,"review_comments":0,
			 "requested_reviewers":[{"login":"other_user"}],"labels":[],"created_at":"2011-01-26T19:01:12Z",
			 "updated_at":"2011-01-26T19:01:12Z","merged_at":null,"merged_by":null}`,
		},
		{
			Tool: "github_create_pull_request", Args: `{"owner":"octocat","repo":"Hello-World","title":"Amazing new feature","head":"octocat:new-feature","base":"master","body":"Please pull these awesome changes in!"}`,
			Method: "POST", Path: "/repos/octocat/Hello-World/pulls", Header: ghWriteHeaders,
			Body:   `{"title":"Amazing new feature","head":"octocat:new-feature","base":"master","body":"Please pull these awesome changes in!","draft":false}`,
			Status: 201, Respond: ghPull,
			Want: `{"number":1347,"title":"Amazing new feature","state":"open","draft":false,"head":{"ref":"new-topic"},"base":{"ref":"master"},
			 "html_url":"https://github.com/octocat/Hello-World/pull/1347","created_at":"2011-01-26T19:01:12Z"}`,
		},
		{
			Tool: "github_merge_pull_request", Args: `{"owner":"octocat","repo":"Hello-World","pull_number":1347,"merge_method":"squash","commit_title":"Expand enum","sha":"6dcb09b5b57875f334f61aebed695e2e4193db5e"}`,
			Method: "PUT", Path: "/repos/octocat/Hello-World/pulls/1347/merge", Header: ghWriteHeaders,
			Body:   `{"merge_method":"squash","commit_title":"Expand enum","sha":"6dcb09b5b57875f334f61aebed695e2e4193db5e"}`,
			Status: 200, Respond: map[string]any{"sha": "6dcb09b5b57875f334f61aebed695e2e4193db5e", "merged": true, "message": "Pull Request successfully merged"},
			Want: `{"sha":"6dcb09b5b57875f334f61aebed695e2e4193db5e","merged":true,"message":"Pull Request successfully merged"}`,
		},
		{
			Tool: "github_list_pull_request_reviews", Args: `{"owner":"octocat","repo":"Hello-World","pull_number":12}`,
			Method: "GET", Path: "/repos/octocat/Hello-World/pulls/12/reviews", Query: "page=1&per_page=30", Header: githubHeaders,
			Status: 200, Respond: []any{ghReview},
			Want: `{"items":[` + ghReviewShaped + `]}`,
		},
		{
			Tool: "github_create_pull_request_review", Args: `{"owner":"octocat","repo":"Hello-World","pull_number":12,"event":"APPROVE","body":"Here is the body for the review."}`,
			Method: "POST", Path: "/repos/octocat/Hello-World/pulls/12/reviews", Header: ghWriteHeaders,
			Body:   `{"event":"APPROVE","body":"Here is the body for the review."}`,
			Status: 200, Respond: ghReview, Want: ghReviewShaped,
		},
		{
			Tool: "github_list_pull_request_files", Args: `{"owner":"octocat","repo":"Hello-World","pull_number":1347,"per_page":100}`,
			Method: "GET", Path: "/repos/octocat/Hello-World/pulls/1347/files", Query: "page=1&per_page=100", Header: githubHeaders,
			Status: 200, Respond: []any{map[string]any{"sha": "bbcd538c8e72b8c175046e27cc8f907076331401", "filename": "file1.txt", "status": "added",
				"additions": 103, "deletions": 21, "changes": 124, "blob_url": "https://github.com/octocat/Hello-World/blob/6dcb09b/file1.txt",
				"patch": "@@ -132,7 +132,7 @@ module Test @@ -1000,7 +1000,7 @@ module Test"}},
			Want: `{"items":[{"filename":"file1.txt","status":"added","additions":103,"deletions":21,"changes":124,
			 "patch":"@@ -132,7 +132,7 @@ module Test @@ -1000,7 +1000,7 @@ module Test"}]}`,
		},
		{
			Tool: "github_list_branches", Args: `{"owner":"octocat","repo":"Hello-World","protected":true}`,
			Method: "GET", Path: "/repos/octocat/Hello-World/branches", Query: "page=1&per_page=30&protected=true", Header: githubHeaders,
			Status: 200, Respond: []any{map[string]any{"name": "master", "protected": true,
				"commit": map[string]any{"sha": "c5b97d5ae6c19d5c5df71a34c7fbeeda2479ccbc", "url": "https://api.github.com/repos/octocat/Hello-World/commits/c5b97d5ae6c19d5c5df71a34c7fbeeda2479ccbc"}}},
			LinkNext: `<https://api.github.com/repositories/1296269/branches?protected=true&page=2>; rel="next"`,
			Want:     `{"items":[{"name":"master","commit":{"sha":"c5b97d5ae6c19d5c5df71a34c7fbeeda2479ccbc"},"protected":true}],"next_cursor":"2"}`,
		},
		{
			Tool: "github_list_commits", Args: `{"owner":"octocat","repo":"Hello-World","sha":"main","path":"README","per_page":5}`,
			Method: "GET", Path: "/repos/octocat/Hello-World/commits", Query: "page=1&path=README&per_page=5&sha=main", Header: githubHeaders,
			Status: 200, Respond: []any{map[string]any{"sha": "6dcb09b5b57875f334f61aebed695e2e4193db5e", "node_id": "MDY6Q29tbWl0NmRjYjA5YjViNTc4NzVmMzM0ZjYxYWViZWQ2OTVlMmU0MTkzZGI1ZQ==",
				"html_url": "https://github.com/octocat/Hello-World/commit/6dcb09b5b57875f334f61aebed695e2e4193db5e",
				"commit": map[string]any{"message": "Fix all the bugs", "author": map[string]any{"name": "Monalisa Octocat", "email": "support@github.com", "date": "2011-04-14T16:00:49Z"},
					"tree": map[string]any{"sha": "6dcb09b5b57875f334f61aebed695e2e4193db5e"}},
				"author": ghOwner, "parents": []any{}}},
			Want: `{"items":[{"sha":"6dcb09b5b57875f334f61aebed695e2e4193db5e","commit":{"message":"Fix all the bugs",
			 "author":{"name":"Monalisa Octocat","date":"2011-04-14T16:00:49Z"}},"author":{"login":"octocat"},
			 "html_url":"https://github.com/octocat/Hello-World/commit/6dcb09b5b57875f334f61aebed695e2e4193db5e"}]}`,
		},
		{
			Tool: "github_get_file_contents", Args: `{"owner":"octocat","repo":"Hello-World","path":"docs/README.md","ref":"v1.0"}`,
			Method: "GET", Path: "/repos/octocat/Hello-World/contents/docs/README.md", Query: "ref=v1.0", Header: githubHeaders,
			Status: 200, Respond: map[string]any{"type": "file", "encoding": "base64", "size": 13, "name": "README.md", "path": "docs/README.md",
				"content": "SGVsbG8gV29y\nbGQhCg==\n", "sha": "3d21ec53a331a6f037a91c368710b99387d012c1",
				"url":      "https://api.github.com/repos/octocat/Hello-World/contents/docs/README.md",
				"html_url": "https://github.com/octocat/Hello-World/blob/v1.0/docs/README.md", "download_url": "https://raw.githubusercontent.com/octocat/Hello-World/v1.0/docs/README.md"},
			Want: `{"type":"file","name":"README.md","path":"docs/README.md","sha":"3d21ec53a331a6f037a91c368710b99387d012c1","size":13,
			 "html_url":"https://github.com/octocat/Hello-World/blob/v1.0/docs/README.md","encoding":"utf-8","content":"Hello World!\n"}`,
		},
		{
			Tool: "github_get_file_contents", Args: `{"owner":"octocat","repo":"Hello-World"}`,
			Method: "GET", Path: "/repos/octocat/Hello-World/contents/", Header: githubHeaders,
			Status: 200, Respond: []any{
				map[string]any{"type": "file", "size": 625, "name": "octokit.rb", "path": "lib/octokit.rb", "sha": "fff6fe3a23bf1c8ea0692b4a883af99bee26fd3b"},
				map[string]any{"type": "dir", "size": 0, "name": "octokit", "path": "lib/octokit", "sha": "a84d88e7554fc1fa21bcbc4efae3c782a70d2b9d"}},
			Want: `{"type":"dir","path":"","entries":[{"name":"octokit.rb","path":"lib/octokit.rb","type":"file","size":625,"sha":"fff6fe3a23bf1c8ea0692b4a883af99bee26fd3b"},
			 {"name":"octokit","path":"lib/octokit","type":"dir","size":0,"sha":"a84d88e7554fc1fa21bcbc4efae3c782a70d2b9d"}]}`,
		},
		{
			Tool: "github_search_code", Args: `{"q":"addClass in:file language:js repo:jquery/jquery"}`,
			Method: "GET", Path: "/search/code", Query: "page=1&per_page=30&q=addClass+in%3Afile+language%3Ajs+repo%3Ajquery%2Fjquery", Header: githubHeaders,
			Status: 200, Respond: map[string]any{"total_count": 7, "incomplete_results": false, "items": []any{map[string]any{
				"name": "classes.js", "path": "src/attributes/classes.js", "sha": "d7212f9dee2dcc18f084d7df8f417b80846ded5a",
				"url":      "https://api.github.com/repositories/167174/contents/src/attributes/classes.js?ref=825ac37",
				"html_url": "https://github.com/jquery/jquery/blob/825ac37/src/attributes/classes.js", "score": 1,
				"repository": map[string]any{"id": 167174, "name": "jquery", "full_name": "jquery/jquery", "owner": map[string]any{"login": "jquery"}}}}},
			LinkNext: `<https://api.github.com/search/code?q=addClass&page=2>; rel="next"`,
			Want: `{"items":[{"name":"classes.js","path":"src/attributes/classes.js","sha":"d7212f9dee2dcc18f084d7df8f417b80846ded5a",
			 "repository":{"full_name":"jquery/jquery"},"html_url":"https://github.com/jquery/jquery/blob/825ac37/src/attributes/classes.js"}],"next_cursor":"2"}`,
		},
		{
			Tool: "github_search_issues", Args: `{"q":"windows label:bug language:python state:open is:issue","sort":"created","order":"asc"}`,
			Method: "GET", Path: "/search/issues", Query: "order=asc&page=1&per_page=30&q=windows+label%3Abug+language%3Apython+state%3Aopen+is%3Aissue&sort=created", Header: githubHeaders,
			Status: 200, Respond: map[string]any{"total_count": 280, "incomplete_results": false, "items": []any{map[string]any{
				"url": "https://api.github.com/repos/batterseapower/pinyin-toolkit/issues/132", "repository_url": "https://api.github.com/repos/batterseapower/pinyin-toolkit",
				"html_url": "https://github.com/batterseapower/pinyin-toolkit/issues/132", "id": 35802, "number": 132, "title": "Line Number Indexes Beyond 20 Not Displayed",
				"user": map[string]any{"login": "Nick3C", "id": 90254}, "labels": []any{map[string]any{"id": 4, "name": "bug", "color": "ff0000"}},
				"state": "open", "comments": 15, "created_at": "2009-07-12T20:10:41Z", "updated_at": "2009-07-19T09:23:43Z", "score": 1}}},
			Want: `{"items":[{"number":132,"title":"Line Number Indexes Beyond 20 Not Displayed","state":"open",
			 "repository_url":"https://api.github.com/repos/batterseapower/pinyin-toolkit","user":{"login":"Nick3C"},"labels":[{"name":"bug"}],
			 "comments":15,"html_url":"https://github.com/batterseapower/pinyin-toolkit/issues/132","created_at":"2009-07-12T20:10:41Z","updated_at":"2009-07-19T09:23:43Z"}]}`,
		},
		{
			Tool: "github_list_releases", Args: `{"owner":"octocat","repo":"Hello-World","per_page":10}`,
			Method: "GET", Path: "/repos/octocat/Hello-World/releases", Query: "page=1&per_page=10", Header: githubHeaders,
			Status: 200, Respond: []any{map[string]any{"url": "https://api.github.com/repos/octocat/Hello-World/releases/1",
				"html_url": "https://github.com/octocat/Hello-World/releases/v1.0.0", "id": 1, "author": ghOwner, "tag_name": "v1.0.0",
				"target_commitish": "master", "name": "v1.0.0", "body": "Description of the release", "draft": false, "prerelease": false,
				"created_at": "2013-02-27T19:35:32Z", "published_at": "2013-02-27T19:35:32Z", "assets": []any{}}},
			Want: `{"items":[{"id":1,"tag_name":"v1.0.0","name":"v1.0.0","draft":false,"prerelease":false,"author":{"login":"octocat"},
			 "created_at":"2013-02-27T19:35:32Z","published_at":"2013-02-27T19:35:32Z","html_url":"https://github.com/octocat/Hello-World/releases/v1.0.0",
			 "body":"Description of the release"}]}`,
		},
		{
			Tool: "github_list_workflow_runs", Args: `{"owner":"octo-org","repo":"octo-repo","branch":"main","status":"failure","per_page":5}`,
			Method: "GET", Path: "/repos/octo-org/octo-repo/actions/runs", Query: "branch=main&page=1&per_page=5&status=failure", Header: githubHeaders,
			Status: 200, Respond: map[string]any{"total_count": 1, "workflow_runs": []any{map[string]any{
				"id": 30433642, "name": "Build", "node_id": "MDEyOldvcmtmbG93IFJ1bjI2OTI4OQ==", "head_branch": "main",
				"head_sha": "acb5820ced9479c074f688cc328bf03f341a511d", "path": ".github/workflows/build.yml@main", "display_title": "Update README.md",
				"run_number": 562, "event": "push", "status": "completed", "conclusion": "failure", "workflow_id": 159038,
				"html_url": "https://github.com/octo-org/octo-repo/actions/runs/30433642", "actor": ghOwner,
				"created_at": "2020-01-22T19:33:08Z", "updated_at": "2020-01-22T19:33:08Z", "run_attempt": 1}}},
			LinkNext: `<https://api.github.com/repositories/1296269/actions/runs?branch=main&status=failure&per_page=5&page=2>; rel="next"`,
			Want: `{"items":[{"id":30433642,"name":"Build","display_title":"Update README.md","run_number":562,"event":"push","status":"completed",
			 "conclusion":"failure","head_branch":"main","head_sha":"acb5820ced9479c074f688cc328bf03f341a511d","actor":{"login":"octocat"},
			 "html_url":"https://github.com/octo-org/octo-repo/actions/runs/30433642","created_at":"2020-01-22T19:33:08Z","updated_at":"2020-01-22T19:33:08Z"}],
			 "next_cursor":"2"}`,
		},
	}
}

// TestGithubFileContentsPath checks what the Go handler exists for: a multi-segment file path reaches
// GitHub with its slashes as separators and every segment escaped on its own, and an argument that
// would climb out of the contents path is refused before any request.
func TestGithubFileContentsPath(t *testing.T) {
	r := plugintest.Registry(t, github.Plugin())
	tests := []struct {
		name, args, wantRawPath, wantErr string
	}{
		{name: "nested path with a space", args: `{"owner":"octocat","repo":"Hello-World","path":"/docs/a b/c#1.md"}`,
			wantRawPath: "/repos/octocat/Hello-World/contents/docs/a%20b/c%231.md"},
		{name: "dot-dot segment", args: `{"owner":"octocat","repo":"Hello-World","path":"docs/../../secrets"}`, wantErr: "has an empty, . or .. segment"},
		{name: "empty segment", args: `{"owner":"octocat","repo":"Hello-World","path":"docs//x"}`, wantErr: "has an empty, . or .. segment"},
		{name: "slash in owner", args: `{"owner":"octocat/x","repo":"Hello-World","path":"a"}`, wantErr: "is not a single path segment"},
		{name: "not found", args: `{"owner":"octocat","repo":"Hello-World","path":"missing.txt"}`,
			wantRawPath: "/repos/octocat/Hello-World/contents/missing.txt", wantErr: "GitHub answered HTTP 404: Not Found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake, seen := plugintest.NewFake(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
				if strings.HasSuffix(r.URL.Path, "missing.txt") {
					plugintest.WriteJSON(w, 404, map[string]any{"message": "Not Found", "documentation_url": "https://docs.github.com/rest/repos/contents#get-repository-content"})
					return
				}
				plugintest.WriteJSON(w, 200, map[string]any{"type": "file", "encoding": "base64", "content": "", "name": "x", "path": "x"})
			})
			_, err := plugintest.Call(t, r, "github_get_file_contents", tc.args, plugintest.ContextFor(t, r, "github_get_file_contents", creds, fake))
			if tc.wantRawPath != "" {
				if len(*seen) != 1 || (*seen)[0].RawPath != tc.wantRawPath {
					t.Fatalf("requests %+v, want one to %s", *seen, tc.wantRawPath)
				}
			} else if len(*seen) != 0 {
				t.Fatalf("a refused call reached the provider: %+v", *seen)
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}
