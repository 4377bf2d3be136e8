package confluence_test

import (
	"testing"

	"github.com/workbench/workbench/plugins/atlassian-confluence"
	"github.com/workbench/workbench/plugins/plugintest"
)

// Contract cases for the atlassian-confluence plugin (Confluence Cloud REST API v2, and v1 for CQL search
// and adding labels, called through https://api.atlassian.com/ex/confluence/{cloudid}, the cloud id
// coming from the credential's post-consent lookup as {credential.cloud_id}). v2 lists page by
// the Link header's rel="next" cursor. Responses are trimmed from the documented examples.

// The same Atlassian 3LO token and helpers as atlassian-jira's contract test: both products sit behind
// api.atlassian.com.

const atlassianToken = "atlassian-3lo-contract"

var (
	atlassianHeaders     = map[string]string{"Authorization": "Bearer " + atlassianToken, "Accept": "application/json"}
	atlassianBodyHeaders = map[string]string{"Authorization": "Bearer " + atlassianToken, "Accept": "application/json", "Content-Type": "application/json"}
)

// creds are what the fake expects of the atlassian-confluence connection.
var creds = plugintest.Credentials{Token: atlassianToken, Credential: map[string]string{"cloud_id": "11223344-a1b2-3b33-c444-def123456789"}}

// TestContracts calls every atlassian-confluence tool against a fake that checks the request as the provider documents it.
func TestContracts(t *testing.T) {
	plugintest.Contracts(t, confluence.Plugin(), creds, contracts())
}

