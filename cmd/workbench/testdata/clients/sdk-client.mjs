// The official TypeScript SDK's client against a served Workbench: what Claude Code, Claude Desktop, the
// MCP Inspector and most other clients run. Driven by cmd/workbench/clients_test.go; runnable by hand:
//
//   WORKBENCH_URL=http://127.0.0.1:8080 WORKBENCH_API_KEY=wb_… [WORKBENCH_SIGNIN_LINK=…/auth/link/…] \
//   [WORKBENCH_PUBLIC_URL=http://localhost:8080] [WORKBENCH_EXPECT_VERSION=v1.2.3] node sdk-client.mjs
//
// It prints one JSON line per check ({"check", "ok", …}) and exits 1 if any check failed. The OAuth run
// needs a one-time sign-in link (the server prints one at start; `workbench signin-link` mints more): it
// stands for the user's browser; without it that run is skipped ({"skipped": why}). WORKBENCH_URL is
// the address the client is given; WORKBENCH_PUBLIC_URL (default: the same) is SERVER_PUBLIC_URL, where
// links point and the portal session lives, e.g. http://localhost:8080 when the client uses 127.0.0.1.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { createHash, randomBytes } from 'node:crypto';
import { BrowserlessProvider, consent, signIn } from './consent.mjs';

const base = (process.env.WORKBENCH_URL ?? '').replace(/\/+$/, '');
const apiKey = process.env.WORKBENCH_API_KEY ?? '';
const signinLink = process.env.WORKBENCH_SIGNIN_LINK ?? '';
const expectVersion = process.env.WORKBENCH_EXPECT_VERSION ?? '';
const publicBase = (process.env.WORKBENCH_PUBLIC_URL || base).replace(/\/+$/, '');
if (!base || !apiKey) {
  console.error('sdk-client.mjs: set WORKBENCH_URL and WORKBENCH_API_KEY');
  process.exit(2);
}
const mcpURL = new URL(base + '/mcp');

const META_TOOLS = [
  'search_tools', 'get_tool_schema', 'execute_tools', 'whoami', 'list_integrations',
  'connect', 'wait_for_connection', 'get_auth_url', 'curl_session',
];

let failures = 0;
function report(check, ok, details = {}) {
  if (!ok) failures++;
  console.log(JSON.stringify({ check, ok, ...details }));
}
class CheckError extends Error {}
function expect(cond, message) {
  if (!cond) throw new CheckError(message);
}
// check runs one named check; a thrown error fails it with its message and the run goes on.
async function check(name, fn) {
  try {
    const details = (await fn()) ?? {};
    report(name, true, details);
    return true;
  } catch (err) {
    report(name, false, { error: err instanceof CheckError ? err.message : String(err?.stack ?? err) });
    return false;
  }
}

