// mcp-remote, the stdio bridge that desktop clients (Claude Desktop, Cursor, Windsurf) run for a remote
// server, driven through its stdio by the official TypeScript SDK's client, as those clients do:
//
//   WORKBENCH_MCP_URL=http://127.0.0.1:8080/mcp WORKBENCH_API_KEY=wb_… node mcp-remote-client.mjs bearer
//   WORKBENCH_MCP_URL=… WORKBENCH_SIGNIN_LINK=…/auth/link/… node mcp-remote-client.mjs oauth
//
// bearer passes the key as `--header "Authorization:Bearer ${WORKBENCH_API_KEY}"` (mcp-remote expands
// the variable, so the key is not on its command line). oauth lets mcp-remote run its own OAuth flow:
// discovery, registration, PKCE, and the browser, which is consent-browser.mjs as $BROWSER (its opener
// runs $BROWSER URL when no desktop is found); its callback listens on 127.0.0.1 and a free port; its
// tokens go to a fresh MCP_REMOTE_CONFIG_DIR. It prints one JSON check line per check, like sdk-client.mjs.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const mode = process.argv[2];
const mcpURL = process.env.WORKBENCH_MCP_URL ?? '';
const META_TOOLS = [
  'search_tools', 'get_tool_schema', 'execute_tools', 'whoami', 'list_integrations',
  'connect', 'wait_for_connection', 'get_auth_url', 'curl_session',
];
if (!mcpURL || !['bearer', 'oauth'].includes(mode)) {
  console.error('mcp-remote-client.mjs: set WORKBENCH_MCP_URL and name a mode, bearer or oauth');
  process.exit(2);
}

let failures = 0;
function report(check, ok, details = {}) {
  if (!ok) failures++;
  console.log(JSON.stringify({ check: `mcp-remote ${mode}: ${check}`, ok, ...details }));
}
async function check(name, fn) {
  try {
    report(name, true, (await fn()) ?? {});
    return true;
  } catch (err) {
    report(name, false, { error: String(err?.message ?? err) });
    return false;
  }
}
function expect(cond, message) {
  if (!cond) throw new Error(message);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const configDir = mkdtempSync(join(tmpdir(), 'workbench-mcp-remote-'));
const browserLog = join(configDir, 'browser.jsonl');
const proxy = join(here, 'node_modules', 'mcp-remote', 'dist', 'proxy.js');
const env = { PATH: process.env.PATH ?? '', HOME: configDir, MCP_REMOTE_CONFIG_DIR: configDir };
const args = [proxy, mcpURL];
if (mode === 'bearer') {
  args.push('--header', 'Authorization:Bearer ${WORKBENCH_API_KEY}');
  env.WORKBENCH_API_KEY = process.env.WORKBENCH_API_KEY ?? '';
} else {
  args.splice(2, 0, String(await freePort()));
  args.push('--host', '127.0.0.1');
  env.BROWSER = `${process.execPath} ${join(here, 'consent-browser.mjs')}`;
  env.WORKBENCH_SIGNIN_LINK = process.env.WORKBENCH_SIGNIN_LINK ?? '';
  env.WORKBENCH_BROWSER_LOG = browserLog;
}
args.push('--transport', 'http-only');

const transport = new StdioClientTransport({ command: process.execPath, args, env, stderr: 'pipe' });
let stderr = '';
transport.stderr?.on('data', (b) => {
  stderr += b.toString();
});
const client = new Client({ name: 'workbench-compat-mcp-remote', version: '1.0.0' });
let childPid;
const start = transport.start.bind(transport);
transport.start = async () => {
  await start();
  childPid = transport.pid;
};

try {
  const connected = await check('initialize', async () => {
    await client.connect(transport, { timeout: 30_000 });
    const info = client.getServerVersion();
    expect(info?.name === 'workbench', `serverInfo = ${JSON.stringify(info)}`);
    return { serverInfo: info };
  });
  if (connected) {
    await check('tools/list is exactly the nine meta-tools', async () => {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names.length === META_TOOLS.length && META_TOOLS.every((n) => names.includes(n)),
        `tools/list is ${names.join(', ')}; want exactly ${META_TOOLS.join(', ')}`);
      return { tools: names.length };
    });
    await check('execute_tools', async () => {
      const r = await client.callTool({ name: 'execute_tools', arguments: { executions: [{ tool: 'utils_echo', args: { message: `through mcp-remote (${mode})` } }] } });
      expect(!r.isError, `isError: ${JSON.stringify(r)}`);
      const text = r.content?.find((c) => c.type === 'text')?.text ?? '';
      expect(JSON.parse(text).results?.[0]?.result?.message === `through mcp-remote (${mode})`, `execute_tools returned ${text}`);
    });
  }
  if (mode === 'oauth') {
    await check('the browser consented and the callback took the code', async () => {
      let lines = [];
      try {
        lines = readFileSync(browserLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      } catch {
        throw new Error('consent-browser.mjs never ran: mcp-remote did not open the browser');
      }
      // A browser that failed is retried by mcp-remote's fallbacks: the first run tells why.
      const last = lines.find((l) => l.ok) ?? lines[0];
      expect(last.ok, `consent-browser.mjs: ${last.error}`);
      const url = new URL(mcpURL);
      expect(last.resource === url.href, `resource = ${last.resource}, want ${url.href}`);
      expect(last.iss === url.origin && last.authorization === url.origin + '/oauth/authorize',
        `authorization at ${last.authorization}, iss ${last.iss}; want the issuer at ${url.origin}`);
      const stored = readdirSync(configDir, { recursive: true }).filter((f) => String(f).endsWith('_tokens.json'));
      expect(stored.length > 0, 'mcp-remote stored no tokens');
      return { authorization: last.authorization, iss: last.iss, logins: lines.length };
    });
  }
} finally {
  await client.close().catch(() => {});
  // A failed connect closes the transport in the background, and this script may exit before that
  // close has stopped mcp-remote (which waits for a sign-in): stop it here.
  if (childPid) {
    try {
      process.kill(childPid, 'SIGKILL');
    } catch {}
  }
  rmSync(configDir, { recursive: true, force: true });
}
if (failures > 0) {
  console.error(`mcp-remote-client.mjs: ${failures} check(s) failed; mcp-remote's stderr:\n${stderr.replace(/wb_[A-Za-z0-9_-]+/g, 'wb_(redacted)')}`);
  process.exit(1);
}
