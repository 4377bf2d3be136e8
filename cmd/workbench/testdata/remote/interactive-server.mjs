// A remote MCP server written with the official TypeScript SDK, for cmd/workbench/interactive_e2e_test.go:
// its tools send progress, wait to be cancelled, ask the client for an elicitation, a sampling and its
// roots, and one requires task augmentation. It listens on 127.0.0.1 (port 0) and prints {"port": N}.
//
//   WORKBENCH_CLIENTS_DIR=…/testdata/clients REMOTE_TOKEN=… node interactive-server.mjs
//
// The HTTP endpoint and the SDK's loading are serve.mjs's.
import { serve, settings } from './serve.mjs';

const { token, load } = settings('interactive-server.mjs');
const { Server } = await load('@modelcontextprotocol/sdk/server/index.js');
const types = await load('@modelcontextprotocol/sdk/types.js');

// What the tools saw, read through the tool "seen" (the test asks through Workbench).
const seen = { cancelled: false, cancelReason: '', elicited: '' };

const object = { type: 'object', properties: {} };
const TOOLS = [
  { name: 'progress', description: 'Reports three steps of progress, then answers.', inputSchema: object },
  { name: 'wait_cancel', description: 'Reports that it waits, then waits until the call is cancelled.', inputSchema: object },
  { name: 'seen', description: 'Says what the other tools saw (a cancellation, an elicited answer).', inputSchema: object },
  { name: 'ask_name', description: 'Asks the user for their name (elicitation).', inputSchema: object },
  { name: 'sample', description: 'Asks the client to sample a reply (sampling).', inputSchema: object },
  { name: 'roots', description: 'Lists the client roots (roots).', inputSchema: object },
  { name: 'research', description: 'Researches a question as a task.', inputSchema: object, execution: { taskSupport: 'required' } },
];

const text = (t) => ({ content: [{ type: 'text', text: t }] });

async function call(name, extra) {
  const token = extra._meta?.progressToken;
  switch (name) {
    case 'progress':
      for (let i = 1; i <= 3; i++) {
        if (token !== undefined) {
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: 3, message: `step ${i}` } });
        }
      }
      // A round trip on the same stream after the progress, so the client has handled it before the answer.
      await extra.sendRequest({ method: 'ping' }, types.EmptyResultSchema);
      return text('progress done');
    case 'wait_cancel':
      if (token !== undefined) {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: 1, message: 'waiting to be cancelled' } });
      }
      await new Promise((resolve) => {
        if (extra.signal.aborted) return resolve();
        extra.signal.addEventListener('abort', resolve, { once: true });
        setTimeout(resolve, 60_000);
      });
      seen.cancelled = extra.signal.aborted;
      seen.cancelReason = String(extra.signal.reason ?? '');
      return text('wait ended');
    case 'seen':
      return text(JSON.stringify(seen));
    case 'ask_name': {
      const r = await extra.sendRequest({ method: 'elicitation/create', params: {
        message: 'What is your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      } }, types.ElicitResultSchema);
      seen.elicited = r.action === 'accept' ? r.content?.name ?? '' : r.action;
      return text(r.action === 'accept' ? `hello ${r.content?.name}` : `elicitation ${r.action}`);
    }
    case 'sample': {
      const r = await extra.sendRequest({ method: 'sampling/createMessage', params: {
        messages: [{ role: 'user', content: { type: 'text', text: 'Say something.' } }], maxTokens: 20,
      } }, types.CreateMessageResultSchema);
      return text(`sampled: ${r.content?.text}`);
    }
    case 'roots': {
      const r = await extra.sendRequest({ method: 'roots/list' }, types.ListRootsResultSchema);
      return text(`roots: ${r.roots.map((x) => x.uri).join(',')}`);
    }
    case 'research':
      return { ...text('a task-less call ran'), isError: true };
  }
  return { ...text(`unknown tool ${name}`), isError: true };
}

function newServer() {
  const s = new Server({ name: 'interactive', version: '1.0.0' }, { capabilities: { tools: {} } });
  s.setRequestHandler(types.ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  s.setRequestHandler(types.CallToolRequestSchema, async (req, extra) => {
    try {
      return await call(req.params.name, { ...extra, _meta: req.params._meta });
    } catch (err) {
      return { ...text(`${req.params.name} failed: ${err?.message ?? err}`), isError: true };
    }
  });
  return s;
}

await serve({ token, load, newServer });
