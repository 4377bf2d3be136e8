// Admin, Connector catalog (instance admins only; the server refuses everyone else with a 403): each
// platform connector with its switch, its copy edited into overrides (Clear takes an override away),
// its tools' overrides (description, input schema, default for a new login), its export as
// connector.json, and a form that adds a remote MCP server by hand. A connector whose platform key is
// not set is marked Not set up, with a link to Platform keys. The add form is drawn only once the
// server has answered the catalog to this user (an instance admin): anyone else reads why, not a form
// the server would refuse (403) anyway.

import { request } from '../api.js';
import { h, replace, notice, button, busy, pageHeader, emptyState, errorText, labelled } from '../dom.js';

export const title = 'Connector catalog';

const enc = encodeURIComponent;
const catalogApi = {
  list: () => request('GET', '/api/admin/mcp/servers'),
  add: (body) => request('POST', '/api/admin/mcp/servers', body),
  edit: (id, body) => request('PATCH', `/api/admin/mcp/servers/${enc(id)}`, body),
  tool: (id, name, body) => request('PATCH', `/api/admin/mcp/servers/${enc(id)}/tools/${enc(name)}`, body),
};

const COPY = [
  { key: 'display_name', label: 'Display name' },
  { key: 'description', label: 'Description', multiline: true },
  { key: 'limitations', label: 'Limitations', multiline: true },
  { key: 'setup_hint', label: 'Setup hint', multiline: true },
];

export async function render(ctx, main) {
  const status = h('div', { class: 'status-slot', 'data-testid': 'catalog-status' });
  const list = h('div', { 'data-testid': 'admin-catalog' }, h('p', { class: 'muted' }, 'Loading the catalog…'));
  const addSlot = h('div', { class: 'form-slot' });
  replace(main,
    pageHeader('Connector catalog', 'Every connector on this box. Switch one off to take it out of Connect and out of every agent\'s tools; edit its copy and its tools\' descriptions, schemas and defaults; export it as connector.json; or add a remote MCP server by hand.'),
    status, addSlot, list);
  // act runs a change, reloads, then says it is done.
  const act = (what, fn, done) => async () => {
    try {
      await fn();
    } catch (err) { replace(status, notice('error', what, errorText(err))); return; }
    await load();
    replace(status, notice('success', done));
  };
  async function load() {
    let servers;
    try {
      servers = ((await catalogApi.list()) || {}).servers || [];
    } catch (err) {
      replace(addSlot);
      if (err.status === 403) { replace(list, emptyState('alert', 'Instance admins only', h('p', {}, 'The connector catalog is edited by the instance admins (WORKBENCH_ADMINS).'))); return; }
      ctx.fail(list, err, 'The catalog could not be loaded'); return;
    }
    if (!ctx.current()) return;
    // The server answered the catalog: this user is an instance admin, who may add a server.
    if (!addSlot.firstChild) replace(addSlot, addForm(ctx, status, () => load()));
    replace(list, servers.length ? servers.map((s) => serverCard(s, act)) : emptyState('plug', 'No connectors', h('p', {}, 'Add a remote MCP server above.')));
  }
  await load();
}

function field(label, input) {
  return h('label', { class: 'field' }, h('span', { class: 'field-label' }, label), input);
}

