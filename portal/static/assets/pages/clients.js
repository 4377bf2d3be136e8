// MCP clients: the OAuth clients holding live refresh tokens on this account, and revocation.

import { api } from '../api.js';
import { h, replace, notice, button, busy, confirmDialog, pageHeader, emptyState, formatTime, ago } from '../dom.js';
import { directory, oauthClientName } from '../naming.js';

export const title = 'MCP clients';

export async function render(ctx, main) {
  const status = h('div', { class: 'status-slot' });
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading clients…'));
  replace(main,
    pageHeader('MCP clients', 'Apps that signed in to Workbench through OAuth and can keep acting as you. Revoke any you no longer use or do not recognise.'),
    status, body);

  const load = async () => {
    let clients;
    try {
      const res = await api.mcpClients();
      clients = (res && res.clients) || [];
    } catch (err) { ctx.fail(body, err, 'Clients could not be loaded'); return; }
    if (!ctx.current()) return;
    if (clients.length === 0) {
      replace(body, emptyState('bot', 'No MCP clients have access',
        h('p', {}, 'When an MCP client such as Claude Desktop or an IDE signs in to Workbench with OAuth, it shows up here.'),
        h('p', {}, 'Point it at ', h('code', {}, location.origin + '/mcp'), ' and approve it in the browser. Clients using your API key are not listed: manage that key on the ', h('a', { href: '/key', 'data-link': true }, 'API key'), ' page.')));
      return;
    }
    replace(body, h('div', { class: 'card table-card' }, h('table', { class: 'table' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Client'), h('th', {}, 'Redirects to'), h('th', {}, 'Access'), h('th', {}, 'Approved'), h('th', {}, 'Last used'), h('th', {}, h('span', { class: 'sr-only' }, 'Actions')))),
      h('tbody', {}, clients.map((c) => row(ctx, c, status, load))))),
      h('p', { class: 'muted small' }, 'Revoking a client deletes its refresh tokens and pending authorizations at once. Access tokens already issued to it are short-lived and lapse at their expiry; after that it must be approved again.'));
  };
  await load();
}

function row(ctx, c, status, reload) {
  // The one name Activity, Receipts and Audit also give this client (naming.js).
  const name = oauthClientName(directory({}), c.client_id, c.client_name);
  const revoke = button('Revoke', { kind: 'danger-outline', testid: 'revoke-client' });
  revoke.addEventListener('click', async () => {
    const ok = await confirmDialog({
      title: `Revoke ${name}?`,
      body: [
        h('p', {}, `${name} can no longer get new access to your account: its refresh tokens and any pending authorizations are deleted now.`),
        h('p', {}, h('strong', {}, 'Access tokens it already holds keep working until they expire'), ' — they are short-lived, and then it must be approved again.'),
      ],
      confirmLabel: 'Revoke access',
    });
    if (!ok) return;
    await busy(revoke, async () => {
      try {
        await api.revokeClient(c.client_id);
        replace(status, notice('success', `${name} was revoked`, 'Access tokens already issued to it lapse when they expire; it cannot get new ones.'));
        await reload();
      } catch (err) { ctx.fail(status, err, `${name} could not be revoked`); }
    });
  });
  return h('tr', { 'data-client': c.client_id },
    h('td', {}, h('div', { class: 'strong' }, name), h('div', { class: 'muted small mono' }, c.client_id)),
    h('td', {}, c.redirect_host || '—'),
    h('td', {}, (c.scopes || []).length ? (c.scopes || []).map((s) => h('span', { class: 'tag' }, s)) : h('span', { class: 'muted' }, 'default')),
    h('td', { title: formatTime(c.created_at) }, ago(c.created_at)),
    h('td', { title: c.last_used_at ? formatTime(c.last_used_at) : '' }, ago(c.last_used_at)),
    h('td', { class: 'right' }, revoke));
}
