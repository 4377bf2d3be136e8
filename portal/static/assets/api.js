// The portal API client: same-origin JSON fetches with the session cookie. Every state-changing
// request carries X-Workbench-CSRF, which no other site can set without a CORS preflight the server
// never grants (handlers/websession).

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || `The server answered ${status}.`);
    this.status = status;
    this.code = code || '';
  }
}

// request sends method to path with an optional JSON body and returns the decoded JSON answer
// (null for 204). Failures throw ApiError with the server's code and message.
export async function request(method, path, body) {
  const headers = { Accept: 'application/json' };
  const init = { method, headers, credentials: 'same-origin', cache: 'no-store' };
  if (method !== 'GET' && method !== 'HEAD') {
    headers['X-Workbench-CSRF'] = '1';
  }
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let resp;
  try {
    resp = await fetch(path, init);
  } catch {
    throw new ApiError(0, 'network', 'Could not reach the Workbench server. Check your connection and try again.');
  }
  if (resp.status === 204) return null;
  let data = null;
  const type = resp.headers.get('Content-Type') || '';
  if (type.includes('application/json')) {
    try { data = await resp.json(); } catch { data = null; }
  }
  if (!resp.ok) {
    const code = data && data.error ? String(data.error) : '';
    const msg = data && data.message ? String(data.message) : `The server answered ${resp.status} ${resp.statusText}.`;
    throw new ApiError(resp.status, code, msg);
  }
  return data;
}

function accountQuery(account) {
  return account ? '?' + new URLSearchParams({ account }).toString() : '';
}

