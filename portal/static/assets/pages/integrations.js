// Integrations: every integration the server offers, whether it is connected for you, and the way to
// connect it — the provider's consent page for OAuth, a form built from the manifest's fields for API
// keys. A user may hold several accounts of one integration, each named by a label; the card lists
// them, marks the default (the one agents use when they name no account) and adds another: the key
// form takes an optional label, OAuth and cookie integrations have "Add another account". An account
// that needs re-authorization (or whose cookies expired) has "Reconnect", which connects that very
// account again: the consent or live sign-in under its label, or the key form with its label filled
// in. After an OAuth callback the server sends the browser to /?connected=<name> or
// /?connect_error=<reason>&integration=<name>; this page says what happened.

import { api } from '../api.js';
import { h, replace, notice, button, busy, confirmDialog, pageHeader, emptyState, icon } from '../dom.js';

export const title = 'Integrations';

const MODES = { oauth2: 'OAuth', apikey: 'API key', cookie: 'Browser sign-in', none: 'No sign-in' };

// An account label: 1 to 32 of a-z, 0-9, '-' and '_', starting with a letter or digit (the server's
// rule, domain/connection.ValidAccountLabel).
const LABEL = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const LABEL_RULE = 'Use 1 to 32 lower-case letters, digits, - and _, starting with a letter or digit.';

// How one account stands, in words, by its status (GET /api/integrations, accounts[].status).
const ACCOUNT_WORDS = { connected: 'Connected', needs_reauth: 'Needs reconnecting', expired: 'Expired', pending: 'Waiting for consent' };

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
  const accounts = i.auth_mode === 'none' ? [] : (i.accounts || []);
  const held = accounts.filter((a) => a.status !== 'pending');
  // reconnect(a, btn) connects account a again (from btn, its row's Reconnect button); null where the
  // card cannot connect at all.
  let reconnect = null;

  // addAccount offers "Add another account" (OAuth and cookie integrations that hold one already):
  // a label, then the same connection the first account went through.
  const addAccount = () => {
    const open = button('Add another account', { iconName: 'users', testid: 'add-account' });
    open.addEventListener('click', () => {
      open.hidden = true;
      const close = () => { replace(formSlot); open.hidden = false; open.focus(); };
      replace(formSlot, addAccountForm(ctx, i, close));
      formSlot.querySelector('input').focus();
    });
    return open;
  };

  if (i.auth_mode === 'oauth2' && i.configured === false) {
    // Nobody has set this integration's OAuth client: connecting could only fail. An instance admin
    // (the server sends setup_key to admins only) reads what to register and which platform key to
    // set, with a link to set it; a member reads one line.
    if (i.setup_key) {
      actions.append(h('div', { class: 'setup-needed', 'data-testid': 'not-set-up' },
        notice('warning', 'Not set up on this server', i.setup || '',
          h('div', {}, h('a', { href: '/admin/platform-keys', 'data-link': true, 'data-testid': 'set-up-key' }, `Set the platform key ${i.setup_key}`)))));
    } else {
      actions.append(h('p', { class: 'setup-needed muted', 'data-testid': 'not-set-up' }, i.setup || 'Ask your admin to set this up.'));
    }
  } else if (i.auth_mode === 'oauth2') {
    const label = i.connected ? (held.length > 1 ? 'Reconnect default' : 'Reconnect') : 'Connect';
    const connect = button(label, { kind: i.connected ? 'secondary' : 'primary', iconName: 'external', testid: 'connect' });
    connect.addEventListener('click', () => busy(connect, () => startConnect(ctx, i, '', inline)));
    reconnect = (a, btn) => busy(btn, () => startConnect(ctx, i, a.label, inline));
    actions.append(connect, accounts.length ? addAccount() : null);
  } else if (i.auth_mode === 'apikey') {
    const open = button(held.length ? 'Add or replace key' : 'Connect', { kind: held.length ? 'secondary' : 'primary', iconName: 'key', testid: 'connect' });
    // openForm shows the key form, its account label set to label ('' for the default); Cancel puts
    // the keyboard back on from, the button that opened it.
    const openForm = (label, from) => {
      open.hidden = true;
      const close = () => { replace(formSlot); open.hidden = false; };
      const cancel = () => { close(); (from && from.isConnected ? from : open).focus(); };
      replace(formSlot, apiKeyForm(ctx, i, accounts, close, cancel, status, refresh, label));
      const first = formSlot.querySelector('input');
      if (first) first.focus();
    };
    open.addEventListener('click', () => openForm('', open));
    reconnect = (a, btn) => openForm(a.label, btn);
    actions.append(open);
  } else if (i.auth_mode === 'cookie') {
    const open = button(i.connected ? 'Sign in again' : 'Sign in live', { kind: i.connected ? 'secondary' : 'primary', iconName: 'external', testid: 'connect' });
    open.addEventListener('click', () => busy(open, () => startConnect(ctx, i, '', inline)));
    reconnect = (a, btn) => busy(btn, () => startConnect(ctx, i, a.label, inline));
    actions.append(open, accounts.length ? addAccount() : null,
      h('p', { class: 'muted small' }, 'Sign in to it in your live browser session, then capture its cookies there.'));
  }
  if (i.connected) {
    // Try a tool: run one of its tools from the portal (pages/try.js).
    actions.append(h('a', { href: `/try?integration=${encodeURIComponent(i.name)}`, 'data-link': true, class: 'btn btn-ghost', 'data-testid': 'try-link' }, 'Try its tools'));
  }
  if (i.auth_mode === 'none') {
    actions.append(h('p', { class: 'muted small' }, 'Always available: it needs no account.'));
  } else if (i.connected && accounts.length === 0) {
    // A server that lists no accounts: the card's one Disconnect removes the default account.
    actions.append(disconnectButton(ctx, i, null, true, status, inline, refresh));
  }

  return h('article', { class: 'card integration' + (i.connected ? ' is-connected' : ''), 'data-integration': i.name },
    h('div', { class: 'integration-head' },
      logo(i),
      h('div', { class: 'integration-title' },
        h('h2', { tabindex: '-1' }, name),
        h('div', { class: 'meta' }, h('span', { class: 'mode' }, MODES[i.auth_mode] || i.auth_mode), statusBadge(i)))),
    i.account_hint && accounts.length === 0 ? h('p', { class: 'account-hint' }, 'Connected as ', h('strong', {}, i.account_hint)) : null,
    h('p', { class: 'description' }, i.description),
    (i.categories || []).length ? h('div', { class: 'tags' }, i.categories.map((c) => h('span', { class: 'tag' }, c))) : null,
    accounts.length ? accountList(ctx, i, accounts, held.length, status, inline, refresh, reconnect) : null,
    inline, formSlot, actions);
}

