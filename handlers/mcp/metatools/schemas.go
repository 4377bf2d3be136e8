package metatools

import "encoding/json"

// The meta-tools' input schemas (JSON Schema draft 2020-12), and their descriptions, written for an
// agent deciding what to call.
var metaTools = []struct {
	name, description, schema string
}{
	{"search_tools", "Find integration tools by keyword. Matches tool names first (exact, then prefix, then words), then descriptions. " +
		"Use it before execute_tools to discover the exact tool name; then call get_tool_schema for its arguments. " +
		"Returns {\"tools\":[{\"name\",\"description\",\"integration\"}]}.",
		`{"type":"object","properties":{
			"query":{"type":"string","minLength":1,"maxLength":200,"description":"Keywords, e.g. \"github pull requests\"."},
			"integration":{"type":"string","maxLength":64,"description":"Only tools of this integration (see list_integrations)."},
			"limit":{"type":"integer","minimum":1,"maximum":50,"default":10,"description":"Most tools to return."}
		},"required":["query"],"additionalProperties":false}`},
	{"get_tool_schema", "Return one tool's description and the JSON Schema of its arguments. Call it before execute_tools " +
		"so the arguments you send are valid; defaults in the schema are filled in for you.",
		`{"type":"object","properties":{
			"tool":{"type":"string","minLength":1,"maxLength":128,"description":"The exact tool name, e.g. github_list_repos."}
		},"required":["tool"],"additionalProperties":false}`},
	{"execute_tools", "Run one or more integration tools with the user's stored credentials. Executions run concurrently (up to 8 at a time) " +
		"and independently: one failure does not stop the others. Returns {\"results\":[…]} in the same order as executions, each " +
		"{\"result\": …} or {\"error\": …}. An error of \"NOT_CONNECTED\" means the user has not connected that integration: follow its message " +
		"(usually: call connect with the integration it names, give the user the URL, then wait_for_connection; for an API-key " +
		"integration, give the user the portal link it names). To run a single tool, send one execution.",
		`{"type":"object","properties":{
			"executions":{"type":"array","minItems":1,"maxItems":50,"description":"The tool calls to make.","items":{
				"type":"object","properties":{
					"tool":{"type":"string","minLength":1,"maxLength":128,"description":"Exact tool name."},
					"args":{"type":"object","description":"Arguments matching the tool's schema (get_tool_schema)."},
					"account":{"type":"string","minLength":1,"maxLength":32,"pattern":"^[a-z0-9][a-z0-9_-]*$","description":"Which of the user's accounts of the tool's integration to use, by label (list_integrations shows them, e.g. \"work\"). Leave it out for the default account."},
					"approval_id":{"type":"string","minLength":36,"maxLength":36,"pattern":"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$","description":"Only when a previous execution answered APPROVAL_REQUIRED: its approval_id, with the same tool, args and account. The call then waits for the person's decision and runs once approved."}
				},"required":["tool"],"additionalProperties":false}}
		},"required":["executions"],"additionalProperties":false}`},
	{"whoami", "Return the authenticated workbench user: {\"id\", \"email\"}.",
		`{"type":"object","properties":{},"additionalProperties":false}`},
	{"list_integrations", "List every integration with its auth mode and whether the current user has it connected. " +
		"Returns {\"integrations\":[{\"name\",\"display_name\",\"description\",\"auth_mode\",\"categories\",\"connected\",\"accounts\"}]}; " +
		"accounts (when the user has any) are [{\"label\",\"hint\",\"status\",\"default\",\"reconnect\"}] (reconnect: how to connect again an account whose status is needs_reauth or expired): a user may hold several accounts of one integration, " +
		"and execute_tools, curl_session and connect take an account label (the default account when left out). " +
		"Integrations with auth mode none are always connected; apikey integrations are connected by the user in the portal. " +
		"When the agent's organisation, guild or agent holds logins to remote MCP servers, \"connectors\" lists them: [{\"integration\",\"display_name\",\"accounts\":[{\"label\",\"hint\",\"status\",\"default\",\"scope\"}]}]; " +
		"a connector tool's execution takes one of those labels as account too.",
		`{"type":"object","properties":{},"additionalProperties":false}`},
	{"connect", "Begin connecting an integration for the current user. Returns {\"connectionId\",\"type\",\"url\"}: give the url to the user " +
		"(it is a workbench link; they sign in and consent in their browser), then call wait_for_connection with the connectionId. " +
		"For an API-key integration nothing is started: the answer is {\"type\":\"apikey\",\"url\",\"instructions\"}, the portal page " +
		"where the user enters the key themselves; give them that url and retry once they have.",
		`{"type":"object","properties":{
			"integration":{"type":"string","minLength":1,"maxLength":64,"description":"Integration name, e.g. github."},
			"account":{"type":"string","minLength":1,"maxLength":32,"pattern":"^[a-z0-9][a-z0-9_-]*$","description":"A label for the account to connect, e.g. \"work\" or \"personal\": a new label adds an account, an existing one reconnects it. Leave it out to (re)connect the default account."}
		},"required":["integration"],"additionalProperties":false}`},
	{"wait_for_connection", "Block until a connection started by connect completes. Returns {\"status\":\"CONNECTED\"}, {\"status\":\"TIMEOUT\"} " +
		"(still waiting for the user: call again to keep waiting) or {\"status\":\"EXPIRED\"} (the link expired or a newer connect replaced it: call connect again).",
		`{"type":"object","properties":{
			"connectionId":{"type":"string","minLength":1,"maxLength":64,"description":"The connectionId connect returned."},
			"timeout_seconds":{"type":"integer","minimum":1,"maximum":600,"default":120,"description":"How long to wait before answering TIMEOUT."}
		},"required":["connectionId"],"additionalProperties":false}`},
	{"get_auth_url", "Deprecated: use connect. Same arguments and answer as connect.",
		`{"type":"object","properties":{
			"integration":{"type":"string","minLength":1,"maxLength":64,"description":"Integration name, e.g. github."},
			"account":{"type":"string","minLength":1,"maxLength":32,"pattern":"^[a-z0-9][a-z0-9_-]*$","description":"As connect's account."}
		},"required":["integration"],"additionalProperties":false}`},
	{"curl_session", "Mint a short-lived token for arbitrary HTTP calls to the named integrations through the workbench proxy, with the " +
		"user's credential injected. It permits destructive writes: before calling it, tell the user which integrations and what you " +
		"intend to do, and wait for their explicit approval. Use it only for provider endpoints no tool covers (search_tools first). " +
		"Every integration must exist, allow proxying and be connected, or nothing is minted and the error names each one that failed. " +
		"Returns {\"token\",\"expires_at\",\"header\",\"integrations\":[{\"name\",\"base_url\",\"upstream\"}],\"usage\"}: send requests " +
		"to base_url + the provider's API path with the header Authorization: Bearer <token>, for 15 minutes.",
		`{"type":"object","properties":{
			"integrations":{"type":"array","minItems":1,"maxItems":16,"items":{"type":"string","minLength":1,"maxLength":64},"description":"Integration names."},
			"account":{"type":"string","minLength":1,"maxLength":32,"pattern":"^[a-z0-9][a-z0-9_-]*$","description":"Which of the user's accounts to use for every integration named, by label (list_integrations shows them). Leave it out for each integration's default account."}
		},"required":["integrations"],"additionalProperties":false}`},
}

func rawSchema(s string) json.RawMessage {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic("metatools: bad built-in schema: " + err.Error())
	}
	b, _ := json.Marshal(v)
	return b
}
