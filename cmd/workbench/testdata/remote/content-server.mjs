// A remote MCP server written with the official TypeScript SDK, for cmd/workbench/content_e2e_test.go:
// tools that answer every kind of content a tool result carries. It serves streamable HTTP at /mcp on
// 127.0.0.1 (an ephemeral port), wants `Authorization: Bearer $CONTENT_SERVER_TOKEN`, and prints
// {"port": N} once it listens. The SDK comes from testdata/clients/node_modules (WORKBENCH_CLIENTS_DIR,
// default ../clients), installed there by `npm ci`.
//
//   media   text, image (annotated), audio, an embedded resource (its text names the caller's token),
//           a resource_link (annotated), and structuredContent (also naming the token)
//   failing isError with a text block, an image block and structuredContent
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const clients = process.env.WORKBENCH_CLIENTS_DIR ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'clients');
const sdk = (p) => import(pathToFileURL(path.join(clients, 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm', p)).href);
const { Server } = await sdk('server/index.js');
const { StreamableHTTPServerTransport } = await sdk('server/streamableHttp.js');
const { ListToolsRequestSchema, CallToolRequestSchema } = await sdk('types.js');

const token = process.env.CONTENT_SERVER_TOKEN ?? '';
if (!token) {
  console.error('content-server.mjs: set CONTENT_SERVER_TOKEN');
  process.exit(2);
}

// The bytes the tools answer: a PNG signature and a WAV header, as base64.
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0xff]).toString('base64');
const WAV = Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ').toString('base64');

const object = { type: 'object', properties: {}, additionalProperties: false };
const tools = [
  { name: 'media', description: 'Answer every kind of content.', inputSchema: object, annotations: { readOnlyHint: true } },
  { name: 'failing', description: 'Fail with details.', inputSchema: object, annotations: { readOnlyHint: true } },
];

function answer(name) {
  switch (name) {
    case 'media':
      return {
        content: [
          { type: 'text', text: 'here you are' },
          { type: 'image', mimeType: 'image/png', data: PNG, annotations: { audience: ['user'], priority: 0.5 } },
          { type: 'audio', mimeType: 'audio/wav', data: WAV },
          { type: 'resource', resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: `notes for ${token}` } },
          { type: 'resource_link', uri: 'https://example.com/doc', name: 'doc', mimeType: 'text/html',
            annotations: { lastModified: '2026-01-02T03:04:05Z' } },
        ],
        structuredContent: { count: 2, token },
      };
    case 'failing':
      return {
        isError: true,
        content: [{ type: 'text', text: 'quota exceeded' }, { type: 'image', mimeType: 'image/png', data: PNG }],
        structuredContent: { retry_after: 30 },
      };
  }
  throw new Error(`no tool ${name}`);
}

function newServer() {
  const s = new Server({ name: 'content-server', version: '1.0.0' }, { capabilities: { tools: {} } });
  s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  s.setRequestHandler(CallToolRequestSchema, async (req) => answer(req.params.name));
  return s;
}

const sessions = new Map();
const http = createServer(async (req, res) => {
  try {
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { 'Content-Type': 'text/plain' }).end('bad token');
      return;
    }
    if (new URL(req.url, 'http://127.0.0.1').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const sid = req.headers['mcp-session-id'];
    let transport = sid ? sessions.get(sid) : undefined;
    if (!transport) {
      if (sid) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('no such session');
        return;
      }
      const t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => sessions.set(id, t) });
      t.onclose = () => t.sessionId && sessions.delete(t.sessionId);
      await newServer().connect(t);
      transport = t;
    }
    await transport.handleRequest(req, res);
  } catch (err) {
    console.error(err);
    if (!res.headersSent) res.writeHead(500).end(String(err));
  }
});
http.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: http.address().port })));
