// Activity: the signed-in user's audit records from /api/audit, newest first, a page at a time.

import { api } from '../api.js';
import { h, replace, button, busy, pageHeader, emptyState, formatTime, ago } from '../dom.js';

export const title = 'Activity';

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
  return [String(r.kind || 'event').replace(/_/g, ' ')];
}

function outcome(r) {
  if (r.kind === 'tool_executed') {
    const ms = r.duration_ms != null ? ` · ${r.duration_ms} ms` : '';
    return r.success
      ? h('span', { class: 'badge badge-ok' }, 'Succeeded' + ms)
      : h('span', { class: 'badge badge-err' }, (r.error_code ? `Failed: ${r.error_code}` : 'Failed') + ms);
  }
  if (r.reason) return h('span', { class: 'muted small' }, r.reason.replace(/_/g, ' '));
  return null;
}

function via(r) {
  const words = { api_key: 'API key', oauth: 'MCP client', session: 'portal' };
  const parts = [];
  if (r.via) parts.push('via ' + (words[r.via] || r.via));
  if (r.integration && r.kind === 'tool_executed') parts.push(r.integration);
  return parts.join(' · ');
}

export async function render(ctx, main) {
  const list = h('ol', { class: 'timeline', 'data-testid': 'activity' });
  const more = h('div', { class: 'more' });
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading activity…'));
  replace(main, pageHeader('Activity', 'What happened on your account: tools your agents ran, connections, and key changes. Newest first.'), body);

  // Integration display names, best effort: the records name integrations by their id.
  const names = {};
  try {
    const res = await api.integrations();
    for (const i of (res && res.integrations) || []) names[i.name] = i.display_name || i.name;
  } catch { /* ids are shown instead */ }
  let first = true;
  const load = async (before) => {
    let page;
    try {
      page = await api.audit(before);
    } catch (err) { ctx.fail(first ? body : more, err, 'Activity could not be loaded'); return; }
    if (!ctx.current()) return;
    const records = page.records || [];
    if (first) {
      first = false;
      if (records.length === 0) {
        replace(body, emptyState('activity', 'Nothing has happened yet',
          h('p', {}, 'Connect an integration or let an agent run a tool, and it will be recorded here.')));
        return;
      }
      replace(body, h('div', { class: 'card' }, list, more));
    }
    for (const r of records) {
      list.append(h('li', { class: 'event' },
        h('time', { datetime: r.time, title: formatTime(r.time) }, ago(r.time)),
        h('div', { class: 'event-main' }, h('div', {}, describe(r, names)), h('div', { class: 'muted small' }, via(r))),
        h('div', { class: 'event-outcome' }, outcome(r))));
    }
    if (page.next_before) {
      const older = button('Show older activity', { testid: 'older' });
      older.addEventListener('click', () => busy(older, () => load(page.next_before)));
      replace(more, older);
    } else {
      replace(more, h('p', { class: 'muted small end' }, 'That is everything.'));
    }
  };
  await load('');
}
