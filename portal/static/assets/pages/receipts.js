// Usage receipts: for one of the user's connections, what used it (which MCP client or API key, which
// tools, when, with what outcome), filterable, and a monthly summary (/api/audit/receipts).

import { api } from '../api.js';
import { h, replace, button, busy, pageHeader, emptyState, formatTime, ago, labelled } from '../dom.js';
import { loadNames, clientName, agentName } from '../naming.js';

export const title = 'Usage receipts';

// clientLabel names what used the connection with the portal's one naming (naming.js).
function clientLabel(r, dir) {
  if (r.client_id || r.via) {
    const who = clientName(dir, r.via, r.client_id, r.client_name);
    return r.kind === 'tool_executed' ? `${agentName(dir, r.agent_id)} · ${who}` : who;
  }
  if (r.session_id) return 'curl session ' + r.session_id.slice(0, 8);
  return '—';
}

function what(r) {
  switch (r.kind) {
    case 'tool_executed': return h('code', {}, r.tool || 'a tool');
    case 'request_proxied': return h('code', {}, `${r.method || ''} ${r.path || ''}`);
    default: return String(r.kind || '').replace(/_/g, ' ');
  }
}

function outcome(r) {
  if (r.kind === 'tool_executed') {
    return r.success ? h('span', { class: 'badge badge-ok' }, 'ok') : h('span', { class: 'badge badge-err' }, r.error_code || 'failed');
  }
  if (r.kind === 'request_proxied') {
    return r.error_code ? h('span', { class: 'badge badge-err' }, r.error_code) : h('span', { class: 'badge badge-ok' }, String(r.status || ''));
  }
  return r.reason ? h('span', { class: 'muted small' }, r.reason) : null;
}

export async function render(ctx, main) {
  const params = new URLSearchParams(location.search);
  let integrations = [];
  try {
    const res = await api.integrations();
    integrations = ((res && res.integrations) || []).map((i) => ({ name: i.name, label: i.display_name || i.name }));
  } catch (err) { ctx.fail(main, err, 'Integrations could not be loaded'); return; }
  const dir = await loadNames();
  if (!ctx.current()) return;
  const select = h('select', { name: 'integration', 'aria-label': 'Connection', 'data-testid': 'receipts-integration' },
    integrations.map((i) => h('option', { value: i.name, selected: i.name === params.get('integration') }, i.label)));
  const outcomeSel = h('select', { name: 'outcome', 'aria-label': 'Outcome' },
    h('option', { value: '' }, 'Any outcome'), h('option', { value: 'ok' }, 'Succeeded'), h('option', { value: 'failed' }, 'Failed'));
  const tool = h('input', { name: 'tool', type: 'text', placeholder: 'Tool', 'aria-label': 'Tool' });
  const client = h('select', { name: 'client', 'aria-label': 'Used by' }, h('option', { value: '' }, 'Any client or key'),
    [...dir.keys.keys()].map((id) => h('option', { value: id }, clientName(dir, 'api_key', id))),
    [...dir.clients].map(([id, name]) => h('option', { value: id }, name)));
  const summary = h('div', { 'data-testid': 'receipts-summary' });
  const list = h('tbody', {});
  const more = h('div', { class: 'more' });
  const body = h('div', { class: 'card' },
    h('table', { class: 'table', 'data-testid': 'receipts' },
      h('thead', {}, h('tr', {}, h('th', {}, 'When'), h('th', {}, 'Used by'), h('th', {}, 'What'), h('th', {}, 'Outcome'))), list), more);
  const form = h('form', { class: 'filters', 'data-testid': 'receipts-filters' }, select, labelled(tool), labelled(client), outcomeSel,
    button('Show', { kind: 'primary', type: 'submit', testid: 'receipts-show' }));
  replace(main, pageHeader('Usage receipts', 'For each connection, what used it: which agent or MCP client, which tools, when, and how it went.'),
    form, h('h2', {}, 'Monthly summary'), summary, h('h2', {}, 'Timeline'), body);
  if (integrations.length === 0) {
    replace(main, pageHeader('Usage receipts'), emptyState('activity', 'No integrations', h('p', {}, 'There is nothing to show yet.')));
    return;
  }

  const load = async (after) => {
    const q = { integration: select.value, limit: '50' };
    for (const [k, el] of [['tool', tool], ['client', client], ['outcome', outcomeSel]]) if (el.value) q[k] = el.value;
    if (after) q.after = after;
    let page;
    try { page = await api.receipts(q); } catch (err) { ctx.fail(more, err, 'Receipts could not be loaded'); return; }
    if (!ctx.current()) return;
    for (const r of page.records || []) {
      list.append(h('tr', { 'data-kind': r.kind },
        h('td', {}, h('time', { datetime: r.time, title: formatTime(r.time) }, ago(r.time))), h('td', {}, clientLabel(r, dir)), h('td', {}, what(r)), h('td', {}, outcome(r))));
    }
    if (page.next_after) {
      const older = button('Show more', { testid: 'receipts-more' });
      older.addEventListener('click', () => busy(older, () => load(page.next_after)));
      replace(more, older);
    } else {
      replace(more, h('p', { class: 'muted small end' }, (list.children.length ? '' : 'Nothing used this connection. ') + 'That is everything.'));
    }
  };
  const loadSummary = async () => {
    let s;
    try { s = await api.receiptsSummary(select.value); } catch (err) { ctx.fail(summary, err, 'The summary could not be loaded'); return; }
    if (!ctx.current()) return;
    if (!s.months || s.months.length === 0) { replace(summary, h('p', { class: 'muted' }, 'No use recorded.')); return; }
    replace(summary, h('table', { class: 'table' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Month'), h('th', {}, 'Tool runs'), h('th', {}, 'Failed'), h('th', {}, 'Proxied requests'), h('th', {}, 'Clients'))),
      h('tbody', {}, s.months.map((m) => h('tr', { 'data-month': m.month },
        h('td', {}, m.month), h('td', {}, String(m.tool_runs)), h('td', {}, String(m.failed)), h('td', {}, String(m.proxied_requests)),
        h('td', {}, Object.entries(m.clients || {}).map(([c, n]) => `${clientName(dir, '', c)}: ${n}`).join(', ')))))));
  };
  const show = async () => {
    list.replaceChildren();
    replace(more, h('p', { class: 'muted' }, 'Loading…'));
    await Promise.all([load(''), loadSummary()]);
  };
  form.addEventListener('submit', (e) => { e.preventDefault(); show(); });
  await show();
}
