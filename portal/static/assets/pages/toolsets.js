// Toolsets: a named, versioned list of tools that an organisation, a guild or an agent curates for its
// agents (handlers/toolsetshttp), served as a plain MCP server at <public url>/mcp/ts/{name}. The page
// picks a scope the person manages (their default agent, the organisations they own or administer,
// the guilds they belong to, the agents they own), lists its toolsets with their entries, connectors
// and endpoint (a Copy button and the snippet an MCP client takes), and creates, edits (each save is a
// new version) and deletes them. The tool picker offers the scope's plugin tools and the tools of the
// connector logins the scope's agents see; a free-text field takes any name or a prefix ending in '*'.
// The server decides again on every request: what it refuses is shown as it says it.

import { api, request } from '../api.js';
import { h, replace, notice, button, busy, confirmDialog, pageHeader, emptyState, errorText, copyButton, formatTime } from '../dom.js';

export const title = 'Toolsets';

// A toolset's name, as the server takes it.
const NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

let uid = 0;

export async function render(ctx, main) {
  const status = h('div', { class: 'status-slot', 'data-testid': 'toolsets-status' });
  const pick = h('select', { id: 'toolsets-scope', 'data-testid': 'toolsets-scope' }, h('option', {}, 'Loading…'));
  const chooser = h('div', { class: 'field toolsets-scope' },
    h('label', { class: 'field-label', for: 'toolsets-scope' }, 'Whose toolsets'), pick,
    h('p', { class: 'field-help', id: 'toolsets-scope-help' }, 'An agent uses its own toolset of a name, else its guild’s, else its organisation’s.'));
  pick.setAttribute('aria-describedby', 'toolsets-scope-help');
  const list = h('div', { class: 'toolset-list', 'data-testid': 'toolsets' }, h('p', { class: 'muted' }, 'Loading toolsets…'));
  const formSlot = h('div', { 'data-testid': 'toolset-form-slot' });
  replace(main,
    pageHeader('Toolsets', 'A toolset is a named list of tools served to your agents as an MCP server of its own: an MCP client added at its address sees those tools and no others.'),
    h('section', { class: 'card' }, chooser), status,
    h('h2', { class: 'section-title' }, 'Toolsets'), list, formSlot);

  let home, scopes;
  try {
    home = await api.mcpHome();
    scopes = await managedScopes(ctx, home);
  } catch (err) { ctx.fail(list, err, 'Your scopes could not be loaded'); return; }
  if (!ctx.current()) return;
  replace(pick, groupedOptions(scopes));
  const wanted = new URLSearchParams(location.search);
  const first = scopes.find((s) => s.scope === wanted.get('scope') && s.id === wanted.get('id')) || scopes[0];
  pick.value = key(first);

  let catalog = { tools: [], connectors: [] };
  const say = (kind, heading, body) => {
    replace(status, notice(kind, heading, body));
    status.firstChild.setAttribute('tabindex', '-1');
    status.firstChild.focus();
  };
  const current = () => scopes.find((s) => key(s) === pick.value);

  // form opens the create form, or the edit form of t.
  const form = (t) => {
    replace(formSlot, toolsetForm(current(), t, catalog, {
      saved: async (v) => {
        await load();
        say('success', `${v.toolset.name} saved: version ${v.toolset.version}`, `Clients at ${v.endpoint} are told their tool list changed.`);
        form(null);
      },
      cancel: () => form(null),
    }));
    if (t) formSlot.querySelector('input:not([readonly]), textarea')?.focus();
  };

  const load = async () => {
    const sc = current();
    let ts;
    try {
      ts = ((await api.toolsets(sc)) || {}).toolsets || [];
    } catch (err) { ctx.fail(list, err, 'The toolsets could not be loaded'); return false; }
    if (!ctx.current() || sc !== current()) return false;
    replace(list, ts.length
      ? ts.map((v) => toolsetCard(v, catalog, {
        edit: () => form(v.toolset),
        remove: async (btn) => {
          const ok = await confirmDialog({
            title: `Delete the toolset ${v.toolset.name}?`,
            body: [h('p', {}, `MCP clients at ${v.endpoint} stop getting these tools. `, 'An agent whose guild or organisation holds a toolset of the same name gets that one instead.')],
            confirmLabel: 'Delete toolset',
          });
          if (!ok) return;
          await busy(btn, async () => {
            try {
              await api.deleteToolset(sc, v.toolset.name);
            } catch (err) { say('error', `${v.toolset.name} was not deleted`, errorText(err)); return; }
            await load();
            say('success', `${v.toolset.name} deleted`);
          });
        },
      }))
      : emptyState('check', 'No toolsets yet', h('p', {}, `${sc.label} has no toolsets. Create one below.`)));
    return true;
  };

  const choose = async () => {
    const sc = current();
    history.replaceState(null, '', '/toolsets?' + new URLSearchParams({ scope: sc.scope, id: sc.id }));
    replace(status);
    replace(formSlot);
    catalog = await toolCatalog(sc, home);
    if (sc !== current() || !ctx.current()) return;
    if (await load()) form(null);
  };
  pick.addEventListener('change', choose);
  await choose();
}

