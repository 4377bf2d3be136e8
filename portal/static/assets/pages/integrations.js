// Integrations: every integration the server offers, whether it is connected for you, and the way to
// connect it — the provider's consent page for OAuth, a form built from the manifest's fields for API
// keys. After an OAuth callback the server sends the browser to /?connected=<name> or
// /?connect_error=<reason>&integration=<name>; this page says what happened.

import { api } from '../api.js';
import { h, replace, notice, button, busy, confirmDialog, pageHeader, emptyState, icon } from '../dom.js';

export const title = 'Integrations';

const MODES = { oauth2: 'OAuth', apikey: 'API key', cookie: 'Browser sign-in', none: 'No sign-in' };

// Why a connection failed, in words, by the callback's reason.
const REASONS = {
  access_denied: 'The provider did not grant access — consent was declined or cancelled.',
  expired: 'The connection attempt took too long and expired. Start again.',
  invalid_state: 'The provider sent back a response this server did not expect. Start the connection again from here.',
  state_used: 'That response from the provider was already used. Start the connection again from here.',
  account_mismatch: 'This connection was started for another workbench account.',
  not_signed_in: 'Your browser came back from the provider without a Workbench session. Sign in and connect again.',
  exchange_failed: 'The provider refused to complete the connection. Check the integration\'s client settings on the server, then try again.',
  error: 'Something went wrong on the server while completing the connection. Try again.',
};

export async function render(ctx, main) {
  const status = h('div', { class: 'status-slot' });
  const grid = h('div', { class: 'grid' }, h('p', { class: 'muted' }, 'Loading integrations…'));
  const filter = h('input', { type: 'search', class: 'filter', placeholder: 'Filter integrations', 'aria-label': 'Filter integrations' });
  replace(main,
    pageHeader('Integrations', 'Connect the services your agents may use on your behalf. Workbench keeps the credentials; agents never see them.'),
    status,
    h('div', { class: 'toolbar' }, h('label', { class: 'filter-wrap' }, icon('search'), filter)),
    grid);

  const display = {};
  let list = [];

  // The outcome of an OAuth round trip, then a clean URL so a reload does not repeat it.
  const q = new URLSearchParams(location.search);
  const outcome = { connected: q.get('connected'), error: q.get('connect_error'), integration: q.get('integration') };
  if (outcome.connected || outcome.error) history.replaceState(null, '', location.pathname);

  const load = async () => {
    try {
      const res = await api.integrations();
      list = (res && res.integrations) || [];
    } catch (err) {
      ctx.fail(grid, err, 'Integrations could not be loaded');
      return false;
    }
    for (const i of list) display[i.name] = i.display_name || i.name;
    return true;
  };

  const draw = () => {
    const term = filter.value.trim().toLowerCase();
    const shown = list
      .filter((i) => !term || [i.name, i.display_name, i.description, ...(i.categories || [])].join(' ').toLowerCase().includes(term))
      .sort((a, b) => (b.connected - a.connected) || (a.display_name || a.name).localeCompare(b.display_name || b.name));
    if (list.length === 0) {
      replace(grid, emptyState('plug', 'No integrations are installed',
        h('p', {}, 'This server has no plugins loaded. Add plugin folders to the directory named by PLUGINS_DIR and restart the server.')));
      return;
    }
    if (shown.length === 0) {
      replace(grid, emptyState('search', `Nothing matches “${filter.value}”`, h('p', {}, 'Try another name or category.')));
      return;
    }
    replace(grid, shown.map((i) => card(ctx, i, status, refresh)));
  };

  const refresh = async () => { if (await load()) draw(); };
  filter.addEventListener('input', draw);

  if (!(await load()) || !ctx.current()) return;
  if (outcome.connected) {
    const name = display[outcome.connected] || outcome.connected;
    replace(status, notice('success', `${name} is connected`, 'Your agents can use its tools now.'));
  } else if (outcome.error) {
    const name = display[outcome.integration] || outcome.integration || 'The integration';
    replace(status, notice('error', `${name} was not connected`, REASONS[outcome.error] || REASONS.error));
  }
  draw();
}

function logo(i) {
  const initial = h('span', { class: 'logo-initial', 'aria-hidden': 'true' }, (i.display_name || i.name).slice(0, 1).toUpperCase());
  if (!i.logo_url) return h('div', { class: 'logo' }, initial);
  const img = h('img', { src: i.logo_url, alt: '', width: 40, height: 40, loading: 'lazy' });
  const box = h('div', { class: 'logo' }, img);
  img.addEventListener('error', () => replace(box, initial));
  return box;
}

function statusBadge(i) {
  if (i.configured === false && !i.connected) return h('span', { class: 'badge', 'data-testid': 'status' }, 'Not available');
  if (i.connected) return h('span', { class: 'badge badge-ok', 'data-testid': 'status' }, icon('check'), 'Connected');
  if (i.status && i.status !== 'not_connected' && i.status !== 'disconnected') {
    const words = { reauthorization_required: 'Needs reconnecting', pending: 'Waiting for consent', expired: 'Attempt expired' };
    return h('span', { class: 'badge badge-warn', 'data-testid': 'status' }, words[i.status] || i.status.replace(/_/g, ' '));
  }
  return h('span', { class: 'badge', 'data-testid': 'status' }, 'Not connected');
}

