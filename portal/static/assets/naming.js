// One human name for each agent, API key and OAuth client, and one label for each record kind and
// outcome, used by every page that shows them (Activity, Receipts, Audit, MCP clients, API key):
//
//   agent       its name ("Default agent" for a user's default agent the directory does not know)
//   API key     "API key wb_fNct…" (its display prefix, as the key page shows it); a key no longer
//               live is "Retired API key 22e6a9bd" (the first 8 characters of its id)
//   OAuth client  its registered client_name; "MCP client 1a2b3c4d" when it registered none
//
// A directory comes from GET /api/activity/names (the signed-in user's own agents, live keys and
// clients) or, on the Audit page, from the auditor's list of credentials (fromCredentials).

import { request } from './api.js';

const NIL = '00000000-0000-0000-0000-000000000000';

let cached = null;

// loadNames fetches the signed-in user's directory once per page load; a failure gives an empty
// directory (names fall back to short ids) rather than breaking the page.
export async function loadNames({ fresh = false } = {}) {
  if (cached && !fresh) return cached;
  let res = null;
  try { res = await request('GET', '/api/activity/names'); } catch { res = null; }
  cached = directory(res || {});
  return cached;
}

// directory builds the lookup maps from an /api/activity/names answer.
export function directory({ agents = [], keys = [], clients = [] } = {}) {
  const d = { agents: new Map(), keys: new Map(), clients: new Map(), defaultAgent: '' };
  for (const a of agents) {
    d.agents.set(a.id, a.name);
    if (a.default) d.defaultAgent = a.id;
  }
  for (const k of keys) d.keys.set(k.id, k.prefix);
  for (const c of clients) if (c.name) d.clients.set(c.id, c.name);
  return d;
}

// fromCredentials builds a directory from the Audit page's credential list.
export function fromCredentials(creds) {
  const d = directory({});
  for (const c of creds || []) {
    if (c.kind === 'agent' && c.name) d.agents.set(c.id, c.name);
    if (c.kind === 'api_key' && c.prefix) d.keys.set(c.id, c.prefix);
    if (c.kind === 'oauth_client' && c.name) d.clients.set(c.id, c.name);
  }
  return d;
}

const short = (id) => String(id || '').slice(0, 8);

// agentName names an agent by id; a record that names none ran as its user's default agent.
export function agentName(dir, id) {
  if (!id || id === NIL) id = dir.defaultAgent;
  const name = id && dir.agents.get(id);
  if (name) return name;
  if (!id || id === dir.defaultAgent) return 'Default agent';
  return 'Agent ' + short(id);
}

// keyName names an API key by id.
export function keyName(dir, id, prefix) {
  const p = prefix || dir.keys.get(id);
  if (p) return 'API key ' + (p.endsWith('…') ? p : p + '…');
  return 'Retired API key ' + short(id);
}

// oauthClientName names an OAuth client by id (registered, when the caller already has it).
export function oauthClientName(dir, id, registered) {
  return registered || dir.clients.get(id) || 'MCP client ' + short(id);
}

// clientName names what a call came through: via is api_key, oauth or session (the portal).
export function clientName(dir, via, id, registered) {
  if (via === 'oauth') return oauthClientName(dir, id, registered);
  if (via === 'api_key' && id) return keyName(dir, id);
  if (via === 'session') return 'The portal';
  if (id) return dir.keys.has(id) ? keyName(dir, id) : oauthClientName(dir, id, registered);
  return '—';
}

// The record kinds as people read them (the Audit page's Kind column, the Activity panel).
export const EVENT_LABELS = {
  tool_executed: 'Tool call',
  connect_started: 'Connection started',
  connect_expired: 'Connection attempt expired',
  connected: 'Connected',
  refreshed: 'Token refreshed',
  reauthorization_required: 'Needs reconnecting',
  disconnected: 'Disconnected',
  default_account_chosen: 'Default account chosen',
  api_key_minted: 'API key created',
  api_key_rotated: 'API key rotated',
  api_key_revoked: 'API key revoked',
  subject_shredded: 'Secrets erased',
  curl_session_minted: 'Curl session started',
  request_forwarded: 'Request sent',
  request_proxied: 'Request proxied',
  auditor_granted: 'Auditor role granted',
  auditor_revoked: 'Auditor role revoked',
  audit_read: 'Audit trail read',
  tools_listed: 'Tools listed',
  request_relayed: 'Request relayed to the agent',
  approval_requested: 'Approval requested',
  approval_approved: 'Approved',
  approval_denied: 'Denied',
  approval_expired: 'Approval expired',
  approval_used: 'Approval used',
  sign_in_link_issued: 'Sign-in link issued',
  sign_in_link_used: 'Sign-in link used',
  oauth_client_registered: 'MCP client registered',
  oauth_grant_revoked: 'MCP client access revoked',
};

export function eventLabel(kind) {
  return EVENT_LABELS[kind] || String(kind || 'event').replace(/_/g, ' ');
}

// The error codes of a tool call as people read them; cls is the badge's colour: err for a failure,
// warn for a call that did not run (refused, or waiting for a person).
const CODES = {
  TOOL_ERROR: ['Tool failed', 'err'],
  INVALID_ARGUMENTS: ['Invalid arguments', 'err'],
  UNKNOWN_TOOL: ['Unknown tool', 'err'],
  NOT_CONNECTED: ['Not connected', 'err'],
  CANCELLED: ['Cancelled by the agent', 'err'],
  TOOL_OFF: ['Refused: switched off', 'warn'],
  APPROVAL_REQUIRED: ['Waiting for approval', 'warn'],
  APPROVAL_DENIED: ['Refused: approval denied', 'warn'],
  APPROVAL_EXPIRED: ['Refused: approval expired', 'warn'],
  APPROVAL_INVALID: ['Refused: approval not valid', 'warn'],
  RATE_LIMITED: ['Refused: over budget', 'warn'],
  HUMAN_IN_CONTROL: ['Waiting: a person is driving the browser', 'warn'],
  BROWSER_SESSION_BUSY: ['Browser session busy', 'warn'],
};

// outcomeOf is a tool call's outcome: its label, the code it came with (the tool's own code, such as
// HUMAN_IN_CONTROL, before the generic TOOL_ERROR) and the badge class.
export function outcomeOf(r) {
  if (r.success) return { label: 'Succeeded', code: '', cls: 'ok' };
  const code = r.error_detail || r.error_code || '';
  const [label, cls] = CODES[code] || CODES[r.error_code] || ['Failed', 'err'];
  return { label, code, cls };
}

export function codeLabel(code) {
  return (CODES[code] || [code])[0];
}