// accountList lists the user's accounts of i: label, who it is at the provider, its status, the
// default marked; each held one can become the default or be disconnected, and one that needs
// re-authorization or has expired can be reconnected (reconnect, when the card can connect).
function accountList(ctx, i, accounts, heldCount, status, inline, refresh, reconnect) {
  const name = i.display_name || i.name;
  return h('section', { class: 'accounts', 'data-testid': 'accounts', 'aria-label': `${name} accounts` },
    h('h3', { class: 'accounts-title', tabindex: '-1' }, accounts.length === 1 ? 'Account' : `Accounts (${accounts.length})`),
    h('ul', { class: 'account-list' }, accounts.map((a) => {
      const buttons = [];
      if (a.status !== 'pending') {
        if (reconnect && (a.status === 'needs_reauth' || a.status === 'expired')) {
          const again = button('Reconnect', { kind: 'primary btn-small', iconName: i.auth_mode === 'apikey' ? 'key' : 'external', testid: 'reconnect' });
          again.setAttribute('aria-label', `Reconnect: ${a.label}`);
          again.addEventListener('click', () => reconnect(a, again));
          buttons.push(again);
        }
        if (!a.default) {
          const make = button('Make default', { kind: 'secondary btn-small', testid: 'make-default' });
          make.setAttribute('aria-label', `Make default: ${a.label}`);
          make.addEventListener('click', () => busy(make, async () => {
            try {
              await api.makeDefault(i.name, a.label);
              replace(status, notice('success', `“${a.label}” is now your default ${name} account`, 'Agents use it when they name no account.'));
              await refresh();
              refocus(i.name);
            } catch (err) { ctx.fail(inline, err, `“${a.label}” could not be made the default`); }
          }));
          buttons.push(make);
        }
        buttons.push(disconnectButton(ctx, i, a, heldCount <= 1, status, inline, refresh));
      }
      return h('li', { class: 'account-item' + (a.default ? ' is-default' : ''), 'data-account': a.label },
        h('div', { class: 'account-main' },
          h('div', { class: 'account-line' },
            h('span', { class: 'account-name', 'data-testid': 'account-name' }, a.label),
            a.default ? h('span', { class: 'badge badge-default', 'data-testid': 'default-badge' }, 'Default') : null,
            accountBadge(a)),
          a.hint ? h('p', { class: 'account-who' }, 'Connected as ', h('strong', {}, a.hint)) : null),
        buttons.length ? h('div', { class: 'account-actions' }, buttons) : null);
    })));
}

