// The official TypeScript SDK's client signs in to a toolset's endpoint (/mcp/ts/<name>) with OAuth, as a
// user would: the 401 names the toolset's own resource metadata, the SDK registers, asks for a token for
// that resource alone (RFC 8707), and the consent is allowed through the portal session of a one-time
// sign-in link (consent.mjs). The token then lists the toolset's tools, and is refused at /mcp. Driven by
// cmd/workbench/toolset_clients_test.go; by hand:
//
//   WORKBENCH_TOOLSET_URL=http://127.0.0.1:8080/mcp/ts/ops WORKBENCH_SIGNIN_LINK=http://…/auth/link/… \
//     WORKBENCH_EXPECT_TOOL=remote_echo node toolset-oauth-client.mjs
//
// One JSON check line per check ({"check", "ok", "error"}); exit 1 if any failed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { BrowserlessProvider, signIn } from './consent.mjs';

const url = new URL(process.env.WORKBENCH_TOOLSET_URL ?? 'http://invalid.invalid');
const link = process.env.WORKBENCH_SIGNIN_LINK ?? '';
const tool = process.env.WORKBENCH_EXPECT_TOOL ?? '';
if (!process.env.WORKBENCH_TOOLSET_URL || !link || !tool) {
  console.error('toolset-oauth-client.mjs: set WORKBENCH_TOOLSET_URL, WORKBENCH_SIGNIN_LINK and WORKBENCH_EXPECT_TOOL');
  process.exit(2);
}
let failures = 0;
class CheckError extends Error {}
function expect(cond, message) {
  if (!cond) throw new CheckError(message);
}
async function check(name, fn) {
  try {
    console.log(JSON.stringify({ check: `oauth: ${name}`, ok: true, ...((await fn()) ?? {}) }));
    return true;
  } catch (err) {
    failures++;
    console.log(JSON.stringify({ check: `oauth: ${name}`, ok: false, error: err instanceof CheckError ? err.message : String(err?.stack ?? err) }));
    return false;
  }
}

const jar = await signIn(link);
const provider = new BrowserlessProvider(jar);
let transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
let client = new Client({ name: 'workbench-toolset-oauth', version: '1.0.0' });
const authorized = await check('the toolset names its own resource, and the token is asked for it', async () => {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: '{}' });
  const challenge = res.headers.get('www-authenticate') ?? '';
  const want = `${url.origin}/.well-known/oauth-protected-resource${url.pathname}`;
  expect(res.status === 401 && challenge.includes(`resource_metadata="${want}"`), `401 challenge ${JSON.stringify(challenge)}, want resource_metadata="${want}"`);
  try {
    await client.connect(transport);
    throw new CheckError('connect succeeded without any credential');
  } catch (err) {
    if (!(err instanceof UnauthorizedError)) throw err;
  }
  const q = provider.authorizationURL?.searchParams;
  expect(q?.get('resource') === url.href, `resource = ${q?.get('resource')}, want the toolset's endpoint ${url.href}`);
  expect(provider.code, 'no authorization code came back');
});
if (authorized) {
  await check('code exchange and tools/list with the token', async () => {
    await transport.finishAuth(provider.code);
    transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    client = new Client({ name: 'workbench-toolset-oauth', version: '1.0.0' });
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.some((t) => t.name === tool), `tools/list lacks ${tool}: ${tools.map((t) => t.name)}`);
    await client.close();
  });
  await check('the toolset token is refused at /mcp', async () => {
    const res = await fetch(new URL('/mcp', url), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${provider.tokens().access_token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    });
    expect(res.status === 401, `/mcp answered ${res.status} to a token issued for ${url.pathname}`);
  });
}
process.exit(failures ? 1 : 0);
