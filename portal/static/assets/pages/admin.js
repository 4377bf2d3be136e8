// Admin (instance admins, WORKBENCH_ADMINS): Platform keys — every key name the box knows, the fields
// it declares, whether it is set, by whom and when; set or replace one (values go to the server and are
// never shown back), remove one — and Caps usage — calls on platform logins per organisation,
// connector and UTC month beside each connector's monthly cap.

import { api } from '../api.js';
import { h, replace, notice, button, busy, confirmDialog, pageHeader, emptyState, errorText, formatTime } from '../dom.js';

function forbidden(main, err) {
  if (err && err.status === 403) {
    replace(main, pageHeader('Admin'), notice('info', 'Only instance admins see this page', 'An instance admin is named in WORKBENCH_ADMINS.'));
    return true;
  }
  return false;
}

function keyForm(ctx, k, status, reload) {
  const inputs = (k.declared || []).map((f) => h('label', { class: 'field' },
    h('span', {}, f.label || f.name, f.optional ? ' (optional)' : ''),
    h(f.name === 'private_key' ? 'textarea' : 'input', { name: f.name, type: 'password', autocomplete: 'off', spellcheck: 'false', 'data-field': f.name })));
  const save = button(k.set ? 'Replace' : 'Set', { kind: 'primary', type: 'submit', testid: 'save-key' });
  const form = h('form', { class: 'key-form', 'data-testid': 'key-form' }, inputs, save);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const fields = {};
    for (const el of form.querySelectorAll('[data-field]')) if (el.value !== '') fields[el.name] = el.value;
    await busy(save, async () => {
      try {
        await api.setPlatformKey(k.name, fields);
        for (const el of form.querySelectorAll('[data-field]')) el.value = '';
        replace(status, notice('success', `${k.name} is set`, 'Connectors that run on it are synced now.'));
        await reload();
      } catch (err) { replace(status, notice('error', `${k.name} was not set`, errorText(err))); }
    });
  });
  return form;
}

function keyRow(ctx, k, status, reload) {
  const cells = [
    h('td', {}, h('div', { class: 'strong mono' }, k.name), (k.used_by || []).length ? h('div', { class: 'muted small' }, 'Used by ', k.used_by.join(', ')) : null),
    h('td', { 'data-testid': 'key-state' }, k.set ? h('span', { class: 'tag' }, 'Set') : h('span', { class: 'muted' }, 'Not set')),
    h('td', {}, k.set ? [h('div', {}, (k.fields || []).join(', ')), h('div', { class: 'muted small' }, k.set_by, ' · ', formatTime(k.set_at))] : '—'),
  ];
  const actions = h('td', {}, keyForm(ctx, k, status, reload));
  if (k.set) {
    const remove = button('Remove', { kind: 'danger-outline', testid: 'remove-key' });
    remove.addEventListener('click', async () => {
      const ok = await confirmDialog({ title: `Remove ${k.name}?`, body: [h('p', {}, 'Its values are destroyed, and connectors that run on it stop offering their tools until it is set again.')], confirmLabel: 'Remove key' });
      if (!ok) return;
      await busy(remove, async () => {
        try {
          await api.removePlatformKey(k.name);
          replace(status, notice('success', `${k.name} was removed`));
          await reload();
        } catch (err) { replace(status, notice('error', `${k.name} was not removed`, errorText(err))); }
      });
    });
    actions.append(remove);
  }
  cells.push(actions);
  return h('tr', { 'data-key': k.name }, cells);
}

export const keys = {
  title: 'Platform keys',
  async render(ctx, main) {
    const status = h('div', { class: 'status-slot' });
    const body = h('div', {}, h('p', { class: 'muted' }, 'Loading keys…'));
    replace(main, pageHeader('Platform keys', 'Keys the box holds for everyone: integration clients and API keys, connectors\' own keys, the GitHub App. Values are sealed and never shown again.',
      h('a', { href: '/admin/caps', 'data-link': true, class: 'btn btn-secondary' }, 'Caps usage')), status, body);
    const load = async () => {
      let res;
      try { res = await api.platformKeys(); } catch (err) { if (!forbidden(main, err)) ctx.fail(body, err, 'Keys could not be loaded'); return; }
      if (!ctx.current()) return;
      const list = (res && res.keys) || [];
      replace(body, h('div', { class: 'card table-card' }, h('table', { class: 'table', 'data-testid': 'platform-keys' },
        h('thead', {}, h('tr', {}, h('th', {}, 'Key'), h('th', {}, 'State'), h('th', {}, 'Fields'), h('th', {}, 'Set or replace'))),
        h('tbody', {}, list.map((k) => keyRow(ctx, k, status, load))))));
    };
    await load();
  },
};

export const caps = {
  title: 'Caps usage',
  async render(ctx, main) {
    const body = h('div', {}, h('p', { class: 'muted' }, 'Loading usage…'));
    replace(main, pageHeader('Caps usage', 'Calls organisations made on platform logins, per connector and UTC month, against WORKBENCH_ORG_LIMITS.',
      h('a', { href: '/admin/platform-keys', 'data-link': true, class: 'btn btn-secondary' }, 'Platform keys')), body);
    let res;
    try { res = await api.connectorCalls(); } catch (err) { if (!forbidden(main, err)) ctx.fail(body, err, 'Usage could not be loaded'); return; }
    if (!ctx.current()) return;
    const rows = (res && res.usage) || [];
    if (rows.length === 0) {
      replace(body, emptyState('activity', 'No calls on platform logins yet'));
      return;
    }
    replace(body, h('div', { class: 'card table-card' }, h('table', { class: 'table', 'data-testid': 'caps-usage' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Month (UTC)'), h('th', {}, 'Organisation'), h('th', {}, 'Connector'), h('th', {}, 'Calls'), h('th', {}, 'Cap'))),
      h('tbody', {}, rows.map((u) => h('tr', { 'data-usage': `${u.organization_id}/${u.slug}/${u.month}` },
        h('td', {}, u.month), h('td', { class: 'mono small' }, u.organization_id), h('td', {}, u.slug),
        h('td', { 'data-testid': 'calls' }, String(u.calls)),
        h('td', { 'data-testid': 'cap' }, u.cap === null || u.cap === undefined ? 'uncapped' : String(u.cap))))))));
  },
};