function accountBadge(a) {
  const ok = a.status === 'connected';
  return h('span', { class: 'badge ' + (ok ? 'badge-ok' : 'badge-warn'), 'data-testid': 'account-status' },
    ok ? icon('check') : null, ACCOUNT_WORDS[a.status] || String(a.status || '').replace(/_/g, ' '));
}

// disconnectButton removes account a of i after asking (a null: the default account); only says it
// is the last account the user holds, so the integration as a whole goes.
function disconnectButton(ctx, i, a, only, status, inline, refresh) {
  const name = i.display_name || i.name;
  const btn = button('Disconnect', { kind: a ? 'danger-outline btn-small' : 'danger-outline', testid: 'disconnect' });
  if (a) btn.setAttribute('aria-label', `Disconnect ${a.label}`);
  btn.addEventListener('click', async () => {
    const mode = MODES[(a && a.auth_mode) || i.auth_mode] || '';
    const ok = await confirmDialog({
      title: only ? `Disconnect ${name}?` : `Disconnect ${name} account “${a.label}”?`,
      body: [h('p', {}, only
        ? `Workbench forgets the ${mode} credential it holds for ${name}. Your agents can no longer use its tools until you connect it again.`
        : `Workbench forgets the ${mode} credential it holds for the “${a.label}” account. Your agents can no longer use that account; your other ${name} accounts keep working.`)],
      confirmLabel: 'Disconnect',
    });
    if (!ok) return;
    await busy(btn, async () => {
      try {
        await api.disconnect(i.name, a ? a.label : undefined);
        replace(status, only
          ? notice('success', `${name} is disconnected`, 'Its credential has been removed.')
          : notice('success', `${name} account “${a.label}” is disconnected`, 'Its credential has been removed; your other accounts keep working.'));
        await refresh();
        refocus(i.name);
      } catch (err) { ctx.fail(inline, err, `${name} could not be disconnected`); }
    });
  });
  return btn;
}

// refocus puts the keyboard back on an integration's card after the list was drawn again: its
// accounts, else its name.
function refocus(integration) {
  const card = document.querySelector(`article[data-integration="${CSS.escape(integration)}"]`);
  const target = card && (card.querySelector('.accounts-title') || card.querySelector('h2'));
  if (target) target.focus();
}

// startConnect starts connecting account ('' for the default) of an OAuth or cookie integration and
// follows it: the provider's consent page, or the live browser for a cookie sign-in.
async function startConnect(ctx, i, account, where) {
  const name = i.display_name || i.name;
  const what = account ? `${name} account “${account}”` : name;
  try {
    if (i.auth_mode === 'cookie') {
      // A labelled account's sign-in is recorded first, so the capture that follows has it pending.
      if (account) await api.connect(i.name, account);
      const live = await api.liveURL(i.name, true);
      const u = new URL(live.url, location.href);
      if (account) u.searchParams.set('account', account);
      ctx.navigate(u.pathname + u.search);
      return;
    }
    const res = await api.connect(i.name, account);
    if (res && res.url) {
      replace(where, h('p', { class: 'muted small' }, `Taking you to ${name} to approve access…`));
      location.assign(res.url);
      return;
    }
    replace(where, notice('error', 'Nothing to open', 'The server did not return a consent page for this integration.'));
  } catch (err) {
    ctx.fail(where, err, i.auth_mode === 'cookie' ? `The live browser for ${what} could not start` : `${what} could not be connected`);
  }
}

