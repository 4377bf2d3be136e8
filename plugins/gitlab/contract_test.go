package gitlab_test

// Contract cases for the gitlab plugin, against the GitLab REST API v4 as documented at
// docs.gitlab.com/api (projects, issues, merge_requests, pipelines, jobs, repository_files, branches,
// commits, notes). Responses are the documented examples, trimmed.

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/workbench/workbench/plugins/gitlab"
	"github.com/workbench/workbench/plugins/plugintest"
)

const gitlabToken = "gitlab-oauth-contract-token"

var gitlabHeaders = map[string]string{"Authorization": "Bearer " + gitlabToken, "Accept": "application/json"}

var gitlabWriteHeaders = map[string]string{"Authorization": "Bearer " + gitlabToken, "Content-Type": "application/json"}

var glUser = map[string]any{"id": 1, "username": "admin", "name": "Administrator", "state": "active", "web_url": "https://gitlab.example.com/admin"}

var glProject = map[string]any{
	"id": 4, "description": "Auto-generated description", "name": "Diaspora Client", "name_with_namespace": "Diaspora / Diaspora Client",
	"path": "diaspora-client", "path_with_namespace": "diaspora/diaspora-client", "created_at": "2013-09-30T13:46:02Z",
	"default_branch": "main", "topics": []any{"example"}, "ssh_url_to_repo": "git@gitlab.com:diaspora/diaspora-client.git",
	"http_url_to_repo": "https://gitlab.com/diaspora/diaspora-client.git", "web_url": "https://gitlab.com/diaspora/diaspora-client",
	"visibility": "private", "archived": false, "star_count": 0, "forks_count": 0, "open_issues_count": 1,
	"last_activity_at": "2013-09-30T13:46:02Z", "namespace": map[string]any{"id": 3, "name": "Diaspora"},
}

var glIssue = map[string]any{
	"id": 76, "iid": 6, "project_id": 8, "title": "Consequatur vero maxime deserunt laboriosam est voluptas dolorem.",
	"description": "Ratione dolores corrupti mollitia soluta quia.", "state": "opened", "created_at": "2016-01-04T15:31:51.081Z",
	"updated_at": "2016-01-04T15:31:51.081Z", "closed_at": nil, "closed_by": nil, "labels": []any{"foo", "bar"},
	"milestone": map[string]any{"id": 1, "iid": 1, "title": "v1.0", "state": "active"}, "assignees": []any{glUser}, "author": glUser,
	"user_notes_count": 1, "due_date": "2016-07-22", "confidential": false, "web_url": "https://gitlab.com/my-group/my-project/issues/6",
}

var glMR = map[string]any{
	"id": 1, "iid": 1, "project_id": 3, "title": "test1", "description": "fixed login page css paddings", "state": "opened",
	"draft": false, "source_branch": "test1", "target_branch": "main", "sha": "8888888888888888888888888888888888888888",
	"author": glUser, "assignees": []any{glUser}, "reviewers": []any{map[string]any{"id": 2, "username": "walker", "name": "Walker"}},
	"labels": []any{"Community contribution"}, "detailed_merge_status": "not_open", "has_conflicts": false, "user_notes_count": 1,
	"changes_count": "1", "head_pipeline": map[string]any{"id": 33, "sha": "8888888888888888888888888888888888888888", "status": "success"},
	"web_url": "http://gitlab.example.com/my-group/my-project/merge_requests/1", "created_at": "2017-04-29T08:46:00Z",
	"updated_at": "2017-04-29T08:46:00Z", "merged_at": nil, "merged_by": nil,
}

var glNote = map[string]any{
	"id": 302, "body": "closed", "attachment": nil, "author": glUser, "created_at": "2013-10-02T09:22:45Z", "updated_at": "2013-10-02T10:22:45Z",
	"system": true, "noteable_id": 377, "noteable_type": "Issue", "project_id": 5, "noteable_iid": 377, "resolvable": false, "internal": false,
}

// creds are what the fake expects of the gitlab connection.
var creds = plugintest.Credentials{Token: gitlabToken}

// TestContracts calls every gitlab tool against a fake that checks the request as the provider documents it.
func TestContracts(t *testing.T) {
	plugintest.Contracts(t, gitlab.Plugin(), creds, contracts())
}