const key = (s) => `${s.scope}:${s.id}`;

// managedScopes lists what the person may curate toolsets for: their default agent first, then per
// organisation the organisation (owners and admins), its guilds (their members and its admins) and
// its agents (their owners and its admins).
async function managedScopes(ctx, home) {
  const me = ctx.me.id;
  const out = [{ scope: 'agent', id: home.agent_id, label: 'Your default agent', group: 'Yours' }];
  let orgs = [];
  try {
    orgs = ((await request('GET', '/api/orgs')) || {}).organizations || [];
  } catch (err) {
    if (err.status === 401) throw err;
    return out; // the default agent is still yours
  }
  const pages = await Promise.all(orgs.map((o) => request('GET', `/api/orgs/${encodeURIComponent(o.id)}`).catch(() => null)));
  orgs.forEach((o, i) => {
    const admin = o.role === 'owner' || o.role === 'admin';
    const page = pages[i];
    const group = o.personal ? `${o.name} (personal)` : o.name;
    if (admin) out.push({ scope: 'organization', id: o.id, label: `Organisation ${o.name}`, group });
    if (!page) return;
    for (const g of page.guilds || []) {
      if (admin || (g.members || []).includes(me)) out.push({ scope: 'guild', id: g.id, label: `Guild ${g.name}`, group });
    }
    for (const a of page.agents || []) {
      if (a.id === home.agent_id) continue;
      if (admin || a.owner_id === me) out.push({ scope: 'agent', id: a.id, label: `Agent ${a.name}`, group });
    }
  });
  return out;
}

function groupedOptions(scopes) {
  const groups = [];
  for (const s of scopes) {
    let g = groups.find((x) => x.name === s.group);
    if (!g) groups.push(g = { name: s.group, items: [] });
    g.items.push(s);
  }
  return groups.map((g) => h('optgroup', { label: g.name },
    g.items.map((s) => h('option', { value: key(s), 'data-scope': s.scope }, s.label))));
}

// toolCatalog gathers what the picker offers for sc: its plugin tools, and the tools and connectors
// of the connector logins its agents see. Each part that cannot be read is left out (the free-text
// field still takes any name).
async function toolCatalog(sc, home) {
  const tools = [];
  const connectors = new Map();
  const plugins = api.toolSwitches(sc)
    .then((x) => ((x || {}).tools || []).forEach((t) => tools.push({ name: t.name, group: t.integration, description: t.description })), () => {});
  const q = {};
  if (sc.scope === 'agent') q.agent_id = sc.id;
  if (sc.scope === 'guild') q.guild_id = sc.id;
  if (sc.scope === 'agent' && sc.id === home.agent_id && home.guild_id) q.guild_id = home.guild_id;
  const agent = sc.scope === 'agent' ? sc.id : home.agent_id;
  const remote = Promise.all([api.mcpServers().catch(() => null), api.mcpConnections(q).catch(() => null)]).then(async ([servers, logins]) => {
    const byId = Object.fromEntries((((servers || {}).servers) || []).map((s) => [s.id, s]));
    const ls = ((logins || {}).connections || []);
    for (const l of ls) {
      const s = byId[l.mcp_server_id] || { id: l.mcp_server_id, display_name: l.mcp_server_id };
      connectors.set(s.id, { id: s.id, name: s.display_name || s.id, prefix: s.tool_prefix });
    }
    const details = await Promise.all(ls.map((l) => api.mcpConnection(l.id, agent).catch(() => null)));
    details.forEach((d, i) => {
      const c = connectors.get(ls[i].mcp_server_id);
      for (const t of ((d || {}).tools || [])) tools.push({ name: t.name, group: c.name, description: t.description });
    });
  });
  await Promise.all([plugins, remote]);
  // Each connector's prefix pattern first, then its tools; a name once.
  const seen = new Set();
  const offered = [];
  for (const c of connectors.values()) {
    if (c.prefix) offered.push({ name: `${c.prefix}_*`, group: c.name, description: `Every tool of ${c.name}` });
  }
  for (const t of tools) offered.push(t);
  return { tools: offered.filter((t) => !seen.has(t.name) && seen.add(t.name)), connectors: [...connectors.values()] };
}

