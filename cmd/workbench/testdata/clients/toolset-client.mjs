// A toolset's endpoint (/mcp/ts/<name>) as a plain MCP server, seen by real clients: the official
// TypeScript SDK's client directly (mode sdk), or through mcp-remote, the stdio bridge of desktop
// clients, driven over its stdio by the same SDK (mode mcp-remote). Driven by
// cmd/workbench/toolset_clients_test.go (TestClientsThroughAToolset); runnable by hand against a toolset
// set up as that test does (entries remote_* and utils_echo, the connector mcp_remote with a resource
// test://static, a template test://items/{id} and a prompt greet):
//
//   WORKBENCH_TOOLSET_URL=http://127.0.0.1:8080/mcp/ts/ops WORKBENCH_API_KEY=wb_… node toolset-client.mjs sdk|mcp-remote
//
// It prints one JSON check line per check ({"check", "ok", "error"}), like sdk-client.mjs, and exits 1
// if any check failed. mcp-remote is given the key as `--header "Authorization:Bearer ${WORKBENCH_API_KEY}"`
// (it expands the variable, so the key is not on its command line).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const mode = process.argv[2];
const url = process.env.WORKBENCH_TOOLSET_URL ?? '';
const apiKey = process.env.WORKBENCH_API_KEY ?? '';
if (!url || !apiKey || !['sdk', 'mcp-remote'].includes(mode)) {
  console.error('toolset-client.mjs: set WORKBENCH_TOOLSET_URL and WORKBENCH_API_KEY and name a mode, sdk or mcp-remote');
  process.exit(2);
}
const STATIC_URI = 'workbench://mcp_remote/test://static';
const ITEMS_TEMPLATE = 'workbench://mcp_remote/test://items/{id}';
const PROMPT = 'mcp_remote/greet';

let failures = 0;
function report(check, ok, details = {}) {
  if (!ok) failures++;
  console.log(JSON.stringify({ check: `${mode}: ${check}`, ok, ...details }));
}
class CheckError extends Error {}
function expect(cond, message) {
  if (!cond) throw new CheckError(message);
}
async function check(name, fn) {
  try {
    report(name, true, (await fn()) ?? {});
    return true;
  } catch (err) {
    report(name, false, { error: err instanceof CheckError ? err.message : String(err?.stack ?? err) });
    return false;
  }
}
// Every request is bounded: a hung answer fails its check instead of the run.
const opts = { timeout: 20_000 };

let transport;
let configDir;
let stderr = '';
let childPid;
if (mode === 'sdk') {
  transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
  });
} else {
  configDir = mkdtempSync(join(tmpdir(), 'workbench-toolset-mcp-remote-'));
  const proxy = join(here, 'node_modules', 'mcp-remote', 'dist', 'proxy.js');
  transport = new StdioClientTransport({
    command: process.execPath,
    args: [proxy, url, '--header', 'Authorization:Bearer ${WORKBENCH_API_KEY}', '--transport', 'http-only'],
    env: { PATH: process.env.PATH ?? '', HOME: configDir, MCP_REMOTE_CONFIG_DIR: configDir, WORKBENCH_API_KEY: apiKey },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (b) => {
    stderr += b.toString();
  });
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    childPid = transport.pid;
  };
}
const client = new Client({ name: `workbench-toolset-${mode}`, version: '1.0.0' });