// contracts are the gitlab tools' contract cases.
func contracts() []plugintest.Case {
	return []plugintest.Case{
		{
			Tool: "gitlab_list_projects", Args: `{"search":"diaspora"}`,
			Method: "GET", Path: "/api/v4/projects", Query: "membership=true&order_by=last_activity_at&page=1&per_page=20&search=diaspora&sort=desc", Header: gitlabHeaders,
			Status: 200, Respond: []any{glProject},
			LinkNext: `<https://gitlab.com/api/v4/projects?membership=true&page=2&per_page=20>; rel="next", <https://gitlab.com/api/v4/projects?page=1&per_page=20>; rel="first"`,
			Want: `{"items":[{"id":4,"name":"Diaspora Client","path_with_namespace":"diaspora/diaspora-client","description":"Auto-generated description",
			 "default_branch":"main","visibility":"private","web_url":"https://gitlab.com/diaspora/diaspora-client","archived":false,"star_count":0,
			 "open_issues_count":1,"last_activity_at":"2013-09-30T13:46:02Z"}],"next_cursor":"2"}`,
		},
		{
			Tool: "gitlab_get_project", Args: `{"project_id":"diaspora/diaspora-client"}`,
			Method: "GET", Path: "/api/v4/projects/diaspora/diaspora-client", Header: gitlabHeaders,
			Status: 200, Respond: glProject,
			Want: `{"id":4,"name":"Diaspora Client","path_with_namespace":"diaspora/diaspora-client","description":"Auto-generated description",
			 "default_branch":"main","visibility":"private","web_url":"https://gitlab.com/diaspora/diaspora-client",
			 "http_url_to_repo":"https://gitlab.com/diaspora/diaspora-client.git","ssh_url_to_repo":"git@gitlab.com:diaspora/diaspora-client.git",
			 "topics":["example"],"archived":false,"star_count":0,"forks_count":0,"open_issues_count":1,"created_at":"2013-09-30T13:46:02Z",
			 "last_activity_at":"2013-09-30T13:46:02Z"}`,
		},
		{
			Tool: "gitlab_list_issues", Args: `{"project_id":"8","labels":["foo","bar"],"assignee_username":"admin"}`,
			Method: "GET", Path: "/api/v4/projects/8/issues", Query: "assignee_username=admin&labels=foo%2Cbar&order_by=created_at&page=1&per_page=20&sort=desc&state=opened", Header: gitlabHeaders,
			Status: 200, Respond: []any{glIssue},
			Want: `{"items":[{"iid":6,"id":76,"title":"Consequatur vero maxime deserunt laboriosam est voluptas dolorem.","state":"opened",
			 "labels":["foo","bar"],"author":{"username":"admin"},"assignees":[{"username":"admin"}],"milestone":{"title":"v1.0"},
			 "due_date":"2016-07-22","user_notes_count":1,"web_url":"https://gitlab.com/my-group/my-project/issues/6",
			 "created_at":"2016-01-04T15:31:51.081Z","updated_at":"2016-01-04T15:31:51.081Z","closed_at":null}]}`,
		},
		{
			Tool: "gitlab_get_issue", Args: `{"project_id":"8","issue_iid":6}`,
			Method: "GET", Path: "/api/v4/projects/8/issues/6", Header: gitlabHeaders,
			Status: 200, Respond: glIssue,
			Want: `{"iid":6,"id":76,"title":"Consequatur vero maxime deserunt laboriosam est voluptas dolorem.",
			 "description":"Ratione dolores corrupti mollitia soluta quia.","state":"opened","labels":["foo","bar"],"author":{"username":"admin"},
			 "assignees":[{"username":"admin"}],"milestone":{"title":"v1.0"},"due_date":"2016-07-22","confidential":false,"user_notes_count":1,
			 "web_url":"https://gitlab.com/my-group/my-project/issues/6","created_at":"2016-01-04T15:31:51.081Z",
			 "updated_at":"2016-01-04T15:31:51.081Z","closed_at":null,"closed_by":null}`,
		},
		{
			Tool: "gitlab_create_issue", Args: `{"project_id":"4","title":"Issues with auth","labels":"bug,ui","assignee_ids":[1],"due_date":"2016-07-22"}`,
			Method: "POST", Path: "/api/v4/projects/4/issues", Header: gitlabWriteHeaders,
			Body:   `{"title":"Issues with auth","labels":"bug,ui","assignee_ids":[1],"due_date":"2016-07-22"}`,
			Status: 201, Respond: map[string]any{"id": 84, "iid": 14, "project_id": 4, "title": "Issues with auth", "state": "opened",
				"labels": []any{"bug", "ui"}, "assignees": []any{glUser}, "author": glUser, "web_url": "http://gitlab.example.com/my-group/my-project/issues/14",
				"created_at": "2016-01-07T12:44:33.959Z"},
			Want: `{"iid":14,"id":84,"title":"Issues with auth","state":"opened","labels":["bug","ui"],"assignees":[{"username":"admin"}],
			 "web_url":"http://gitlab.example.com/my-group/my-project/issues/14","created_at":"2016-01-07T12:44:33.959Z"}`,
		},
		{
			Tool: "gitlab_update_issue", Args: `{"project_id":"4","issue_iid":85,"state_event":"close","add_labels":"done"}`,
			Method: "PUT", Path: "/api/v4/projects/4/issues/85", Header: gitlabWriteHeaders,
			Body:   `{"state_event":"close","add_labels":"done"}`,
			Status: 200, Respond: map[string]any{"id": 85, "iid": 85, "project_id": 4, "title": "Issues with auth", "state": "closed",
				"labels": []any{"bug", "done"}, "assignees": []any{}, "milestone": nil, "due_date": nil,
				"web_url": "http://gitlab.example.com/my-group/my-project/issues/85", "updated_at": "2016-01-07T12:55:16.213Z", "closed_at": "2016-01-08T12:55:16.213Z"},
			Want: `{"iid":85,"id":85,"title":"Issues with auth","state":"closed","labels":["bug","done"],"assignees":[],"milestone":null,"due_date":null,
			 "web_url":"http://gitlab.example.com/my-group/my-project/issues/85","updated_at":"2016-01-07T12:55:16.213Z","closed_at":"2016-01-08T12:55:16.213Z"}`,
		},
		{
			Tool: "gitlab_list_merge_requests", Args: `{"project_id":"3","state":"all","target_branch":"main"}`,
			Method: "GET", Path: "/api/v4/projects/3/merge_requests", Query: "order_by=created_at&page=1&per_page=20&sort=desc&state=all&target_branch=main", Header: gitlabHeaders,
			Status: 200, Respond: []any{glMR},
			Want: `{"items":[{"iid":1,"id":1,"title":"test1","state":"opened","draft":false,"source_branch":"test1","target_branch":"main",
			 "author":{"username":"admin"},"assignees":[{"username":"admin"}],"reviewers":[{"username":"walker"}],"labels":["Community contribution"],
			 "detailed_merge_status":"not_open","web_url":"http://gitlab.example.com/my-group/my-project/merge_requests/1",
			 "created_at":"2017-04-29T08:46:00Z","updated_at":"2017-04-29T08:46:00Z","merged_at":null}]}`,
		},
		{
			Tool: "gitlab_get_merge_request", Args: `{"project_id":"3","merge_request_iid":1}`,
			Method: "GET", Path: "/api/v4/projects/3/merge_requests/1", Header: gitlabHeaders,
			Status: 200, Respond: glMR,
			Want: `{"iid":1,"id":1,"title":"test1","description":"fixed login page css paddings","state":"opened","draft":false,
			 "source_branch":"test1","target_branch":"main","sha":"8888888888888888888888888888888888888888","detailed_merge_status":"not_open",
			 "has_conflicts":false,"author":{"username":"admin"},"assignees":[{"username":"admin"}],"reviewers":[{"username":"walker"}],
			 "labels":["Community contribution"],"head_pipeline":{"id":33,"status":"success"},"user_notes_count":1,"changes_count":"1",
			 "web_url":"http://gitlab.example.com/my-group/my-project/merge_requests/1","created_at":"2017-04-29T08:46:00Z",
			 "updated_at":"2017-04-29T08:46:00Z","merged_at":null,"merged_by":null}`,
		},
		{
			Tool: "gitlab_list_merge_request_diffs", Args: `{"project_id":"3","merge_request_iid":1,"per_page":50}`,
			Method: "GET", Path: "/api/v4/projects/3/merge_requests/1/diffs", Query: "page=1&per_page=50", Header: gitlabHeaders,
			Status: 200, Respond: []any{map[string]any{"old_path": "README", "new_path": "README", "a_mode": "100644", "b_mode": "100644",
				"diff": "@@ -1 +1 @@\n-Title\n+README", "new_file": false, "renamed_file": false, "deleted_file": false, "generated_file": false}},
			Want: `{"items":[{"old_path":"README","new_path":"README","new_file":false,"renamed_file":false,"deleted_file":false,"diff":"@@ -1 +1 @@\n-Title\n+README"}]}`,
		},
		{
			Tool: "gitlab_create_merge_request", Args: `{"project_id":"3","source_branch":"test1","target_branch":"main","title":"test1","remove_source_branch":true}`,
			Method: "POST", Path: "/api/v4/projects/3/merge_requests", Header: gitlabWriteHeaders,
			Body:   `{"source_branch":"test1","target_branch":"main","title":"test1","remove_source_branch":true}`,
			Status: 201, Respond: glMR,
			Want: `{"iid":1,"id":1,"title":"test1","state":"opened","draft":false,"source_branch":"test1","target_branch":"main",
			 "detailed_merge_status":"not_open","web_url":"http://gitlab.example.com/my-group/my-project/merge_requests/1","created_at":"2017-04-29T08:46:00Z"}`,
		},
		{
			Tool: "gitlab_list_pipelines", Args: `{"project_id":"1","ref":"new-pipeline","status":"failed"}`,
			Method: "GET", Path: "/api/v4/projects/1/pipelines", Query: "order_by=id&page=1&per_page=20&ref=new-pipeline&sort=desc&status=failed", Header: gitlabHeaders,
			Status: 200, Respond: []any{map[string]any{"id": 47, "iid": 12, "project_id": 1, "status": "failed", "source": "push", "ref": "new-pipeline",
				"sha": "a91957a858320c0e17f3a0eca7cfacbff50ea29a", "web_url": "https://example.com/foo/bar/pipelines/47",
				"created_at": "2016-08-11T11:28:34.085Z", "updated_at": "2016-08-11T11:32:35.169Z"}},
			Want: `{"items":[{"id":47,"iid":12,"status":"failed","source":"push","ref":"new-pipeline","sha":"a91957a858320c0e17f3a0eca7cfacbff50ea29a",
			 "web_url":"https://example.com/foo/bar/pipelines/47","created_at":"2016-08-11T11:28:34.085Z","updated_at":"2016-08-11T11:32:35.169Z"}]}`,
		},
		{
			Tool: "gitlab_list_pipeline_jobs", Args: `{"project_id":"1","pipeline_id":6,"scope":"failed"}`,
			Method: "GET", Path: "/api/v4/projects/1/pipelines/6/jobs", Query: "include_retried=false&page=1&per_page=20&scope=failed", Header: gitlabHeaders,
			Status: 200, Respond: []any{map[string]any{"id": 7, "name": "teaspoon", "stage": "test", "status": "failed", "failure_reason": "script_failure",
				"allow_failure": false, "ref": "main", "tag": false, "coverage": nil, "duration": 0.465, "queued_duration": 0.01,
				"created_at": "2015-12-24T15:51:21.880Z", "started_at": "2015-12-24T17:54:30.733Z", "finished_at": "2015-12-24T17:54:31.198Z",
				"web_url": "https://example.com/foo/bar/-/jobs/7", "pipeline": map[string]any{"id": 6, "status": "failed"}, "user": glUser}},
			Want: `{"items":[{"id":7,"name":"teaspoon","stage":"test","status":"failed","failure_reason":"script_failure","allow_failure":false,
			 "ref":"main","duration":0.465,"web_url":"https://example.com/foo/bar/-/jobs/7","created_at":"2015-12-24T15:51:21.880Z",
			 "started_at":"2015-12-24T17:54:30.733Z","finished_at":"2015-12-24T17:54:31.198Z"}]}`,
		},
		{
			Tool: "gitlab_get_job_log", Args: `{"project_id":"1","job_id":7}`,
			Method: "GET", Path: "/api/v4/projects/1/jobs/7/trace", Header: gitlabHeaders,
			// GitLab answers text/plain; this harness writes JSON, so the text shape is in TestGitlabPlainText.
			Status: 200, Respond: "Running with gitlab-runner 16.0\n",
			Want: `"Running with gitlab-runner 16.0\n"`,
		},
		{
			Tool: "gitlab_get_file", Args: `{"project_id":"13083","file_path":"config/settings.json","ref":"main"}`,
			Method: "GET", Path: "/api/v4/projects/13083/repository/files/config/settings.json/raw", Query: "ref=main", Header: gitlabHeaders,
			Status: 200, Respond: map[string]any{"name": "example", "replicas": 3},
			Want: `{"name":"example","replicas":3}`, // a JSON file comes back as its JSON; text files: TestGitlabPlainText
		},
		{
			Tool: "gitlab_list_branches", Args: `{"project_id":"5","search":"^feat"}`,
			Method: "GET", Path: "/api/v4/projects/5/repository/branches", Query: "page=1&per_page=20&search=%5Efeat", Header: gitlabHeaders,
			Status: 200, Respond: []any{map[string]any{"name": "feature-x", "merged": false, "protected": false, "default": false,
				"developers_can_push": false, "developers_can_merge": false, "can_push": true, "web_url": "https://gitlab.example.com/my-group/my-project/-/tree/feature-x",
				"commit": map[string]any{"id": "7b5c3cc8be40ee161ae89a06bba6229da1032a0c", "short_id": "7b5c3cc", "title": "add projects API",
					"author_name": "John Smith", "committed_date": "2012-06-28T03:44:20-07:00", "message": "add projects API"}}},
			Want: `{"items":[{"name":"feature-x","default":false,"protected":false,"merged":false,"commit":{"id":"7b5c3cc8be40ee161ae89a06bba6229da1032a0c",
			 "title":"add projects API","committed_date":"2012-06-28T03:44:20-07:00"},"web_url":"https://gitlab.example.com/my-group/my-project/-/tree/feature-x"}]}`,
		},
		{
			Tool: "gitlab_list_commits", Args: `{"project_id":"5","ref_name":"main","since":"2012-09-20T09:06:12Z"}`,
			Method: "GET", Path: "/api/v4/projects/5/repository/commits", Query: "page=1&per_page=20&ref_name=main&since=2012-09-20T09%3A06%3A12Z", Header: gitlabHeaders,
			Status: 200, Respond: []any{map[string]any{"id": "ed899a2f4b50b4370feeea94676502b42383c746", "short_id": "ed899a2f4b5",
				"title": "Replace sanitize with escape once", "author_name": "Example User", "author_email": "user@example.com",
				"authored_date": "2021-09-20T11:50:22.001+03:00", "committer_name": "Administrator", "created_at": "2021-09-20T11:50:22.001+03:00",
				"message": "Replace sanitize with escape once", "parent_ids": []any{"6104942438c14ec7bd21c6cd5bd995272b3faff6"},
				"web_url": "https://gitlab.example.com/janedoe/gitlab-foss/-/commit/ed899a2f4b50b4370feeea94676502b42383c746"}},
			Want: `{"items":[{"id":"ed899a2f4b50b4370feeea94676502b42383c746","short_id":"ed899a2f4b5","title":"Replace sanitize with escape once",
			 "message":"Replace sanitize with escape once","author_name":"Example User","author_email":"user@example.com",
			 "authored_date":"2021-09-20T11:50:22.001+03:00","web_url":"https://gitlab.example.com/janedoe/gitlab-foss/-/commit/ed899a2f4b50b4370feeea94676502b42383c746"}]}`,
		},
		{
			Tool: "gitlab_create_issue_note", Args: `{"project_id":"5","issue_iid":377,"body":"closed"}`,
			Method: "POST", Path: "/api/v4/projects/5/issues/377/notes", Header: gitlabWriteHeaders,
			Body:   `{"body":"closed","internal":false}`,
			Status: 201, Respond: glNote,
			Want: `{"id":302,"body":"closed","author":{"username":"admin"},"internal":false,"noteable_iid":377,"created_at":"2013-10-02T09:22:45Z"}`,
		},
		{
			Tool: "gitlab_list_merge_request_notes", Args: `{"project_id":"5","merge_request_iid":11}`,
			Method: "GET", Path: "/api/v4/projects/5/merge_requests/11/notes", Query: "order_by=created_at&page=1&per_page=20&sort=asc", Header: gitlabHeaders,
			Status: 200, Respond: []any{glNote},
			Want: `{"items":[{"id":302,"body":"closed","author":{"username":"admin"},"system":true,"resolvable":false,
			 "created_at":"2013-10-02T09:22:45Z","updated_at":"2013-10-02T10:22:45Z"}]}`,
		},
		{
			Tool: "gitlab_create_merge_request_note", Args: `{"project_id":"5","merge_request_iid":11,"body":"Looks good"}`,
			Method: "POST", Path: "/api/v4/projects/5/merge_requests/11/notes", Header: gitlabWriteHeaders,
			Body:   `{"body":"Looks good"}`,
			Status: 201, Respond: map[string]any{"id": 303, "body": "Looks good", "author": glUser, "created_at": "2013-10-02T09:22:45Z",
				"system": false, "noteable_type": "MergeRequest", "noteable_iid": 11},
			Want: `{"id":303,"body":"Looks good","author":{"username":"admin"},"noteable_iid":11,"created_at":"2013-10-02T09:22:45Z"}`,
		},
	}
}

