package plugins

// Contract cases for the atlassian-confluence plugin (Confluence Cloud REST API v2, and v1 for CQL search
// and adding labels, called through https://api.atlassian.com/ex/confluence/{cloudid}, the cloud id
// coming from the credential's post-consent lookup as {credential.cloud_id}). v2 lists page by
// the Link header's rel="next" cursor. Responses are trimmed from the documented examples.

func init() {
	contractCredentials["atlassian-confluence"] = map[string]string{"cloud_id": "11223344-a1b2-3b33-c444-def123456789"}
	contractTokens["atlassian-confluence"] = atlassianToken
	contractCases = append(contractCases,
		contractCase{
			tool: "atlassian_confluence_list_sites", args: "{}",
			method: "GET", path: "/oauth/token/accessible-resources", header: atlassianHeaders,
			status: 200, respond: atlassianJSON("[{\"id\": \"11223344-a1b2-3b33-c444-def123456789\", \"name\": \"your-domain\", \"url\": \"https://your-domain.atlassian.net\", \"scopes\": [\"read:page:confluence\", \"search:confluence\"], \"avatarUrl\": \"https://x/flag.png\"}]"),
			want: "[{\"id\": \"11223344-a1b2-3b33-c444-def123456789\", \"name\": \"your-domain\", \"url\": \"https://your-domain.atlassian.net\", \"scopes\": [\"read:page:confluence\", \"search:confluence\"]}]",
		},
		contractCase{
			tool: "atlassian_confluence_list_spaces", args: "{\"keys\": [\"DEV\", \"OPS\"], \"limit\": 1}",
			method: "GET", path: "/ex/confluence/11223344-a1b2-3b33-c444-def123456789/wiki/api/v2/spaces", header: atlassianHeaders, query: "keys=DEV%2COPS&limit=1",
			linkNext: "</wiki/api/v2/spaces?keys=DEV%2COPS&limit=1&cursor=eyJpZCI6IjY1NTM4In0>; rel=\"next\", <https://your-domain.atlassian.net/wiki>; rel=\"base\"",
			status:   200, respond: atlassianJSON("{\"results\": [{\"id\": \"65538\", \"key\": \"DEV\", \"name\": \"Development\", \"icon\": null, \"type\": \"global\", \"status\": \"current\", \"authorId\": \"5b10a2844c20165700ede21g\", \"createdAt\": \"2023-01-01T00:00:00.000Z\", \"homepageId\": \"65540\", \"description\": null, \"_links\": {\"webui\": \"/spaces/DEV\"}}], \"_links\": {\"next\": \"/wiki/api/v2/spaces?keys=DEV,OPS&limit=1&cursor=eyJpZCI6IjY1NTM4In0\", \"base\": \"https://your-domain.atlassian.net/wiki\"}}"),
			want: "{\"items\": [{\"id\": \"65538\", \"key\": \"DEV\", \"name\": \"Development\", \"type\": \"global\", \"status\": \"current\", \"homepageId\": \"65540\", \"_links\": {\"webui\": \"/spaces/DEV\"}}], \"next_cursor\": \"eyJpZCI6IjY1NTM4In0\"}",
		},
		contractCase{
			tool: "atlassian_confluence_list_pages", args: "{\"space_ids\": [\"65538\"], \"title\": \"Release notes\"}",
			method: "GET", path: "/ex/confluence/11223344-a1b2-3b33-c444-def123456789/wiki/api/v2/pages", header: atlassianHeaders, query: "limit=25&space-id=65538&status=current&title=Release+notes",
			status: 200, respond: atlassianJSON("{\"results\": [{\"id\": \"65601\", \"status\": \"current\", \"title\": \"Release notes\", \"spaceId\": \"65538\", \"parentId\": \"65540\", \"parentType\": \"page\", \"position\": 2, \"authorId\": \"5b10a2844c20165700ede21g\", \"ownerId\": \"5b10a2844c20165700ede21g\", \"createdAt\": \"2024-05-01T09:00:00.000Z\", \"version\": {\"createdAt\": \"2024-05-02T10:00:00.000Z\", \"message\": \"\", \"number\": 3, \"minorEdit\": false, \"authorId\": \"5b10a2844c20165700ede21g\"}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601/Release+notes\", \"editui\": \"/pages/resumedraft.action?draftId=65601\", \"tinyui\": \"/x/QQAB\"}}], \"_links\": {\"base\": \"https://your-domain.atlassian.net/wiki\"}}"),
			want: "{\"items\": [{\"id\": \"65601\", \"status\": \"current\", \"title\": \"Release notes\", \"spaceId\": \"65538\", \"parentId\": \"65540\", \"parentType\": \"page\", \"authorId\": \"5b10a2844c20165700ede21g\", \"createdAt\": \"2024-05-01T09:00:00.000Z\", \"version\": {\"createdAt\": \"2024-05-02T10:00:00.000Z\", \"number\": 3, \"authorId\": \"5b10a2844c20165700ede21g\"}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601/Release+notes\"}}]}",
		},
		contractCase{
			tool: "atlassian_confluence_get_page", args: "{\"page_id\": \"65601\"}",
			method: "GET", path: "/ex/confluence/11223344-a1b2-3b33-c444-def123456789/wiki/api/v2/pages/65601", header: atlassianHeaders, query: "body-format=storage",
			status: 200, respond: atlassianJSON("{\"id\": \"65601\", \"status\": \"current\", \"title\": \"Release notes\", \"spaceId\": \"65538\", \"parentId\": \"65540\", \"parentType\": \"page\", \"position\": 2, \"authorId\": \"5b10a2844c20165700ede21g\", \"ownerId\": \"5b10a2844c20165700ede21g\", \"createdAt\": \"2024-05-01T09:00:00.000Z\", \"version\": {\"createdAt\": \"2024-05-02T10:00:00.000Z\", \"message\": \"\", \"number\": 3, \"minorEdit\": false, \"authorId\": \"5b10a2844c20165700ede21g\"}, \"body\": {\"storage\": {\"representation\": \"storage\", \"value\": \"<p>Version 1.2 is out.</p>\"}}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601/Release+notes\", \"editui\": \"/pages/resumedraft.action?draftId=65601\", \"tinyui\": \"/x/QQAB\"}}"),
			want: "{\"id\": \"65601\", \"status\": \"current\", \"title\": \"Release notes\", \"spaceId\": \"65538\", \"parentId\": \"65540\", \"parentType\": \"page\", \"authorId\": \"5b10a2844c20165700ede21g\", \"createdAt\": \"2024-05-01T09:00:00.000Z\", \"version\": {\"createdAt\": \"2024-05-02T10:00:00.000Z\", \"number\": 3, \"authorId\": \"5b10a2844c20165700ede21g\"}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601/Release+notes\"}, \"body\": {\"storage\": {\"value\": \"<p>Version 1.2 is out.</p>\"}}}",
		},
		contractCase{
			tool: "atlassian_confluence_create_page", args: "{\"space_id\": \"65538\", \"title\": \"Release notes\", \"parent_id\": \"65540\", \"body\": \"<p>Version 1.2 is out.</p>\"}",
			method: "POST", path: "/ex/confluence/11223344-a1b2-3b33-c444-def123456789/wiki/api/v2/pages", header: atlassianBodyHeaders,
			body:   "{\"spaceId\": \"65538\", \"status\": \"current\", \"title\": \"Release notes\", \"parentId\": \"65540\", \"body\": {\"representation\": \"storage\", \"value\": \"<p>Version 1.2 is out.</p>\"}}",
			status: 200, respond: atlassianJSON("{\"id\": \"65601\", \"status\": \"current\", \"title\": \"Release notes\", \"spaceId\": \"65538\", \"parentId\": \"65540\", \"parentType\": \"page\", \"position\": 2, \"authorId\": \"5b10a2844c20165700ede21g\", \"ownerId\": \"5b10a2844c20165700ede21g\", \"createdAt\": \"2024-05-01T09:00:00.000Z\", \"version\": {\"createdAt\": \"2024-05-02T10:00:00.000Z\", \"message\": \"\", \"number\": 3, \"minorEdit\": false, \"authorId\": \"5b10a2844c20165700ede21g\"}, \"body\": {\"storage\": {\"representation\": \"storage\", \"value\": \"<p>Version 1.2 is out.</p>\"}}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601/Release+notes\", \"editui\": \"/pages/resumedraft.action?draftId=65601\", \"tinyui\": \"/x/QQAB\"}}"),
			want: "{\"id\": \"65601\", \"status\": \"current\", \"title\": \"Release notes\", \"spaceId\": \"65538\", \"parentId\": \"65540\", \"parentType\": \"page\", \"authorId\": \"5b10a2844c20165700ede21g\", \"createdAt\": \"2024-05-01T09:00:00.000Z\", \"version\": {\"createdAt\": \"2024-05-02T10:00:00.000Z\", \"number\": 3, \"authorId\": \"5b10a2844c20165700ede21g\"}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601/Release+notes\"}}",
		},
		contractCase{
			tool: "atlassian_confluence_update_page", args: "{\"page_id\": \"65601\", \"title\": \"Release notes\", \"body\": \"<p>Version 1.3 is out.</p>\", \"version_number\": 4, \"version_message\": \"1.3\"}",
			method: "PUT", path: "/ex/confluence/11223344-a1b2-3b33-c444-def123456789/wiki/api/v2/pages/65601", header: atlassianBodyHeaders,
			body:   "{\"id\": \"65601\", \"status\": \"current\", \"title\": \"Release notes\", \"body\": {\"representation\": \"storage\", \"value\": \"<p>Version 1.3 is out.</p>\"}, \"version\": {\"number\": 4, \"message\": \"1.3\"}}",
			status: 200, respond: atlassianJSON("{\"id\": \"65601\", \"status\": \"current\", \"title\": \"Release notes\", \"spaceId\": \"65538\", \"parentId\": \"65540\", \"parentType\": \"page\", \"position\": 2, \"authorId\": \"5b10a2844c20165700ede21g\", \"ownerId\": \"5b10a2844c20165700ede21g\", \"createdAt\": \"2024-05-01T09:00:00.000Z\", \"version\": {\"createdAt\": \"2024-05-02T10:00:00.000Z\", \"message\": \"\", \"number\": 4, \"minorEdit\": false, \"authorId\": \"5b10a2844c20165700ede21g\"}, \"body\": {\"storage\": {\"representation\": \"storage\", \"value\": \"<p>Version 1.2 is out.</p>\"}}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601/Release+notes\", \"editui\": \"/pages/resumedraft.action?draftId=65601\", \"tinyui\": \"/x/QQAB\"}}"),
			want: "{\"id\": \"65601\", \"status\": \"current\", \"title\": \"Release notes\", \"spaceId\": \"65538\", \"parentId\": \"65540\", \"parentType\": \"page\", \"authorId\": \"5b10a2844c20165700ede21g\", \"createdAt\": \"2024-05-01T09:00:00.000Z\", \"version\": {\"createdAt\": \"2024-05-02T10:00:00.000Z\", \"number\": 4, \"authorId\": \"5b10a2844c20165700ede21g\"}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601/Release+notes\"}}",
		},
		contractCase{
			tool: "atlassian_confluence_search", args: "{\"cql\": \"type = page AND space = DEV AND text ~ \\\"release\\\"\", \"limit\": 1}",
			method: "GET", path: "/ex/confluence/11223344-a1b2-3b33-c444-def123456789/wiki/rest/api/search", header: atlassianHeaders, query: "cql=type+%3D+page+AND+space+%3D+DEV+AND+text+~+%22release%22&limit=1",
			status: 200, respond: atlassianJSON("{\"results\": [{\"content\": {\"id\": \"65601\", \"type\": \"page\", \"status\": \"current\", \"title\": \"Release notes\", \"_links\": {\"webui\": \"/spaces/DEV/pages/65601\"}}, \"title\": \"Release notes\", \"excerpt\": \"Version 1.2 is out.\", \"url\": \"/spaces/DEV/pages/65601/Release+notes\", \"resultGlobalContainer\": {\"title\": \"Development\", \"displayUrl\": \"/spaces/DEV\"}, \"breadcrumbs\": [], \"entityType\": \"content\", \"iconCssClass\": \"aui-icon content-type-page\", \"lastModified\": \"2024-05-02T10:00:00.000Z\", \"friendlyLastModified\": \"May 02, 2024\", \"score\": 0.9}], \"start\": 0, \"limit\": 1, \"size\": 1, \"totalSize\": 4, \"cqlQuery\": \"type = page AND space = DEV AND text ~ \\\"release\\\"\", \"searchDuration\": 45, \"_links\": {\"base\": \"https://your-domain.atlassian.net/wiki\", \"context\": \"/wiki\", \"next\": \"/rest/api/search?cql=type+%3D+page&limit=1&cursor=_f_MQ%3D%3D_sa_WyJcdDY1NjAxIl0%3D\"}}"),
			want: "{\"results\": [{\"content\": {\"id\": \"65601\", \"type\": \"page\", \"status\": \"current\"}, \"title\": \"Release notes\", \"excerpt\": \"Version 1.2 is out.\", \"url\": \"/spaces/DEV/pages/65601/Release+notes\", \"resultGlobalContainer\": {\"title\": \"Development\"}, \"lastModified\": \"2024-05-02T10:00:00.000Z\"}], \"start\": 0, \"limit\": 1, \"size\": 1, \"totalSize\": 4, \"_links\": {\"next\": \"/rest/api/search?cql=type+%3D+page&limit=1&cursor=_f_MQ%3D%3D_sa_WyJcdDY1NjAxIl0%3D\"}}",
		},
		contractCase{
			tool: "atlassian_confluence_get_page_children", args: "{\"page_id\": \"65540\", \"limit\": 10, \"cursor\": \"abc\"}",
			method: "GET", path: "/ex/confluence/11223344-a1b2-3b33-c444-def123456789/wiki/api/v2/pages/65540/children", header: atlassianHeaders, query: "cursor=abc&limit=10",
			status: 200, respond: atlassianJSON("{\"results\": [{\"id\": \"65601\", \"status\": \"current\", \"title\": \"Release notes\", \"spaceId\": \"65538\", \"childPosition\": 2}], \"_links\": {}}"),
			want: "{\"items\": [{\"id\": \"65601\", \"status\": \"current\", \"title\": \"Release notes\", \"spaceId\": \"65538\", \"childPosition\": 2}]}",
		},
		contractCase{
			tool: "atlassian_confluence_list_page_comments", args: "{\"page_id\": \"65601\"}",
			method: "GET", path: "/ex/confluence/11223344-a1b2-3b33-c444-def123456789/wiki/api/v2/pages/65601/footer-comments", header: atlassianHeaders, query: "body-format=storage&limit=25",
			linkNext: "</wiki/api/v2/pages/65601/footer-comments?body-format=storage&limit=25&cursor=nxt>; rel=\"next\"",
			status:   200, respond: atlassianJSON("{\"results\": [{\"id\": \"65700\", \"status\": \"current\", \"title\": \"Re: Release notes\", \"pageId\": \"65601\", \"version\": {\"createdAt\": \"2024-05-03T08:00:00.000Z\", \"message\": \"\", \"number\": 1, \"minorEdit\": false, \"authorId\": \"5b10a2844c20165700ede21g\"}, \"body\": {\"storage\": {\"representation\": \"storage\", \"value\": \"<p>Looks good</p>\"}}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601?focusedCommentId=65700\"}}], \"_links\": {\"next\": \"/wiki/api/v2/pages/65601/footer-comments?cursor=nxt\"}}"),
			want: "{\"items\": [{\"id\": \"65700\", \"status\": \"current\", \"title\": \"Re: Release notes\", \"pageId\": \"65601\", \"version\": {\"createdAt\": \"2024-05-03T08:00:00.000Z\", \"number\": 1, \"authorId\": \"5b10a2844c20165700ede21g\"}, \"body\": {\"storage\": {\"value\": \"<p>Looks good</p>\"}}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601?focusedCommentId=65700\"}}], \"next_cursor\": \"nxt\"}",
		},
		contractCase{
			tool: "atlassian_confluence_add_page_comment", args: "{\"page_id\": \"65601\", \"body\": \"<p>Looks good</p>\"}",
			method: "POST", path: "/ex/confluence/11223344-a1b2-3b33-c444-def123456789/wiki/api/v2/footer-comments", header: atlassianBodyHeaders,
			body:   "{\"pageId\": \"65601\", \"body\": {\"representation\": \"storage\", \"value\": \"<p>Looks good</p>\"}}",
			status: 200, respond: atlassianJSON("{\"id\": \"65700\", \"status\": \"current\", \"title\": \"Re: Release notes\", \"pageId\": \"65601\", \"version\": {\"createdAt\": \"2024-05-03T08:00:00.000Z\", \"message\": \"\", \"number\": 1, \"minorEdit\": false, \"authorId\": \"5b10a2844c20165700ede21g\"}, \"body\": {\"storage\": {\"representation\": \"storage\", \"value\": \"<p>Looks good</p>\"}}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601?focusedCommentId=65700\"}}"),
			want: "{\"id\": \"65700\", \"status\": \"current\", \"pageId\": \"65601\", \"version\": {\"number\": 1, \"createdAt\": \"2024-05-03T08:00:00.000Z\"}, \"_links\": {\"webui\": \"/spaces/DEV/pages/65601?focusedCommentId=65700\"}}",
		},
		contractCase{
			tool: "atlassian_confluence_list_page_labels", args: "{\"page_id\": \"65601\"}",
			method: "GET", path: "/ex/confluence/11223344-a1b2-3b33-c444-def123456789/wiki/api/v2/pages/65601/labels", header: atlassianHeaders, query: "limit=25",
			status: 200, respond: atlassianJSON("{\"results\": [{\"id\": \"1376257\", \"name\": \"release-notes\", \"prefix\": \"global\"}], \"_links\": {}}"),
			want: "{\"items\": [{\"id\": \"1376257\", \"name\": \"release-notes\", \"prefix\": \"global\"}]}",
		},
		contractCase{
			tool: "atlassian_confluence_add_page_labels", args: "{\"page_id\": \"65601\", \"labels\": [{\"prefix\": \"global\", \"name\": \"release-notes\"}]}",
			method: "POST", path: "/ex/confluence/11223344-a1b2-3b33-c444-def123456789/wiki/rest/api/content/65601/label", header: atlassianBodyHeaders,
			body:   "[{\"prefix\": \"global\", \"name\": \"release-notes\"}]",
			status: 200, respond: atlassianJSON("{\"results\": [{\"prefix\": \"global\", \"name\": \"release-notes\", \"id\": \"1376257\", \"label\": \"release-notes\"}], \"start\": 0, \"limit\": 200, \"size\": 1, \"_links\": {}}"),
			want: "[{\"id\": \"1376257\", \"name\": \"release-notes\", \"prefix\": \"global\"}]",
		},
	)
}
