// A remote MCP server written with the official TypeScript SDK, for cmd/workbench/interactive_e2e_test.go:
// its tools send progress, wait to be cancelled, ask the client for an elicitation, a sampling and its
// roots, and one requires task augmentation. It listens on 127.0.0.1 (port 0) and prints {"port": N}.
//
//   WORKBENCH_CLIENTS_DIR=…/testdata/clients REMOTE_TOKEN=… node interactive-server.mjs
//
// The SDK is loaded from testdata/clients/node_modules (this file lives outside that package).
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const clientsDir = process.env.WORKBENCH_CLIENTS_DIR;
const token = process.env.REMOTE_TOKEN;
if (!clientsDir || !token) {
  console.error('interactive-server.mjs: set WORKBENCH_CLIENTS_DIR and REMOTE_TOKEN');
  process.exit(2);
}
const require = createRequire(join(clientsDir, 'package.json'));
const load = (spec) => import(pathToFileURL(require.resolve(spec)).href);
const { Server } = await load('@modelcontextprotocol/sdk/server/index.js');
const { StreamableHTTPServerTransport } = await load('@modelcontextprotocol/sdk/server/streamableHttp.js');
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

const transports = new Map();
const http = createServer(async (req, res) => {
  if (req.headers.authorization !== `Bearer ${token}`) {
    res.writeHead(401).end('bad token');
    return;
  }
  let body;
  if (req.method === 'POST') {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end('not JSON');
      return;
    }
  }
  const sid = req.headers['mcp-session-id'];
  let t = sid ? transports.get(sid) : undefined;
  if (!t && req.method === 'POST' && body?.method === 'initialize') {
    t = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => transports.set(id, t),
    });
    t.onclose = () => t.sessionId && transports.delete(t.sessionId);
    await newServer().connect(t);
  }
  if (!t) {
    res.writeHead(404).end('no such session');
    return;
  }
  await t.handleRequest(req, res, body);
});
http.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: http.address().port }));
});
