// Package metatools is the tool set the MCP endpoint advertises: the nine meta-tools of the spec
// (search_tools, get_tool_schema, execute_tools, whoami, list_integrations, connect,
// wait_for_connection, get_auth_url, curl_session), whatever the size of the plugin catalog behind them.
//
// Each meta-tool's arguments are validated against its JSON Schema; a failure is JSON-RPC -32602, as is
// an unknown meta-tool. A meta-tool that fails on its own (connect of an unknown or unconfigured
// integration, curl_session minting nothing, wait_for_connection with an unknown id, an unknown tool or
// integration named to get_tool_schema or search_tools) answers a result with isError set and
// {"error": message} as its text, so a client that reads isError tells the model. execute_tools never
// does: everything that goes wrong with a plugin tool (it does not exist, it is not connected, its
// arguments fail its schema, its provider fails) is an entry {"error": …} of a successful result, index-
// aligned with the executions; NOT_CONNECTED alone carries extra fields, integration and a message
// naming what to do next (spec, "What a tool call does").
//
// API-key integrations are connected by the user in the portal, never by the agent (it must not see
// the key). For them NOT_CONNECTED (in execute_tools and curl_session) names the portal's integrations
// page, Options.PublicURL + "/integrations", instead of connect, and connect itself answers that page as
// a successful result rather than a refusal. Cookie integrations keep the connect flow: their claim
// link is how the portal starts a cookie capture.
//
// execute_tools is an adapter over app/executions, which runs up to eight executions at a time and
// appends one execution.ToolExecuted event per execution before returning its outcome; results come
// back index-aligned with the request. If that append fails, the outcome is withheld and the entry is
// an error instead of its result: no tool result leaves the server without its audit record (see
// app/executions for the rule).
//
// execute_tools is the hot path, and is read once: decodeExecutions walks the arguments a single time
// (after json.Valid), checks them against the meta-tool's schema by hand, and writes each execution's
// args out canonically as it goes; the result's text is encoded once, without maps. The canonical args
// are byte for byte what the schema validator's decode and re-encode gave (members sorted, compact,
// numbers as written, encoding/json's escapes), so an execution's args_sha256 is the same value for the
// same arguments as before (digest_test.go pins it for a table of documents). A document the walk does
// not take (a repeated member name, anything the schema refuses) goes through the schema validator as
// every other meta-tool's arguments do, and gets its error from it.
package metatools
