// Budgets: the rate limits a scope (an organisation, a guild or an agent) sets on its agents' tool
// calls, on every tool or one: calls per minute (a bucket that refills evenly) and calls per UTC day.
// The card lists them with today's use, adds or changes one, and removes one. A call past a budget
// is refused RATE_LIMITED to the agent. Only who manages the scope reads or sets them (an
// organisation's owners and admins, a guild's members, an agent's owner); for anyone else the server
// answers 403 or 404 and the card stays hidden.

import { api } from '../api.js';
import { h, replace, notice, button, busy, confirmDialog, errorText } from '../dom.js';

let uid = 0;

// budgetsCard is the Budgets card of sc: {scope, id, label}, label naming the scope in a sentence
// ("this organisation", "guild Platform", "agent crawler"). It shows itself once the server lets
// the caller read the scope's budgets.
export function budgetsCard(sc) {
  const n = ++uid;
  const status = h('div', { class: 'status-slot', 'data-testid': 'budgets-status' });
  const list = h('div', { 'data-testid': 'budgets-list' }, h('p', { class: 'muted' }, 'Loading…'));
  const section = h('section', { class: 'card budgets', 'data-testid': 'budgets', 'aria-labelledby': `budgets-title-${n}`, hidden: true });
  const say = (kind, title, body) => replace(status, notice(kind, title, body));

  // The form: add a budget, or change one (Change fills it in).
  const field = (id, label, input, help) => h('div', { class: 'field' },
    h('label', { class: 'field-label', for: id }, label), input, help ? h('p', { class: 'field-help', id: `${id}-help` }, help) : null);
  const toolId = `budget-tool-${n}`, minuteId = `budget-minute-${n}`, dayId = `budget-day-${n}`;
  const tool = h('input', { id: toolId, type: 'text', name: 'tool', placeholder: 'Every tool', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'none',
    'aria-describedby': `${toolId}-help`, 'data-testid': 'budget-tool' });
  const perMinute = h('input', { id: minuteId, type: 'number', name: 'per_minute', min: 0, step: 1, inputmode: 'numeric', 'aria-describedby': `${minuteId}-help`, 'data-testid': 'budget-per-minute' });
  const perDay = h('input', { id: dayId, type: 'number', name: 'per_day', min: 0, step: 1, inputmode: 'numeric', 'aria-describedby': `${minuteId}-help`, 'data-testid': 'budget-per-day' });
  const err = h('div', {});
  const submit = button('Save budget', { kind: 'primary', type: 'submit', testid: 'budget-save' });
  const form = h('form', { class: 'budget-form', novalidate: true, 'data-testid': 'budget-form', 'aria-labelledby': `budget-form-title-${n}` },
    h('h3', { id: `budget-form-title-${n}`, class: 'subsection-title' }, 'Add or change a budget'),
    field(toolId, 'Tool', tool, 'Leave it empty for every tool, or name one tool, for example remote_echo.'),
    h('div', { class: 'field-row' },
      field(minuteId, 'Calls per minute', perMinute, 'Empty or 0: no limit.'),
      field(dayId, 'Calls per day (UTC)', perDay, null)),
    err,
    h('div', { class: 'form-actions' }, submit));

  // limit reads a limit input: a whole number of 0 or more, or null when it is not one.
  const limit = (input) => {
    const v = input.value.trim();
    if (v === '') return 0;
    return /^\d+$/.test(v) ? Number(v) : null;
  };
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    replace(err);
    for (const x of [perMinute, perDay]) x.removeAttribute('aria-invalid');
    const m = limit(perMinute), d = limit(perDay);
    const bad = m === null ? perMinute : d === null ? perDay : null;
    if (bad) {
      bad.setAttribute('aria-invalid', 'true');
      replace(err, notice('error', 'Check the limits', 'A limit is a whole number of calls, 0 or more.'));
      bad.focus();
      return;
    }
    if (m === 0 && d === 0) {
      perMinute.setAttribute('aria-invalid', 'true');
      replace(err, notice('error', 'Set a limit', 'Give calls per minute, calls per day or both. To lift a budget, press its Remove.'));
      perMinute.focus();
      return;
    }
    const t = tool.value.trim();
    await busy(submit, async () => {
      try {
        await api.setBudget(sc, t, m, d);
      } catch (e2) { replace(err, notice('error', 'The budget was not saved', errorText(e2))); return; }
      form.reset();
      await load();
      say('success', `${t ? t : 'Every tool'}: ${limitsText(m, d)}`, `Calls of ${sc.label}’s agents past it are refused RATE_LIMITED.`);
    });
  });

  const refreshBtn = button('Refresh usage', { kind: 'ghost', iconName: 'rotate', testid: 'budgets-refresh' });
  refreshBtn.addEventListener('click', () => busy(refreshBtn, () => load()));

  const edit = (b) => {
    tool.value = b.tool === '*' ? '' : b.tool;
    perMinute.value = b.per_minute ? String(b.per_minute) : '';
    perDay.value = b.per_day ? String(b.per_day) : '';
    perMinute.focus();
  };
  const remove = async (b, btn) => {
    const what = b.tool === '*' ? 'the budget on every tool' : `the budget on ${b.tool}`;
    const ok = await confirmDialog({ title: `Remove ${what}?`, body: [h('p', {}, `The agents of ${sc.label} are no longer limited by it. Budgets of other scopes still apply.`)], confirmLabel: 'Remove budget' });
    if (!ok) return;
    await busy(btn, async () => {
      try {
        await api.setBudget(sc, b.tool, 0, 0);
      } catch (e2) { say('error', 'The budget was not removed', errorText(e2)); return; }
      await load();
      say('success', `Removed ${what}`);
    });
  };

  const load = async () => {
    let budgets;
    try {
      budgets = ((await api.budgets(sc)) || {}).budgets || [];
    } catch (e2) {
      // Not someone who manages this scope: the card is not theirs to see.
      if (e2.status === 403 || e2.status === 404) { section.remove(); return; }
      section.hidden = false;
      replace(list, notice('error', 'The budgets could not be loaded', errorText(e2)));
      return;
    }
    section.hidden = false;
    replace(list, budgets.length ? budgetTable(budgets, edit, remove)
      : h('p', { class: 'muted', 'data-testid': 'no-budgets' }, `No budgets: the agents of ${sc.label} may call as often as the budgets of the scopes above them allow.`));
  };
  load();

  // While the card is on screen its usage is looked at again every 30 seconds.
  const tick = setInterval(() => {
    if (!section.isConnected) { clearInterval(tick); return; }
    if (document.visibilityState === 'visible') load();
  }, 30000);

  replace(section,
    h('div', { class: 'card-head' }, h('h2', { id: `budgets-title-${n}` }, 'Budgets'), refreshBtn),
    h('p', { class: 'muted small' }, `Rate limits on the tool calls of ${sc.label}’s agents, on every tool or one. A call past a budget is refused RATE_LIMITED; the budgets of the organisation, the guild and the agent all apply.`),
    status, list, form);
  return section;
}

