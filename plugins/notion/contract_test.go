package notion_test

import (
	"testing"

	"github.com/workbench/workbench/plugins/notion"
	"github.com/workbench/workbench/plugins/plugintest"
)

// Contract cases for the notion plugin (Notion API, version 2022-06-28, https://developers.notion.com/reference).
// Every request carries the OAuth access token as a Bearer header and the Notion-Version header;
// responses are trimmed from the documented examples.

const notionToken = "ntn_contract_token"

var (
	notionHeaders     = map[string]string{"Authorization": "Bearer " + notionToken, "Notion-Version": "2022-06-28", "Accept": "application/json"}
	notionBodyHeaders = map[string]string{"Authorization": "Bearer " + notionToken, "Notion-Version": "2022-06-28", "Content-Type": "application/json"}
)

var notionTitle = map[string]any{"id": "title", "type": "title", "title": []any{map[string]any{"type": "text",
	"text": map[string]any{"content": "Tuscan kale", "link": nil}, "plain_text": "Tuscan kale", "href": nil}}}

var notionPage = map[string]any{
	"object": "page", "id": "59833787-2cf9-4fdf-8782-e53db20768a5", "created_time": "2022-03-01T19:05:00.000Z",
	"last_edited_time": "2022-07-06T20:25:00.000Z", "created_by": map[string]any{"object": "user", "id": "ee5f0f84-409a-440f-983a-a5315961c6e4"},
	"last_edited_by": map[string]any{"object": "user", "id": "0c3e9826-b8f7-4f73-927d-2caaf86f1103"}, "cover": nil,
	"icon": map[string]any{"type": "emoji", "emoji": "🥬"}, "parent": map[string]any{"type": "database_id", "database_id": "d9824bdc-8445-4327-be8b-5b47500af6ce"},
	"archived": false, "in_trash": false, "properties": map[string]any{"Name": notionTitle},
	"url": "https://www.notion.so/Tuscan-kale-598337872cf94fdf8782e53db20768a5", "public_url": nil,
}

const notionPageProps = `{"Name":{"id":"title","type":"title","title":[{"type":"text","text":{"content":"Tuscan kale","link":null},"plain_text":"Tuscan kale","href":null}]}}`

var notionParagraph = map[string]any{"object": "block", "id": "c02fc1d3-db8b-45c5-a222-27595b15aea7",
	"parent":       map[string]any{"type": "page_id", "page_id": "59833787-2cf9-4fdf-8782-e53db20768a5"},
	"created_time": "2022-03-01T19:05:00.000Z", "last_edited_time": "2022-03-01T19:05:00.000Z",
	"created_by": map[string]any{"object": "user", "id": "ee5f0f84-409a-440f-983a-a5315961c6e4"}, "has_children": false,
	"archived": false, "in_trash": false, "type": "paragraph", "paragraph": map[string]any{"rich_text": []any{map[string]any{
		"type": "text", "text": map[string]any{"content": "Lacinato kale", "link": nil}, "plain_text": "Lacinato kale"}}, "color": "default"}}

const notionParagraphShaped = `{"id":"c02fc1d3-db8b-45c5-a222-27595b15aea7","type":"paragraph","has_children":false,
 "last_edited_time":"2022-03-01T19:05:00.000Z","in_trash":false,"paragraph":{"rich_text":[{"type":"text",
 "text":{"content":"Lacinato kale","link":null},"plain_text":"Lacinato kale"}],"color":"default"}}`

var notionComment = map[string]any{"object": "comment", "id": "94cc56ab-9f02-409d-9f99-1037e9fe502f",
	"parent":        map[string]any{"type": "page_id", "page_id": "5c6a2821-6bb1-4a7e-b6e1-c50111515c3d"},
	"discussion_id": "f1407351-36f5-4c49-a13c-49f8ba11776d", "created_time": "2022-07-15T16:52:00.000Z",
	"last_edited_time": "2022-07-15T19:16:00.000Z", "created_by": map[string]any{"object": "user", "id": "9b15170a-9941-4297-8ee6-83fa7649a87a"},
	"rich_text": []any{map[string]any{"type": "text", "text": map[string]any{"content": "Hello world", "link": nil}, "plain_text": "Hello world"}}}

