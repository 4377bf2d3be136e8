// Webhooks: HTTPS endpoints of an organisation that receive its events, each request signed with the
// webhook's secret (Workbench-Signature). Its owners and admins list them with the latest deliveries
// (status, attempts, the endpoint's last answer, when), add one (a URL and the events it wants; the
// secret is shown once, with a copy button) and remove one after confirming. The server decides again
// on every request: for anyone else it answers 403 or 404 and the card stays hidden.

import { api } from '../api.js';
import { h, replace, notice, button, busy, confirmDialog, errorText, secretField, formatTime, ago } from '../dom.js';

// The events a webhook may subscribe to, with what each means.
const EVENTS = [
  { id: 'connection.needs_reauth', help: 'A member’s integration account needs them to sign in again.' },
  { id: 'connection.disconnected', help: 'An account or a connector login was disconnected.' },
  { id: 'approval.requested', help: 'An agent’s call waits for a person’s approval.' },
  { id: 'budget.exhausted', help: 'An agent’s call was refused by a budget (RATE_LIMITED).' },
];

const STATUS = {
  pending: { words: 'Pending', cls: 'badge' },
  delivered: { words: 'Delivered', cls: 'badge badge-ok' },
  failed: { words: 'Failed, will retry', cls: 'badge badge-warn' },
  dropped: { words: 'Dropped', cls: 'badge badge-err' },
};

// How many deliveries of each webhook the log shows, the latest first.
const SHOWN = 10;

let uid = 0;

// webhooksCard is the Webhooks card of organisation o, for its owners and admins.
export function webhooksCard(o) {
  const n = ++uid;
  const status = h('div', { class: 'status-slot', 'data-testid': 'webhooks-status' });
  const secretSlot = h('div', { class: 'secret-slot', 'data-testid': 'webhook-secret-slot' });
  const list = h('div', { 'data-testid': 'webhooks-list' }, h('p', { class: 'muted' }, 'Loading…'));
  const section = h('section', { class: 'card webhooks', 'data-testid': 'webhooks', 'aria-labelledby': `webhooks-title-${n}`, hidden: true });
  const say = (kind, title, body) => replace(status, notice(kind, title, body));

  const urlId = `webhook-url-${n}`;
  const url = h('input', { id: urlId, type: 'url', name: 'url', placeholder: 'https://example.com/hooks/workbench', autocomplete: 'off', spellcheck: 'false',
    autocapitalize: 'none', inputmode: 'url', 'aria-describedby': `${urlId}-help`, 'data-testid': 'webhook-url' });
  url.addEventListener('input', () => url.removeAttribute('aria-invalid'));
  const boxes = EVENTS.map((ev) => {
    const id = `webhook-event-${n}-${ev.id.replace('.', '-')}`;
    const box = h('input', { id, type: 'checkbox', name: 'events', value: ev.id, 'aria-describedby': `${id}-help`, 'data-testid': 'webhook-event' });
    return { box, row: h('div', { class: 'checkbox-field event-choice' }, box,
      h('div', {}, h('label', { for: id }, h('code', {}, ev.id)), h('p', { class: 'field-help', id: `${id}-help` }, ev.help))) };
  });
  const events = h('fieldset', { class: 'event-choices' }, h('legend', { class: 'field-label' }, 'Events'), boxes.map((b) => b.row));
  const err = h('div', {});
  const submit = button('Add webhook', { kind: 'primary', type: 'submit', testid: 'webhook-add' });
  const form = h('form', { class: 'webhook-form', novalidate: true, 'data-testid': 'webhook-form', 'aria-labelledby': `webhook-form-title-${n}` },
    h('h3', { id: `webhook-form-title-${n}`, class: 'subsection-title' }, 'Add a webhook'),
    h('div', { class: 'field' }, h('label', { class: 'field-label', for: urlId }, 'Endpoint URL'), url,
      h('p', { class: 'field-help', id: `${urlId}-help` }, 'An https:// address on the public internet. Each request is a POST of JSON, signed in its Workbench-Signature header.')),
    events, err, h('div', { class: 'form-actions' }, submit));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    replace(err);
    const chosen = boxes.filter((b) => b.box.checked).map((b) => b.box.value);
    const u = url.value.trim();
    if (!u) {
      url.setAttribute('aria-invalid', 'true');
      replace(err, notice('error', 'Give the endpoint’s URL', 'For example https://example.com/hooks/workbench.'));
      url.focus();
      return;
    }
    if (!chosen.length) {
      replace(err, notice('error', 'Choose at least one event'));
      boxes[0].box.focus();
      return;
    }
    await busy(submit, async () => {
      let res;
      try {
        res = await api.addWebhook(o.id, u, chosen);
      } catch (e2) {
        if (e2.status === 400) url.setAttribute('aria-invalid', 'true');
        replace(err, notice('error', 'The webhook was not added', errorText(e2)));
        return;
      }
      form.reset();
      replace(status);
      await load();
      showSecret(res);
    });
  });

  // showSecret shows a new webhook's signing secret, this once, until the person says they copied it.
  const showSecret = (res) => {
    const done = button('I have copied it', { kind: 'secondary', testid: 'webhook-secret-done' });
    const box = h('div', { class: 'secret-box', 'data-testid': 'webhook-secret', tabindex: '-1' },
      notice('success', 'Webhook added: copy its signing secret now',
        h('p', {}, 'You will not see it again. Your endpoint checks each request’s Workbench-Signature with it (HMAC-SHA256 of the timestamp and the body).'),
        h('p', { class: 'small', 'data-testid': 'webhook-secret-url' }, 'For ', h('code', { class: 'wrap' }, res.webhook ? res.webhook.url : ''))),
      secretField(res.secret, 'Signing secret'),
      h('div', { class: 'form-actions' }, done));
    done.addEventListener('click', () => { replace(secretSlot); url.focus(); });
    replace(secretSlot, box);
    box.focus();
  };

  const refreshBtn = button('Refresh log', { kind: 'ghost', iconName: 'rotate', testid: 'webhooks-refresh' });
  refreshBtn.addEventListener('click', () => busy(refreshBtn, () => load()));

  const remove = async (w, btn) => {
    const ok = await confirmDialog({ title: 'Remove this webhook?', body: [h('p', { class: 'wrap' }, `${w.url} stops receiving this organisation’s events, its secret is destroyed and deliveries still waiting are dropped.`)], confirmLabel: 'Remove webhook' });
    if (!ok) return;
    await busy(btn, async () => {
      try {
        await api.removeWebhook(o.id, w.id);
      } catch (e2) { say('error', 'The webhook was not removed', errorText(e2)); return; }
      replace(secretSlot);
      await load();
      say('success', 'The webhook was removed', h('span', { class: 'wrap' }, w.url));
    });
  };

  let waiting = false;
  const load = async () => {
    let hooks;
    try {
      hooks = ((await api.webhooks(o.id)) || {}).webhooks || [];
    } catch (e2) {
      if (e2.status === 403 || e2.status === 404) { section.remove(); return; }
      section.hidden = false;
      replace(list, notice('error', 'The webhooks could not be loaded', errorText(e2)));
      return;
    }
    section.hidden = false;
    waiting = hooks.some((w) => (w.deliveries || []).some((d) => d.status === 'pending' || d.status === 'failed'));
    replace(list, hooks.length ? h('ul', { class: 'webhook-list' }, hooks.map((w) => webhookItem(w, remove)))
      : h('p', { class: 'muted', 'data-testid': 'no-webhooks' }, 'No webhooks yet.'));
  };
  load();

  // While a delivery waits to be sent, the log is looked at again every 5 seconds.
  const tick = setInterval(() => {
    if (!section.isConnected) { clearInterval(tick); return; }
    if (waiting && document.visibilityState === 'visible') load();
  }, 5000);

  replace(section,
    h('div', { class: 'card-head' }, h('h2', { id: `webhooks-title-${n}` }, 'Webhooks'), refreshBtn),
    h('p', { class: 'muted small' }, 'Endpoints of your own that this organisation’s events are sent to: accounts that need signing in again, calls waiting for approval, budgets spent. A failed delivery is tried again with growing pauses.'),
    status, secretSlot, list, form);
  return section;
}

