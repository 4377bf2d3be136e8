// Audit: the compliance API for auditors (every user's records, filtered, paged in log order, with CSV
// and JSON Lines exports; who held what at an instant; a credential's blast radius), and for instance
// admins the auditor role's grants. Every read made here is itself recorded in the audit trail.

import { api, request } from '../api.js';
import { h, replace, button, busy, pageHeader, notice, errorText, formatTime, ago, labelled } from '../dom.js';
import { fromCredentials, agentName, clientName, keyName, oauthClientName, eventLabel, outcomeOf } from '../naming.js';

export const title = 'Audit';

const FILTERS = [
  ['user', 'User email'], ['integration', 'Integration'], ['tool', 'Tool'], ['outcome', 'Outcome (ok, failed, a code)'],
  ['from', 'From (date or time)'], ['to', 'To (date or time)'],
];

function field(name, label) {
  return h('input', { name, type: 'text', placeholder: label, 'aria-label': label, autocomplete: 'off', spellcheck: 'false' });
}

function values(form) {
  const q = {};
  for (const el of form.querySelectorAll('input, select')) if (el.name && el.value.trim()) q[el.name] = el.value.trim();
  return q;
}

function grants(ctx) {
  const email = field('email', 'Email of the user');
  const status = h('div', { 'data-testid': 'auditor-status' });
  const form = h('form', { class: 'filters', 'data-testid': 'grant-auditor' }, labelled(email),
    button('Grant auditor', { kind: 'primary', type: 'submit', testid: 'grant' }),
    button('Revoke auditor', { testid: 'revoke', onclick: async () => {
      try { await api.revokeAuditor(email.value.trim()); replace(status, notice('success', 'Auditor role revoked', email.value.trim())); } catch (err) { replace(status, notice('error', 'Not revoked', errorText(err))); }
    } }));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      await api.grantAuditor(email.value.trim());
      replace(status, notice('success', 'Auditor role granted', email.value.trim()));
      if (email.value.trim().toLowerCase() === String(ctx.me.email).toLowerCase()) ctx.navigate('/audit', { replace: true });
    } catch (err) { replace(status, notice('error', 'Not granted', errorText(err))); }
  });
  return h('section', { class: 'card' }, h('h2', {}, 'Auditors'),
    h('p', { class: 'muted' }, 'As an instance admin you grant and revoke the auditor role. Each change is an event in the log.'), form, status);
}

// credentialLabel names one credential of the list the way every page does (naming.js).
function credentialLabel(dir, c) {
  switch (c.kind) {
    case 'api_key': return keyName(dir, c.id, c.prefix);
    case 'oauth_client': return oauthClientName(dir, c.id, c.name);
    case 'agent': return 'Agent ' + (c.name || agentName(dir, c.id));
    case 'session': return 'Curl session ' + c.id.slice(0, 8);
  }
  return c.id;
}

