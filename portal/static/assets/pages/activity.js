// Activity: the signed-in user's own records. A chart of tool calls per day (and per hour over the
// last 24 hours) by integration or by agent, with the error rate and p50/p95 latency
// (/api/activity/summary); filters (agent, integration, account, outcome, time range); and the
// records, newest first (/api/activity), each opening a panel with everything the log keeps of it
// (/api/activity/{event_id}).

import { api, request } from '../api.js';
import { h, replace, button, busy, pageHeader, emptyState, formatTime, ago } from '../dom.js';
import { loadNames, agentName, clientName, keyName, eventLabel, outcomeOf } from '../naming.js';
import { barChart, legend } from '../chart.js';

export const title = 'Activity';

const RANGES = [['1', 'Last 24 hours'], ['7', 'Last 7 days'], ['14', 'Last 14 days'], ['30', 'Last 30 days'], ['90', 'Last 90 days']];
const OUTCOMES = [['', 'Any outcome'], ['ok', 'Succeeded'], ['error', 'Failed'], ['refused', 'Refused or waiting']];

function describe(r, names) {
  const what = names[r.integration] || r.integration || 'an integration';
  switch (r.kind) {
    case 'tool_executed': return ['Ran ', h('code', {}, r.tool || 'a tool')];
    case 'connect_started': return [`Started connecting ${what}`];
    case 'connect_expired': return [`A connection attempt to ${what} expired`];
    case 'connected': return [`Connected ${what}`, r.account_hint ? ` as ${r.account_hint}` : ''];
    case 'refreshed': return [`Refreshed the ${what} access token`];
    case 'reauthorization_required': return [`${what} needs reconnecting`];
    case 'disconnected': return [`Disconnected ${what}`];
    case 'api_key_minted': return ['Created an API key'];
    case 'api_key_rotated': return ['Rotated the API key'];
    case 'api_key_revoked': return ['Revoked the API key'];
    case 'subject_shredded': return ['Erased stored secrets'];
  }
  return [eventLabel(r.kind)];
}

function outcomeBadge(r) {
  if (r.kind === 'tool_executed') {
    const o = outcomeOf(r);
    // A call that did not run took no time worth showing.
    const ms = r.duration_ms != null && o.cls !== 'warn' ? ` · ${r.duration_ms} ms` : '';
    return h('span', { class: `badge badge-${o.cls}`, 'data-outcome': r.outcome || '', title: o.code || null }, o.label + ms);
  }
  if (r.reason) return h('span', { class: 'muted small' }, r.reason.replace(/_/g, ' '));
  return null;
}

function via(r, dir) {
  const parts = [];
  if (r.kind === 'tool_executed') {
    parts.push(agentName(dir, r.agent_id));
    if (r.via || r.client_id) parts.push('via ' + clientName(dir, r.via, r.client_id, r.client_name));
    if (r.integration) parts.push(r.integration);
  } else if (r.via || r.client_id) {
    parts.push('via ' + clientName(dir, r.via, r.client_id, r.client_name));
  }
  return parts.join(' · ');
}

function when(iso) {
  return h('time', { datetime: iso, title: formatTime(iso) }, ago(iso));
}

function row(label, value, testid) {
  return [h('dt', {}, label), h('dd', { 'data-field': testid }, value === '' || value == null ? '—' : value)];
}

