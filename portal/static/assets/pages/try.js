// Try a tool: a signed-in person picks any tool they can reach (plugin tools, built-ins, the
// connector tools of their agent's logins), fills a form made from its JSON Schema and runs it once,
// seeing the result formatted: JSON pretty-printed, text as text, images as images, a failure as its
// code and message. A run is an execute_tools execution made as one of the person's own agents (the
// default agent unless they pick another): that agent's switches, Ask and budgets apply, and it is
// recorded, with via "portal", like an agent's (handlers/tryhttp).

import { request } from '../api.js';
import { h, replace, notice, button, busy, pageHeader, emptyState, errorText, labelled } from '../dom.js';

export const title = 'Try a tool';

const enc = encodeURIComponent;
const tryApi = {
  agents: () => request('GET', '/api/try/agents'),
  integrations: (agent) => request('GET', '/api/try/integrations' + (agent ? `?agent=${enc(agent)}` : '')),
  tools: (q, integration, agent) => request('GET', '/api/try/tools?' + new URLSearchParams({ q, integration, ...(agent ? { agent } : {}) }).toString()),
  schema: (name, agent) => request('GET', `/api/try/tools/${enc(name)}` + (agent ? `?agent=${enc(agent)}` : '')),
  run: (body) => request('POST', '/api/try/run', body),
};

export async function render(ctx, main) {
  const params = new URLSearchParams(location.search);
  const status = h('div', { class: 'status-slot', 'data-testid': 'try-status' });
  const agentSlot = h('div', { class: 'try-agent' });
  const q = h('input', { type: 'search', placeholder: 'Search tools, e.g. echo', 'aria-label': 'Search tools', 'data-testid': 'try-search', value: params.get('q') || '' });
  const integration = h('select', { 'aria-label': 'Integration', 'data-testid': 'try-integration' }, h('option', { value: '' }, 'Every integration'));
  const find = button('Find', { type: 'submit', iconName: 'search', testid: 'try-find' });
  const list = h('div', { class: 'try-list', 'data-testid': 'try-tools' });
  const panel = h('div', { class: 'try-panel', 'data-testid': 'try-panel' });
  const searchForm = h('form', { class: 'try-search card' }, agentSlot,
    h('div', { class: 'lookup-row' }, labelled(q), labelled(integration), find));
  replace(main,
    pageHeader('Try a tool', 'Run any tool you can reach, once, with a form made from its arguments. It runs as your agent would: its switches, approvals and budgets apply, and the run is recorded in your activity.'),
    status, searchForm, list, panel);

  let agent = '';
  let accounts = {}; // integration → [{label, default, status}]
  let connected = {}; // integration → connected
  let names = {}; // integration → display name

  const loadIntegrations = async () => {
    const res = (await tryApi.integrations(agent)) || {};
    accounts = {}; connected = {}; names = {};
    for (const i of res.integrations || []) {
      accounts[i.name] = i.accounts || [];
      connected[i.name] = i.connected;
      names[i.name] = i.display_name || i.name;
    }
    for (const c of res.connectors || []) {
      accounts[c.integration] = c.accounts || [];
      connected[c.integration] = (c.accounts || []).length > 0;
      names[c.integration] = c.display_name || c.integration;
    }
    const keep = integration.value || params.get('integration') || '';
    replace(integration, h('option', { value: '' }, 'Every integration'),
      Object.keys(names).sort().map((n) => h('option', { value: n }, names[n] + (connected[n] ? '' : ' (not connected)'))));
    integration.value = names[keep] ? keep : '';
  };

  // seq numbers the searches: the answer of one overtaken by a newer one is dropped.
  let seq = 0;
  const search = async () => {
    const mine = ++seq;
    replace(panel);
    replace(list, h('p', { class: 'muted' }, 'Looking for tools…'));
    try {
      const res = (await tryApi.tools(q.value.trim(), integration.value, agent)) || {};
      if (!ctx.current() || mine !== seq) return;
      const tools = res.tools || [];
      const off = res.unavailable || [];
      if (!tools.length && !off.length) {
        replace(list, emptyState('search', 'No tools found', h('p', {}, 'Try other words, or every integration.')));
        return;
      }
      replace(list,
        h('p', { class: 'muted small' }, `${tools.length} tool${tools.length === 1 ? '' : 's'} you can run`),
        h('ul', { class: 'try-tool-list' }, tools.map((t) => {
          const pick = h('button', { type: 'button', class: 'try-tool', 'data-tool': t.name, 'data-testid': 'try-tool' },
            h('span', { class: 'try-tool-name' }, t.name),
            h('span', { class: 'muted small' }, ` · ${names[t.integration] || t.integration}`),
            t.asks_approval ? h('span', { class: 'tag' }, 'Asks approval') : null,
            connected[t.integration] === false ? h('span', { class: 'tag' }, 'Not connected') : null,
            h('span', { class: 'try-tool-desc muted small' }, (t.description || '').split('\n')[0]));
          pick.addEventListener('click', () => open(t));
          return h('li', {}, pick);
        })),
        off.length ? h('div', { class: 'try-off', 'data-testid': 'try-unavailable' },
          h('h3', { class: 'section-title' }, 'Switched off for this agent'),
          h('ul', {}, off.map((t) => h('li', { 'data-tool': t.name }, h('strong', {}, t.name), ` — ${t.unavailable}`)))) : null);
    } catch (err) { if (mine === seq) ctx.fail(list, err, 'The tools could not be listed'); }
  };

  // open shows the form of tool t.
  const open = async (t) => {
    replace(panel, h('p', { class: 'muted' }, `Loading ${t.name}…`));
    let s;
    try {
      s = await tryApi.schema(t.name, agent);
    } catch (err) {
      if (err.status === 403) { replace(panel, notice('warning', `${t.name} is switched off for this agent`, errorText(err))); return; }
      ctx.fail(panel, err, 'The tool could not be read'); return;
    }
    if (!ctx.current()) return;
    const form = toolForm(s, accounts[s.integration] || [], agent);
    replace(panel, form);
    const first = form.querySelector('input, textarea, select');
    if (first) first.focus();
  };

  searchForm.addEventListener('submit', (e) => { e.preventDefault(); busy(find, search); });
  integration.addEventListener('change', () => search());

  try {
    const mine = ((await tryApi.agents()) || {}).agents || [];
    if (mine.length > 1) {
      const pick = h('select', { 'data-testid': 'try-agent', 'aria-label': 'Run as agent' },
        mine.map((a) => h('option', { value: a.default ? '' : a.id }, a.default ? `${a.name || 'Default agent'} (your default agent)` : `${a.name} · ${a.organization || 'organisation'}`)));
      pick.addEventListener('change', async () => {
        agent = pick.value;
        try { await loadIntegrations(); await search(); } catch (err) { ctx.fail(list, err, 'The tools could not be listed'); }
      });
      replace(agentSlot, h('label', { class: 'field' }, h('span', { class: 'field-label' }, 'Run as'), pick,
        h('span', { class: 'muted small' }, 'The switches, approvals, budgets and logins of this agent decide what you can run.')));
    }
    await loadIntegrations();
  } catch (err) { ctx.fail(status, err, 'Your tools could not be loaded'); return; }
  if (!ctx.current()) return;
  await search();
  const want = params.get('tool');
  if (want) {
    const btn = list.querySelector(`[data-tool="${CSS.escape(want)}"]`);
    if (btn) btn.click();
  }
}

