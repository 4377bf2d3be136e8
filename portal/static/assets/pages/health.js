// Connection health: the banner at the top of every signed-in page while one of the user's accounts
// needs them to sign in again (an integration account needing re-authorization, or whose cookies
// expired, from GET /api/integrations) or a connector login they can see is disconnected (its
// provider refused a refresh, from GET /api/mcp/connections). Each line's Reconnect goes where the
// portal reconnects it: the integrations page with that account's Reconnect button focused, or the
// Connectors page with that login focused.
//
// The banner lives in one element the layout mounts above every page (app.js); it is a polite live
// region, so a banner that appears while a page is open is read out once.

import { api } from '../api.js';
import { h, replace, icon } from '../dom.js';

// How a problem reads, by the account's status.
const WORDS = {
  needs_reauth: 'needs you to sign in again',
  expired: 'needs you to sign in again: its sign-in expired',
  disconnected: 'is disconnected: sign in again',
};

// slot is the banner's place: empty (and taking no room) while every account is well.
export const slot = h('div', { class: 'health-slot', role: 'status', 'data-testid': 'health-slot' });

let seq = 0;
let timer = null;
let issues = [];

// problems lists what needs the user, from the integrations and the connector logins they see.
async function problems() {
  const out = [];
  const [ints, conns] = await Promise.all([
    api.integrations().then((r) => (r && r.integrations) || []),
    connectorLogins().catch(() => []),
  ]);
  for (const i of ints) {
    if (i.auth_mode === 'none') continue;
    const name = i.display_name || i.name;
    const accounts = i.accounts || [];
    for (const a of accounts) {
      if (a.status !== 'needs_reauth' && a.status !== 'expired') continue;
      out.push({ key: `i:${i.name}:${a.label}`, name, account: a.label, status: a.status, integration: i.name,
        href: '/integrations?' + new URLSearchParams({ reconnect: i.name, account: a.label }).toString() });
    }
    // A server that lists no accounts says it of the integration alone (its default account).
    if (accounts.length === 0 && i.status === 'reauthorization_required') {
      out.push({ key: `i:${i.name}:`, name, account: 'default', status: 'needs_reauth', integration: i.name,
        href: '/integrations?' + new URLSearchParams({ reconnect: i.name }).toString() });
    }
  }
  const off = conns.filter((l) => l.status === 'disconnected');
  if (off.length) {
    const servers = ((await api.mcpServers().catch(() => null)) || {}).servers || [];
    const names = Object.fromEntries(servers.map((s) => [s.id, s.display_name || s.id]));
    for (const l of off) {
      out.push({ key: `l:${l.id}`, name: names[l.mcp_server_id] || l.mcp_server_id, account: l.account || 'default', status: 'disconnected', login: l.id,
        href: '/connectors?' + new URLSearchParams({ login: l.id }).toString() });
    }
  }
  return out;
}

// connectorLogins is the logins the user sees from their home agent (its guild and organisation
// included), as the Connectors page lists them.
async function connectorLogins() {
  const home = await api.mcpHome();
  const q = { agent_id: home.agent_id };
  if (home.guild_id) q.guild_id = home.guild_id;
  return ((await api.mcpConnections(q)) || {}).connections || [];
}

function draw() {
  if (!issues.length) {
    replace(slot);
    return;
  }
  const title = issues.length === 1 ? 'A connection needs you' : `${issues.length} connections need you`;
  replace(slot, h('aside', { class: 'health-banner', 'aria-labelledby': 'health-banner-title', 'data-testid': 'health-banner' },
    icon('alert'),
    h('div', { class: 'health-body' },
      h('h2', { id: 'health-banner-title', class: 'health-title' }, title),
      h('ul', { class: 'health-list' }, issues.map((x) => {
        const what = `${x.name} (account ${x.account})`;
        return h('li', { class: 'health-item', 'data-health': x.key },
          h('span', { class: 'health-text', 'data-testid': 'health-text' }, `${what} ${WORDS[x.status]}`),
          h('a', { href: x.href, 'data-link': true, class: 'btn btn-primary btn-small', 'data-testid': 'health-reconnect', 'aria-label': `Reconnect ${what}` },
            icon('external'), h('span', {}, 'Reconnect')));
      })))));
}

// refresh asks the server again and redraws the banner; a failure keeps it as it was (the pages say
// what went wrong). While a problem shows it looks again every 20 seconds, else every minute.
export async function refresh() {
  const n = ++seq;
  clearTimeout(timer);
  try {
    const found = await problems();
    if (n !== seq) return;
    const same = found.length === issues.length && found.every((x, i) => x.key === issues[i].key && x.status === issues[i].status);
    issues = found;
    if (!same) draw();
  } catch { /* a hint only */ }
  if (n !== seq) return;
  // checks counts the looks that finished (tests wait on it).
  slot.dataset.checks = String(Number(slot.dataset.checks || 0) + 1);
  timer = setTimeout(refresh, issues.length ? 20000 : 60000);
}

// stop forgets the banner (signed out).
export function stop() {
  seq++;
  clearTimeout(timer);
  issues = [];
  replace(slot);
}

document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible' && timer !== null) refresh();
});

// arrived runs after a page rendered: a Reconnect link's page focuses what it named — the
// integration account's Reconnect button (else its accounts, else its card), or the connector login —
// and drops the hint from the address so a reload does not repeat it.
export function arrived() {
  const q = new URLSearchParams(location.search);
  let target = null;
  if (location.pathname === '/integrations' && q.has('reconnect')) {
    const card = document.querySelector(`article[data-integration="${CSS.escape(q.get('reconnect'))}"]`);
    const item = card && q.get('account') ? card.querySelector(`li[data-account="${CSS.escape(q.get('account'))}"]`) : null;
    target = (item && item.querySelector('[data-testid=reconnect]')) || (item && card.querySelector('.accounts-title'))
      || (card && (card.querySelector('[data-testid=reconnect]') || card.querySelector('[data-testid=connect]') || card.querySelector('h2')));
    q.delete('reconnect');
    q.delete('account');
  } else if (location.pathname === '/connectors' && q.has('login')) {
    const card = document.querySelector(`article.login[data-login="${CSS.escape(q.get('login'))}"]`);
    target = card && (card.querySelector('[data-testid=account-name]') || card);
    if (card) card.classList.add('health-target');
    q.delete('login');
  } else {
    return;
  }
  const rest = q.toString();
  history.replaceState(null, '', location.pathname + (rest ? '?' + rest : ''));
  if (!target) return;
  if (!target.matches('a, button, input, select, textarea, [tabindex]')) target.setAttribute('tabindex', '-1');
  target.scrollIntoView({ block: 'center' });
  target.focus();
}