const notionCommentShaped = `{"id":"94cc56ab-9f02-409d-9f99-1037e9fe502f","discussion_id":"f1407351-36f5-4c49-a13c-49f8ba11776d",
 "parent":{"type":"page_id","page_id":"5c6a2821-6bb1-4a7e-b6e1-c50111515c3d"},"created_time":"2022-07-15T16:52:00.000Z",
 "created_by":{"id":"9b15170a-9941-4297-8ee6-83fa7649a87a"},"rich_text":[{"type":"text","text":{"content":"Hello world","link":null},"plain_text":"Hello world"}]}`

// creds are what the fake expects of the notion connection.
var creds = plugintest.Credentials{Token: notionToken}

// TestContracts calls every notion tool against a fake that checks the request as the provider documents it.
func TestContracts(t *testing.T) {
	plugintest.Contracts(t, notion.Plugin(), creds, contracts())
}

// contracts are the notion tools' contract cases.
func contracts() []plugintest.Case {
	return []plugintest.Case{
		{
			Tool: "notion_search", Args: `{"query":"External tasks","filter":{"property":"object","value":"page"}}`,
			Method: "POST", Path: "/v1/search", Header: notionBodyHeaders,
			Body: `{"query":"External tasks","filter":{"property":"object","value":"page"},
			 "sort":{"timestamp":"last_edited_time","direction":"descending"},"page_size":20}`,
			Status: 200, Respond: map[string]any{"object": "list", "results": []any{notionPage},
				"next_cursor": "e6c6f6c4-5c4e-4a3a-9a8f-1b2c3d4e5f60", "has_more": true, "type": "page_or_database", "page_or_database": map[string]any{}},
			Want: `{"items":[{"object":"page","id":"59833787-2cf9-4fdf-8782-e53db20768a5","url":"https://www.notion.so/Tuscan-kale-598337872cf94fdf8782e53db20768a5",
			 "parent":{"type":"database_id","database_id":"d9824bdc-8445-4327-be8b-5b47500af6ce"},"created_time":"2022-03-01T19:05:00.000Z",
			 "last_edited_time":"2022-07-06T20:25:00.000Z","archived":false,"in_trash":false,"properties":` + notionPageProps + `}],
			 "next_cursor":"e6c6f6c4-5c4e-4a3a-9a8f-1b2c3d4e5f60"}`,
		},
		{
			Tool: "notion_get_page", Args: `{"page_id":"59833787-2cf9-4fdf-8782-e53db20768a5"}`,
			Method: "GET", Path: "/v1/pages/59833787-2cf9-4fdf-8782-e53db20768a5", Header: notionHeaders,
			Status: 200, Respond: notionPage,
			Want: `{"object":"page","id":"59833787-2cf9-4fdf-8782-e53db20768a5","url":"https://www.notion.so/Tuscan-kale-598337872cf94fdf8782e53db20768a5",
			 "parent":{"type":"database_id","database_id":"d9824bdc-8445-4327-be8b-5b47500af6ce"},"created_time":"2022-03-01T19:05:00.000Z",
			 "last_edited_time":"2022-07-06T20:25:00.000Z","created_by":{"id":"ee5f0f84-409a-440f-983a-a5315961c6e4"},
			 "last_edited_by":{"id":"0c3e9826-b8f7-4f73-927d-2caaf86f1103"},"archived":false,"in_trash":false,
			 "icon":{"type":"emoji","emoji":"🥬"},"properties":` + notionPageProps + `}`,
		},
		{
			Tool: "notion_create_page",
			Args: `{"parent_database_id":"d9824bdc84454327be8b5b47500af6ce","properties":{"Name":{"title":[{"text":{"content":"Tuscan kale"}}]}},
			 "children":[{"object":"block","type":"paragraph","paragraph":{"rich_text":[{"type":"text","text":{"content":"Lacinato kale"}}]}}]}`,
			Method: "POST", Path: "/v1/pages", Header: notionBodyHeaders,
			Body: `{"parent":{"database_id":"d9824bdc84454327be8b5b47500af6ce"},"properties":{"Name":{"title":[{"text":{"content":"Tuscan kale"}}]}},
			 "children":[{"object":"block","type":"paragraph","paragraph":{"rich_text":[{"type":"text","text":{"content":"Lacinato kale"}}]}}]}`,
			Status: 200, Respond: notionPage,
			Want: `{"object":"page","id":"59833787-2cf9-4fdf-8782-e53db20768a5","url":"https://www.notion.so/Tuscan-kale-598337872cf94fdf8782e53db20768a5",
			 "parent":{"type":"database_id","database_id":"d9824bdc-8445-4327-be8b-5b47500af6ce"},"created_time":"2022-03-01T19:05:00.000Z",
			 "properties":` + notionPageProps + `}`,
		},
		{
			Tool: "notion_update_page", Args: `{"page_id":"59833787-2cf9-4fdf-8782-e53db20768a5","properties":{"In stock":{"checkbox":true}}}`,
			Method: "PATCH", Path: "/v1/pages/59833787-2cf9-4fdf-8782-e53db20768a5", Header: notionBodyHeaders,
			Body:   `{"properties":{"In stock":{"checkbox":true}}}`,
			Status: 200, Respond: notionPage,
			Want: `{"object":"page","id":"59833787-2cf9-4fdf-8782-e53db20768a5","url":"https://www.notion.so/Tuscan-kale-598337872cf94fdf8782e53db20768a5",
			 "last_edited_time":"2022-07-06T20:25:00.000Z","archived":false,"in_trash":false,"properties":` + notionPageProps + `}`,
		},
		{
			Tool: "notion_get_page_property", Args: `{"page_id":"b55c9c91-384d-452b-81db-d1ef79372b75","property_id":"aBcD123","page_size":25}`,
			Method: "GET", Path: "/v1/pages/b55c9c91-384d-452b-81db-d1ef79372b75/properties/aBcD123", Query: "page_size=25", Header: notionHeaders,
			Status: 200, Respond: map[string]any{"object": "list", "results": []any{map[string]any{"object": "property_item", "id": "aBcD123",
				"type": "relation", "relation": map[string]any{"id": "535c3fb2-95e6-4b37-a696-036e5eac5cf6"}}},
				"next_cursor": nil, "has_more": false, "type": "property_item",
				"property_item": map[string]any{"id": "aBcD123", "next_url": nil, "type": "relation", "relation": map[string]any{}}},
			Want: `{"object":"list","type":"property_item","results":[{"object":"property_item","id":"aBcD123","type":"relation",
			 "relation":{"id":"535c3fb2-95e6-4b37-a696-036e5eac5cf6"}}],"next_cursor":null,"has_more":false,
			 "property_item":{"id":"aBcD123","next_url":null,"type":"relation","relation":{}}}`,
		},
		{
			Tool: "notion_get_block_children", Args: `{"block_id":"59833787-2cf9-4fdf-8782-e53db20768a5","start_cursor":"fe2cc560-036c-44cd-90e8-294d5a74cebc"}`,
			Method: "GET", Path: "/v1/blocks/59833787-2cf9-4fdf-8782-e53db20768a5/children",
			Query: "page_size=100&start_cursor=fe2cc560-036c-44cd-90e8-294d5a74cebc", Header: notionHeaders,
			Status: 200, Respond: map[string]any{"object": "list", "results": []any{notionParagraph}, "next_cursor": nil, "has_more": false,
				"type": "block", "block": map[string]any{}},
			Want: `{"items":[` + notionParagraphShaped + `]}`,
		},
		{
			Tool:   "notion_append_block_children",
			Args:   `{"block_id":"b55c9c91-384d-452b-81db-d1ef79372b75","children":[{"object":"block","type":"heading_2","heading_2":{"rich_text":[{"type":"text","text":{"content":"Lacinato kale"}}]}}]}`,
			Method: "PATCH", Path: "/v1/blocks/b55c9c91-384d-452b-81db-d1ef79372b75/children", Header: notionBodyHeaders,
			Body:   `{"children":[{"object":"block","type":"heading_2","heading_2":{"rich_text":[{"type":"text","text":{"content":"Lacinato kale"}}]}}]}`,
			Status: 200, Respond: map[string]any{"object": "list", "results": []any{map[string]any{"object": "block", "id": "c02fc1d3-db8b-45c5-a222-27595b15aea7",
				"type": "heading_2", "has_children": false, "heading_2": map[string]any{"rich_text": []any{}, "is_toggleable": false}}},
				"next_cursor": nil, "has_more": false},
			Want: `[{"id":"c02fc1d3-db8b-45c5-a222-27595b15aea7","type":"heading_2","has_children":false}]`,
		},
		{
			Tool: "notion_query_database", Args: `{"database_id":"d9824bdc84454327be8b5b47500af6ce","filter":{"property":"Landmark","rich_text":{"contains":"Bridge"}},"sorts":[{"property":"Name","direction":"ascending"}]}`,
			Method: "POST", Path: "/v1/databases/d9824bdc84454327be8b5b47500af6ce/query", Header: notionBodyHeaders,
			Body:   `{"filter":{"property":"Landmark","rich_text":{"contains":"Bridge"}},"sorts":[{"property":"Name","direction":"ascending"}],"page_size":50}`,
			Status: 200, Respond: map[string]any{"object": "list", "results": []any{notionPage}, "next_cursor": "b55c9c91-384d-452b-81db-d1ef79372b76",
				"has_more": true, "type": "page_or_database", "page_or_database": map[string]any{}},
			Want: `{"items":[{"id":"59833787-2cf9-4fdf-8782-e53db20768a5","url":"https://www.notion.so/Tuscan-kale-598337872cf94fdf8782e53db20768a5",
			 "created_time":"2022-03-01T19:05:00.000Z","last_edited_time":"2022-07-06T20:25:00.000Z","in_trash":false,"properties":` + notionPageProps + `}],
			 "next_cursor":"b55c9c91-384d-452b-81db-d1ef79372b76"}`,
		},
		{
			Tool: "notion_get_database", Args: `{"database_id":"bc1211ca-e3f1-4939-ae34-5260b16f627c"}`,
			Method: "GET", Path: "/v1/databases/bc1211ca-e3f1-4939-ae34-5260b16f627c", Header: notionHeaders,
			Status: 200, Respond: map[string]any{"object": "database", "id": "bc1211ca-e3f1-4939-ae34-5260b16f627c",
				"created_time": "2021-07-08T23:50:00.000Z", "last_edited_time": "2023-07-24T18:29:00.000Z", "icon": nil, "cover": nil,
				"url": "https://www.notion.so/bc1211cae3f14939ae34260b16f627c", "title": []any{map[string]any{"type": "text",
					"text": map[string]any{"content": "Grocery List", "link": nil}, "plain_text": "Grocery List"}},
				"description": []any{}, "is_inline": false, "parent": map[string]any{"type": "page_id", "page_id": "98ad959b-2b6a-4774-80ee-00246fb0ea9b"},
				"archived": false, "in_trash": false, "properties": map[string]any{
					"Name":     map[string]any{"id": "title", "name": "Name", "type": "title", "title": map[string]any{}},
					"In stock": map[string]any{"id": "%3AUPp", "name": "In stock", "type": "checkbox", "checkbox": map[string]any{}}}},
			Want: `{"object":"database","id":"bc1211ca-e3f1-4939-ae34-5260b16f627c","url":"https://www.notion.so/bc1211cae3f14939ae34260b16f627c",
			 "title":[{"type":"text","text":{"content":"Grocery List","link":null},"plain_text":"Grocery List"}],"description":[],"is_inline":false,
			 "parent":{"type":"page_id","page_id":"98ad959b-2b6a-4774-80ee-00246fb0ea9b"},"created_time":"2021-07-08T23:50:00.000Z",
			 "last_edited_time":"2023-07-24T18:29:00.000Z","in_trash":false,"properties":{"Name":{"id":"title","name":"Name","type":"title","title":{}},
			 "In stock":{"id":"%3AUPp","name":"In stock","type":"checkbox","checkbox":{}}}}`,
		},
		{
			Tool: "notion_list_users", Args: `{"page_size":2}`,
			Method: "GET", Path: "/v1/users", Query: "page_size=2", Header: notionHeaders,
			Status: 200, Respond: map[string]any{"object": "list", "results": []any{
				map[string]any{"object": "user", "id": "6794760a-1f15-45cd-9c65-0dfe42f5135a", "name": "Aman Gupta",
					"avatar_url": nil, "type": "person", "person": map[string]any{"email": "XXXXXXXXXXX@gmail.com"}},
				map[string]any{"object": "user", "id": "92a680bb-6970-4726-952b-4f4c03bff617", "name": "Leo's Test Integration",
					"avatar_url": nil, "type": "bot", "bot": map[string]any{"owner": map[string]any{"type": "workspace", "workspace": true},
						"workspace_name": "Ada Lovelace's Notion"}}},
				"next_cursor": "fe2cc560-036c-44cd-90e8-294d5a74cebc", "has_more": true, "type": "user", "user": map[string]any{}},
			Want: `{"items":[{"id":"6794760a-1f15-45cd-9c65-0dfe42f5135a","type":"person","name":"Aman Gupta","avatar_url":null,
			 "person":{"email":"XXXXXXXXXXX@gmail.com"}},{"id":"92a680bb-6970-4726-952b-4f4c03bff617","type":"bot","name":"Leo's Test Integration",
			 "avatar_url":null}],"next_cursor":"fe2cc560-036c-44cd-90e8-294d5a74cebc"}`,
		},
		{
			Tool: "notion_get_me", Args: `{}`,
			Method: "GET", Path: "/v1/users/me", Header: notionHeaders,
			Status: 200, Respond: map[string]any{"object": "user", "id": "16d84278-ab0e-484c-9bdd-b35da3bd8905", "name": "pied piper",
				"avatar_url": nil, "type": "bot", "bot": map[string]any{"owner": map[string]any{"type": "user", "user": map[string]any{
					"object": "user", "id": "5389a034-eb5c-47b5-8a9e-f79c99ef166c", "name": "christine makenotion", "type": "person"}},
					"workspace_name": "Pied Piper"}},
			Want: `{"id":"16d84278-ab0e-484c-9bdd-b35da3bd8905","type":"bot","name":"pied piper","bot":{"owner":{"type":"user","user":{
			 "object":"user","id":"5389a034-eb5c-47b5-8a9e-f79c99ef166c","name":"christine makenotion","type":"person"}},"workspace_name":"Pied Piper"}}`,
		},
		{
			Tool: "notion_list_comments", Args: `{"block_id":"5c6a2821-6bb1-4a7e-b6e1-c50111515c3d"}`,
			Method: "GET", Path: "/v1/comments", Query: "block_id=5c6a2821-6bb1-4a7e-b6e1-c50111515c3d&page_size=100", Header: notionHeaders,
			Status: 200, Respond: map[string]any{"object": "list", "results": []any{notionComment}, "next_cursor": nil, "has_more": false,
				"type": "comment", "comment": map[string]any{}},
			Want: `{"items":[` + notionCommentShaped + `]}`,
		},
		{
			Tool: "notion_add_comment", Args: `{"page_id":"5c6a2821-6bb1-4a7e-b6e1-c50111515c3d","text":"Hello world"}`,
			Method: "POST", Path: "/v1/comments", Header: notionBodyHeaders,
			Body:   `{"parent":{"page_id":"5c6a2821-6bb1-4a7e-b6e1-c50111515c3d"},"rich_text":[{"type":"text","text":{"content":"Hello world"}}]}`,
			Status: 200, Respond: notionComment, Want: notionCommentShaped,
		},
	}
}