// fieldFor is the control of one schema property: its element and a read() that answers
// { value } (undefined: left out) or throws Error with a message naming the field.
function fieldFor(name, p, required) {
  const id = `arg-${name}`;
  const type = Array.isArray(p.type) ? p.type.find((x) => x !== 'null') : p.type;
  const label = p.title || name;
  const dflt = p.default;
  let control;
  let read;
  if (Array.isArray(p.enum)) {
    control = h('select', { id, name, 'data-testid': id },
      required ? null : h('option', { value: '' }, '—'),
      p.enum.map((v, i) => h('option', { value: String(i) }, String(v))));
    const at = p.enum.findIndex((v) => v === dflt);
    control.value = at >= 0 ? String(at) : (required ? '0' : '');
    read = () => (control.value === '' ? undefined : p.enum[Number(control.value)]);
  } else if (type === 'boolean') {
    control = h('select', { id, name, 'data-testid': id },
      required ? null : h('option', { value: '' }, '—'), h('option', { value: 'true' }, 'true'), h('option', { value: 'false' }, 'false'));
    control.value = dflt === true ? 'true' : dflt === false ? 'false' : (required ? 'false' : '');
    read = () => (control.value === '' ? undefined : control.value === 'true');
  } else if (type === 'integer' || type === 'number') {
    control = h('input', { id, name, type: 'number', step: type === 'integer' ? '1' : 'any', 'data-testid': id,
      min: p.minimum, max: p.maximum, value: dflt != null ? String(dflt) : '' });
    read = () => {
      const v = control.value.trim();
      if (v === '') return undefined;
      const n = Number(v);
      if (!Number.isFinite(n) || (type === 'integer' && !Number.isInteger(n))) throw new Error(`${label} must be ${type === 'integer' ? 'a whole number' : 'a number'}.`);
      return n;
    };
  } else if (type === 'array' && p.items && (p.items.type === 'string' || !p.items.type) && !p.items.properties) {
    control = h('textarea', { id, name, rows: 3, 'data-testid': id, placeholder: 'One per line' });
    control.value = Array.isArray(dflt) ? dflt.join('\n') : '';
    read = () => {
      const lines = control.value.split('\n').map((x) => x.trim()).filter(Boolean);
      return lines.length ? lines : undefined;
    };
  } else if (type === 'string') {
    const long = (p.maxLength || 0) > 200 || /body|text|content|description|query|message/i.test(name);
    control = long ? h('textarea', { id, name, rows: 3, 'data-testid': id }) : h('input', { id, name, type: 'text', 'data-testid': id, autocomplete: 'off' });
    control.value = dflt != null ? String(dflt) : '';
    read = () => (control.value === '' ? undefined : control.value);
  } else {
    // Objects, arrays of objects, and anything the form cannot draw: JSON, checked before the run.
    control = h('textarea', { id, name, rows: 4, class: 'mono', 'data-testid': id, placeholder: type === 'array' ? '[ … ] as JSON' : '{ … } as JSON' });
    control.value = dflt !== undefined ? JSON.stringify(dflt, null, 2) : '';
    read = () => {
      const v = control.value.trim();
      if (v === '') return undefined;
      try { return JSON.parse(v); } catch { throw new Error(`${label} is not valid JSON.`); }
    };
  }
  const el = h('div', { class: 'field', 'data-field': name },
    h('label', { class: 'field-label', for: id }, label,
      required ? h('span', { class: 'required', 'aria-label': 'required', 'data-testid': `required-${name}` }, ' *') : h('span', { class: 'optional' }, ' (optional)')),
    control,
    p.description ? h('span', { class: 'muted small field-help' }, p.description) : null);
  return { el, read: () => read(), required, label };
}