function limitsText(perMinute, perDay) {
  return [perMinute ? `${perMinute} a minute` : null, perDay ? `${perDay} a day` : null].filter(Boolean).join(', ');
}

function budgetTable(budgets, edit, remove) {
  const sorted = [...budgets].sort((a, b) => (a.tool === '*' ? -1 : b.tool === '*' ? 1 : a.tool.localeCompare(b.tool)));
  return h('div', { class: 'table-card' }, h('table', { class: 'table budget-table', 'data-testid': 'budgets-table' },
    h('thead', {}, h('tr', {}, h('th', {}, 'Tool'), h('th', {}, 'Limits'), h('th', {}, 'Use'), h('th', {}, h('span', { class: 'sr-only' }, 'Actions')))),
    h('tbody', {}, sorted.map((b) => {
      const what = b.tool === '*' ? 'every tool' : b.tool;
      const change = button('Change', { kind: 'secondary btn-small', testid: 'budget-change' });
      change.setAttribute('aria-label', `Change the budget on ${what}`);
      change.addEventListener('click', () => edit(b));
      const del = button('Remove', { kind: 'danger-outline btn-small', testid: 'budget-remove' });
      del.setAttribute('aria-label', `Remove the budget on ${what}`);
      del.addEventListener('click', () => remove(b, del));
      const available = Math.floor(b.available_now || 0);
      return h('tr', { 'data-budget-tool': b.tool },
        h('td', {}, b.tool === '*' ? h('span', { class: 'strong' }, 'Every tool') : h('code', {}, b.tool)),
        h('td', { 'data-testid': 'budget-limits' }, limitsText(b.per_minute, b.per_day)),
        h('td', { class: 'budget-use' },
          h('div', { 'data-testid': 'budget-today' }, b.per_day ? `${b.today} of ${b.per_day} today` : `${b.today} today`),
          b.per_minute ? h('div', { class: 'muted small', 'data-testid': 'budget-minute' }, `${available} of ${b.per_minute} available this minute`) : null),
        h('td', { class: 'right' }, h('div', { class: 'actions' }, change, del)));
    }))));
}