function serverCard(s, act) {
  const tags = [
    h('span', { class: 'tag', 'data-testid': 'source' }, s.source),
    s.verified ? h('span', { class: 'tag' }, 'verified') : null,
    s.enabled ? h('span', { class: 'tag tag-success', 'data-testid': 'state' }, 'On') : h('span', { class: 'tag tag-muted', 'data-testid': 'state' }, 'Off'),
    s.set_up ? null : h('span', { class: 'tag tag-warning', 'data-testid': 'not-set-up' }, 'Not set up'),
  ];
  const toggle = button(s.enabled ? 'Switch off' : 'Switch on', { kind: 'secondary', testid: 'switch' });
  toggle.addEventListener('click', () => busy(toggle, act(`${s.display_name} was not switched`, () => catalogApi.edit(s.id, { enabled: !s.enabled }),
    `${s.display_name} is ${s.enabled ? 'off' : 'on'}`)));
  const overrides = s.overrides || {};
  const copyRows = COPY.map((c) => {
    const input = c.multiline
      ? h('textarea', { rows: 2, 'data-testid': `copy-${c.key}` }, s[c.key] || '')
      : h('input', { type: 'text', value: s[c.key] || '', 'data-testid': `copy-${c.key}` });
    const save = button('Save', { kind: 'secondary', testid: `save-${c.key}` });
    save.addEventListener('click', () => busy(save, act(`${c.label} was not saved`, () => catalogApi.edit(s.id, { [c.key]: input.value }), `${c.label} of ${s.id} saved`)));
    let clear = null;
    if (s.local ? c.key !== 'display_name' && s[c.key] : overrides[c.key] !== undefined) {
      clear = button(s.local ? 'Clear' : 'Clear override', { kind: 'ghost', testid: `clear-${c.key}` });
      clear.addEventListener('click', () => busy(clear, act(`${c.label} was not cleared`, () => catalogApi.edit(s.id, { [c.key]: null }), `${c.label} of ${s.id} cleared`)));
    }
    const was = !s.local && overrides[c.key] !== undefined ? h('div', { class: 'muted small', 'data-testid': `original-${c.key}` }, 'From the manifest: ', s.original[c.key] || '(empty)') : null;
    return h('div', { class: 'copy-row', 'data-copy': c.key }, field(c.label, input), was, h('div', { class: 'form-actions' }, save, clear));
  });
  const tools = (s.tools || []).map((t) => toolRow(s, t, act));
  return h('article', { class: 'card', 'data-server': s.id },
    h('div', { class: 'card-head' }, h('h2', {}, s.display_name), h('div', { class: 'tags' }, tags)),
    h('p', { class: 'muted small' }, s.id, ' · prefix ', h('code', {}, s.tool_prefix), s.endpoint ? [' · ', h('code', {}, s.endpoint)] : null),
    s.set_up ? null : h('p', { class: 'small', 'data-testid': 'setup' }, `Needs the platform key ${s.platform_key}. `,
      h('a', { href: '/admin/platform-keys', 'data-link': true, 'data-testid': 'setup-link' }, 'Set up')),
    h('div', { class: 'form-actions' }, toggle,
      h('a', { class: 'btn btn-ghost', href: `/api/admin/mcp/servers/${enc(s.id)}/export`, download: `${s.slug}.connector.json`, 'data-testid': 'export' }, 'Export connector.json')),
    h('details', { 'data-testid': 'edit-copy' }, h('summary', {}, s.local ? 'Edit fields' : 'Edit copy (overrides)'), copyRows),
    h('details', { 'data-testid': 'edit-tools' }, h('summary', {}, `Tools (${tools.length})`),
      tools.length ? h('div', { class: 'table-card' }, h('table', { class: 'table' },
        h('thead', {}, h('tr', {}, ['Tool', 'Description', 'Input schema', 'Default', ''].map((x) => h('th', {}, x)))),
        h('tbody', {}, tools))) : h('p', { class: 'muted small' }, 'No tools yet: a login lists them.'),
      toolAdder(s, act)));
}

function defaultSelect(value, testid) {
  const v = value === true ? 'on' : value === false ? 'off' : '';
  return h('select', { 'data-testid': testid, 'aria-label': 'Default for a new login' },
    h('option', { value: '', selected: v === '' }, 'By the rules'),
    h('option', { value: 'on', selected: v === 'on' }, 'On'),
    h('option', { value: 'off', selected: v === 'off' }, 'Off'));
}

