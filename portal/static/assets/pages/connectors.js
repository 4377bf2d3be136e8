// Connectors: the catalog of remote MCP servers and adapter connectors, a connect form built from
// each connector's auth.fields with the scope the login is owned at, the logins visible to you with
// their settings (lookup boxes fill x-lookup settings), and each login's tools with the switch at
// every scope, where the effective value comes from, and drift (a description changed since the
// tool was switched On); a switch's third state, Ask, keeps a tool On but has each call wait for a
// person's approval (the Approvals page). An owner may hold several accounts of one connector, each a
// login named by a label: each login says its label and who it is at the provider, the owner's
// default account (the one a call that names no account uses) is marked, another connected one can be
// made the default, and the connect form takes an optional label, so a second account is added the
// way the first was.

import { api } from '../api.js';
import { h, replace, notice, button, busy, confirmDialog, pageHeader, emptyState, ago, icon } from '../dom.js';

export const title = 'Connectors';

const SCOPES = ['organization', 'guild', 'agent'];
const SCOPE_WORDS = { platform: 'Platform', organization: 'Organization', guild: 'Guild', agent: 'Agent' };

// An account label: 1 to 32 of a-z, 0-9, '-' and '_', starting with a letter or digit (the server's
// rule, as on the integrations page).
const LABEL = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const LABEL_RULE = 'Use 1 to 32 lower-case letters, digits, - and _, starting with a letter or digit.';

export async function render(ctx, main) {
  const status = h('div', { class: 'status-slot' });
  const catalog = h('div', { class: 'grid', 'data-testid': 'catalog' }, h('p', { class: 'muted' }, 'Loading connectors…'));
  const logins = h('div', { class: 'logins', 'data-testid': 'logins' });
  replace(main,
    pageHeader('Connectors', 'Remote MCP servers and connectors your agents reach through search_tools and execute_tools. Each login is owned by your organization, a guild or an agent; switches decide which of its tools each agent sees.'),
    status,
    h('h2', { class: 'section-title' }, 'Your logins'), logins,
    h('h2', { class: 'section-title' }, 'Catalog'), catalog);
  // Back from an OAuth sign-in: the callback names what happened.
  const back = new URLSearchParams(location.search);
  if (back.get('oauth') === 'connected') {
    replace(status, notice('success', 'Signed in', back.get('listing_error') ? `Connected, but its tools could not be listed: ${back.get('listing_error')}` : 'The login is connected; its tools are listed below.'));
  } else if (back.get('oauth') === 'denied') {
    replace(status, notice('warning', 'Sign-in denied', 'Nothing was connected.'));
  } else if (back.get('oauth') === 'failed') {
    replace(status, notice('error', 'Sign-in failed', back.get('message') || 'Connect again.'));
  }

  let home, servers;
  const refresh = async () => {
    try {
      home = await api.mcpHome();
      servers = ((await api.mcpServers()) || {}).servers || [];
      const q = { agent_id: home.agent_id };
      if (home.guild_id) q.guild_id = home.guild_id;
      const list = ((await api.mcpConnections(q)) || {}).connections || [];
      if (!ctx.current()) return;
      drawCatalog(ctx, catalog, servers, list, home, status, refresh);
      if (list.length === 0) {
        replace(logins, emptyState('plug', 'No logins yet', h('p', {}, 'Connect a connector from the catalog below.')));
      } else {
        const byId = Object.fromEntries(servers.map((s) => [s.id, s]));
        // counts: how many accounts of its connector each login's owner holds.
        const owner = (l) => `${l.mcp_server_id}\u0000${l.owner_scope}\u0000${l.owner_id}`;
        const counts = {};
        for (const l of list) counts[owner(l)] = (counts[owner(l)] || 0) + 1;
        replace(logins, list.map((l) => loginCard(ctx, l, byId[l.mcp_server_id] || { id: l.mcp_server_id, display_name: l.mcp_server_id },
          counts[owner(l)] - 1, home, status, refresh)));
      }
    } catch (err) { ctx.fail(catalog, err, 'Connectors could not be loaded'); }
  };
  await refresh();
}

