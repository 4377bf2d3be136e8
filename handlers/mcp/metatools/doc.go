// Package metatools is the tool set the MCP endpoint advertises: the nine meta-tools of the spec
// (search_tools, get_tool_schema, execute_tools, whoami, list_integrations, connect,
// wait_for_connection, get_auth_url, curl_session), whatever the size of the plugin catalog behind them.
//
// Each meta-tool's arguments are validated against its JSON Schema; a failure is JSON-RPC -32602, as is
// an unknown meta-tool. Everything that goes wrong with a plugin tool (it does not exist, it is not
// connected, its arguments fail its schema, its provider fails) is a successful result whose text holds
// {"results":[{"error": …}]}; NOT_CONNECTED alone carries extra fields, integration and a message naming
// the connect call to make (spec, "What a tool call does").
//
// execute_tools runs up to eight executions at a time, returns results index-aligned with the request,
// and appends one execution.ToolExecuted event per execution before returning its result. If that append
// fails, the execution answers an error instead of its result: no tool result leaves the server without
// its audit record.
package metatools