function toolRow(s, t, act) {
  const o = t.override || {};
  const desc = h('textarea', { rows: 2, 'aria-label': `Description of ${t.name}`, 'data-testid': 'tool-description' }, o.description !== undefined ? o.description : t.description || '');
  const schema = h('textarea', { rows: 3, class: 'mono', 'aria-label': `Input schema of ${t.name}`, 'data-testid': 'tool-schema' }, o.input_schema ? JSON.stringify(o.input_schema) : '');
  schema.placeholder = t.input_schema ? JSON.stringify(t.input_schema) : '{"type":"object"}';
  const def = defaultSelect(o.default, 'tool-default');
  const save = button('Save', { kind: 'secondary', testid: 'tool-save' });
  save.addEventListener('click', () => busy(save, act(`${t.name} was not saved`, () => {
    const body = { default: def.value === '' ? null : def.value };
    if (desc.value !== (t.description || '') || o.description !== undefined) body.description = desc.value;
    if (schema.value.trim() !== '') {
      try { body.input_schema = JSON.parse(schema.value); } catch (e) { throw new Error(`The input schema is not JSON: ${e.message}`); }
    } else if (o.input_schema) body.input_schema = null;
    return catalogApi.tool(s.id, t.name, body);
  }, `${t.name} saved`)));
  const clear = t.override ? button('Clear overrides', { kind: 'ghost', testid: 'tool-clear' }) : null;
  if (clear) clear.addEventListener('click', () => busy(clear, act(`${t.name} was not cleared`, () => catalogApi.tool(s.id, t.name, { description: null, input_schema: null, default: null }), `${t.name}: overrides cleared`)));
  return h('tr', { 'data-tool': t.name },
    h('td', {}, h('code', {}, t.name), t.listed ? null : h('div', { class: 'muted small' }, 'not listed yet')),
    h('td', {}, desc), h('td', {}, schema), h('td', {}, def), h('td', { class: 'right' }, save, clear));
}

// toolAdder sets the default of a tool no login has listed yet.
function toolAdder(s, act) {
  const name = h('input', { type: 'text', placeholder: 'tool name', 'aria-label': 'Tool name', 'data-testid': 'new-tool-name' });
  const def = defaultSelect(false, 'new-tool-default');
  const save = button('Set default', { kind: 'secondary', type: 'submit', testid: 'new-tool-save' });
  const form = h('form', { class: 'form-actions', novalidate: true }, labelled(name), def, save);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    busy(save, act('The default was not set', () => catalogApi.tool(s.id, name.value.trim(), { default: def.value === '' ? null : def.value }), `${name.value.trim()}: default set`));
  });
  return form;
}

function addForm(ctx, status, reload) {
  const slug = h('input', { type: 'text', placeholder: 'my-server', 'data-testid': 'add-slug', required: true });
  const url = h('input', { type: 'url', placeholder: 'https://mcp.example.com/mcp', 'data-testid': 'add-url', required: true });
  const name = h('input', { type: 'text', placeholder: 'Optional: filled from the server at its first Connect', 'data-testid': 'add-name' });
  const desc = h('input', { type: 'text', placeholder: 'Optional', 'data-testid': 'add-description' });
  const auth = h('select', { 'data-testid': 'add-auth', 'aria-label': 'Sign-in' },
    h('option', { value: 'none' }, 'No sign-in'), h('option', { value: 'token' }, 'Token'),
    h('option', { value: 'oauth:dynamic' }, 'OAuth (dynamic registration)'), h('option', { value: 'oauth:configured' }, 'OAuth (configured client)'));
  const provider = h('input', { type: 'text', placeholder: 'Provider integration (optional)', 'data-testid': 'add-provider' });
  const submit = button('Add server', { kind: 'primary', type: 'submit', testid: 'add-submit' });
  const form = h('form', { class: 'card', 'data-testid': 'add-server', novalidate: true },
    h('h2', {}, 'Add a remote MCP server'),
    h('p', { class: 'muted small' }, 'A public HTTPS address. Its tool prefix is made from the slug, unique on this box.'),
    field('Slug', slug), field('URL', url), field('Display name', name), field('Description', desc), field('Sign-in', auth), field('OAuth provider', provider),
    h('div', { class: 'form-actions' }, submit));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    await busy(submit, async () => {
      const [kind, strategy] = auth.value.split(':');
      const body = { slug: slug.value.trim(), url: url.value.trim(), display_name: name.value, description: desc.value, auth: kind };
      if (strategy) body.auth = provider.value.trim() ? { kind, strategy, provider: provider.value.trim() } : { kind, strategy };
      try {
        const res = await catalogApi.add(body);
        slug.value = url.value = name.value = desc.value = provider.value = '';
        await reload();
        replace(status, notice('success', `${res.server.display_name} was added`, `Its tools will be named ${res.server.tool_prefix}_…`));
      } catch (err) {
        replace(status, notice('error', 'The server was not added', errorText(err)));
      }
    });
  });
  return form;
}