function ownerId(home, scope) {
  return scope === 'organization' ? home.organization_id : scope === 'guild' ? home.guild_id : home.agent_id;
}

function logo(s) {
  const initial = h('span', { class: 'logo-initial', 'aria-hidden': 'true' }, (s.display_name || s.id).slice(0, 1).toUpperCase());
  if (!s.logo_url) return h('div', { class: 'logo' }, initial);
  const img = h('img', { src: s.logo_url, alt: '', width: 40, height: 40, loading: 'lazy' });
  const box = h('div', { class: 'logo' }, img);
  img.addEventListener('error', () => replace(box, initial));
  return box;
}

// drawCatalog lists the connectors; list is the logins visible to you, so a connector you hold an
// account of offers "Add another account" rather than Connect.
function drawCatalog(ctx, grid, servers, list, home, status, refresh) {
  if (servers.length === 0) {
    replace(grid, emptyState('plug', 'No connectors are installed', h('p', {}, 'This server ships none.')));
    return;
  }
  replace(grid, servers.map((s) => {
    const slot = h('div', { class: 'form-slot' });
    const actions = h('div', { class: 'card-actions' });
    if (!s.enabled) {
      actions.append(notice('warning', 'Switched off', 'The instance admin has switched this connector off.'));
    } else if (s.connect_support === 'unsupported') {
      actions.append(h('p', { class: 'muted small', 'data-testid': 'oauth-later' }, 'Signs in with OAuth, which this server does not offer yet.'));
    } else {
      const held = list.filter((l) => l.mcp_server_id === s.id);
      const open = held.length
        ? button('Add another account', { iconName: 'users', testid: 'add-account' })
        : button('Connect', { kind: 'primary', iconName: 'key', testid: 'connect' });
      open.addEventListener('click', () => {
        open.hidden = true;
        replace(slot, connectForm(ctx, s, held, home, () => { replace(slot); open.hidden = false; open.focus(); }, status, refresh));
        const first = slot.querySelector('input, textarea, select');
        if (first) first.focus();
      });
      actions.append(open);
    }
    return h('article', { class: 'card integration', 'data-server': s.id },
      h('div', { class: 'integration-head' }, logo(s),
        h('div', { class: 'integration-title' }, h('h2', {}, s.display_name),
          h('div', { class: 'meta' }, h('span', { class: 'mode' }, s.auth_kind === 'oauth' ? 'OAuth' : s.auth_kind === 'none' ? 'No sign-in' : 'Token'),
            h('span', { class: 'tag' }, `${s.tool_prefix}_*`), s.verified ? h('span', { class: 'badge badge-ok' }, 'Verified') : null,
            s.own ? h('span', { class: 'tag', 'data-testid': 'own' }, 'This organisation’s') : null,
            s.enabled === false ? h('span', { class: 'tag', 'data-testid': 'off' }, 'Switched off') : null,
            s.set_up === false ? h('span', { class: 'tag', 'data-testid': 'not-set-up' }, 'Not set up') : null))),
      h('p', { class: 'description' }, s.description),
      s.limitations ? h('p', { class: 'muted small' }, s.limitations) : null,
      s.setup_hint ? h('p', { class: 'muted small' }, s.setup_hint) : null,
      slot, actions);
  }));
}

