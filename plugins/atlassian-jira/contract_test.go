package jira_test

// Contract cases for the atlassian-jira plugin (Jira Cloud REST API v3 and the Jira Software agile API
// 1.0, called through https://api.atlassian.com/ex/jira/{cloudid} as OAuth 2.0 (3LO) apps must; the
// cloud id is looked up from /oauth/token/accessible-resources after consent, stored with the
// credential and filled into {credential.cloud_id}, so no tool takes it as an argument). Responses are
// trimmed from the documented examples.

import (
	"testing"

	"github.com/workbench/workbench/plugins/atlassian-jira"
	"github.com/workbench/workbench/plugins/plugintest"
)

const atlassianToken = "atlassian-3lo-contract"

var (
	atlassianHeaders     = map[string]string{"Authorization": "Bearer " + atlassianToken, "Accept": "application/json"}
	atlassianBodyHeaders = map[string]string{"Authorization": "Bearer " + atlassianToken, "Accept": "application/json", "Content-Type": "application/json"}
)

// creds are what the fake expects of the atlassian-jira connection.
var creds = plugintest.Credentials{Token: atlassianToken, Credential: map[string]string{"cloud_id": "11223344-a1b2-3b33-c444-def123456789"}}

// TestContracts calls every atlassian-jira tool against a fake that checks the request as the provider documents it.
func TestContracts(t *testing.T) {
	plugintest.Contracts(t, jira.Plugin(), creds, contracts())
}