// jsonOf is the text content of a tool result, parsed as JSON.
function jsonOf(result) {
  const text = result?.content?.find((c) => c.type === 'text')?.text;
  expect(typeof text === 'string', `no text content in ${JSON.stringify(result)}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new CheckError(`text content is not JSON: ${text}`);
  }
}

const validator = new AjvJsonSchemaValidator();
const schemas = new Map();
// call validates args against the tool's advertised input schema (what a model-side client does) and calls it.
async function call(client, name, args) {
  const schema = schemas.get(name);
  expect(schema, `${name} is not in tools/list`);
  const v = validator.getValidator(schema)(args);
  expect(v.valid, `arguments for ${name} do not match its own inputSchema: ${v.errorMessage}`);
  return client.callTool({ name, arguments: args });
}

async function apiKeyRun() {
  const client = new Client({ name: 'workbench-compat-ts-sdk', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(mcpURL, {
    requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
  });
  const connected = await check('initialize', async () => {
    await client.connect(transport);
    const info = client.getServerVersion();
    expect(info?.name === 'workbench', `serverInfo.name = ${JSON.stringify(info?.name)}`);
    expect(typeof info?.version === 'string' && info.version !== '', `serverInfo.version = ${JSON.stringify(info?.version)}`);
    if (expectVersion) expect(info.version === expectVersion, `serverInfo.version = ${info.version}, want ${expectVersion}`);
    expect(client.getServerCapabilities()?.tools, 'the tools capability is not declared');
    return { serverInfo: info, protocolVersion: transport.protocolVersion, capabilities: client.getServerCapabilities() };
  });
  if (!connected) return;

  await check('ping', async () => {
    const r = await client.ping();
    expect(r && Object.keys(r).length === 0, `ping answered ${JSON.stringify(r)}`);
  });

  const listed = await check('tools/list', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names.length === META_TOOLS.length && META_TOOLS.every((n) => names.includes(n)),
      `tools/list is ${names.join(', ')}; want exactly ${META_TOOLS.join(', ')}`);
    for (const t of tools) {
      expect(typeof t.description === 'string' && t.description !== '', `${t.name} has no description`);
      expect(t.inputSchema?.type === 'object', `${t.name}: inputSchema.type is not "object"`);
      try {
        validator.getValidator(t.inputSchema);
      } catch (err) {
        throw new CheckError(`${t.name}: inputSchema does not compile: ${err.message}`);
      }
      schemas.set(t.name, t.inputSchema);
    }
    return { tools: names };
  });
  if (!listed) return;

  if (client.getServerCapabilities()?.logging) {
    await check('logging/setLevel', async () => {
      const r = await client.setLoggingLevel('warning');
      expect(r && Object.keys(r).length === 0, `logging/setLevel answered ${JSON.stringify(r)}`);
    });
  }

  await check('whoami', async () => {
    const r = await call(client, 'whoami', {});
    expect(!r.isError, `isError: ${JSON.stringify(r)}`);
    const who = jsonOf(r);
    expect(who.email && who.id, `whoami returned ${JSON.stringify(who)}`);
    return { email: who.email };
  });

  await check('list_integrations', async () => {
    const r = await call(client, 'list_integrations', {});
    expect(!r.isError, `isError: ${JSON.stringify(r)}`);
    const names = (jsonOf(r).integrations ?? []).map((i) => i.name);
    expect(names.includes('utils') && names.includes('github'), `integrations: ${names.join(', ')}`);
    return { integrations: names.length };
  });

  await check('search_tools', async () => {
    const r = await call(client, 'search_tools', { query: 'echo', integration: 'utils' });
    expect(!r.isError, `isError: ${JSON.stringify(r)}`);
    const names = (jsonOf(r).tools ?? []).map((t) => t.name);
    expect(names.includes('utils_echo'), `search_tools("echo") found ${names.join(', ')}`);
  });

  await check('get_tool_schema', async () => {
    const r = await call(client, 'get_tool_schema', { tool: 'utils_echo' });
    expect(!r.isError, `isError: ${JSON.stringify(r)}`);
    const s = jsonOf(r);
    expect(s.name === 'utils_echo' && s.inputSchema?.properties?.message, `get_tool_schema returned ${JSON.stringify(s)}`);
    validator.getValidator(s.inputSchema);
  });

  await check('execute_tools', async () => {
    const r = await call(client, 'execute_tools', {
      executions: [{ tool: 'utils_echo', args: { message: 'hello from the TypeScript SDK' } }],
    });
    expect(!r.isError, `isError: ${JSON.stringify(r)}`);
    const [first] = jsonOf(r).results ?? [];
    expect(first?.result?.message === 'hello from the TypeScript SDK', `execute_tools returned ${JSON.stringify(jsonOf(r))}`);
  });

  // The spec's rule for a batch: a failing item is an {error} entry of a successful result.
  await check('execute_tools per-item error is a successful result', async () => {
    const r = await call(client, 'execute_tools', {
      executions: [{ tool: 'utils_echo', args: { message: 'ok' } }, { tool: 'utils_no_such_tool', args: {} }],
    });
    expect(r.isError !== true, `isError is true: ${JSON.stringify(r)}`);
    const results = jsonOf(r).results ?? [];
    expect(results.length === 2 && results[0].result && typeof results[1].error === 'string',
      `results: ${JSON.stringify(results)}`);
  });

  // connect needs an OAuth client the operator has set. WORKBENCH_CONNECT_INTEGRATION names one that the
  // server was started with (the Go test sets GITHUB_CLIENT_ID and names github): connect, wait and
  // get_auth_url must then start a connection. Without it (a plain `make run`), github has no client, and
  // connect must say so with isError and name the variable the operator sets.
  const configured = process.env.WORKBENCH_CONNECT_INTEGRATION;
  let connectionId;
  if (configured) {
    await check('connect', async () => {
      const r = await call(client, 'connect', { integration: configured });
      expect(!r.isError, `isError: ${JSON.stringify(r)}`);
      const c = jsonOf(r);
      expect(c.connectionId && typeof c.url === 'string' && c.url.startsWith(publicBase + '/'),
        `connect returned ${JSON.stringify(c)} (want a connectionId and a link on ${publicBase})`);
      connectionId = c.connectionId;
    });

    if (connectionId) {
      await check('wait_for_connection', async () => {
        const r = await call(client, 'wait_for_connection', { connectionId, timeout_seconds: 1 });
        expect(!r.isError, `isError: ${JSON.stringify(r)}`);
        const w = jsonOf(r);
        expect(JSON.stringify(w).includes('TIMEOUT'), `wait_for_connection of a pending connection returned ${JSON.stringify(w)}`);
      });
    }

    await check('get_auth_url', async () => {
      const r = await call(client, 'get_auth_url', { integration: configured });
      expect(!r.isError, `isError: ${JSON.stringify(r)}`);
      expect(jsonOf(r).connectionId, `get_auth_url returned ${JSON.stringify(jsonOf(r))}`);
    });
  } else {
    await check('connect of an integration not set up is isError naming the setting', async () => {
      const r = await call(client, 'connect', { integration: 'github' });
      expect(r.isError === true, `isError is not true: ${JSON.stringify(r)}`);
      const msg = r.content?.[0]?.text ?? '';
      expect(msg.includes('GITHUB_CLIENT_ID'), `the message does not name GITHUB_CLIENT_ID: ${msg}`);
      return { message: msg };
    });
  }

  // A meta-tool that fails on its own says so with isError, so a client tells the model.
  for (const [name, tool, args] of [
    ['connect of an unknown integration is isError', 'connect', { integration: 'no-such-integration' }],
    ['wait_for_connection of an unknown id is isError', 'wait_for_connection', { connectionId: 'no-such-connection', timeout_seconds: 1 }],
    ['curl_session that mints nothing is isError', 'curl_session', { integrations: ['utils'] }],
  ]) {
    await check(name, async () => {
      const r = await call(client, tool, args);
      expect(r.isError === true, `isError is ${JSON.stringify(r.isError)}: ${JSON.stringify(r)}`);
      const text = r.content?.find((c) => c.type === 'text')?.text ?? '';
      expect(text.length > 0, 'no message in the error result');
      return { message: text.slice(0, 200) };
    });
  }

  // Bad arguments to a meta-tool are a JSON-RPC error, which the SDK raises.
  await check('bad meta-tool arguments are a JSON-RPC error', async () => {
    try {
      await client.callTool({ name: 'get_tool_schema', arguments: { nope: 1 } });
    } catch (err) {
      expect(err?.code === -32602, `error code ${err?.code}: ${err?.message}`);
      return { code: err.code };
    }
    throw new CheckError('get_tool_schema with bad arguments succeeded');
  });

  await check('close', async () => {
    await transport.terminateSession();
    await client.close();
  });
}

async function oauthRun() {
  if (!signinLink) {
    report('oauth', true, { skipped: 'WORKBENCH_SIGNIN_LINK is not set: the OAuth run needs the one-time sign-in link' });
    return;
  }
  let jar;
  const signedIn = await check('oauth: portal sign-in with the one-time link', async () => {
    jar = await signIn(signinLink);
    expect(jar.has(publicBase), `the sign-in link set no cookie on ${publicBase}`);
  });
  if (!signedIn) return;

  const provider = new BrowserlessProvider(jar);
  let client = new Client({ name: 'workbench-compat-ts-sdk-oauth', version: '1.0.0' });
  let transport = new StreamableHTTPClientTransport(mcpURL, { authProvider: provider });
  const authorized = await check('oauth: 401, discovery, registration, PKCE consent without state', async () => {
    try {
      await client.connect(transport);
      throw new CheckError('connect succeeded without any credential');
    } catch (err) {
      if (!(err instanceof UnauthorizedError)) throw err;
    }
    expect(provider.client?.client_id, 'no client was registered');
    const q = provider.authorizationURL?.searchParams;
    expect(q, 'the SDK never sent the user to the authorization endpoint');
    expect(q.get('code_challenge_method') === 'S256' && q.get('code_challenge'), `no PKCE S256 in ${provider.authorizationURL}`);
    expect(!q.has('state'), `the SDK sent a state: ${provider.authorizationURL}`);
    expect(provider.code, 'no authorization code came back');
    expect(q.get('resource') === mcpURL.href, `resource = ${q.get('resource')}, want the URL the client uses, ${mcpURL.href}`);
    expect(provider.authorizationURL.origin === mcpURL.origin,
      `the SDK was sent to ${provider.authorizationURL.origin}, want the issuer at the address it uses, ${mcpURL.origin}`);
    return {
      client_id: provider.client.client_id,
      resource: q.get('resource'),
      scope: q.get('scope'),
      iss: provider.authorizationResponse.searchParams.get('iss'),
    };
  });
  if (!authorized) return;

  await check('oauth: iss in the authorization response (RFC 9207)', async () => {
    const meta = await (await fetch(new URL('/.well-known/oauth-authorization-server', base))).json();
    const iss = provider.authorizationResponse.searchParams.get('iss');
    expect(meta.authorization_response_iss_parameter_supported === true,
      'the metadata does not advertise authorization_response_iss_parameter_supported');
    expect(iss === meta.issuer, `iss = ${JSON.stringify(iss)}, issuer = ${JSON.stringify(meta.issuer)}`);
    expect(meta.issuer === mcpURL.origin, `issuer = ${meta.issuer}, want the address the client uses, ${mcpURL.origin}`);
  });

  const exchanged = await check('oauth: code exchange', async () => {
    await transport.finishAuth(provider.code);
    const t = provider.tokens();
    expect(t?.access_token && t.token_type?.toLowerCase() === 'bearer', `tokens: ${JSON.stringify(Object.keys(t ?? {}))}`);
    return { scope: t.scope, expires_in: t.expires_in, refresh_token: Boolean(t.refresh_token) };
  });
  if (!exchanged) return;

  await check('oauth: connect with the access token', async () => {
    client = new Client({ name: 'workbench-compat-ts-sdk-oauth', version: '1.0.0' });
    transport = new StreamableHTTPClientTransport(mcpURL, { authProvider: provider });
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.some((t) => t.name === 'whoami'), 'tools/list lacks whoami');
    const who = jsonOf(await client.callTool({ name: 'whoami', arguments: {} }));
    expect(who.email, `whoami returned ${JSON.stringify(who)}`);
    await transport.terminateSession();
    await client.close();
    return { email: who.email };
  });

  // An access token the server refuses (here: garbled) sends the SDK to the token endpoint with its
  // refresh token; the server rotates it and the request goes through.
  await check('oauth: the SDK refreshes a refused access token (rotation)', async () => {
    const before = provider.tokens();
    expect(before?.refresh_token, 'no refresh token was issued');
    provider.saveTokens({ ...before, access_token: 'garbled.' + before.access_token });
    client = new Client({ name: 'workbench-compat-ts-sdk-oauth', version: '1.0.0' });
    transport = new StreamableHTTPClientTransport(mcpURL, { authProvider: provider });
    await client.connect(transport);
    await client.listTools();
    const after = provider.tokens();
    expect(after.access_token !== before.access_token && !after.access_token.startsWith('garbled.'), 'the access token was not replaced');
    expect(after.refresh_token && after.refresh_token !== before.refresh_token, 'the refresh token was not rotated');
    await transport.terminateSession();
    await client.close();
  });

  // The same user, through a client authorized for offline_access only: /mcp refuses the token with 403
  // insufficient_scope naming the scope it needs (RFC 6750 section 3.1), not with 401.
  await check('oauth: a token without the mcp scope is 403 insufficient_scope', async () => {
    const meta = await (await fetch(new URL('/.well-known/oauth-authorization-server', base))).json();
    const reg = await fetch(meta.registration_endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...provider.clientMetadata, client_name: 'Workbench compatibility (scope check)' }),
    });
    const registered = await reg.json();
    expect(reg.status === 201 && registered.client_id, `registration: HTTP ${reg.status} ${JSON.stringify(registered)}`);
    const verifier = randomBytes(32).toString('base64url');
    const u = new URL(meta.authorization_endpoint);
    u.search = new URLSearchParams({
      response_type: 'code', client_id: registered.client_id, redirect_uri: provider.redirect,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
      scope: 'offline_access', resource: mcpURL.href,
    }).toString();
    const back = await consent(u, jar);
    const tokenRes = await fetch(meta.token_endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code', code: back.searchParams.get('code'), redirect_uri: provider.redirect,
        client_id: registered.client_id, code_verifier: verifier, resource: mcpURL.href,
      }),
    });
    const token = await tokenRes.json();
    expect(tokenRes.status === 200 && token.access_token, `token endpoint: HTTP ${tokenRes.status} ${JSON.stringify(token)}`);
    expect(!(token.scope ?? '').split(' ').includes('mcp'), `the token was granted mcp: ${token.scope}`);
    const res = await fetch(mcpURL, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token.access_token}`, 'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    await res.text();
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(res.status === 403, `HTTP ${res.status}, want 403 (WWW-Authenticate: ${challenge})`);
    expect(/error="insufficient_scope"/.test(challenge) && /scope="[^"]*\bmcp\b[^"]*"/.test(challenge),
      `WWW-Authenticate: ${challenge}`);
    return { wwwAuthenticate: challenge };
  });
}

try {
  await apiKeyRun();
  await oauthRun();
} catch (err) {
  report('unexpected', false, { error: String(err?.stack ?? err) });
}
if (failures > 0) {
  console.error(`sdk-client.mjs: ${failures} check(s) failed`);
  process.exit(1);
}