// panel opens the record's detail: everything the log keeps of it, never a secret (the log holds
// none: arguments and results are kept as a size and a SHA-256 digest only).
async function openPanel(ctx, r, dir, names) {
  const body = h('div', { class: 'panel-body' }, h('p', { class: 'muted' }, 'Loading…'));
  const close = button('Close', { testid: 'panel-close' });
  const dialog = h('dialog', { class: 'dialog panel', 'aria-labelledby': 'panel-title', 'data-testid': 'activity-panel' },
    h('h2', { id: 'panel-title' }, describe(r, names)), body, h('div', { class: 'dialog-actions' }, close));
  const done = () => { dialog.close(); dialog.remove(); };
  close.addEventListener('click', done);
  dialog.addEventListener('cancel', (e) => { e.preventDefault(); done(); });
  document.body.append(dialog);
  dialog.showModal();
  let d;
  try { d = await request('GET', `/api/activity/${encodeURIComponent(r.event_id)}`); } catch (err) { ctx.fail(body, err, 'The record could not be loaded'); return; }
  const rec = d.record;
  const o = rec.kind === 'tool_executed' ? outcomeOf(rec) : null;
  const fields = [
    row('What', eventLabel(rec.kind), 'kind'),
    rec.tool ? row('Tool', h('code', {}, rec.tool), 'tool') : null,
    rec.integration ? row('Integration', names[rec.integration] || rec.integration, 'integration') : null,
    row('Account', rec.account || (rec.integration ? 'default' : ''), 'account'),
    rec.kind === 'tool_executed' ? row('Agent', agentName(dir, rec.agent_id), 'agent') : null,
    row('Client', rec.via || rec.client_id ? clientName(dir, rec.via, rec.client_id, rec.client_name) : '', 'client'),
    rec.via === 'api_key' && rec.client_id ? row('Key', keyName(dir, rec.client_id), 'key') : null,
    rec.key_id ? row('Key', keyName(dir, rec.key_id), 'key') : null,
    o ? row('Outcome', [h('span', { class: `badge badge-${o.cls}` }, o.label), o.code ? [' ', h('code', {}, o.code)] : '',
      rec.error_detail && rec.error_code !== rec.error_detail ? h('span', { class: 'muted small' }, ` (recorded as ${rec.error_code})`) : ''], 'outcome') : null,
    rec.args_size != null ? row('Arguments', [`${rec.args_size} bytes`, rec.args_sha256 ? [' · SHA-256 ', h('code', { class: 'digest' }, rec.args_sha256.slice(0, 16) + '…')] : '',
      h('div', { class: 'muted small' }, 'Workbench keeps no argument values, so no secret can be shown here: only their size and digest.')], 'arguments') : null,
    rec.kind === 'tool_executed' ? row('Result', rec.success
      ? [`${rec.result_size || 0} bytes`, rec.result_sha256 ? [' · SHA-256 ', h('code', { class: 'digest' }, rec.result_sha256.slice(0, 16) + '…')] : '']
      : [h('code', {}, rec.error_detail || rec.error_code || 'failed'), ` ${o.label}`], 'result') : null,
    rec.duration_ms != null ? row('Duration', `${rec.duration_ms} ms`, 'duration') : null,
    row('When', [ago(rec.time), h('span', { class: 'muted small' }, ` · ${formatTime(rec.time)}`)], 'time'),
    rec.execution_id ? row('Execution', h('code', {}, rec.execution_id), 'execution') : null,
    row('Trace', rec.trace_id ? h('code', {}, rec.trace_id) : 'not traced (tracing was off)', 'trace'),
  ];
  if (d.approval) {
    const a = d.approval;
    fields.push(row('Approval', [h('span', { class: 'badge' }, a.state.replace(/_/g, ' ')), ' ',
      h('a', { href: `/approvals/${encodeURIComponent(a.id)}`, 'data-link': true }, 'Open the approval'),
      h('ul', { class: 'small muted steps' }, a.steps.map((s) => h('li', {}, eventLabel(s.kind), ' · ', when(s.time))))], 'approval'));
  }
  replace(body, h('dl', { class: 'facts' }, fields));
}