// contracts are the atlassian-confluence tools' contract cases.
func contracts() []plugintest.Case {
	return []plugintest.Case{
		{
			Tool: "atlassian_confluence_list_sites", Args: "{}",
			Method: "GET", Path: "/oauth/token/accessible-resources", Header: atlassianHeaders,
			Status: 200, Respond: plugintest.JSON("[{\"id\": \"11223344-a1b2-3b33-c444-def123456789\", \"name\": \"your-domain\", \"url\": \"https://your-domain.atlassian.net\", \"scopes\": [\"read:page:confluence\", \"search:confluence\"], \"avatarUrl\": \"https://x/flag.png\"}]"),
			Want: "[{\"id\": \"11223344-a1b2-3b33-c444-def123456789\", \"name\": \"your-domain\", \"url\": \"https://your-domain.atlassian.net\", \"scopes\": [\"read:page:confluence\", \"search:confluence\"]}]",
		},
		{
			Tool: "atlassian_confluence_list_spaces", Args: "{\"keys\": [\"DEV\", \"OPS\"], \"limit\": 1}",
			Method: "GET", Path: "/ex/confluence/11223344-a1b2-3b33-c444-def123456789/wiki/api/v2/spaces", Header: atlassianHeaders, Query: "keys=DEV%2COPS&limit=1",
			LinkNext: "</wiki/api/v2/spaces?keys=DEV%2COPS&limit=1&cursor=eyJpZCI6IjY1NTM4In0>; rel=\"next\", <https://your-domain.atlassian.net/wiki>; rel=\"base\"",
			Status:   200, Respond: plugintest.JSON("{\"results\": [{\"id\": \"65538\", \"key\": \"DEV\", \"name\": \"Development\", \"icon\": null, \"type\": \"global\", \"status\": \"current\", \"authorId\": \"5b10a2844c20165700ede21g\", \"createdAt\": \"2023-01-01T00:00:00.000Z\", \"homepageId\": \"65540\", \"description\": null, \"_links\": {\"webui\": \"/spaces/DEV\"}}], \"_links\": {\"next\": \"/wiki/api/v2/spaces?keys=DEV,OPS&limit=1&cursor=eyJpZCI6IjY1NTM4In0\", \"base\": \"https://your-domain.atlassian.net/wiki\"}}"),
			Want: "{\"items\": [{\"id\": \"65538\", \"key\": \"DEV\", \"name\": \"Development\", \"type\": \"global\", \"status\": \"current\", \"homepageId\": \"65540\", \"_links\": {\"webui\": \"/spaces/DEV\"}}], \"next_cursor\": \"eyJpZCI6IjY1NTM4In0\"}",
		},
		{
			Tool: "atlassian_confluence_list_pages", Args: "{\"space_ids\": [\"65538\"], \"title\": \"Release notes\"}",
			Method: "GET", Path: "/ex/confluence/11223344-a1b2-3b33-c444-def123456789/wiki/api/v2/pages", Header: atlassianHeaders, Query: "limit=25&space-id=65538&status=current&title=Release+notes",
			Status: 200, Respond: plugintest.JSON("{\"results\": [{\"id\": \"65601\", \"status\": \"current\", \"title\": \"Release notes\", \"spaceId\": \"65538\", \"parentId\": \"65540\", \"parentType\": \"page\", \"position\": 2, \"authorId\": \"5b10a2844c20165700ede21g\", \"ownerId\": \"5b10a2844c20165700ede21g\", \"createdAt\": \"2024-05-01T09:00:00.000Z\", \"version\": {\"createdAt\": \"2024-05-02T10:00:00.000Z\", \"message\": \"\", \"number\": 3, \"minorEdit\": false, \"authorId\": \"5b10a2844c20165700ede21g\"}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601/Release+notes\", \"editui\": \"/pages/resumedraft.action?draftId=65601\", \"tinyui\": \"/x/QQAB\"}}], \"_links\": {\"base\": \"https://your-domain.atlassian.net/wiki\"}}"),
			Want: "{\"items\": [{\"id\": \"65601\", \"status\": \"current\", \"title\": \"Release notes\", \"spaceId\": \"65538\", \"parentId\": \"65540\", \"parentType\": \"page\", \"authorId\": \"5b10a2844c20165700ede21g\", \"createdAt\": \"2024-05-01T09:00:00.000Z\", \"version\": {\"createdAt\": \"2024-05-02T10:00:00.000Z\", \"number\": 3, \"authorId\": \"5b10a2844c20165700ede21g\"}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601/Release+notes\"}}]}",
		},
		{
			Tool: "atlassian_confluence_get_page", Args: "{\"page_id\": \"65601\"}",
			Method: "GET", Path: "/ex/confluence/11223344-a1b2-3b33-c444-def123456789/wiki/api/v2/pages/65601", Header: atlassianHeaders, Query: "body-format=storage",
			Status: 200, Respond: plugintest.JSON("{\"id\": \"65601\", \"status\": \"current\", \"title\": \"Release notes\", \"spaceId\": \"65538\", \"parentId\": \"65540\", \"parentType\": \"page\", \"position\": 2, \"authorId\": \"5b10a2844c20165700ede21g\", \"ownerId\": \"5b10a2844c20165700ede21g\", \"createdAt\": \"2024-05-01T09:00:00.000Z\", \"version\": {\"createdAt\": \"2024-05-02T10:00:00.000Z\", \"message\": \"\", \"number\": 3, \"minorEdit\": false, \"authorId\": \"5b10a2844c20165700ede21g\"}, \"body\": {\"storage\": {\"representation\": \"storage\", \"value\": \"<p>Version 1.2 is out.</p>\"}}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601/Release+notes\", \"editui\": \"/pages/resumedraft.action?draftId=65601\", \"tinyui\": \"/x/QQAB\"}}"),
			Want: "{\"id\": \"65601\", \"status\": \"current\", \"title\": \"Release notes\", \"spaceId\": \"65538\", \"parentId\": \"65540\", \"parentType\": \"page\", \"authorId\": \"5b10a2844c20165700ede21g\", \"createdAt\": \"2024-05-01T09:00:00.000Z\", \"version\": {\"createdAt\": \"2024-05-02T10:00:00.000Z\", \"number\": 3, \"authorId\": \"5b10a2844c20165700ede21g\"}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601/Release+notes\"}, \"body\": {\"storage\": {\"value\": \"<p>Version 1.2 is out.</p>\"}}}",
		},
		{
			Tool: "atlassian_confluence_create_page", Args: "{\"space_id\": \"65538\", \"title\": \"Release notes\", \"parent_id\": \"65540\", \"body\": \"<p>Version 1.2 is out.</p>\"}",
			Method: "POST", Path: "/ex/confluence/11223344-a1b2-3b33-c444-def123456789/wiki/api/v2/pages", Header: atlassianBodyHeaders,
			Body:   "{\"spaceId\": \"65538\", \"status\": \"current\", \"title\": \"Release notes\", \"parentId\": \"65540\", \"body\": {\"representation\": \"storage\", \"value\": \"<p>Version 1.2 is out.</p>\"}}",
			Status: 200, Respond: plugintest.JSON("{\"id\": \"65601\", \"status\": \"current\", \"title\": \"Release notes\", \"spaceId\": \"65538\", \"parentId\": \"65540\", \"parentType\": \"page\", \"position\": 2, \"authorId\": \"5b10a2844c20165700ede21g\", \"ownerId\": \"5b10a2844c20165700ede21g\", \"createdAt\": \"2024-05-01T09:00:00.000Z\", \"version\": {\"createdAt\": \"2024-05-02T10:00:00.000Z\", \"message\": \"\", \"number\": 3, \"minorEdit\": false, \"authorId\": \"5b10a2844c20165700ede21g\"}, \"body\": {\"storage\": {\"representation\": \"storage\", \"value\": \"<p>Version 1.2 is out.</p>\"}}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601/Release+notes\", \"editui\": \"/pages/resumedraft.action?draftId=65601\", \"tinyui\": \"/x/QQAB\"}}"),
			Want: "{\"id\": \"65601\", \"status\": \"current\", \"title\": \"Release notes\", \"spaceId\": \"65538\", \"parentId\": \"65540\", \"parentType\": \"page\", \"authorId\": \"5b10a2844c20165700ede21g\", \"createdAt\": \"2024-05-01T09:00:00.000Z\", \"version\": {\"createdAt\": \"2024-05-02T10:00:00.000Z\", \"number\": 3, \"authorId\": \"5b10a2844c20165700ede21g\"}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601/Release+notes\"}}",
		},
		{
			Tool: "atlassian_confluence_update_page", Args: "{\"page_id\": \"65601\", \"title\": \"Release notes\", \"body\": \"<p>Version 1.3 is out.</p>\", \"version_number\": 4, \"version_message\": \"1.3\"}",
			Method: "PUT", Path: "/ex/confluence/11223344-a1b2-3b33-c444-def123456789/wiki/api/v2/pages/65601", Header: atlassianBodyHeaders,
			Body:   "{\"id\": \"65601\", \"status\": \"current\", \"title\": \"Release notes\", \"body\": {\"representation\": \"storage\", \"value\": \"<p>Version 1.3 is out.</p>\"}, \"version\": {\"number\": 4, \"message\": \"1.3\"}}",
			Status: 200, Respond: plugintest.JSON("{\"id\": \"65601\", \"status\": \"current\", \"title\": \"Release notes\", \"spaceId\": \"65538\", \"parentId\": \"65540\", \"parentType\": \"page\", \"position\": 2, \"authorId\": \"5b10a2844c20165700ede21g\", \"ownerId\": \"5b10a2844c20165700ede21g\", \"createdAt\": \"2024-05-01T09:00:00.000Z\", \"version\": {\"createdAt\": \"2024-05-02T10:00:00.000Z\", \"message\": \"\", \"number\": 4, \"minorEdit\": false, \"authorId\": \"5b10a2844c20165700ede21g\"}, \"body\": {\"storage\": {\"representation\": \"storage\", \"value\": \"<p>Version 1.2 is out.</p>\"}}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601/Release+notes\", \"editui\": \"/pages/resumedraft.action?draftId=65601\", \"tinyui\": \"/x/QQAB\"}}"),
			Want: "{\"id\": \"65601\", \"status\": \"current\", \"title\": \"Release notes\", \"spaceId\": \"65538\", \"parentId\": \"65540\", \"parentType\": \"page\", \"authorId\": \"5b10a2844c20165700ede21g\", \"createdAt\": \"2024-05-01T09:00:00.000Z\", \"version\": {\"createdAt\": \"2024-05-02T10:00:00.000Z\", \"number\": 4, \"authorId\": \"5b10a2844c20165700ede21g\"}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601/Release+notes\"}}",
		},
		{
			Tool: "atlassian_confluence_search", Args: "{\"cql\": \"type = page AND space = DEV AND text ~ \\\"release\\\"\", \"limit\": 1}",
			Method: "GET", Path: "/ex/confluence/11223344-a1b2-3b33-c444-def123456789/wiki/rest/api/search", Header: atlassianHeaders, Query: "cql=type+%3D+page+AND+space+%3D+DEV+AND+text+~+%22release%22&limit=1",
			Status: 200, Respond: plugintest.JSON("{\"results\": [{\"content\": {\"id\": \"65601\", \"type\": \"page\", \"status\": \"current\", \"title\": \"Release notes\", \"_links\": {\"webui\": \"/spaces/DEV/pages/65601\"}}, \"title\": \"Release notes\", \"excerpt\": \"Version 1.2 is out.\", \"url\": \"/spaces/DEV/pages/65601/Release+notes\", \"resultGlobalContainer\": {\"title\": \"Development\", \"displayUrl\": \"/spaces/DEV\"}, \"breadcrumbs\": [], \"entityType\": \"content\", \"iconCssClass\": \"aui-icon content-type-page\", \"lastModified\": \"2024-05-02T10:00:00.000Z\", \"friendlyLastModified\": \"May 02, 2024\", \"score\": 0.9}], \"start\": 0, \"limit\": 1, \"size\": 1, \"totalSize\": 4, \"cqlQuery\": \"type = page AND space = DEV AND text ~ \\\"release\\\"\", \"searchDuration\": 45, \"_links\": {\"base\": \"https://your-domain.atlassian.net/wiki\", \"context\": \"/wiki\", \"next\": \"/rest/api/search?cql=type+%3D+page&limit=1&cursor=_f_MQ%3D%3D_sa_WyJcdDY1NjAxIl0%3D\"}}"),
			Want: "{\"results\": [{\"content\": {\"id\": \"65601\", \"type\": \"page\", \"status\": \"current\"}, \"title\": \"Release notes\", \"excerpt\": \"Version 1.2 is out.\", \"url\": \"/spaces/DEV/pages/65601/Release+notes\", \"resultGlobalContainer\": {\"title\": \"Development\"}, \"lastModified\": \"2024-05-02T10:00:00.000Z\"}], \"start\": 0, \"limit\": 1, \"size\": 1, \"totalSize\": 4, \"_links\": {\"next\": \"/rest/api/search?cql=type+%3D+page&limit=1&cursor=_f_MQ%3D%3D_sa_WyJcdDY1NjAxIl0%3D\"}}",
		},
		{
			Tool: "atlassian_confluence_get_page_children", Args: "{\"page_id\": \"65540\", \"limit\": 10, \"cursor\": \"abc\"}",
			Method: "GET", Path: "/ex/confluence/11223344-a1b2-3b33-c444-def123456789/wiki/api/v2/pages/65540/children", Header: atlassianHeaders, Query: "cursor=abc&limit=10",
			Status: 200, Respond: plugintest.JSON("{\"results\": [{\"id\": \"65601\", \"status\": \"current\", \"title\": \"Release notes\", \"spaceId\": \"65538\", \"childPosition\": 2}], \"_links\": {}}"),
			Want: "{\"items\": [{\"id\": \"65601\", \"status\": \"current\", \"title\": \"Release notes\", \"spaceId\": \"65538\", \"childPosition\": 2}]}",
		},
		{
			Tool: "atlassian_confluence_list_page_comments", Args: "{\"page_id\": \"65601\"}",
			Method: "GET", Path: "/ex/confluence/11223344-a1b2-3b33-c444-def123456789/wiki/api/v2/pages/65601/footer-comments", Header: atlassianHeaders, Query: "body-format=storage&limit=25",
			LinkNext: "</wiki/api/v2/pages/65601/footer-comments?body-format=storage&limit=25&cursor=nxt>; rel=\"next\"",
			Status:   200, Respond: plugintest.JSON("{\"results\": [{\"id\": \"65700\", \"status\": \"current\", \"title\": \"Re: Release notes\", \"pageId\": \"65601\", \"version\": {\"createdAt\": \"2024-05-03T08:00:00.000Z\", \"message\": \"\", \"number\": 1, \"minorEdit\": false, \"authorId\": \"5b10a2844c20165700ede21g\"}, \"body\": {\"storage\": {\"representation\": \"storage\", \"value\": \"<p>Looks good</p>\"}}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601?focusedCommentId=65700\"}}], \"_links\": {\"next\": \"/wiki/api/v2/pages/65601/footer-comments?cursor=nxt\"}}"),
			Want: "{\"items\": [{\"id\": \"65700\", \"status\": \"current\", \"title\": \"Re: Release notes\", \"pageId\": \"65601\", \"version\": {\"createdAt\": \"2024-05-03T08:00:00.000Z\", \"number\": 1, \"authorId\": \"5b10a2844c20165700ede21g\"}, \"body\": {\"storage\": {\"value\": \"<p>Looks good</p>\"}}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601?focusedCommentId=65700\"}}], \"next_cursor\": \"nxt\"}",
		},
		{
			Tool: "atlassian_confluence_add_page_comment", Args: "{\"page_id\": \"65601\", \"body\": \"<p>Looks good</p>\"}",
			Method: "POST", Path: "/ex/confluence/11223344-a1b2-3b33-c444-def123456789/wiki/api/v2/footer-comments", Header: atlassianBodyHeaders,
			Body:   "{\"pageId\": \"65601\", \"body\": {\"representation\": \"storage\", \"value\": \"<p>Looks good</p>\"}}",
			Status: 200, Respond: plugintest.JSON("{\"id\": \"65700\", \"status\": \"current\", \"title\": \"Re: Release notes\", \"pageId\": \"65601\", \"version\": {\"createdAt\": \"2024-05-03T08:00:00.000Z\", \"message\": \"\", \"number\": 1, \"minorEdit\": false, \"authorId\": \"5b10a2844c20165700ede21g\"}, \"body\": {\"storage\": {\"representation\": \"storage\", \"value\": \"<p>Looks good</p>\"}}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601?focusedCommentId=65700\"}}"),
			Want: "{\"id\": \"65700\", \"status\": \"current\", \"pageId\": \"65601\", \"version\": {\"number\": 1, \"createdAt\": \"2024-05-03T08:00:00.000Z\"}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601?focusedCommentId=65700\"}}",
		},
		{
			Tool: "atlassian_confluence_list_page_labels", Args: "{\"page_id\": \"65601\"}",
			Method: "GET", Path: "/ex/confluence/11223344-a1b2-3b33-c444-def123456789/wiki/api/v2/pages/65601/labels", Header: atlassianHeaders, Query: "limit=25",
			Status: 200, Respond: plugintest.JSON("{\"results\": [{\"id\": \"1376257\", \"name\": \"release-notes\", \"prefix\": \"global\"}], \"_links\": {}}"),
			Want: "{\"items\": [{\"id\": \"1376257\", \"name\": \"release-notes\", \"prefix\": \"global\"}]}",
		},
		{
			Tool: "atlassian_confluence_add_page_labels", Args: "{\"page_id\": \"65601\", \"labels\": [{\"prefix\": \"global\", \"name\": \"release-notes\"}]}",
			Method: "POST", Path: "/ex/confluence/11223344-a1b2-3b33-c444-def123456789/wiki/rest/api/content/65601/label", Header: atlassianBodyHeaders,
			Body:   "[{\"prefix\": \"global\", \"name\": \"release-notes\"}]",
			Status: 200, Respond: plugintest.JSON("{\"results\": [{\"prefix\": \"global\", \"name\": \"release-notes\", \"id\": \"1376257\", \"label\": \"release-notes\"}], \"start\": 0, \"limit\": 200, \"size\": 1, \"_links\": {}}"),
			Want: "[{\"id\": \"1376257\", \"name\": \"release-notes\", \"prefix\": \"global\"}]",
		},
	}
}