// TestGitlabPathEscaping checks the form GitLab requires for a project path and a file path in the URL:
// each "/" inside the argument sent as %2F (docs.gitlab.com/api/rest, "Namespaced paths" and
// "File path, branches, and tags name encoding").
func TestGitlabPathEscaping(t *testing.T) {
	r := plugintest.Registry(t, gitlab.Plugin())
	tests := []struct{ name, tool, args, wantRawPath string }{
		{"project path", "gitlab_get_project", `{"project_id":"gitlab-org/gitlab"}`, "/api/v4/projects/gitlab-org%2Fgitlab"},
		{"file path", "gitlab_get_file", `{"project_id":"13083","file_path":"app/models/key.rb"}`, "/api/v4/projects/13083/repository/files/app%2Fmodels%2Fkey.rb/raw"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake, seen := plugintest.NewFake(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) { plugintest.WriteJSON(w, 200, map[string]any{}) })
			if _, err := plugintest.Call(t, r, tc.tool, tc.args, plugintest.ContextFor(t, r, tc.tool, creds, fake)); err != nil {
				t.Fatal(err)
			}
			if len(*seen) != 1 || (*seen)[0].RawPath != tc.wantRawPath {
				t.Fatalf("requests %+v, want one to %s", *seen, tc.wantRawPath)
			}
		})
	}
}

// TestGitlabPlainText checks the two tools whose answer is text/plain (a job log, a raw file): the
// agent gets {"status": 200, "text": …}.
func TestGitlabPlainText(t *testing.T) {
	r := plugintest.Registry(t, gitlab.Plugin())
	const log = "Running with gitlab-runner 16.0\n$ bundle exec rake\nERROR: Job failed: exit code 1\n"
	tests := []struct{ name, tool, args string }{
		{"job log", "gitlab_get_job_log", `{"project_id":"1","job_id":7}`},
		{"raw file", "gitlab_get_file", `{"project_id":"1","file_path":"ci.log"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake, _ := plugintest.NewFake(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
				w.Header().Set("Content-Type", "text/plain")
				_, _ = w.Write([]byte(log))
			})
			out, err := plugintest.Call(t, r, tc.tool, tc.args, plugintest.ContextFor(t, r, tc.tool, creds, fake))
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Status int    `json:"status"`
				Text   string `json:"text"`
			}
			if err := json.Unmarshal(out, &got); err != nil || got.Status != 200 || got.Text != log {
				t.Fatalf("result %s (%v)", out, err)
			}
		})
	}
}
