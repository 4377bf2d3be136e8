// Plugin tools: the switches of the shipped integrations' and the built-ins' tools at one scope, an
// organisation (its owners and admins), a guild (its members and the organisation's admins) or an
// agent (its owner and the organisation's admins). An Off binds every scope below (none of them can
// turn the tool back On); a tool a scope above switched Off reads so and cannot be turned On here.
// The third state, Ask, keeps the tool On but has every call wait for a person's approval; an Ask
// binds the scopes below too (they may switch the tool Off, not On without asking).
// The server decides again on every request (a scope the person does not manage is a 404).

import { request } from '../api.js';
import { h, replace, notice, button, busy, errorText, labelled } from '../dom.js';

const enc = encodeURIComponent;
const switchesApi = {
  list: (sc) => request('GET', `/api/tools/switches?owner_scope=${enc(sc.scope)}&owner_id=${enc(sc.id)}`),
  // state is on, off or ask (On, and every call waits for a person's approval).
  set: (sc, tool, state) => request('PUT', '/api/tools/switches', { owner_scope: sc.scope, owner_id: sc.id, tool, state }),
};

const BELOW = {
  organization: 'every guild and agent of this organisation',
  guild: 'every agent of this guild',
  agent: 'this agent',
};

// pluginSwitches is the Plugin tools card of a scope the caller manages: sc is {scope, id, label},
// label naming the scope in a sentence ("this organisation", "agent crawler").
export function pluginSwitches(sc) {
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
        h('thead', {}, h('tr', {}, h('th', {}, 'Tool'), h('th', {}, 'Description'), h('th', {}, 'Switch here'), h('th', {}, 'Resolved here'))),
        h('tbody', {}, shown.map((t) => row(sc, t, say, load))))
      : h('p', { class: 'muted small' }, q ? 'No tool matches.' : 'This server has no plugin tools.'));
  };
  const load = async () => {
    try {
      tools = ((await switchesApi.list(sc)) || {}).tools || [];
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
  return h('section', { class: 'card', 'data-testid': 'plugin-switches-card', 'data-scope': sc.scope },
    h('h2', {}, `Plugin tools of ${sc.label}`),
    h('p', { class: 'muted small' }, `Switch a tool of the built-in integrations On or Off for ${BELOW[sc.scope]}, or to Ask: On, but every call waits for a person’s approval. An Off or an Ask here binds every scope below it; a tool a scope above switched Off cannot be turned On here. Tools that change something (marked “starts Off”) are Off until a scope switches them On.`),
    status, h('div', { class: 'form-actions' }, pick, labelled(filter, 'Filter tools')), list);
}

const STATE_WORDS = { on: 'On', off: 'Off', ask: 'Ask' };

function row(sc, t, say, reload) {
  // This scope's own state: on, off or ask ('' when it holds no switch).
  const state = t.state || (t.switch === true ? 'on' : t.switch === false ? 'off' : '');
  // The On/Off toggle reads On under an Ask (the tool is On); the Ask toggle beside it is pressed.
  const label = state === 'ask' ? 'On' : STATE_WORDS[state] || '—';
  const b = button(label, { kind: state === 'on' || state === 'ask' ? 'primary' : 'ghost', testid: 'plugin-switch' });
  // A press flips what this scope sees: its own switch when it holds one, else the tool's state here.
  const next = !(state ? state !== 'off' : t.on);
  b.setAttribute('aria-label', `${t.name} at ${sc.label}: ${label}${state === 'ask' ? ', asking for approval' : ''}. Press to turn ${next ? 'On' : 'Off'}.`);
  // Ask is a toggle of its own: pressed, every call waits for approval; pressed again, the tool is On.
  const ask = button('Ask', { kind: state === 'ask' ? 'primary' : 'ghost', testid: 'plugin-ask' });
  ask.setAttribute('aria-pressed', String(state === 'ask'));
  ask.setAttribute('aria-label', `Ask for approval before each call of ${t.name} at ${sc.label}`);
  if (t.bound) {
    b.disabled = true;
    ask.disabled = true;
  }
  const set = (btn, to) => busy(btn, async () => {
    try {
      await switchesApi.set(sc, t.name, to);
    } catch (err) { say('error', `${t.name} did not change`, errorText(err)); return; }
    await reload();
    say('success', to === 'ask' ? `${t.name} asks for approval at ${sc.label}` : `${t.name} is ${STATE_WORDS[to]} at ${sc.label}`,
      to === 'ask' ? 'Every call waits until a person approves it.' : null);
  });
  b.addEventListener('click', () => set(b, next ? 'on' : 'off'));
  ask.addEventListener('click', () => set(ask, state === 'ask' ? 'on' : 'ask'));
  return h('tr', { 'data-tool': t.name },
    h('td', {}, h('code', {}, t.name), h('div', { class: 'muted small' }, t.integration, t.starts_off ? ` · starts Off (${t.starts_off.replace(/_/g, ' ')})` : '')),
    h('td', { class: 'small' }, t.description),
    h('td', {}, h('div', { class: 'switch-pair' }, b, ask)),
    h('td', { 'data-testid': 'plugin-effective' }, t.on ? (t.ask ? 'Ask' : 'On') : 'Off',
      t.on && t.ask ? h('div', { class: 'muted small', 'data-testid': 'plugin-asks' }, 'On; each call waits for approval') : null,
      t.unavailable ? h('div', { class: 'muted small' }, t.unavailable) : null));
}
