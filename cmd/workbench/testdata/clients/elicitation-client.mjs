// The official TypeScript SDK's client, declaring elicitation, runs one execution through execute_tools
// of a served Workbench and answers every elicitation/create with the action it is given: what an agent
// whose user approves or declines a tool switched to Ask sees. Driven by
// cmd/workbench/approvals_ts_test.go; runnable by hand:
//
//   WORKBENCH_URL=http://127.0.0.1:8080 WORKBENCH_API_KEY=wb_… \
//   node elicitation-client.mjs accept|decline|cancel TOOL '{"arg":"value"}'
//
// It prints one JSON line: {"text": execute_tools' text content, "isError", "elicitations": [{"message",
// "mode", "requestedSchema"}] (what the handler was asked), "requests": the elicitation/create requests
// as they came over the wire, "rejected": the errors the client sent back instead of an answer (the
// SDK refuses a request that does not match its schema before the handler runs), "errors"}. It exits 1
// when execute_tools could not be called.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const base = (process.env.WORKBENCH_URL ?? '').replace(/\/+$/, '');
const apiKey = process.env.WORKBENCH_API_KEY ?? '';
const [action, tool, argsJSON = '{}'] = process.argv.slice(2);
if (!base || !apiKey || !['accept', 'decline', 'cancel'].includes(action) || !tool) {
  console.error('elicitation-client.mjs: set WORKBENCH_URL and WORKBENCH_API_KEY; usage: node elicitation-client.mjs accept|decline|cancel TOOL [ARGS_JSON]');
  process.exit(2);
}
const args = JSON.parse(argsJSON);

const out = { action, text: null, isError: null, elicitations: [], requests: [], rejected: [], errors: [] };

const client = new Client({ name: 'workbench-elicitation-client', version: '1.0.0' }, {
  capabilities: { elicitation: {} },
});
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  out.elicitations.push({ message: req.params.message, mode: req.params.mode, requestedSchema: req.params.requestedSchema });
  // accept with empty content: the form Workbench asks for has no fields.
  return action === 'accept' ? { action, content: {} } : { action };
});
client.onerror = (err) => out.errors.push(String(err?.stack ?? err));

const transport = new StreamableHTTPClientTransport(new URL(base + '/mcp'), {
  requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
});
let code = 0;
try {
  await client.connect(transport);
  // See the elicitation requests as they arrive and the client's answers to them as they leave, so that
  // a request the SDK refuses (its handler never runs) is reported with what the SDK said.
  const asked = new Set();
  const receive = transport.onmessage;
  transport.onmessage = (msg, extra) => {
    if (msg?.method === 'elicitation/create') {
      asked.add(msg.id);
      out.requests.push(msg);
    }
    receive?.(msg, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = async (msg, options) => {
    if (msg && 'id' in msg && asked.has(msg.id) && msg.error) out.rejected.push(msg.error);
    return send(msg, options);
  };

  const res = await client.callTool({ name: 'execute_tools', arguments: { executions: [{ tool, args }] } });
  out.isError = res.isError ?? false;
  out.text = res.content?.find((c) => c.type === 'text')?.text ?? null;
  await transport.terminateSession().catch((err) => out.errors.push(`terminateSession: ${err}`));
  await client.close();
} catch (err) {
  out.errors.push(String(err?.stack ?? err));
  code = 1;
}
console.log(JSON.stringify(out));
process.exit(code);