try {
  const connected = await check('initialize', async () => {
    await client.connect(transport, { timeout: 30_000 });
    const info = client.getServerVersion();
    const caps = client.getServerCapabilities();
    expect(info?.name === 'workbench-toolset', `serverInfo = ${JSON.stringify(info)}; want the name workbench-toolset`);
    expect(caps?.tools, `the tools capability is not declared: ${JSON.stringify(caps)}`);
    expect(caps?.resources, `the resources capability is not declared: ${JSON.stringify(caps)}`);
    expect(caps?.prompts, `the prompts capability is not declared: ${JSON.stringify(caps)}`);
    return { serverInfo: info, capabilities: caps, ...(transport.protocolVersion ? { protocolVersion: transport.protocolVersion } : {}) };
  });
  if (connected) {
    await check('tools/list', async () => {
      const { tools } = await client.listTools(undefined, opts);
      const names = tools.map((t) => t.name);
      for (const want of ['remote_echo', 'utils_echo']) expect(names.includes(want), `tools/list is ${names.join(', ')}; ${want} missing`);
      expect(!names.includes('utils_time'), `tools/list is ${names.join(', ')}; utils_time is outside the set`);
      expect(!names.includes('execute_tools'), `tools/list is ${names.join(', ')}; a toolset serves no meta-tools`);
      for (const t of tools) expect(t.inputSchema?.type === 'object', `${t.name}: inputSchema.type is not "object"`);
      return { tools: names };
    });
    await check('tools/call remote_echo', async () => {
      const r = await client.callTool({ name: 'remote_echo', arguments: { text: 'hi' } }, undefined, opts);
      const text = r.content?.find((c) => c.type === 'text')?.text;
      expect(!r.isError && text === 'echo: hi', `remote_echo returned ${JSON.stringify(r)}`);
      return { text };
    });
    await check('resources/list', async () => {
      const { resources } = await client.listResources(undefined, opts);
      const uris = resources.map((r) => r.uri);
      expect(uris.includes(STATIC_URI), `resources/list is ${JSON.stringify(uris)}; ${STATIC_URI} missing`);
      return { resources: uris };
    });
    await check('resources/read', async () => {
      const r = await client.readResource({ uri: STATIC_URI }, opts);
      const c = r.contents?.[0];
      expect(r.contents?.length === 1 && c?.uri === STATIC_URI && c?.text === 'static content', `resources/read returned ${JSON.stringify(r)}`);
      return { text: c.text };
    });
    await check('resources/templates/list', async () => {
      const { resourceTemplates } = await client.listResourceTemplates(undefined, opts);
      const templates = resourceTemplates.map((r) => r.uriTemplate);
      expect(templates.includes(ITEMS_TEMPLATE), `resources/templates/list is ${JSON.stringify(templates)}; ${ITEMS_TEMPLATE} missing`);
      return { resourceTemplates: templates };
    });
    await check('resources/read of a templated resource', async () => {
      const uri = 'workbench://mcp_remote/test://items/7';
      const r = await client.readResource({ uri }, opts);
      expect(r.contents?.length === 1 && r.contents[0].text === 'item 7', `resources/read ${uri} returned ${JSON.stringify(r)}`);
      return { text: r.contents[0].text };
    });
    await check('prompts/list', async () => {
      const { prompts } = await client.listPrompts(undefined, opts);
      const names = prompts.map((p) => p.name);
      expect(names.includes(PROMPT), `prompts/list is ${JSON.stringify(names)}; ${PROMPT} missing`);
      return { prompts: names };
    });
    await check('prompts/get', async () => {
      const r = await client.getPrompt({ name: PROMPT, arguments: { who: 'ada' } }, opts);
      const text = r.messages?.[0]?.content?.text;
      expect(r.messages?.length === 1 && text === 'Hello ada', `prompts/get returned ${JSON.stringify(r)}`);
      return { text };
    });
    await check('tools/call of a tool outside the set', async () => {
      let r;
      try {
        r = await client.callTool({ name: 'utils_time', arguments: {} }, undefined, opts);
      } catch (err) {
        expect(/Unknown tool/.test(String(err?.message)), `utils_time failed with ${err?.message}; want Unknown tool`);
        return { error: String(err.message) };
      }
      expect(r.isError, `utils_time ran through the toolset: ${JSON.stringify(r)}`);
      return { isError: true };
    });
  }
} finally {
  await client.close().catch(() => {});
  if (childPid) {
    try {
      process.kill(childPid, 'SIGKILL');
    } catch {}
  }
  if (configDir) rmSync(configDir, { recursive: true, force: true });
}
if (failures > 0) {
  if (stderr) console.error(`toolset-client.mjs: mcp-remote's stderr:\n${stderr.replace(/wb_[A-Za-z0-9_-]+/g, 'wb_(redacted)')}`);
  process.exit(1);
}