// settingsFields renders the top-level properties of a settings schema; an x-lookup property gets a
// search box whose answers fill it. lookup(property, q) returns the options.
function settingsFields(schema, values, lookup) {
  const props = (schema && schema.properties) || {};
  const required = new Set((schema && schema.required) || []);
  return Object.entries(props).map(([name, p]) => {
    const input = h('input', { name: `setting:${name}`, type: 'text', value: values && values[name] != null ? String(values[name]) : '', autocomplete: 'off', 'data-testid': `setting-${name}` });
    const label = h('label', { class: 'field' },
      h('span', { class: 'field-label' }, p.title || name, required.has(name) ? null : h('span', { class: 'optional' }, ' (optional)')), input);
    if (!p['x-lookup']) return label;
    const q = h('input', { type: 'search', placeholder: 'Search…', 'aria-label': `Search ${p.title || name}`, 'data-testid': `lookup-${name}` });
    const options = h('div', { class: 'lookup-options', 'data-testid': `lookup-options-${name}` });
    const search = button('Search', { testid: `lookup-go-${name}` });
    search.addEventListener('click', () => busy(search, async () => {
      try {
        const res = await lookup(name, q.value);
        const opts = (res && res.options) || [];
        replace(options, opts.length ? opts.map((o) => {
          const pick = button(o.label || o.value, { kind: 'ghost', testid: 'lookup-option' });
          pick.addEventListener('click', () => { input.value = o.value; replace(options); });
          return pick;
        }) : h('p', { class: 'muted small' }, 'Nothing found.'));
      } catch (err) { replace(options, notice('error', 'The search failed', err.message)); }
    }));
    return h('div', { class: 'lookup' }, label, h('div', { class: 'lookup-row' }, q, search), options);
  });
}

function readSettings(form, schema) {
  const out = {};
  for (const [name, p] of Object.entries((schema && schema.properties) || {})) {
    const v = form.elements[`setting:${name}`].value.trim();
    if (v === '') continue;
    out[name] = p.type === 'integer' || p.type === 'number' ? Number(v) : p.type === 'boolean' ? v === 'true' : v;
  }
  return out;
}

// connectForm connects an account of s: its owner, its optional label, auth.fields and settings.
// held is the logins of s you hold already; the label's help names those of the chosen owner.
function connectForm(ctx, s, held, home, close, status, refresh) {
  const err = h('div', {});
  const scopes = SCOPES.filter((sc) => ownerId(home, sc));
  const scope = h('select', { name: 'owner_scope', 'data-testid': 'owner-scope' },
    scopes.map((sc) => h('option', { value: sc, selected: sc === 'agent' }, SCOPE_WORDS[sc])));
  const accountId = `connect-account-${s.id}`;
  const helpId = `${accountId}-help`;
  const account = h('input', { id: accountId, name: 'account', type: 'text', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'none',
    maxlength: 32, 'aria-describedby': helpId, 'data-testid': 'account-label' });
  account.addEventListener('input', () => account.removeAttribute('aria-invalid'));
  const help = h('p', { class: 'field-help', id: helpId });
  const describe = () => {
    const labels = held.filter((l) => l.owner_scope === scope.value && l.owner_id === ownerId(home, scope.value)).map((l) => `“${l.account}”`);
    replace(help, labels.length
      ? `This ${SCOPE_WORDS[scope.value].toLowerCase()} holds ${labels.join(', ')}. A new label, for example work, adds another account; leave it empty for the account labelled “default”. ${LABEL_RULE}`
      : `Leave it empty and this account is called “default”; name it, for example work, if you will add more than one. A new label adds another account. ${LABEL_RULE}`);
  };
  scope.addEventListener('change', describe);
  describe();
  const fields = s.connect_support === 'oauth' ? [] : (s.auth_fields || []);
  const credentials = (form) => Object.fromEntries(fields.map((f) => [f.name, form.elements[f.name].value.trim()]));
  const form = h('form', { class: 'apikey-form', novalidate: true, 'data-testid': 'connect-form' },
    h('label', { class: 'field' }, h('span', { class: 'field-label' }, 'Owned by'), scope),
    h('div', { class: 'field' },
      h('label', { class: 'field-label', for: accountId }, 'Account label', h('span', { class: 'optional' }, ' (optional)')), account),
    help,
    fields.map((f) => h('label', { class: 'field' },
      h('span', { class: 'field-label' }, f.label || f.name, f.optional ? h('span', { class: 'optional' }, ' (optional)') : null),
      f.multiline
        ? h('textarea', { name: f.name, placeholder: f.placeholder || null, spellcheck: 'false', 'data-testid': `field-${f.name}` })
        : h('input', { name: f.name, type: f.secret ? 'password' : 'text', placeholder: f.placeholder || null, autocomplete: 'off', spellcheck: 'false', 'data-testid': `field-${f.name}` }))),
    s.settings_schema ? h('fieldset', { class: 'settings' }, h('legend', {}, 'Settings'),
      settingsFields(s.settings_schema, {}, (property, q) => api.mcpLookupServer(s.id, { property, q, credentials: credentials(form) }))) : null,
    err,
    h('div', { class: 'form-actions' },
      button('Cancel', { onclick: close }),
      button('Connect', { kind: 'primary', type: 'submit', testid: 'connect-submit' })));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const label = account.value.trim();
    if (label && !LABEL.test(label)) {
      account.setAttribute('aria-invalid', 'true');
      replace(err, notice('error', 'Check the account label', `“${label}” cannot name an account. ${LABEL_RULE}`));
      account.focus();
      return;
    }
    replace(err);
    const body = { mcp_server_id: s.id, owner_scope: scope.value, owner_id: ownerId(home, scope.value), ...credentials(form) };
    if (label) body.account = label;
    if (s.settings_schema) body.settings = readSettings(form, s.settings_schema);
    await busy(form.querySelector('button[type=submit]'), async () => {
      try {
        const res = await api.mcpConnect(body);
        if (res.authorization_url) {
          // An OAuth connector: the sign-in happens at its authorization server, which comes back to
          // /api/mcp/oauth/callback and from there to this page.
          replace(status, notice('info', `Signing in to ${s.display_name}`, `Opening ${res.authorization_host}…`));
          window.location.assign(res.authorization_url);
          return;
        }
        close();
        const c = res.connection;
        replace(status, notice('success', `${s.display_name} is ${c.status === 'connected' ? 'connected' : 'signed in'}`,
          [label ? `The account is labelled “${label}”.` : null, c.needs_settings ? 'Finish its settings to connect it.' : 'Its tools are listed below.'].filter(Boolean).join(' ')));
        await refresh();
      } catch (e2) { ctx.fail(err, e2, `${s.display_name} was not connected`); }
    });
  });
  return form;
}