export async function render(ctx, main) {
  const params = new URLSearchParams(location.search);
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading activity…'));
  replace(main, pageHeader('Activity', 'What your agents did and what happened on your account. Open a row for its details.'), body);

  const names = {};
  let integrations = [];
  try {
    const res = await api.integrations();
    integrations = (res && res.integrations) || [];
    for (const i of integrations) names[i.name] = i.display_name || i.name;
  } catch { /* ids are shown instead */ }
  const dir = await loadNames();
  if (!ctx.current()) return;

  const ctl = (label, el) => h('label', { class: 'field' }, h('span', { class: 'field-label' }, label), el);
  const sel = (name, options, value) => h('select', { name, 'data-testid': `filter-${name}` },
    options.map(([v, l]) => h('option', { value: v, selected: v === value }, l)));
  const agentSel = sel('agent', [['', 'Every agent'], ...[...dir.agents].map(([id, n]) => [id, n])], params.get('agent') || '');
  const integrationSel = sel('integration', [['', 'Every integration'], ...integrations.map((i) => [i.name, names[i.name]])], params.get('integration') || '');
  const account = h('input', { name: 'account', type: 'text', placeholder: 'default', autocomplete: 'off', spellcheck: 'false', 'data-testid': 'filter-account', value: params.get('account') || '' });
  const outcomeSel = sel('outcome', OUTCOMES, params.get('outcome') || '');
  const rangeSel = sel('range', RANGES, params.get('range') || '14');
  const groupSel = sel('group_by', [['integration', 'By integration'], ['agent', 'By agent']], params.get('group_by') || 'integration');
  const form = h('form', { class: 'filters', 'data-testid': 'activity-filters' },
    ctl('Agent', agentSel), ctl('Integration', integrationSel), ctl('Account', account), ctl('Outcome', outcomeSel),
    ctl('Time range', rangeSel), ctl('Chart', groupSel), button('Apply', { kind: 'primary', type: 'submit', testid: 'activity-apply' }));

  const stats = h('div', { class: 'stat-row', 'data-testid': 'activity-stats' });
  const charts = h('div', { class: 'charts' });
  const list = h('ol', { class: 'timeline', 'data-testid': 'activity' });
  const more = h('div', { class: 'more' });
  replace(body, form, h('section', { class: 'card', 'aria-label': 'Tool calls chart' }, stats, charts), h('div', { class: 'card' }, list, more));

  const filters = () => {
    const q = {};
    if (agentSel.value) q.agent = agentSel.value;
    if (integrationSel.value) q.integration = integrationSel.value;
    if (account.value.trim()) q.account = account.value.trim();
    if (outcomeSel.value) q.outcome = outcomeSel.value;
    const days = Number(rangeSel.value);
    const to = new Date();
    to.setUTCMinutes(0, 0, 0);
    to.setUTCHours(to.getUTCHours() + 1);
    q.to = to.toISOString();
    // N days are today (UTC) and the N-1 days before it; the last 24 hours are just that.
    const today = Math.floor((to.getTime() - 1) / 86400000) * 86400000;
    q.from = new Date(days === 1 ? to.getTime() - 86400000 : today - (days - 1) * 86400000).toISOString();
    return q;
  };

  const groupLabel = (key) => groupSel.value === 'agent' ? agentName(dir, key) : (names[key] || key);
  const loadSummary = async (q) => {
    let s;
    try { s = await request('GET', '/api/activity/summary?' + new URLSearchParams({ ...q, group_by: groupSel.value })); } catch (err) { ctx.fail(charts, err, 'The chart could not be loaded'); return; }
    if (!ctx.current()) return;
    const t = s.totals;
    const ran = t.calls - t.refused;
    const rate = ran > 0 ? Math.round((t.errors / ran) * 1000) / 10 : 0;
    const stat = (label, value, id) => h('div', { class: 'stat', 'data-stat': id }, h('div', { class: 'stat-value' }, value), h('div', { class: 'stat-label' }, label));
    replace(stats,
      stat('Calls', String(t.calls), 'calls'), stat('Error rate', `${rate}%`, 'error-rate'), stat('Refused or waiting', String(t.refused), 'refused'),
      stat('p50 latency', t.p50_ms != null ? `${t.p50_ms} ms` : '—', 'p50'), stat('p95 latency', t.p95_ms != null ? `${t.p95_ms} ms` : '—', 'p95'));
    const keys = s.groups.map((g) => g.key);
    const dayTick = (b, long) => {
      const d = new Date(b.start);
      return long ? d.toLocaleDateString(undefined, { timeZone: 'UTC', dateStyle: 'medium' }) : d.toLocaleDateString(undefined, { timeZone: 'UTC', month: 'short', day: 'numeric' });
    };
    const hourTick = (b, long) => {
      const d = new Date(b.start);
      return long ? formatTime(b.start) : d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
    };
    if (t.calls === 0) {
      replace(charts, h('p', { class: 'muted', 'data-testid': 'chart-empty' }, 'No tool calls match in this range.'));
      return;
    }
    replace(charts,
      h('h2', {}, 'Calls per day'), barChart({ title: 'Tool calls per day (UTC)', buckets: s.days, keys, label: groupLabel, tick: dayTick, testid: 'chart-days' }),
      h('h2', {}, 'Last 24 hours, per hour'), barChart({ title: 'Tool calls per hour, last 24 hours', buckets: s.hours, keys, label: groupLabel, tick: hourTick, testid: 'chart-hours' }),
      legend(keys, groupLabel),
      h('div', { class: 'table-scroll' }, h('table', { class: 'table small', 'data-testid': 'activity-groups' },
        h('thead', {}, h('tr', {}, h('th', {}, groupSel.value === 'agent' ? 'Agent' : 'Integration'), h('th', {}, 'Calls'), h('th', {}, 'Failed'), h('th', {}, 'Refused'), h('th', {}, 'p50'), h('th', {}, 'p95'))),
        h('tbody', {}, s.groups.map((g) => h('tr', { 'data-group': g.key },
          h('td', {}, groupLabel(g.key)), h('td', {}, String(g.calls)), h('td', {}, String(g.errors)), h('td', {}, String(g.refused)),
          h('td', {}, g.p50_ms != null ? `${g.p50_ms} ms` : '—'), h('td', {}, g.p95_ms != null ? `${g.p95_ms} ms` : '—')))))),
      s.truncated ? h('p', { class: 'muted small' }, 'Only the newest calls are counted: narrow the range to see all of it.') : null);
  };

  const load = async (q, before) => {
    let page;
    try {
      page = await request('GET', '/api/activity?' + new URLSearchParams({ ...q, limit: '25', ...(before ? { before } : {}) }));
    } catch (err) { ctx.fail(more, err, 'Activity could not be loaded'); return; }
    if (!ctx.current()) return;
    const records = page.records || [];
    if (!before && records.length === 0 && !page.next_before) {
      replace(more, emptyState('activity', 'Nothing matches', h('p', {}, 'Change the filters, or let an agent run a tool: it will be recorded here.')));
      return;
    }
    for (const r of records) {
      const open = h('button', { type: 'button', class: 'event-open', 'data-testid': 'open-record', 'aria-haspopup': 'dialog' },
        h('div', {}, describe(r, names)), h('div', { class: 'muted small' }, via(r, dir)));
      open.addEventListener('click', () => openPanel(ctx, r, dir, names));
      list.append(h('li', { class: 'event', 'data-kind': r.kind, 'data-outcome': r.outcome || null, 'data-event': r.event_id },
        when(r.time), h('div', { class: 'event-main' }, open), h('div', { class: 'event-outcome' }, outcomeBadge(r))));
    }
    if (page.next_before) {
      const older = button('Show older activity', { testid: 'older' });
      older.addEventListener('click', () => busy(older, () => load(q, page.next_before)));
      replace(more, older);
    } else {
      replace(more, h('p', { class: 'muted small end' }, 'That is everything.'));
    }
  };

  const show = async () => {
    const q = filters();
    list.replaceChildren();
    replace(more, h('p', { class: 'muted' }, 'Loading…'));
    // The list shows the whole range's records; without a range filter chosen it still starts at the newest.
    await Promise.all([loadSummary(q), load(q, '')]);
  };
  form.addEventListener('submit', (e) => { e.preventDefault(); show(); });
  groupSel.addEventListener('change', () => show());
  await show();
}
