// A remote MCP server written with the official TypeScript SDK, for cmd/workbench/content_e2e_test.go:
// tools that answer every kind of content a tool result carries. It listens on 127.0.0.1 (port 0),
// asks every request for REMOTE_TOKEN as a Bearer token, and prints {"port": N}; the HTTP endpoint and
// the SDK's loading are serve.mjs's.
//
//   WORKBENCH_CLIENTS_DIR=…/testdata/clients REMOTE_TOKEN=… node content-server.mjs
//
//   media   text, image (annotated), audio, an embedded resource (its text names the caller's token),
//           a resource_link (annotated), and structuredContent (also naming the token)
//   failing isError with a text block, an image block and structuredContent
import { serve, settings } from './serve.mjs';

const { token, load } = settings('content-server.mjs');
const { Server } = await load('@modelcontextprotocol/sdk/server/index.js');
const { ListToolsRequestSchema, CallToolRequestSchema } = await load('@modelcontextprotocol/sdk/types.js');

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

await serve({ token, load, newServer });