// toolsetCard shows one toolset: v is {toolset, endpoint}.
function toolsetCard(v, catalog, { edit, remove }) {
  const t = v.toolset;
  const n = ++uid;
  const names = Object.fromEntries(catalog.connectors.map((c) => [c.id, c.name]));
  const snippet = JSON.stringify({ mcpServers: { [t.name]: { url: v.endpoint } } }, null, 2);
  const endpointId = `toolset-endpoint-${n}`;
  const editBtn = button('Edit', { testid: 'toolset-edit' });
  editBtn.setAttribute('aria-label', `Edit ${t.name}`);
  editBtn.addEventListener('click', edit);
  const del = button('Delete', { kind: 'danger-outline', iconName: 'trash', testid: 'toolset-delete' });
  del.setAttribute('aria-label', `Delete ${t.name}`);
  del.addEventListener('click', () => remove(del));
  const copySnippet = copyButton(snippet, 'Copy snippet');
  copySnippet.dataset.testid = 'toolset-copy-snippet';
  copySnippet.setAttribute('aria-label', `Copy the MCP client snippet of ${t.name}`);
  const copyEndpoint = copyButton(v.endpoint);
  copyEndpoint.setAttribute('aria-label', `Copy the address of ${t.name}`);
  const when = t.at || t.updated_at;
  return h('article', { class: 'card toolset', 'data-toolset': t.name, 'aria-labelledby': `toolset-title-${n}` },
    h('div', { class: 'card-head' },
      h('h2', { id: `toolset-title-${n}` }, h('span', { class: 'toolset-name' }, t.name), ' ',
        h('span', { class: 'badge', 'data-testid': 'toolset-version' }, `version ${t.version}`)),
      h('div', { class: 'card-actions' }, editBtn, del)),
    t.description ? h('p', { class: 'description', 'data-testid': 'toolset-description' }, t.description) : null,
    when ? h('p', { class: 'muted small' }, `Saved ${formatTime(when)}${t.by ? ` by ${t.by}` : ''}`) : null,
    h('h3', { class: 'subsection-title' }, 'Tools'),
    h('ul', { class: 'toolset-entries', 'data-testid': 'toolset-entries' }, (t.entries || []).map((e) =>
      h('li', { 'data-entry': e.tool }, h('code', {}, e.tool),
        e.tool.endsWith('*') ? h('span', { class: 'muted small' }, `every tool starting ${e.tool.slice(0, -1)}`) : null,
        e.account ? h('span', { class: 'tag toolset-pin', 'data-testid': 'toolset-account' }, `account ${e.account}`) : null))),
    (t.connectors || []).length ? [h('h3', { class: 'subsection-title' }, 'Connectors'),
      h('p', { class: 'small', 'data-testid': 'toolset-connectors' }, t.mirror ? 'Mirrors, under its own names, ' : 'Resources and prompts of ',
        (t.connectors || []).map((c, i) => [i ? ', ' : '', h('span', { class: 'tag', 'data-connector': c }, names[c] || c)]))] : null,
    h('h3', { class: 'subsection-title' }, h('label', { for: endpointId }, 'Endpoint')),
    h('div', { class: 'secret-row' },
      h('input', { id: endpointId, class: 'secret', type: 'text', readonly: true, value: v.endpoint, spellcheck: 'false', 'data-testid': 'toolset-endpoint' }),
      copyEndpoint),
    h('details', { class: 'toolset-hint' },
      h('summary', {}, 'Add it to your MCP client'),
      h('p', { class: 'small muted' }, 'Add this server to your client’s configuration. The client signs in as one of your agents (OAuth, or the agent’s API key as a Bearer token) and sees this toolset’s tools that agent may use.'),
      h('pre', { class: 'snippet toolset-snippet', 'data-testid': 'toolset-snippet' }, snippet),
      copySnippet));
}