// loginCard is one login: its connector, owner and status, the account it is (its label, who it is at
// the provider, whether it is its owner's default) and its tools.
function loginCard(ctx, l, s, others, home, status, refresh) {
  const body = h('div', { class: 'login-body' }, h('p', { class: 'muted small' }, 'Loading tools…'));
  const account = l.account || 'default';
  const card = h('article', { class: 'card login' + (l.default ? ' is-default' : ''), 'data-login': l.id, 'data-server': l.mcp_server_id, 'data-account': account },
    h('div', { class: 'integration-head' }, logo(s),
      h('div', { class: 'integration-title' }, h('h2', {}, s.display_name),
        h('div', { class: 'meta' },
          h('span', { class: 'mode', 'data-testid': 'owner' }, `${SCOPE_WORDS[l.owner_scope]} login`),
          h('span', { class: l.status === 'connected' ? 'badge badge-ok' : 'badge badge-warn', 'data-testid': 'login-status' }, l.status)))),
    h('section', { class: 'accounts', 'aria-label': `${s.display_name} account ${account}` },
      h('div', { class: 'account-line' },
        h('span', { class: 'muted small' }, 'Account'),
        h('span', { class: 'account-name', 'data-testid': 'account-name', tabindex: '-1' }, account),
        l.default ? h('span', { class: 'badge badge-default', 'data-testid': 'default-badge',
          title: `Calls that name no account use it at the ${SCOPE_WORDS[l.owner_scope].toLowerCase()}.` }, icon('check'), 'Default') : null),
      l.account_hint ? h('p', { class: 'account-who', 'data-testid': 'account-hint' }, 'Connected as ', h('strong', {}, l.account_hint)) : null),
    body);
  drawLogin(ctx, l, s, others, home, body, status, refresh);
  return card;
}

