// API key: the one workbench key an agent presents as a Bearer token at /mcp. Mint, reveal, copy,
// rotate (the old key stops at once) and revoke.

import { api } from '../api.js';
import { h, replace, notice, errorText, button, busy, confirmDialog, secretField, copyButton, formatTime, pageHeader, emptyState } from '../dom.js';
import { keyName } from '../naming.js';

export const title = 'API key';

export async function render(ctx, main) {
  const status = h('div', { class: 'status-slot' });
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading your key…'));
  replace(main,
    pageHeader('API key', 'An agent sends this key to Workbench to act as you. Keep it secret: anyone holding it can use every integration you have connected.'),
    status, body, usage());

  const show = async (reveal) => {
    let key = null;
    try {
      key = await api.apiKey();
    } catch (err) {
      if (err.status !== 404) { ctx.fail(body, err, 'Your key could not be loaded'); return; }
    }
    if (!ctx.current()) return;
    replace(body, key ? keyCard(key, reveal) : noKey());
  };

  const noKey = () => {
    const mint = button('Create API key', { kind: 'primary', iconName: 'key', testid: 'mint-key' });
    mint.addEventListener('click', () => busy(mint, async () => {
      try {
        const res = await api.mintKey();
        replace(status, notice('success', 'Your API key is ready', 'Copy it into your agent\'s configuration. You can reveal it again here later.'));
        await show(res);
      } catch (err) { ctx.fail(status, err, 'The key could not be created'); }
    }));
    return emptyState('key', 'You have no API key yet',
      h('p', {}, 'Create one to let an agent — Claude Desktop, an IDE, a script — call Workbench tools on your behalf.'),
      mint);
  };

  const keyCard = (key, revealed) => {
    const secretSlot = h('div', { class: 'secret-slot' });
    if (revealed && revealed.key) {
      secretSlot.append(secretField(revealed.key, 'Your API key'));
    }
    const reveal = button('Reveal', { iconName: 'eye', testid: 'reveal-key' });
    reveal.addEventListener('click', () => busy(reveal, async () => {
      try {
        const res = await api.revealKey();
        replace(secretSlot, secretField(res.key, 'Your API key'));
        replace(status);
      } catch (err) {
        if (err.code === 'REAUTH_REQUIRED') {
          // The key is shown only to a session signed in a few minutes ago.
          replace(status, notice('info', 'Sign in again to reveal the key', h('p', {}, errorText(err)),
            button('Sign in again', { kind: 'primary', iconName: 'logout', testid: 'reauth', onclick: () => ctx.signOut() })));
          return;
        }
        ctx.fail(status, err, 'The key could not be revealed');
      }
    }));
    const rotate = button('Rotate', { iconName: 'rotate', testid: 'rotate-key' });
    rotate.addEventListener('click', async () => {
      const ok = await confirmDialog({
        title: 'Rotate your API key?',
        body: [h('p', {}, 'A new key replaces this one. ', h('strong', {}, 'The current key stops working at once:'), ' every agent using it will be refused until you give it the new key.')],
        confirmLabel: 'Rotate key',
      });
      if (!ok) return;
      await busy(rotate, async () => {
        try {
          const res = await api.rotateKey();
          replace(status, notice('success', 'Key rotated', 'The old key no longer works. Copy the new one into your agents now.'));
          await show(res);
        } catch (err) { ctx.fail(status, err, 'The key could not be rotated'); }
      });
    });
    const revoke = button('Revoke', { kind: 'danger-outline', iconName: 'trash', testid: 'revoke-key' });
    revoke.addEventListener('click', async () => {
      const ok = await confirmDialog({
        title: 'Revoke your API key?',
        body: [h('p', {}, 'Agents using this key lose access immediately. You can create a new key afterwards, but you will have to configure your agents again.')],
        confirmLabel: 'Revoke key',
      });
      if (!ok) return;
      await busy(revoke, async () => {
        try {
          await api.revokeKey();
          replace(status, notice('success', 'Key revoked', 'Nothing can use it any more.'));
          await show(null);
        } catch (err) { ctx.fail(status, err, 'The key could not be revoked'); }
      });
    });
    return h('section', { class: 'card' },
      h('div', { class: 'key-row' },
        h('div', {},
          h('div', { class: 'label' }, 'Your key'),
          h('code', { class: 'key-prefix', 'data-testid': 'key-prefix' }, key.prefix.endsWith('…') ? key.prefix : key.prefix + '…'),
          // The name Activity, Receipts and Audit give this key (naming.js).
          h('div', { class: 'muted small', 'data-testid': 'key-name' }, `Shown elsewhere as “${keyName({ keys: new Map() }, '', key.prefix)}”`),
          h('div', { class: 'muted small' }, 'Created ', formatTime(key.minted_at))),
        h('div', { class: 'actions' }, reveal, rotate, revoke)),
      secretSlot);
  };

  await show(null);
}

// usage tells the reader where the key goes.
function usage() {
  const endpoint = location.origin + '/mcp';
  return h('section', { class: 'card subtle' },
    h('h2', {}, 'Using the key'),
    h('p', {}, 'Point your MCP client at this endpoint and send the key as a Bearer token:'),
    h('div', { class: 'secret-row' }, h('code', { class: 'block', 'data-testid': 'mcp-endpoint' }, endpoint), copyButton(endpoint)),
    h('pre', { class: 'snippet' }, `Authorization: Bearer <your API key>`),
    h('p', { class: 'muted small' }, 'Clients that support OAuth can sign in through the browser instead and need no key; they appear under MCP clients.'));
}