// toolsetForm creates a toolset at sc, or edits t (its name then fixed: another name is another
// toolset).
function toolsetForm(sc, t, catalog, { saved, cancel }) {
  const n = ++uid;
  const id = (x) => `toolset-${x}-${n}`;
  const err = h('div', { 'data-testid': 'toolset-form-error' });
  const name = h('input', { id: id('name'), type: 'text', name: 'name', value: t ? t.name : '', readonly: t ? true : null, autocomplete: 'off', spellcheck: 'false',
    autocapitalize: 'none', 'aria-describedby': id('name-help'), 'data-testid': 'toolset-name' });
  const description = h('textarea', { id: id('description'), name: 'description', rows: 2, maxlength: 1000, 'data-testid': 'toolset-description-input' });
  description.value = t ? t.description || '' : '';
  const listId = id('tool-names');
  const datalist = h('datalist', { id: listId }, catalog.tools.map((x) => h('option', { value: x.name }, x.description ? `${x.group}: ${x.description}` : x.group)));

  const rows = h('ol', { class: 'toolset-rows', 'data-testid': 'toolset-rows' });
  let rowN = 0;
  const renumber = () => [...rows.children].forEach((li, i) => {
    const [tool, account] = li.querySelectorAll('input');
    tool.setAttribute('aria-label', `Tool or pattern, row ${i + 1}`);
    account.setAttribute('aria-label', `Account for row ${i + 1} (optional)`);
    const rm = li.querySelector('button');
    rm.setAttribute('aria-label', tool.value.trim() ? `Remove ${tool.value.trim()}` : `Remove row ${i + 1}`);
    rm.disabled = rows.children.length === 1 && !tool.value && !account.value;
  });
  const addRow = (entry, focus) => {
    const r = ++rowN;
    const tool = h('input', { type: 'text', name: 'tool', list: listId, value: entry ? entry.tool : '', placeholder: 'github_* or utils_echo', autocomplete: 'off',
      spellcheck: 'false', autocapitalize: 'none', 'data-testid': 'toolset-entry-tool', id: id(`tool-${r}`) });
    const account = h('input', { type: 'text', name: 'account', value: entry && entry.account ? entry.account : '', placeholder: 'default account', autocomplete: 'off',
      spellcheck: 'false', autocapitalize: 'none', 'data-testid': 'toolset-entry-account', id: id(`account-${r}`) });
    const rm = button('Remove', { kind: 'ghost', iconName: 'trash', testid: 'toolset-entry-remove' });
    const li = h('li', { class: 'toolset-row' },
      h('div', { class: 'field' }, h('label', { class: 'field-label small', for: tool.id }, 'Tool or pattern'), tool),
      h('div', { class: 'field' }, h('label', { class: 'field-label small', for: account.id }, 'Account ', h('span', { class: 'optional' }, '(optional)')), account),
      rm);
    rm.addEventListener('click', () => {
      const i = [...rows.children].indexOf(li);
      li.remove();
      if (!rows.children.length) addRow(null, false);
      renumber();
      const next = rows.children[Math.min(i, rows.children.length - 1)];
      next.querySelector('input').focus();
    });
    tool.addEventListener('input', renumber);
    account.addEventListener('input', renumber);
    rows.append(li);
    renumber();
    if (focus) tool.focus();
    return tool;
  };
  for (const e of (t && t.entries) || []) addRow(e, false);
  if (!rows.children.length) addRow(null, false);

  const add = button('Add tool', { testid: 'toolset-add-row' });
  add.addEventListener('click', () => addRow(null, true));
  // The picker: a tool of the catalog chosen here fills an empty row, else a new one.
  const picker = catalog.tools.length ? h('select', { id: id('picker'), 'data-testid': 'toolset-picker' },
    h('option', { value: '' }, 'Add a tool from the list…'),
    groups(catalog.tools).map(([g, xs]) => h('optgroup', { label: g }, xs.map((x) => h('option', { value: x.name }, x.name))))) : null;
  if (picker) {
    picker.addEventListener('change', () => {
      const v = picker.value;
      if (!v) return;
      const empty = [...rows.querySelectorAll('input[name=tool]')].find((x) => !x.value.trim());
      const input = empty || addRow(null, false);
      input.value = v;
      renumber();
      picker.value = '';
      input.focus();
    });
  }

  // Connectors whose resources and prompts the toolset serves: those the scope's agents have
  // logins to, and any it names already.
  const chosen = new Set((t && t.connectors) || []);
  const offered = [...catalog.connectors];
  for (const c of chosen) if (!offered.some((x) => x.id === c)) offered.push({ id: c, name: c });
  const boxes = offered.map((c) => h('div', { class: 'checkbox-field' },
    h('input', { type: 'checkbox', id: id(`connector-${c.id}`), value: c.id, checked: chosen.has(c.id), 'data-testid': 'toolset-connector' }),
    h('label', { for: id(`connector-${c.id}`) }, c.name, c.name !== c.id ? h('span', { class: 'muted small' }, ` (${c.id})`) : null)));

  const submit = button(t ? 'Save new version' : 'Create toolset', { kind: 'primary', type: 'submit', testid: 'toolset-save' });
  const form = h('form', { class: 'card toolset-form', novalidate: true, 'data-testid': 'toolset-form', 'aria-labelledby': id('title') },
    h('h2', { id: id('title') }, t ? `Edit ${t.name}` : 'New toolset'),
    t ? h('p', { class: 'muted small' }, `Version ${t.version}. Saving makes version ${t.version + 1}; clients holding its stream are told their tool list changed.`) : null,
    h('div', { class: 'field' }, h('label', { class: 'field-label', for: name.id }, 'Name'), name,
      h('p', { class: 'field-help', id: id('name-help') }, t ? `The name is fixed: it is in the address. Another name is another toolset.` : '1 to 63 lower-case letters, digits and -; it becomes the address /mcp/ts/<name>.')),
    h('div', { class: 'field' }, h('label', { class: 'field-label', for: description.id }, 'Description ', h('span', { class: 'optional' }, '(optional)')), description),
    h('fieldset', { class: 'toolset-tools', 'aria-describedby': id('tools-help') },
      h('legend', { class: 'field-label' }, 'Tools'),
      h('p', { class: 'field-help', id: id('tools-help') }, 'An exact tool name, or a prefix ending in * (github_* is every GitHub tool). Pin an account by its label to have calls use it rather than the default.'),
      rows, datalist,
      h('div', { class: 'form-actions' }, add, picker ? h('label', { class: 'sr-only', for: picker.id }, 'Add a tool from the list') : null, picker)),
    h('fieldset', { class: 'toolset-connectors' },
      h('legend', { class: 'field-label' }, 'Connectors ', h('span', { class: 'optional' }, '(optional)')),
      h('p', { class: 'field-help' }, 'Serve the resources and prompts of these connectors too.'),
      boxes.length ? boxes : h('p', { class: 'muted small', 'data-testid': 'toolset-no-connectors' }, 'The agents here have no connector logins.'),
      boxes.length ? h('div', { class: 'checkbox-field' },
        h('input', { type: 'checkbox', id: id('mirror'), checked: Boolean(t && t.mirror), 'data-testid': 'toolset-mirror', 'aria-describedby': id('mirror-help') }),
        h('label', { for: id('mirror') }, 'Mirror: serve one connector whole, under its own names'),
        h('p', { class: 'field-help', id: id('mirror-help') }, 'Tick exactly one connector. Its tools, resources and prompts keep the names the server gives them; tool rows then name those, and none means every tool.')) : null),
    err,
    h('div', { class: 'form-actions' }, submit, t ? button('Cancel', { kind: 'ghost', onclick: cancel, testid: 'toolset-cancel' }) : null));

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    replace(err);
    name.removeAttribute('aria-invalid');
    const nm = name.value.trim();
    const entries = [...rows.children].map((li) => {
      const [tool, account] = li.querySelectorAll('input');
      const x = { tool: tool.value.trim() };
      if (account.value.trim()) x.account = account.value.trim();
      return x;
    }).filter((x) => x.tool || x.account);
    const body = { name: nm, description: description.value.trim(), entries,
      connectors: [...form.querySelectorAll('input[data-testid=toolset-connector]:checked')].map((x) => x.value),
      mirror: Boolean(form.querySelector('input[data-testid=toolset-mirror]:checked')) };
    await busy(submit, async () => {
      let v;
      try {
        v = await api.saveToolset(sc, body);
      } catch (e2) {
        // The server says what is wrong; a name it cannot take is marked on its field too.
        if (!t && !NAME.test(nm)) name.setAttribute('aria-invalid', 'true');
        const box = notice('error', t ? `${t.name} was not saved` : 'The toolset was not created', errorText(e2));
        box.setAttribute('tabindex', '-1');
        replace(err, box);
        box.focus();
        return;
      }
      await saved(v);
    });
  });
  return form;
}

function groups(tools) {
  const m = new Map();
  for (const t of tools) {
    if (!m.has(t.group)) m.set(t.group, []);
    m.get(t.group).push(t);
  }
  return [...m.entries()];
}
