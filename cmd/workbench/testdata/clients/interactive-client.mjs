// The official TypeScript SDK's client, declaring elicitation, sampling and roots, drives execute_tools
// of a served Workbench whose agent has the remote testdata/remote/interactive-server.mjs connected (tool
// prefix "interactive"). Driven by cmd/workbench/interactive_e2e_test.go:
//
//   WORKBENCH_URL=http://127.0.0.1:8080 WORKBENCH_API_KEY=wb_… node interactive-client.mjs
//
// It prints one JSON line per check ({"check", "ok", …}) and exits 1 if any check failed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema, CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const base = (process.env.WORKBENCH_URL ?? '').replace(/\/+$/, '');
const apiKey = process.env.WORKBENCH_API_KEY ?? '';
if (!base || !apiKey) {
  console.error('interactive-client.mjs: set WORKBENCH_URL and WORKBENCH_API_KEY');
  process.exit(2);
}

let failures = 0;
class CheckError extends Error {}
function expect(cond, message) {
  if (!cond) throw new CheckError(message);
}
async function check(name, fn) {
  try {
    const details = (await fn()) ?? {};
    console.log(JSON.stringify({ check: name, ok: true, ...details }));
  } catch (err) {
    failures++;
    console.log(JSON.stringify({ check: name, ok: false, error: err instanceof CheckError ? err.message : String(err?.stack ?? err) }));
  }
}

const asked = { elicitation: [], sampling: 0, roots: 0 };
const client = new Client({ name: 'interactive-client', version: '1.0.0' }, {
  capabilities: { elicitation: {}, sampling: {}, roots: { listChanged: false } },
});
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  asked.elicitation.push(req.params.message);
  return { action: 'accept', content: { name: 'Ada' } };
});
client.setRequestHandler(CreateMessageRequestSchema, async () => {
  asked.sampling++;
  return { role: 'assistant', content: { type: 'text', text: 'sampled by the agent' }, model: 'test-model', stopReason: 'endTurn' };
});
client.setRequestHandler(ListRootsRequestSchema, async () => {
  asked.roots++;
  return { roots: [{ uri: 'file:///agent/work', name: 'work' }] };
});
const transport = new StreamableHTTPClientTransport(new URL(base + '/mcp'), {
  requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
});
await client.connect(transport);

// execute runs one execution of a remote tool and returns execute_tools' {"results": …} and the result.
async function execute(tool, options = {}) {
  const res = await client.callTool({ name: 'execute_tools', arguments: { executions: [{ tool, args: {} }] } }, CallToolResultSchema, options);
  const body = JSON.parse(res.content.find((c) => c.type === 'text').text);
  return body.results[0];
}
const resultText = (entry) => JSON.stringify(entry);

await check('progress', async () => {
  const seen = [];
  const entry = await execute('interactive_progress', { onprogress: (p) => seen.push(p) });
  expect(resultText(entry).includes('progress done'), `result ${resultText(entry)}`);
  expect(seen.length >= 1, 'no notifications/progress reached the client');
  expect(seen.every((p) => p.message.startsWith('execution 0: step ') && p.total === 3), `progress ${JSON.stringify(seen)}`);
  for (let i = 1; i < seen.length; i++) expect(seen[i].progress > seen[i - 1].progress, `progress not increasing: ${JSON.stringify(seen)}`);
  return { progress: seen };
});

await check('elicitation', async () => {
  const entry = await execute('interactive_ask_name');
  expect(resultText(entry).includes('hello Ada'), `result ${resultText(entry)}`);
  expect(asked.elicitation.length === 1 && asked.elicitation[0] === 'What is your name?', `asked ${JSON.stringify(asked.elicitation)}`);
  const seen = JSON.parse((await execute('interactive_seen')).result.content[0].text);
  expect(seen.elicited === 'Ada', `the remote got ${JSON.stringify(seen)}`);
});

await check('sampling', async () => {
  const entry = await execute('interactive_sample');
  expect(resultText(entry).includes('sampled: sampled by the agent') && asked.sampling === 1, `result ${resultText(entry)}, asked ${asked.sampling}`);
});

await check('roots', async () => {
  const entry = await execute('interactive_roots');
  expect(resultText(entry).includes('roots: file:///agent/work') && asked.roots >= 1, `result ${resultText(entry)}, asked ${asked.roots}`);
});

await check('cancellation', async () => {
  const ac = new AbortController();
  const call = execute('interactive_wait_cancel', {
    signal: ac.signal,
    // The remote reports that it waits: the call has reached it, cancel it now.
    onprogress: () => ac.abort('the test cancels'),
  });
  const outcome = await call.then(() => 'answered', (err) => `rejected: ${err?.message ?? err}`);
  expect(outcome.startsWith('rejected'), `the cancelled call was ${outcome}`);
  for (let i = 0; i < 100; i++) {
    const seen = JSON.parse((await execute('interactive_seen')).result.content[0].text);
    if (seen.cancelled) return { reason: seen.cancelReason };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new CheckError('the remote saw no cancellation within 10 s');
});

await check('task tool', async () => {
  const found = await client.callTool({ name: 'search_tools', arguments: { query: 'research' } });
  const body = JSON.parse(found.content[0].text);
  expect(!body.tools.some((t) => t.name === 'interactive_research'), `offered: ${found.content[0].text}`);
  const un = (body.unavailable ?? []).find((t) => t.name === 'interactive_research');
  expect(un && un.unavailable.includes('needs task augmentation'), `unavailable: ${found.content[0].text}`);
  const entry = await execute('interactive_research');
  expect(entry.error && entry.error.includes('needs task augmentation') && !resultText(entry).includes('task-less call ran'), `execute: ${resultText(entry)}`);
  return { reason: un.unavailable };
});

await client.close();
process.exit(failures ? 1 : 0);