export const api = {
  me: () => request('GET', '/api/me'),
  logout: () => request('POST', '/api/auth/logout'),
  logoutEverywhere: () => request('POST', '/api/auth/logout-everywhere'),
  providers: () => request('GET', '/api/auth/providers'),

  apiKey: () => request('GET', '/api/apikey'),
  mintKey: () => request('POST', '/api/apikey'),
  rotateKey: () => request('POST', '/api/apikey/rotate'),
  revealKey: () => request('POST', '/api/apikey/reveal'),
  revokeKey: () => request('DELETE', '/api/apikey'),

  integrations: () => request('GET', '/api/integrations'),

  mcpHome: () => request('GET', '/api/mcp/home'),
  mcpServers: () => request('GET', '/api/mcp/servers'),
  mcpConnections: (q) => request('GET', '/api/mcp/connections?' + new URLSearchParams(q).toString()),
  mcpConnection: (id, agent) => request('GET', `/api/mcp/connections/${encodeURIComponent(id)}?agent_id=${encodeURIComponent(agent)}`),
  mcpConnect: (body) => request('POST', '/api/mcp/connections', body),
  mcpRemove: (id) => request('DELETE', `/api/mcp/connections/${encodeURIComponent(id)}`),
  mcpChooseDefault: (id) => request('POST', `/api/mcp/connections/${encodeURIComponent(id)}/default`),
  mcpRelist: (id) => request('POST', `/api/mcp/connections/${encodeURIComponent(id)}/list`),
  mcpSaveSettings: (id, settings) => request('PUT', `/api/mcp/connections/${encodeURIComponent(id)}/settings`, { settings }),
  mcpLookupSaved: (id, property, q) => request('GET', `/api/mcp/connections/${encodeURIComponent(id)}/lookup?` + new URLSearchParams({ property, q }).toString()),
  mcpLookupServer: (id, body) => request('POST', `/api/mcp/servers/${encodeURIComponent(id)}/lookup`, body),
  mcpSwitch: (body) => request('PUT', '/api/mcp/switches', body),
  mcpTest: (id, tool, args) => request('POST', `/api/mcp/connections/${encodeURIComponent(id)}/call`, { tool, arguments: args }),
  // An integration's accounts: account is the label of one (omitted: the default account, or the
  // first one, labelled "default").
  connect: (name, account) => request('POST', `/api/integrations/${encodeURIComponent(name)}/connect` + accountQuery(account)),
  saveAPIKey: (name, fields, account) => request('POST', `/api/integrations/${encodeURIComponent(name)}/apikey`, account ? { fields, account } : { fields }),
  disconnect: (name, account) => request('DELETE', `/api/integrations/${encodeURIComponent(name)}` + accountQuery(account)),
  makeDefault: (name, account) => request('POST', `/api/integrations/${encodeURIComponent(name)}/default`, { account }),
  redeem: (token) => request('POST', '/api/connect/redeem', { token }),
  // signin: open the integration's sign-in page in the browser first (a person starting a cookie
  // sign-in; a live view renewing its link leaves the page as it is).
  liveURL: (integration, signin = false) => request('POST', '/api/browser-session/live-url', integration ? (signin ? { integration, signin: true } : { integration }) : undefined),

  // Approvals: calls of tools switched to Ask, waiting for a person (handlers/approvalshttp).
  approvals: () => request('GET', '/api/approvals'),
  approval: (id) => request('GET', `/api/approvals/${encodeURIComponent(id)}`),
  approve: (id, always) => request('POST', `/api/approvals/${encodeURIComponent(id)}/approve`, { always: !!always }),
  deny: (id) => request('POST', `/api/approvals/${encodeURIComponent(id)}/deny`),

  // Budgets: rate limits on the tool calls of a scope's agents (handlers/budgetshttp). owner is
  // {scope, id}; tool "*" (or absent) is every tool; both limits 0 removes the budget.
  budgets: (owner) => request('GET', '/api/budgets?' + new URLSearchParams({ owner_scope: owner.scope, owner_id: owner.id }).toString()),
  setBudget: (owner, tool, perMinute, perDay) => request('PUT', '/api/budgets',
    { owner_scope: owner.scope, owner_id: owner.id, tool: tool || '*', per_minute: perMinute, per_day: perDay }),

  // Webhooks of an organisation, for its owners and admins (handlers/webhookshttp): the secret comes
  // back once, from addWebhook.
  webhooks: (org) => request('GET', '/api/webhooks?' + new URLSearchParams({ organization_id: org }).toString()),
  addWebhook: (org, url, events) => request('POST', '/api/webhooks', { organization_id: org, url, events }),
  removeWebhook: (org, id) => request('DELETE', `/api/webhooks/${encodeURIComponent(id)}?` + new URLSearchParams({ organization_id: org }).toString()),

  // Toolsets: named, versioned lists of tools a scope curates, served at /mcp/ts/{name}
  // (handlers/toolsetshttp). owner is {scope, id}; each save is a new version.
  toolsets: (owner) => request('GET', '/api/toolsets?' + new URLSearchParams({ owner_scope: owner.scope, owner_id: owner.id }).toString()),
  saveToolset: (owner, { name, description, entries, connectors, mirror }) => request('PUT', '/api/toolsets',
    { owner_scope: owner.scope, owner_id: owner.id, name, description, entries, connectors, mirror }),
  deleteToolset: (owner, name) => request('DELETE', '/api/toolsets?' + new URLSearchParams({ owner_scope: owner.scope, owner_id: owner.id, name }).toString()),
  // The plugin tools of a scope with their switches (handlers: tool switches).
  toolSwitches: (owner) => request('GET', '/api/tools/switches?' + new URLSearchParams({ owner_scope: owner.scope, owner_id: owner.id }).toString()),

  mcpClients: () => request('GET', '/api/mcp-clients'),
  revokeClient: (id) => request('DELETE', `/api/mcp-clients/${encodeURIComponent(id)}`),

  audit: (before) => request('GET', '/api/audit?limit=25' + (before ? '&before=' + encodeURIComponent(before) : '')),

  // Usage receipts of one connection, and the compliance API (auditors; admins grant the role).
  receipts: (params) => request('GET', '/api/audit/receipts?' + new URLSearchParams(params)),
  receiptsSummary: (integration) => request('GET', '/api/audit/receipts/summary?' + new URLSearchParams({ integration })),
  auditMe: () => request('GET', '/api/admin/audit/me'),
  auditList: (params) => request('GET', '/api/admin/audit?' + new URLSearchParams(params)),
  auditAsOf: (params) => request('GET', '/api/admin/audit/asof?' + new URLSearchParams(params)),
  auditBlast: (params) => request('GET', '/api/admin/audit/blast-radius?' + new URLSearchParams(params)),
  grantAuditor: (email) => request('POST', '/api/admin/auditors', { email }),
  revokeAuditor: (email) => request('DELETE', `/api/admin/auditors/${encodeURIComponent(email)}`),

  // Admin: platform keys and the caps usage (instance admins).
  platformKeys: () => request('GET', '/api/admin/platform-keys'),
  setPlatformKey: (name, fields) => request('PUT', `/api/admin/platform-keys/${encodeURIComponent(name)}`, { fields }),
  removePlatformKey: (name) => request('DELETE', `/api/admin/platform-keys/${encodeURIComponent(name)}`),
  connectorCalls: () => request('GET', '/api/admin/connector-calls'),
};
