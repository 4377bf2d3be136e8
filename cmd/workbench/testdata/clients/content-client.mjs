// The official TypeScript SDK's client calling execute_tools on a served Workbench whose connector is
// testdata/remote/content-server.mjs (prefix "content"). Driven by cmd/workbench/content_e2e_test.go:
//
//   WORKBENCH_URL=http://127.0.0.1:8080 WORKBENCH_API_KEY=wb_… CONTENT_SERVER_TOKEN=… node content-client.mjs
//
// It prints one JSON line per check ({"check", "ok", …}) and exits 1 if any check failed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const base = (process.env.WORKBENCH_URL ?? '').replace(/\/+$/, '');
const apiKey = process.env.WORKBENCH_API_KEY ?? '';
const remoteToken = process.env.CONTENT_SERVER_TOKEN ?? '';
if (!base || !apiKey || !remoteToken) {
  console.error('content-client.mjs: set WORKBENCH_URL, WORKBENCH_API_KEY and CONTENT_SERVER_TOKEN');
  process.exit(2);
}
// What content-server.mjs answers.
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0xff]).toString('base64');
const WAV = Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ').toString('base64');

let failures = 0;
class CheckError extends Error {}
function expect(cond, message) {
  if (!cond) throw new CheckError(message);
}
async function check(name, fn) {
  try {
    console.log(JSON.stringify({ check: name, ok: true, ...((await fn()) ?? {}) }));
  } catch (err) {
    failures++;
    console.log(JSON.stringify({ check: name, ok: false, error: err instanceof CheckError ? err.message : String(err?.stack ?? err) }));
  }
}

// results is the first block's {"results":[…]}; it must be a text block.
function results(r) {
  expect(r.content?.[0]?.type === 'text', `the first block is not text: ${JSON.stringify(r.content?.[0])}`);
  return JSON.parse(r.content[0].text).results;
}
// blockOf is the block an entry's label points at, checked against the label.
function blockOf(r, label) {
  expect(Number.isInteger(label?.block) && label.block > 0, `label without a block: ${JSON.stringify(label)}`);
  const b = r.content[label.block];
  expect(b && b.type === label.type, `block ${label.block} is ${JSON.stringify(b?.type)}, the label says ${label.type}`);
  return b;
}

const client = new Client({ name: 'workbench-content-ts-sdk', version: '1.0.0' });
const transport = new StreamableHTTPClientTransport(new URL(base + '/mcp'), {
  requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
});
await client.connect(transport);
const run = (...tools) => client.callTool({ name: 'execute_tools', arguments: { executions: tools.map((tool) => ({ tool, args: {} })) } });

await check('image, audio, resource and resource_link arrive as blocks', async () => {
  const r = await run('content_media');
  expect(r.isError !== true, `isError: ${JSON.stringify(r)}`);
  const [entry] = results(r);
  expect(entry.result?.content?.length === 1 && entry.result.content[0].text === 'here you are', `entry: ${JSON.stringify(entry)}`);
  const labels = entry.content ?? [];
  expect(labels.map((l) => l.type).join() === 'image,audio,resource,resource_link', `labels: ${JSON.stringify(labels)}`);
  const [image, audio, resource, link] = labels.map((l) => blockOf(r, l));
  expect(image.mimeType === 'image/png' && image.data === PNG, `image: ${JSON.stringify(image)}`);
  expect(image.annotations?.priority === 0.5 && image.annotations?.audience?.[0] === 'user', `image annotations: ${JSON.stringify(image.annotations)}`);
  expect(audio.mimeType === 'audio/wav' && audio.data === WAV, `audio: ${JSON.stringify(audio)}`);
  expect(resource.resource?.uri === 'file:///notes.txt' && resource.resource.text === 'notes for [REDACTED]', `resource: ${JSON.stringify(resource)}`);
  expect(link.uri === 'https://example.com/doc' && link.name === 'doc' && link.annotations?.lastModified === '2026-01-02T03:04:05Z', `resource_link: ${JSON.stringify(link)}`);
  expect(r.content.length === 5, `${r.content.length} blocks`);
  return { blocks: r.content.map((b) => b.type) };
});

await check('a single execution\'s structuredContent is the result\'s, redacted', async () => {
  const r = await run('content_media');
  expect(r.structuredContent?.count === 2 && r.structuredContent.token === '[REDACTED]', `structuredContent: ${JSON.stringify(r.structuredContent)}`);
  expect(!JSON.stringify(r).includes(remoteToken), 'the connector\'s token reached the client');
});

await check('a remote isError keeps its content and structuredContent; all failed is isError', async () => {
  const r = await run('content_failing');
  expect(r.isError === true, `isError is ${JSON.stringify(r.isError)}`);
  const [entry] = results(r);
  expect(entry.error === 'quota exceeded', `entry: ${JSON.stringify(entry)}`);
  expect(entry.result?.isError === true && entry.result?.structuredContent?.retry_after === 30, `entry result: ${JSON.stringify(entry.result)}`);
  const image = blockOf(r, entry.content?.[0]);
  expect(image.data === PNG, `image: ${JSON.stringify(image)}`);
  expect(r.structuredContent?.retry_after === 30, `structuredContent: ${JSON.stringify(r.structuredContent)}`);
});

await check('several executions: each labels its own blocks', async () => {
  const r = await run('content_media', 'content_failing');
  expect(r.isError !== true, 'isError with one execution succeeding');
  expect(r.structuredContent === undefined, `structuredContent of several: ${JSON.stringify(r.structuredContent)}`);
  const [media, failing] = results(r);
  expect(media.content.map((l) => l.block).join() === '1,2,3,4' && failing.content[0].block === 5, `labels: ${JSON.stringify([media.content, failing.content])}`);
  expect(blockOf(r, failing.content[0]).type === 'image', 'block 5 is not the failing tool\'s image');
});

await transport.terminateSession();
await client.close();
if (failures > 0) {
  console.error(`content-client.mjs: ${failures} check(s) failed`);
  process.exit(1);
}