async function drawLogin(ctx, l, s, others, home, body, status, refresh) {
  let d;
  try {
    d = await api.mcpConnection(l.id, home.agent_id);
  } catch (err) { ctx.fail(body, err, 'This login could not be read'); return; }
  const parts = [];
  if (d.needs_settings || s.settings_schema) {
    const err = h('div', {});
    const form = h('form', { class: 'apikey-form', novalidate: true, 'data-testid': 'settings-form' },
      d.needs_settings ? notice('warning', 'Settings needed', `Missing: ${(d.missing_settings || []).join(', ')}. The login connects once they are saved.`) : null,
      settingsFields(s.settings_schema, d.settings, (property, q) => api.mcpLookupSaved(l.id, property, q)),
      err,
      h('div', { class: 'form-actions' }, button('Save settings', { kind: 'primary', type: 'submit', testid: 'save-settings' })));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      await busy(form.querySelector('button[type=submit]'), async () => {
        try {
          await api.mcpSaveSettings(l.id, readSettings(form, s.settings_schema));
          replace(status, notice('success', 'Settings saved', `${s.display_name} settings are stored.`));
          await refresh();
        } catch (e2) { ctx.fail(err, e2, 'The settings were not saved'); }
      });
    });
    parts.push(form);
  }
  const drifted = (d.listings || []).find((x) => x.Diff && (x.Diff.added || x.Diff.removed || x.Diff.description_changed || x.Diff.schema_changed));
  if (drifted) {
    const df = drifted.Diff;
    parts.push(notice('warning', 'The server\'s tools changed', h('span', { 'data-testid': 'drift-summary' },
      [df.added && `added ${df.added.join(', ')}`, df.removed && `removed ${df.removed.join(', ')}`,
        df.description_changed && `description changed: ${df.description_changed.join(', ')}`,
        df.schema_changed && `arguments changed: ${df.schema_changed.join(', ')}`].filter(Boolean).join('; '))));
  }
  const scopes = SCOPES.filter((sc) => ownerId(home, sc));
  const rows = (d.tools || []).map((t) => {
    const cells = scopes.map((sc) => {
      const v = t.switches ? t.switches[sc] : undefined;
      // The scope's own state: On, Off or none, and Ask (On, every call waiting for a person's approval)
      // as a toggle beside it, pressed.
      const asks = v === true && !!(t.asks && t.asks[sc]);
      const label = v === true ? 'On' : v === false ? 'Off' : '—';
      const b = button(label, { kind: v === true ? 'primary' : 'ghost', testid: `switch-${sc}` });
      b.setAttribute('aria-label', `${t.name} at the ${sc}: ${label}${asks ? ', asking for approval' : ''}. Press to turn ${v === true ? 'Off' : 'On'}.`);
      const ask = button('Ask', { kind: asks ? 'primary' : 'ghost', testid: `ask-${sc}` });
      ask.setAttribute('aria-pressed', String(asks));
      ask.setAttribute('aria-label', `Ask for approval before each call of ${t.name} at the ${sc}`);
      const set = (btn, state) => busy(btn, async () => {
        try {
          await api.mcpSwitch({ owner_scope: sc, owner_id: ownerId(home, sc), mcp_server_id: l.mcp_server_id, tool: t.name, state });
          await drawLogin(ctx, l, s, others, home, body, status, refresh);
        } catch (err) { ctx.fail(body, err, 'The switch did not change'); }
      });
      b.addEventListener('click', () => set(b, v === true ? 'off' : 'on'));
      // Pressed again, Ask gives way to a plain On.
      ask.addEventListener('click', () => set(ask, asks ? 'on' : 'ask'));
      return h('td', {}, h('div', { class: 'switch-pair' }, b, ask));
    });
    const hints = [t.read_only_hint ? 'read-only' : null, t.destructive_hint ? 'destructive' : null].filter(Boolean).join(', ');
    return h('tr', { 'data-tool': t.name },
      h('td', {}, h('code', {}, t.name), hints ? h('div', { class: 'muted small' }, hints) : null,
        t.drift ? h('div', { class: 'badge badge-warn', 'data-testid': 'drift' }, 'Description changed since it was switched On') : null),
      h('td', { class: 'small' }, t.description),
      ...cells,
      h('td', { 'data-testid': 'effective' }, t.on ? (t.ask ? 'Ask' : 'On') : 'Off', t.on && t.ask ? h('div', { class: 'muted small', 'data-testid': 'asks' }, 'each call waits for approval') : null, h('div', { class: 'muted small' }, t.from ? `from ${SCOPE_WORDS[t.from].toLowerCase()}${t.rule && t.rule !== 'set' ? ` (${t.rule.replace(/_/g, ' ')})` : ''}` : 'no switch')));
  });
  parts.push(rows.length
    ? h('table', { class: 'tools', 'data-testid': 'tools' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Tool'), h('th', {}, 'Description'), ...scopes.map((sc) => h('th', {}, SCOPE_WORDS[sc])), h('th', {}, 'Your agent'))),
      h('tbody', {}, rows))
    : h('p', { class: 'muted small' }, d.status === 'connected' ? 'No tools listed yet.' : 'Tools are listed once the login is connected.'));
  const relist = button('List again', { testid: 'relist' });
  relist.addEventListener('click', () => busy(relist, async () => {
    try { await api.mcpRelist(l.id); await drawLogin(ctx, l, s, others, home, body, status, refresh); } catch (err) { ctx.fail(body, err, 'The tools could not be listed'); }
  }));
  const account = l.account || 'default';
  const buttons = [relist];
  // Another connected account of its owner can become the default (a platform login is the only one).
  if (!l.default && l.status === 'connected' && l.owner_scope !== 'platform') {
    const make = button('Make default', { kind: 'secondary', testid: 'make-default' });
    make.setAttribute('aria-label', `Make default: ${account}`);
    make.addEventListener('click', () => busy(make, async () => {
      try {
        await api.mcpChooseDefault(l.id);
        replace(status, notice('success', `“${account}” is now the default ${s.display_name} account`,
          `Calls at the ${SCOPE_WORDS[l.owner_scope].toLowerCase()} that name no account use it.`));
        await refresh();
        refocus(l.id);
      } catch (err) { ctx.fail(body, err, `“${account}” could not be made the default`); }
    }));
    buttons.push(make);
  }
  const remove = button('Remove', { kind: 'danger-outline', testid: 'remove' });
  remove.setAttribute('aria-label', `Remove ${s.display_name} account ${account}`);
  remove.addEventListener('click', async () => {
    const ok = await confirmDialog({ title: `Remove the ${s.display_name} account “${account}”?`,
      body: [h('p', {}, others
        ? `Workbench forgets its credentials. Agents that used the “${account}” account lose it; the ${SCOPE_WORDS[l.owner_scope].toLowerCase()}’s other ${s.display_name} accounts keep working.`
        : 'Workbench forgets its credentials. Agents that used it lose its tools.')], confirmLabel: 'Remove' });
    if (!ok) return;
    try {
      await api.mcpRemove(l.id);
      replace(status, notice('success', `The ${s.display_name} account “${account}” is removed`, 'Its credentials are forgotten.'));
      await refresh();
    } catch (err) { ctx.fail(body, err, 'The login was not removed'); }
  });
  buttons.push(remove);
  parts.push(h('p', { class: 'muted small' }, `Listed ${ago(d.listed_at)}.`), h('div', { class: 'card-actions' }, buttons));
  replace(body, parts);
}

// refocus puts the keyboard back on a login's account after the list was drawn again.
function refocus(loginId) {
  const target = document.querySelector(`article.login[data-login="${CSS.escape(loginId)}"] [data-testid=account-name]`);
  if (target) target.focus();
}