// toolForm is the form of one tool (s: {name, description, integration, inputSchema}).
function toolForm(s, accounts, agent) {
  const schema = s.inputSchema || {};
  const props = schema.properties || {};
  const required = new Set(schema.required || []);
  const fields = Object.entries(props).map(([name, p]) => [name, fieldFor(name, p || {}, required.has(name))]);
  const result = h('div', { class: 'try-result', 'data-testid': 'try-result', 'aria-live': 'polite' });
  const run = button('Run', { kind: 'primary', type: 'submit', testid: 'try-run' });
  let account = null;
  if (accounts.length > 1) {
    account = h('select', { id: 'try-account', 'data-testid': 'try-account' },
      accounts.map((a) => h('option', { value: a.default ? '' : a.label }, `${a.label}${a.hint ? ` (${a.hint})` : ''}${a.default ? ' · default' : ''}`)));
  }
  const form = h('form', { class: 'card try-form', 'data-testid': 'try-form', 'data-tool': s.name, novalidate: true },
    h('h2', {}, s.name),
    s.description ? h('p', { class: 'description' }, s.description) : null,
    account ? h('div', { class: 'field' }, h('label', { class: 'field-label', for: 'try-account' }, 'Account'), account) : null,
    fields.length ? fields.map(([, f]) => f.el) : h('p', { class: 'muted small' }, 'This tool takes no arguments.'),
    h('div', { class: 'form-actions' }, run), result);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const args = {};
    try {
      for (const [name, f] of fields) {
        const v = f.read();
        if (v === undefined) {
          if (f.required) throw new Error(`${f.label} is required.`);
          continue;
        }
        args[name] = v;
      }
    } catch (err) {
      replace(result, notice('error', 'Check the form', err.message));
      return;
    }
    await busy(run, async () => {
      replace(result, h('p', { class: 'muted' }, `Running ${s.name}…`));
      const body = { tool: s.name, args };
      if (account && account.value) body.account = account.value;
      if (agent) body.agent = agent;
      try {
        showResult(result, await tryApi.run(body));
      } catch (err) {
        replace(result, notice('error', 'The tool did not run', errorText(err)));
      }
    });
  });
  return form;
}

function pretty(v) {
  return h('pre', { class: 'try-json', 'data-testid': 'try-json' }, typeof v === 'string' ? v : JSON.stringify(v, null, 2));
}

// showResult draws a run's answer: the result (text blocks as text, the rest as JSON), the content
// blocks (images as images), or the failure's code and message.
function showResult(where, res) {
  const entry = res.entry || {};
  const blocks = (res.content || []).map((b) => {
    if (b && (b.type === 'image') && typeof b.data === 'string' && /^image\/(png|jpeg|gif|webp)$/.test(b.mimeType || '')) {
      return h('img', { class: 'try-image', src: `data:${b.mimeType};base64,${b.data}`, alt: `An image the tool answered (${b.mimeType})`, 'data-testid': 'try-image' });
    }
    return pretty(b);
  });
  if (!res.ok) {
    const message = entry.message || (typeof entry.error === 'string' && entry.error !== res.code ? entry.error : '') || 'The tool failed.';
    replace(where, h('div', { 'data-testid': 'try-error', 'data-code': res.code },
      notice('error', res.code || 'Failed', message,
        entry.url ? h('div', {}, h('a', { href: entry.url, 'data-testid': 'try-approval' }, 'Open the approval')) : null,
        entry.portal_url ? h('div', {}, h('a', { href: '/integrations', 'data-link': true }, 'Connect it on Integrations')) : null),
      entry.result !== undefined ? pretty(entry.result) : null, blocks));
    return;
  }
  const r = entry.result;
  const texts = r && Array.isArray(r.content) ? r.content.filter((c) => c && c.type === 'text').map((c) => c.text) : [];
  replace(where, h('div', { 'data-testid': 'try-ok' },
    notice('success', 'Done', 'The run is recorded in your activity.'),
    texts.length ? texts.map((t) => h('pre', { class: 'try-text', 'data-testid': 'try-text' }, t)) : null,
    res.structured ? pretty(res.structured) : null,
    texts.length ? null : pretty(r),
    blocks));
}
