// Organisation settings, Plugin tools: the switches of the shipped integrations' and the built-ins'
// tools at the organisation's scope. An Off binds every guild and agent of the organisation (none of
// them can turn the tool back On); an On here lifts an Off only this organisation set. A tool the
// platform switched Off reads so and cannot be turned On here. The server decides again on every
// request (a member gets a 403).

import { request } from '../api.js';
import { h, replace, notice, button, busy, errorText } from '../dom.js';

const enc = encodeURIComponent;
const switchesApi = {
  list: (org) => request('GET', `/api/tools/switches?owner_scope=organization&owner_id=${enc(org)}`),
  set: (org, tool, on) => request('PUT', '/api/tools/switches', { owner_scope: 'organization', owner_id: org, tool, on }),
};

// orgPluginSwitches is the Plugin tools card of an organisation the caller owns or administers.
export function orgPluginSwitches(o) {
  const status = h('div', { class: 'status-slot', 'data-testid': 'plugin-switches-status' });
  const pick = h('select', { 'aria-label': 'Integration', 'data-testid': 'plugin-switches-integration' });
  const filter = h('input', { type: 'search', placeholder: 'Filter tools', 'aria-label': 'Filter plugin tools', 'data-testid': 'plugin-switches-filter' });
  const list = h('div', { 'data-testid': 'plugin-switches' }, h('p', { class: 'muted' }, 'Loading…'));
  const say = (kind, title, body) => replace(status, notice(kind, title, body));
  let tools = [];
  // One integration's tools at a time (a filter searches them all): the list stays short.
  const draw = () => {
    const q = filter.value.trim().toLowerCase();
    const shown = tools.filter((t) => q ? t.name.includes(q) : t.integration === pick.value);
    replace(list, shown.length
      ? h('table', { class: 'tools' },
        h('thead', {}, h('tr', {}, h('th', {}, 'Tool'), h('th', {}, 'Description'), h('th', {}, 'This organisation'), h('th', {}, 'Its agents'))),
        h('tbody', {}, shown.map((t) => row(o, t, say, load))))
      : h('p', { class: 'muted small' }, q ? 'No tool matches.' : 'This server has no plugin tools.'));
  };
  const load = async () => {
    try {
      tools = ((await switchesApi.list(o.id)) || {}).tools || [];
    } catch (err) { replace(list, notice('error', 'The plugin tools could not be loaded', errorText(err))); return; }
    const names = [...new Set(tools.map((t) => t.integration))].sort();
    const keep = pick.value;
    replace(pick, ...names.map((n) => h('option', { value: n }, n)));
    if (names.includes(keep)) pick.value = keep;
    draw();
  };
  pick.addEventListener('change', draw);
  filter.addEventListener('input', draw);
  load();
  return h('section', { class: 'card', 'data-testid': 'org-plugin-switches' },
    h('h2', {}, 'Plugin tools'),
    h('p', { class: 'muted small' }, 'Switch a tool of the built-in integrations On or Off for every guild and agent of this organisation. An Off here binds them all: none of them can turn the tool back On, only an owner or admin here can. Tools that change something (marked “starts Off”) are Off until a scope switches them On.'),
    status, h('div', { class: 'form-actions' }, pick, filter), list);
}

function row(o, t, say, reload) {
  const label = t.switch === true ? 'On' : t.switch === false ? 'Off' : '—';
  const b = button(label, { kind: t.switch === true ? 'primary' : 'ghost', testid: 'plugin-switch' });
  // A press flips what this scope sees: its own switch when it holds one, else the tool's state here.
  const next = !(t.switch === true || t.switch === false ? t.switch : t.on);
  b.setAttribute('aria-label', `${t.name} at this organisation: ${label}. Press to turn ${next ? 'On' : 'Off'}.`);
  if (t.bound) b.disabled = true;
  b.addEventListener('click', () => busy(b, async () => {
    try {
      await switchesApi.set(o.id, t.name, next);
    } catch (err) { say('error', `${t.name} did not change`, errorText(err)); return; }
    await reload();
    say('success', `${t.name} is ${next ? 'On' : 'Off'} at this organisation`);
  }));
  return h('tr', { 'data-tool': t.name },
    h('td', {}, h('code', {}, t.name), h('div', { class: 'muted small' }, t.integration, t.starts_off ? ` · starts Off (${t.starts_off.replace(/_/g, ' ')})` : '')),
    h('td', { class: 'small' }, t.description),
    h('td', {}, b),
    h('td', { 'data-testid': 'plugin-effective' }, t.on ? 'On' : 'Off', t.unavailable ? h('div', { class: 'muted small' }, t.unavailable) : null));
}