// labelInput is the account label's text input, described by help (the element with id helpId).
function labelInput(helpId, required, testid) {
  const input = h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'none', maxlength: 32,
    required, 'aria-describedby': helpId, 'data-testid': testid });
  input.addEventListener('input', () => input.removeAttribute('aria-invalid'));
  return input;
}

// checkLabel reads input's label; a malformed one (or an empty one when required) is shown in err,
// the input marked and focused, and null returned.
function checkLabel(input, err, required) {
  const label = input.value.trim();
  let problem = '';
  if (!label && required) problem = 'Name the account, for example work.';
  else if (label && !LABEL.test(label)) problem = `“${label}” cannot name an account. ${LABEL_RULE}`;
  if (!problem) return label;
  input.setAttribute('aria-invalid', 'true');
  replace(err, notice('error', 'Check the account label', problem));
  input.focus();
  return null;
}

// addAccountForm asks for the label of another account of an OAuth or cookie integration, then
// connects it.
function addAccountForm(ctx, i, close) {
  const name = i.display_name || i.name;
  const helpId = `add-account-help-${i.name}`;
  const input = labelInput(helpId, true, 'new-account-label');
  const err = h('div', {});
  const submit = button(i.auth_mode === 'cookie' ? 'Sign in live' : 'Connect account', { kind: 'primary', type: 'submit', iconName: 'external', testid: 'add-account-submit' });
  const form = h('form', { class: 'apikey-form', novalidate: true, 'data-testid': 'add-account-form' },
    h('label', { class: 'field' }, h('span', { class: 'field-label' }, 'Account label'), input),
    h('p', { class: 'field-help', id: helpId }, `A name for your other ${name} account, for example work. ${LABEL_RULE}`),
    err,
    h('div', { class: 'form-actions' }, button('Cancel', { onclick: close }), submit));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const label = checkLabel(input, err, true);
    if (label === null) return;
    replace(err);
    await busy(submit, () => startConnect(ctx, i, label, err));
  });
  return form;
}

// apiKeyForm renders the manifest's fields: secret ones as password inputs, optional ones marked;
// then the optional label of the account the key is for (empty: the default account), filled in with
// preset when the form replaces a given account's key.
function apiKeyForm(ctx, i, accounts, close, cancel, status, refresh, preset = '') {
  const name = i.display_name || i.name;
  const fields = i.fields || [];
  const err = h('div', {});
  const helpId = `account-help-${i.name}`;
  const account = labelInput(helpId, false, 'account-label');
  account.value = preset;
  const current = accounts.find((a) => a.default);
  const form = h('form', { class: 'apikey-form', novalidate: true, 'data-testid': 'apikey-form' },
    fields.map((f) => h('label', { class: 'field' },
      h('span', { class: 'field-label' }, f.label || f.name, f.optional ? h('span', { class: 'optional' }, ' (optional)') : null),
      h('input', { name: f.name, type: f.secret ? 'password' : 'text', placeholder: f.placeholder || null, autocomplete: 'off', spellcheck: 'false', required: !f.optional }))),
    h('label', { class: 'field' },
      h('span', { class: 'field-label' }, 'Account label', h('span', { class: 'optional' }, ' (optional)')), account),
    h('p', { class: 'field-help', id: helpId }, accounts.length
      ? `Leave it empty to replace the key of your default account${current ? ` (“${current.label}”)` : ''}, or name another account, for example work, to add it. ${LABEL_RULE}`
      : `Leave it empty and this account is called “default”; name it, for example work, if you will add more than one. ${LABEL_RULE}`),
    err,
    h('div', { class: 'form-actions' },
      button('Cancel', { onclick: cancel }),
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
    const label = checkLabel(account, err, false);
    if (label === null) return;
    const submit = form.querySelector('button[type=submit]');
    await busy(submit, async () => {
      try {
        await api.saveAPIKey(i.name, values, label || undefined);
        close();
        replace(status, notice('success', `${name} is connected`,
          label ? `The key is stored as your “${label}” account; your agents can use it now.` : 'Your agents can use its tools now.'));
        await refresh();
        refocus(i.name);
      } catch (e2) { ctx.fail(err, e2, `${name} did not accept the key`); }
    });
  });
  return form;
}