function card(ctx, i, status, refresh) {
  const name = i.display_name || i.name;
  const actions = h('div', { class: 'card-actions' });
  const formSlot = h('div', { class: 'form-slot' });
  const inline = h('div', { class: 'inline-status' });

  if (i.auth_mode === 'oauth2' && i.configured === false) {
    // The operator has not set this integration's OAuth client: connecting could only fail.
    actions.append(h('div', { class: 'setup-needed', 'data-testid': 'not-set-up' },
      notice('warning', 'Not set up on this server', i.setup || 'The operator has not set this integration\'s OAuth client.')));
  } else if (i.auth_mode === 'oauth2') {
    const connect = button(i.connected ? 'Reconnect' : 'Connect', { kind: i.connected ? 'secondary' : 'primary', iconName: 'external', testid: 'connect' });
    connect.addEventListener('click', () => busy(connect, async () => {
      try {
        const res = await api.connect(i.name);
        if (res && res.url) {
          replace(inline, h('p', { class: 'muted small' }, `Taking you to ${name} to approve access…`));
          location.assign(res.url);
          return;
        }
        replace(inline, notice('error', 'Nothing to open', 'The server did not return a consent page for this integration.'));
      } catch (err) { ctx.fail(inline, err, `${name} could not be connected`); }
    }));
    actions.append(connect);
  } else if (i.auth_mode === 'apikey') {
    const open = button(i.connected ? 'Replace key' : 'Connect', { kind: i.connected ? 'secondary' : 'primary', iconName: 'key', testid: 'connect' });
    open.addEventListener('click', () => {
      open.hidden = true;
      replace(formSlot, apiKeyForm(ctx, i, () => { replace(formSlot); open.hidden = false; }, status, refresh));
      const first = formSlot.querySelector('input');
      if (first) first.focus();
    });
    actions.append(open);
  } else if (i.auth_mode === 'cookie') {
    const open = button(i.connected ? 'Sign in again' : 'Sign in live', { kind: i.connected ? 'secondary' : 'primary', iconName: 'external', testid: 'connect' });
    open.addEventListener('click', () => busy(open, async () => {
      try {
        const live = await api.liveURL(i.name);
        const u = new URL(live.url, location.href);
        ctx.navigate(u.pathname + u.search);
      } catch (err) { ctx.fail(inline, err, `The live browser for ${name} could not start`); }
    }));
    actions.append(open, h('p', { class: 'muted small' }, 'Sign in to it in your live browser session, then capture its cookies there.'));
  }
  if (i.auth_mode === 'none') {
    actions.append(h('p', { class: 'muted small' }, 'Always available: it needs no account.'));
  } else if (i.connected) {
    const disconnect = button('Disconnect', { kind: 'danger-outline', testid: 'disconnect' });
    disconnect.addEventListener('click', async () => {
      const ok = await confirmDialog({
        title: `Disconnect ${name}?`,
        body: [h('p', {}, `Workbench forgets the ${MODES[i.auth_mode] || ''} credential it holds for ${name}. Your agents can no longer use its tools until you connect it again.`)],
        confirmLabel: 'Disconnect',
      });
      if (!ok) return;
      await busy(disconnect, async () => {
        try {
          await api.disconnect(i.name);
          replace(status, notice('success', `${name} is disconnected`, 'Its credential has been removed.'));
          await refresh();
        } catch (err) { ctx.fail(inline, err, `${name} could not be disconnected`); }
      });
    });
    actions.append(disconnect);
  }

  return h('article', { class: 'card integration' + (i.connected ? ' is-connected' : ''), 'data-integration': i.name },
    h('div', { class: 'integration-head' },
      logo(i),
      h('div', { class: 'integration-title' },
        h('h2', {}, name),
        h('div', { class: 'meta' }, h('span', { class: 'mode' }, MODES[i.auth_mode] || i.auth_mode), statusBadge(i)))),
    i.account_hint ? h('p', { class: 'account-hint' }, 'Connected as ', h('strong', {}, i.account_hint)) : null,
    h('p', { class: 'description' }, i.description),
    (i.categories || []).length ? h('div', { class: 'tags' }, i.categories.map((c) => h('span', { class: 'tag' }, c))) : null,
    inline, formSlot, actions);
}

// apiKeyForm renders the manifest's fields: secret ones as password inputs, optional ones marked.
function apiKeyForm(ctx, i, close, status, refresh) {
  const name = i.display_name || i.name;
  const fields = i.fields || [];
  const err = h('div', {});
  const form = h('form', { class: 'apikey-form', novalidate: true, 'data-testid': 'apikey-form' },
    fields.map((f) => h('label', { class: 'field' },
      h('span', { class: 'field-label' }, f.label || f.name, f.optional ? h('span', { class: 'optional' }, ' (optional)') : null),
      h('input', { name: f.name, type: f.secret ? 'password' : 'text', placeholder: f.placeholder || null, autocomplete: 'off', spellcheck: 'false', required: !f.optional }))),
    err,
    h('div', { class: 'form-actions' },
      button('Cancel', { onclick: close }),
      button(`Save and connect`, { kind: 'primary', type: 'submit', testid: 'save-apikey' })));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const values = {};
    const missing = [];
    for (const f of fields) {
      const v = form.elements[f.name].value.trim();
      if (v) values[f.name] = v;
      else if (!f.optional) missing.push(f.label || f.name);
    }
    if (missing.length) {
      replace(err, notice('error', 'Fill in every required field', `Missing: ${missing.join(', ')}.`));
      return;
    }
    const submit = form.querySelector('button[type=submit]');
    await busy(submit, async () => {
      try {
        await api.saveAPIKey(i.name, values);
        close();
        replace(status, notice('success', `${name} is connected`, 'Your agents can use its tools now.'));
        await refresh();
      } catch (e2) { ctx.fail(err, e2, `${name} did not accept the key`); }
    });
  });
  return form;
}