function recordsSection(ctx, dir, creds) {
  const clients = h('select', { name: 'client', 'aria-label': 'Client or key' }, h('option', { value: '' }, 'Any client or key'),
    creds.filter((c) => c.kind === 'api_key' || c.kind === 'oauth_client').map((c) => h('option', { value: c.id }, `${credentialLabel(dir, c)}${c.email ? ' — ' + c.email : ''}`)));
  const form = h('form', { class: 'filters', 'data-testid': 'audit-filters' }, FILTERS.map(([n, l]) => field(n, l)), clients,
    button('Search', { kind: 'primary', type: 'submit', testid: 'audit-search' }));
  const rows = h('tbody', {});
  const more = h('div', { class: 'more' });
  const exports = h('p', { class: 'small' });
  const table = h('table', { class: 'table', 'data-testid': 'audit-records' },
    h('thead', {}, h('tr', {}, h('th', {}, 'Time'), h('th', {}, 'What'), h('th', {}, 'User'), h('th', {}, 'Integration'), h('th', {}, 'Tool'), h('th', {}, 'Outcome'), h('th', {}, 'Agent and client'))), rows);
  const load = async (q, after) => {
    const params = { ...q, limit: '50' };
    if (after) params.after = after;
    let page;
    try { page = await api.auditList(params); } catch (err) { ctx.fail(more, err, 'Records could not be loaded'); return; }
    if (!ctx.current()) return;
    for (const r of page.records || []) {
      const o = r.kind === 'tool_executed' ? outcomeOf(r) : null;
      const out = o ? [o.label, o.code ? [' ', h('code', {}, o.code)] : ''] : (r.error_code || (r.status ? String(r.status) : ''));
      const who = [r.kind === 'tool_executed' ? agentName(dir, r.agent_id) : '', r.via || r.client_id ? clientName(dir, r.via, r.client_id, r.client_name) : '']
        .filter(Boolean).join(' · ');
      rows.append(h('tr', { 'data-kind': r.kind },
        h('td', {}, h('time', { datetime: r.time, title: formatTime(r.time) }, ago(r.time))), h('td', { title: r.kind }, eventLabel(r.kind)),
        h('td', { title: r.user_id || null }, r.email || (r.user_id ? 'User ' + r.user_id.slice(0, 8) : '')),
        h('td', {}, r.integration || ''), h('td', {}, r.tool ? h('code', {}, r.tool) : ''), h('td', {}, out), h('td', { 'data-field': 'client' }, who)));
    }
    if (page.next_after) {
      const next = button('Load more', { testid: 'audit-more' });
      next.addEventListener('click', () => busy(next, () => load(q, page.next_after)));
      replace(more, next);
    } else {
      replace(more, h('p', { class: 'muted small end' }, rows.children.length ? 'That is everything.' : 'No records match.'));
    }
  };
  const search = async () => {
    const q = values(form);
    rows.replaceChildren();
    replace(exports, 'Export: ',
      h('a', { href: '/api/admin/audit?' + new URLSearchParams({ ...q, format: 'csv' }), 'data-testid': 'export-csv', download: 'workbench-audit.csv' }, 'CSV'), ' · ',
      h('a', { href: '/api/admin/audit?' + new URLSearchParams({ ...q, format: 'jsonl' }), download: 'workbench-audit.jsonl' }, 'JSON Lines'));
    await load(q, '');
  };
  form.addEventListener('submit', (e) => { e.preventDefault(); search(); });
  return { el: h('section', { class: 'card' }, h('h2', {}, 'Records'), form, exports, table, more), search };
}

function asofSection(ctx) {
  const form = h('form', { class: 'filters', 'data-testid': 'asof-form' }, field('at', 'At (date or RFC 3339 time)'), field('user', 'User email'), field('integration', 'Integration'),
    button('Who held what', { kind: 'primary', type: 'submit', testid: 'asof-run' }));
  const out = h('div', { 'data-testid': 'asof-result' });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    let res;
    try { res = await api.auditAsOf(values(form)); } catch (err) { replace(out, notice('error', 'No answer', errorText(err))); return; }
    if (!ctx.current()) return;
    const conns = res.connections || [];
    replace(out, h('p', { class: 'muted small' }, `${conns.length} connection(s) at ${formatTime(res.at)}, folded from ${res.events_scanned} events of the log.`),
      h('table', { class: 'table' },
        h('thead', {}, h('tr', {}, h('th', {}, 'User'), h('th', {}, 'Integration'), h('th', {}, 'Status'), h('th', {}, 'Generation'), h('th', {}, 'Scopes'), h('th', {}, 'Account'), h('th', {}, 'Created by'))),
        h('tbody', {}, conns.map((c) => h('tr', { 'data-status': c.status },
          h('td', {}, c.email || 'User ' + String(c.user_id).slice(0, 8)), h('td', {}, c.integration), h('td', {}, c.status), h('td', {}, String(c.credential_generation)),
          h('td', {}, (c.scopes || []).join(' ')), h('td', {}, c.account_hint || ''), h('td', {}, (c.created_by && c.created_by === c.user_id ? (c.email || 'the user') : (c.created_by || '')) + (c.created_via ? ` via ${c.created_via}` : '')))))));
  });
  return h('section', { class: 'card' }, h('h2', {}, 'Who held what when'), form, out);
}