function webhookItem(w, remove) {
  const del = button('Remove', { kind: 'danger-outline btn-small', iconName: 'trash', testid: 'webhook-remove' });
  del.setAttribute('aria-label', `Remove the webhook ${w.url}`);
  del.addEventListener('click', () => remove(w, del));
  const deliveries = [...(w.deliveries || [])].sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)));
  const latest = deliveries.slice(0, SHOWN);
  return h('li', { class: 'webhook', 'data-webhook': w.id },
    h('div', { class: 'webhook-head' },
      h('div', { class: 'webhook-title' },
        h('h3', { class: 'webhook-url', 'data-testid': 'webhook-url-text' }, w.url),
        h('p', { class: 'muted small' }, 'Added ', h('span', { title: formatTime(w.created_at) }, ago(w.created_at)))),
      del),
    h('p', { class: 'small webhook-events', 'data-testid': 'webhook-events' }, 'Events: ', (w.events || []).map((e) => h('span', { class: 'tag' }, e))),
    h('h4', { class: 'subsection-title' }, deliveries.length > SHOWN ? `Latest ${SHOWN} of ${deliveries.length} deliveries` : 'Deliveries'),
    latest.length ? h('ul', { class: 'delivery-log', 'data-testid': 'delivery-log' }, latest.map(deliveryItem))
      : h('p', { class: 'muted small', 'data-testid': 'no-deliveries' }, 'Nothing sent yet.'));
}

function deliveryItem(d) {
  const st = STATUS[d.status] || { words: d.status, cls: 'badge' };
  const answer = [d.last_status ? `HTTP ${d.last_status}` : null, d.last_error || null].filter(Boolean).join(': ');
  const when = [h('span', { title: formatTime(d.created_at) }, `Raised ${ago(d.created_at)}`)];
  if (d.delivered_at) when.push(' · ', h('span', { title: formatTime(d.delivered_at) }, `delivered ${ago(d.delivered_at)}`));
  if (d.next_attempt_at && (d.status === 'pending' || d.status === 'failed')) when.push(' · ', h('span', {}, `next try ${formatTime(d.next_attempt_at)}`));
  return h('li', { class: 'delivery', 'data-delivery': d.id, 'data-delivery-type': d.type, 'data-delivery-status': d.status },
    h('div', { class: 'delivery-line' },
      h('code', { 'data-testid': 'delivery-type' }, d.type),
      h('span', { class: st.cls, 'data-testid': 'delivery-status' }, st.words),
      h('span', { class: 'muted small', 'data-testid': 'delivery-attempts' }, `${d.attempts} ${d.attempts === 1 ? 'attempt' : 'attempts'}`)),
    answer ? h('p', { class: 'small delivery-answer', 'data-testid': 'delivery-answer' }, 'Last answer: ', answer) : null,
    h('p', { class: 'muted small delivery-when' }, when));
}