// contracts are the atlassian-jira tools' contract cases.
func contracts() []plugintest.Case {
	return []plugintest.Case{
		{
			Tool: "atlassian_jira_list_sites", Args: "{}",
			Method: "GET", Path: "/oauth/token/accessible-resources", Header: atlassianHeaders,
			Status: 200, Respond: plugintest.JSON("[{\"id\": \"11223344-a1b2-3b33-c444-def123456789\", \"name\": \"your-domain\", \"url\": \"https://your-domain.atlassian.net\", \"scopes\": [\"write:jira-work\", \"read:jira-user\", \"manage:jira-configuration\"], \"avatarUrl\": \"https://site-admin-avatar-cdn.prod.public.atl-paas.net/avatars/240/flag.png\"}]"),
			Want: "[{\"id\": \"11223344-a1b2-3b33-c444-def123456789\", \"name\": \"your-domain\", \"url\": \"https://your-domain.atlassian.net\", \"scopes\": [\"write:jira-work\", \"read:jira-user\", \"manage:jira-configuration\"]}]",
		},
		{
			Tool: "atlassian_jira_get_myself", Args: "{}",
			Method: "GET", Path: "/ex/jira/11223344-a1b2-3b33-c444-def123456789/rest/api/3/myself", Header: atlassianHeaders,
			Status: 200, Respond: plugintest.JSON("{\"self\": \"https://your-domain.atlassian.net/rest/api/3/user?accountId=5b10a2844c20165700ede21g\", \"accountId\": \"5b10a2844c20165700ede21g\", \"accountType\": \"atlassian\", \"emailAddress\": \"mia@example.com\", \"avatarUrls\": {\"48x48\": \"https://avatar-management--avatars.server-location.prod.public.atl-paas.net/initials/MK-5.png?size=48&s=48\"}, \"displayName\": \"Mia Krystof\", \"active\": true, \"timeZone\": \"Australia/Sydney\", \"locale\": \"en_US\", \"groups\": {\"size\": 3, \"items\": []}}"),
			Want: "{\"accountId\": \"5b10a2844c20165700ede21g\", \"accountType\": \"atlassian\", \"displayName\": \"Mia Krystof\", \"emailAddress\": \"mia@example.com\", \"timeZone\": \"Australia/Sydney\", \"locale\": \"en_US\", \"active\": true}",
		},
		{
			Tool: "atlassian_jira_search_issues", Args: "{\"jql\": \"project = ED AND status != Done ORDER BY updated DESC\", \"max_results\": 1}",
			Method: "GET", Path: "/ex/jira/11223344-a1b2-3b33-c444-def123456789/rest/api/3/search/jql", Header: atlassianHeaders, Query: "fields=summary%2Cstatus%2Cassignee%2Cpriority%2Cissuetype%2Cupdated&jql=project+%3D+ED+AND+status+%21%3D+Done+ORDER+BY+updated+DESC&maxResults=1",
			Status: 200, Respond: plugintest.JSON("{\"issues\": [{\"expand\": \"renderedFields,names\", \"id\": \"10002\", \"key\": \"ED-1\", \"self\": \"https://your-domain.atlassian.net/rest/api/3/issue/10002\", \"fields\": {\"summary\": \"Login fails on Safari\", \"status\": {\"name\": \"In Progress\", \"id\": \"3\"}, \"assignee\": {\"accountId\": \"5b10a2844c20165700ede21g\", \"displayName\": \"Mia Krystof\"}, \"priority\": {\"name\": \"High\", \"id\": \"2\"}, \"issuetype\": {\"name\": \"Bug\", \"id\": \"10004\"}, \"updated\": \"2024-05-02T10:15:00.000+0000\"}}], \"nextPageToken\": \"CAEaAggD\", \"isLast\": false}"),
			Want: "{\"items\": [{\"id\": \"10002\", \"key\": \"ED-1\", \"fields\": {\"summary\": \"Login fails on Safari\", \"status\": {\"name\": \"In Progress\", \"id\": \"3\"}, \"assignee\": {\"accountId\": \"5b10a2844c20165700ede21g\", \"displayName\": \"Mia Krystof\"}, \"priority\": {\"name\": \"High\", \"id\": \"2\"}, \"issuetype\": {\"name\": \"Bug\", \"id\": \"10004\"}, \"updated\": \"2024-05-02T10:15:00.000+0000\"}}], \"next_cursor\": \"CAEaAggD\"}",
		},
		{
			Tool: "atlassian_jira_get_issue", Args: "{\"issue_key\": \"ED-1\", \"fields\": [\"summary\", \"status\"]}",
			Method: "GET", Path: "/ex/jira/11223344-a1b2-3b33-c444-def123456789/rest/api/3/issue/ED-1", Header: atlassianHeaders, Query: "fields=summary%2Cstatus",
			Status: 200, Respond: plugintest.JSON("{\"id\": \"10002\", \"key\": \"ED-1\", \"self\": \"https://your-domain.atlassian.net/rest/api/3/issue/10002\", \"fields\": {\"summary\": \"Login fails on Safari\", \"status\": {\"name\": \"In Progress\", \"id\": \"3\"}}}"),
			Want: "{\"id\": \"10002\", \"key\": \"ED-1\", \"fields\": {\"summary\": \"Login fails on Safari\", \"status\": {\"name\": \"In Progress\", \"id\": \"3\"}}}",
		},
		{
			Tool: "atlassian_jira_create_issue", Args: "{\"fields\": {\"project\": {\"key\": \"ED\"}, \"summary\": \"Login fails on Safari\", \"issuetype\": {\"name\": \"Bug\"}, \"description\": {\"type\": \"doc\", \"version\": 1, \"content\": [{\"type\": \"paragraph\", \"content\": [{\"type\": \"text\", \"text\": \"Steps: open Safari, log in.\"}]}]}, \"labels\": [\"web\"]}}",
			Method: "POST", Path: "/ex/jira/11223344-a1b2-3b33-c444-def123456789/rest/api/3/issue", Header: atlassianBodyHeaders,
			Body:   "{\"fields\": {\"project\": {\"key\": \"ED\"}, \"summary\": \"Login fails on Safari\", \"issuetype\": {\"name\": \"Bug\"}, \"description\": {\"type\": \"doc\", \"version\": 1, \"content\": [{\"type\": \"paragraph\", \"content\": [{\"type\": \"text\", \"text\": \"Steps: open Safari, log in.\"}]}]}, \"labels\": [\"web\"]}}",
			Status: 201, Respond: plugintest.JSON("{\"id\": \"10000\", \"key\": \"ED-24\", \"self\": \"https://your-domain.atlassian.net/rest/api/3/issue/10000\", \"transition\": {\"status\": 200, \"errorCollection\": {\"errorMessages\": [], \"errors\": {}}}}"),
			Want: "{\"id\": \"10000\", \"key\": \"ED-24\", \"self\": \"https://your-domain.atlassian.net/rest/api/3/issue/10000\"}",
		},
		{
			Tool: "atlassian_jira_update_issue", Args: "{\"issue_key\": \"ED-24\", \"fields\": {\"summary\": \"Login fails on Safari 17\"}, \"update\": {\"labels\": [{\"add\": \"triaged\"}]}}",
			Method: "PUT", Path: "/ex/jira/11223344-a1b2-3b33-c444-def123456789/rest/api/3/issue/ED-24", Header: atlassianBodyHeaders, Query: "notifyUsers=true",
			Body:   "{\"fields\": {\"summary\": \"Login fails on Safari 17\"}, \"update\": {\"labels\": [{\"add\": \"triaged\"}]}}",
			Status: 204,
			Want:   "{\"ok\": true, \"status\": 204}",
		},
		{
			Tool: "atlassian_jira_list_transitions", Args: "{\"issue_key\": \"ED-24\"}",
			Method: "GET", Path: "/ex/jira/11223344-a1b2-3b33-c444-def123456789/rest/api/3/issue/ED-24/transitions", Header: atlassianHeaders,
			Status: 200, Respond: plugintest.JSON("{\"expand\": \"transitions\", \"transitions\": [{\"id\": \"2\", \"name\": \"Close Issue\", \"hasScreen\": false, \"isGlobal\": false, \"isInitial\": false, \"isAvailable\": true, \"isConditional\": false, \"to\": {\"self\": \"https://your-domain.atlassian.net/rest/api/3/status/10000\", \"description\": \"The issue is currently being worked on.\", \"name\": \"In Progress\", \"id\": \"10000\", \"statusCategory\": {\"id\": 1, \"key\": \"in-flight\", \"colorName\": \"yellow\", \"name\": \"In Progress\"}}}]}"),
			Want: "[{\"id\": \"2\", \"name\": \"Close Issue\", \"hasScreen\": false, \"isAvailable\": true, \"to\": {\"id\": \"10000\", \"name\": \"In Progress\", \"statusCategory\": {\"key\": \"in-flight\"}}}]",
		},
		{
			Tool: "atlassian_jira_transition_issue", Args: "{\"issue_key\": \"ED-24\", \"transition_id\": \"5\", \"fields\": {\"resolution\": {\"name\": \"Fixed\"}}}",
			Method: "POST", Path: "/ex/jira/11223344-a1b2-3b33-c444-def123456789/rest/api/3/issue/ED-24/transitions", Header: atlassianBodyHeaders,
			Body:   "{\"transition\": {\"id\": \"5\"}, \"fields\": {\"resolution\": {\"name\": \"Fixed\"}}}",
			Status: 204,
			Want:   "{\"ok\": true, \"status\": 204}",
		},
		{
			Tool: "atlassian_jira_add_comment", Args: "{\"issue_key\": \"ED-24\", \"text\": \"Fixed in build 1.2.3.\"}",
			Method: "POST", Path: "/ex/jira/11223344-a1b2-3b33-c444-def123456789/rest/api/3/issue/ED-24/comment", Header: atlassianBodyHeaders,
			Body:   "{\"body\": {\"type\": \"doc\", \"version\": 1, \"content\": [{\"type\": \"paragraph\", \"content\": [{\"type\": \"text\", \"text\": \"Fixed in build 1.2.3.\"}]}]}}",
			Status: 201, Respond: plugintest.JSON("{\"self\": \"https://your-domain.atlassian.net/rest/api/3/issue/10010/comment/10000\", \"id\": \"10000\", \"author\": {\"accountId\": \"5b10a2844c20165700ede21g\", \"displayName\": \"Mia Krystof\", \"active\": false}, \"body\": {\"type\": \"doc\", \"version\": 1, \"content\": [{\"type\": \"paragraph\", \"content\": [{\"type\": \"text\", \"text\": \"Fixed in build 1.2.3.\"}]}]}, \"created\": \"2021-01-17T12:34:00.000+0000\", \"updated\": \"2021-01-18T23:45:00.000+0000\", \"jsdPublic\": true}"),
			Want: "{\"id\": \"10000\", \"author\": {\"accountId\": \"5b10a2844c20165700ede21g\", \"displayName\": \"Mia Krystof\"}, \"created\": \"2021-01-17T12:34:00.000+0000\", \"body\": {\"type\": \"doc\", \"version\": 1, \"content\": [{\"type\": \"paragraph\", \"content\": [{\"type\": \"text\", \"text\": \"Fixed in build 1.2.3.\"}]}]}}",
		},
		{
			Tool: "atlassian_jira_list_comments", Args: "{\"issue_key\": \"ED-24\", \"max_results\": 1}",
			Method: "GET", Path: "/ex/jira/11223344-a1b2-3b33-c444-def123456789/rest/api/3/issue/ED-24/comment", Header: atlassianHeaders, Query: "maxResults=1&orderBy=created&startAt=0",
			Status: 200, Respond: plugintest.JSON("{\"comments\": [{\"self\": \"https://your-domain.atlassian.net/rest/api/3/issue/10010/comment/10000\", \"id\": \"10000\", \"author\": {\"accountId\": \"5b10a2844c20165700ede21g\", \"displayName\": \"Mia Krystof\", \"active\": false}, \"body\": {\"type\": \"doc\", \"version\": 1, \"content\": [{\"type\": \"paragraph\", \"content\": [{\"type\": \"text\", \"text\": \"Fixed in build 1.2.3.\"}]}]}, \"created\": \"2021-01-17T12:34:00.000+0000\", \"updated\": \"2021-01-18T23:45:00.000+0000\", \"jsdPublic\": true}], \"maxResults\": 1, \"startAt\": 0, \"total\": 1}"),
			Want: "{\"startAt\": 0, \"maxResults\": 1, \"total\": 1, \"comments\": [{\"id\": \"10000\", \"author\": {\"accountId\": \"5b10a2844c20165700ede21g\", \"displayName\": \"Mia Krystof\"}, \"body\": {\"type\": \"doc\", \"version\": 1, \"content\": [{\"type\": \"paragraph\", \"content\": [{\"type\": \"text\", \"text\": \"Fixed in build 1.2.3.\"}]}]}, \"created\": \"2021-01-17T12:34:00.000+0000\", \"updated\": \"2021-01-18T23:45:00.000+0000\"}]}",
		},
		{
			Tool: "atlassian_jira_assign_issue", Args: "{\"issue_key\": \"ED-24\", \"account_id\": \"5b10ac8d82e05b22cc7d4ef5\"}",
			Method: "PUT", Path: "/ex/jira/11223344-a1b2-3b33-c444-def123456789/rest/api/3/issue/ED-24/assignee", Header: atlassianBodyHeaders,
			Body:   "{\"accountId\": \"5b10ac8d82e05b22cc7d4ef5\"}",
			Status: 204,
			Want:   "{\"ok\": true, \"status\": 204}",
		},
		{
			Tool: "atlassian_jira_list_projects", Args: "{\"query\": \"EX\", \"max_results\": 2}",
			Method: "GET", Path: "/ex/jira/11223344-a1b2-3b33-c444-def123456789/rest/api/3/project/search", Header: atlassianHeaders, Query: "maxResults=2&query=EX&startAt=0",
			Status: 200, Respond: plugintest.JSON("{\"isLast\": false, \"maxResults\": 2, \"nextPage\": \"https://your-domain.atlassian.net/rest/api/3/project/search?startAt=2&maxResults=2\", \"self\": \"https://your-domain.atlassian.net/rest/api/3/project/search?startAt=0&maxResults=2\", \"startAt\": 0, \"total\": 7, \"values\": [{\"avatarUrls\": {}, \"id\": \"10000\", \"insight\": {\"lastIssueUpdateTime\": \"2023-01-01T00:00:00.000+0000\", \"totalIssueCount\": 100}, \"key\": \"EX\", \"name\": \"Example\", \"projectCategory\": {\"id\": \"10000\", \"name\": \"FIRST\"}, \"self\": \"https://your-domain.atlassian.net/rest/api/3/project/EX\", \"simplified\": false, \"style\": \"classic\", \"projectTypeKey\": \"software\"}]}"),
			Want: "{\"isLast\": false, \"maxResults\": 2, \"startAt\": 0, \"total\": 7, \"values\": [{\"id\": \"10000\", \"key\": \"EX\", \"name\": \"Example\", \"simplified\": false, \"style\": \"classic\", \"projectTypeKey\": \"software\"}]}",
		},
		{
			Tool: "atlassian_jira_get_project", Args: "{\"project_key\": \"EX\"}",
			Method: "GET", Path: "/ex/jira/11223344-a1b2-3b33-c444-def123456789/rest/api/3/project/EX", Header: atlassianHeaders,
			Status: 200, Respond: plugintest.JSON("{\"id\": \"10000\", \"key\": \"EX\", \"name\": \"Example\", \"description\": \"This project was created as an example for REST.\", \"lead\": {\"accountId\": \"5b10a2844c20165700ede21g\", \"displayName\": \"Mia Krystof\", \"active\": false}, \"issueTypes\": [{\"id\": \"3\", \"name\": \"Task\", \"subtask\": false, \"description\": \"A task that needs to be done.\", \"avatarId\": 1}, {\"id\": \"5\", \"name\": \"Sub-task\", \"subtask\": true}], \"projectTypeKey\": \"software\", \"style\": \"classic\", \"url\": \"https://www.example.com\", \"assigneeType\": \"PROJECT_LEAD\"}"),
			Want: "{\"id\": \"10000\", \"key\": \"EX\", \"name\": \"Example\", \"description\": \"This project was created as an example for REST.\", \"lead\": {\"accountId\": \"5b10a2844c20165700ede21g\", \"displayName\": \"Mia Krystof\"}, \"issueTypes\": [{\"id\": \"3\", \"name\": \"Task\", \"subtask\": false}, {\"id\": \"5\", \"name\": \"Sub-task\", \"subtask\": true}], \"projectTypeKey\": \"software\", \"style\": \"classic\"}",
		},
		{
			Tool: "atlassian_jira_search_users", Args: "{\"query\": \"mia\"}",
			Method: "GET", Path: "/ex/jira/11223344-a1b2-3b33-c444-def123456789/rest/api/3/user/search", Header: atlassianHeaders, Query: "maxResults=20&query=mia&startAt=0",
			Status: 200, Respond: plugintest.JSON("[{\"self\": \"https://your-domain.atlassian.net/rest/api/3/user?accountId=5b10a2844c20165700ede21g\", \"accountId\": \"5b10a2844c20165700ede21g\", \"accountType\": \"atlassian\", \"emailAddress\": \"mia@example.com\", \"avatarUrls\": {\"48x48\": \"https://avatar-management--avatars.server-location.prod.public.atl-paas.net/initials/MK-5.png?size=48&s=48\"}, \"displayName\": \"Mia Krystof\", \"active\": true, \"timeZone\": \"Australia/Sydney\", \"locale\": \"en_US\", \"groups\": {\"size\": 3, \"items\": []}}]"),
			Want: "[{\"accountId\": \"5b10a2844c20165700ede21g\", \"accountType\": \"atlassian\", \"displayName\": \"Mia Krystof\", \"emailAddress\": \"mia@example.com\", \"active\": true}]",
		},
		{
			Tool: "atlassian_jira_list_boards", Args: "{\"project_key\": \"EX\", \"type\": \"scrum\"}",
			Method: "GET", Path: "/ex/jira/11223344-a1b2-3b33-c444-def123456789/rest/agile/1.0/board", Header: atlassianHeaders, Query: "maxResults=50&projectKeyOrId=EX&startAt=0&type=scrum",
			Status: 200, Respond: plugintest.JSON("{\"isLast\": true, \"maxResults\": 50, \"startAt\": 0, \"total\": 1, \"values\": [{\"id\": 84, \"name\": \"scrum board\", \"self\": \"https://your-domain.atlassian.net/rest/agile/1.0/board/84\", \"type\": \"scrum\", \"location\": {\"projectId\": 10000, \"displayName\": \"Example (EX)\", \"projectName\": \"Example\", \"projectKey\": \"EX\", \"projectTypeKey\": \"software\"}}]}"),
			Want: "{\"isLast\": true, \"maxResults\": 50, \"startAt\": 0, \"total\": 1, \"values\": [{\"id\": 84, \"name\": \"scrum board\", \"type\": \"scrum\", \"location\": {\"displayName\": \"Example (EX)\", \"projectKey\": \"EX\"}}]}",
		},
		{
			Tool: "atlassian_jira_list_sprints", Args: "{\"board_id\": 84, \"state\": [\"active\", \"future\"]}",
			Method: "GET", Path: "/ex/jira/11223344-a1b2-3b33-c444-def123456789/rest/agile/1.0/board/84/sprint", Header: atlassianHeaders, Query: "maxResults=50&startAt=0&state=active%2Cfuture",
			Status: 200, Respond: plugintest.JSON("{\"isLast\": true, \"maxResults\": 50, \"startAt\": 0, \"values\": [{\"id\": 37, \"self\": \"https://your-domain.atlassian.net/rest/agile/1.0/sprint/23\", \"state\": \"active\", \"name\": \"sprint 1\", \"startDate\": \"2015-04-11T15:22:00.000+10:00\", \"endDate\": \"2015-04-20T01:22:00.000+10:00\", \"originBoardId\": 84, \"goal\": \"sprint 1 goal\"}]}"),
			Want: "{\"isLast\": true, \"maxResults\": 50, \"startAt\": 0, \"values\": [{\"id\": 37, \"state\": \"active\", \"name\": \"sprint 1\", \"startDate\": \"2015-04-11T15:22:00.000+10:00\", \"endDate\": \"2015-04-20T01:22:00.000+10:00\", \"goal\": \"sprint 1 goal\"}]}",
		},
		{
			Tool: "atlassian_jira_list_create_issue_types", Args: "{\"project_key\": \"EX\"}",
			Method: "GET", Path: "/ex/jira/11223344-a1b2-3b33-c444-def123456789/rest/api/3/issue/createmeta/EX/issuetypes", Header: atlassianHeaders, Query: "maxResults=50&startAt=0",
			Status: 200, Respond: plugintest.JSON("{\"issueTypes\": [{\"description\": \"An error in the code\", \"iconUrl\": \"https://your-domain.atlassian.net/images/icons/issuetypes/bug.png\", \"id\": \"1\", \"name\": \"Bug\", \"self\": \"https://your-domain.atlassian.net/rest/api/3/issueType/1\", \"subtask\": false}], \"maxResults\": 50, \"startAt\": 0, \"total\": 1}"),
			Want: "{\"issueTypes\": [{\"description\": \"An error in the code\", \"id\": \"1\", \"name\": \"Bug\", \"subtask\": false}], \"maxResults\": 50, \"startAt\": 0, \"total\": 1}",
		},
	}
}