function blastSection(ctx, dir, creds) {
  const words = { api_key: 'API keys', oauth_client: 'MCP clients', agent: 'Agents', session: 'Curl sessions' };
  const pick = h('select', { name: 'credential', 'data-testid': 'blast-credential' },
    Object.entries(words).map(([kind, word]) => {
      const of = creds.filter((c) => c.kind === kind);
      return of.length ? h('optgroup', { label: word }, of.map((c) => h('option', { value: `${c.kind}:${c.id}` },
        `${credentialLabel(dir, c)}${c.email ? ' — ' + c.email : ''} (last used ${ago(c.last_seen)})`))) : null;
    }));
  const out = h('div', { 'data-testid': 'blast-result' });
  const form = h('form', { class: 'filters', 'data-testid': 'blast-form' },
    h('label', { class: 'field' }, h('span', { class: 'field-label' }, 'Credential or agent'), pick),
    button('Blast radius', { kind: 'primary', type: 'submit', testid: 'blast-run' }));
  if (creds.length === 0) {
    return h('section', { class: 'card' }, h('h2', {}, 'Blast radius'), h('p', { class: 'muted', 'data-testid': 'blast-none' }, 'No credential has been used yet.'));
  }
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const [kind, ...rest] = pick.value.split(':');
    const q = { [kind]: rest.join(':') };
    let rep;
    try { rep = await api.auditBlast(q); } catch (err) { replace(out, notice('error', 'No report', errorText(err))); return; }
    if (!ctx.current()) return;
    const t = rep.totals || {};
    replace(out,
      h('p', {}, `Issued ${formatTime(rep.issued_at)} · revoked ${rep.revoked_at ? formatTime(rep.revoked_at) : '—'} · owner ${rep.owner_email || '—'}`),
      h('ul', { class: 'totals' },
        h('li', {}, `Tool runs: ${t.tool_runs} (${t.tool_failures} failed)`), h('li', {}, `Proxied requests: ${t.proxied_requests}`),
        h('li', {}, `Curl sessions: ${t.curl_sessions}`), h('li', {}, `Jots deployed: ${t.jots_deployed}`), h('li', {}, `Connections started: ${t.connections_started}`)),
      h('a', { href: '/api/admin/audit/blast-radius?' + new URLSearchParams({ ...q, format: 'html' }), target: '_blank', rel: 'noopener', 'data-testid': 'blast-html' }, 'One-page report'));
  });
  return h('section', { class: 'card' }, h('h2', {}, 'Blast radius'), h('p', { class: 'muted' }, 'Everything one credential or agent did, from issue to revocation.'), form, out);
}

export async function render(ctx, main) {
  let me;
  try { me = await api.auditMe(); } catch (err) { ctx.fail(main, err, 'The audit page could not load'); return; }
  if (!ctx.current()) return;
  const parts = [pageHeader('Audit', 'The compliance view of every user\u2019s activity. Each read you make here is itself recorded.')];
  if (me.admin) parts.push(grants(ctx));
  if (!me.auditor) {
    parts.push(notice('info', 'You are not an auditor', me.admin ? 'Grant yourself the role above to read the audit trail.' : 'An instance admin grants the auditor role.'));
    replace(main, parts);
    return;
  }
  // The credentials the records name, with their names: the blast-radius list, and the names of the
  // records table (naming.js).
  let creds = [];
  try { creds = ((await request('GET', '/api/admin/audit/credentials')) || {}).credentials || []; } catch (err) { ctx.fail(main, err, 'The audit page could not load'); return; }
  if (!ctx.current()) return;
  const dir = fromCredentials(creds);
  const records = recordsSection(ctx, dir, creds);
  parts.push(records.el, asofSection(ctx), blastSection(ctx, dir, creds));
  replace(main, parts);
  await records.search();
}
