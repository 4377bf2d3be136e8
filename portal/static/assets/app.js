// The portal: a small client-side router over the pages in ./pages, a layout with the navigation and
// who is signed in, and the sign-in guard.

import { api } from './api.js';
import { h, replace, icon, button, notice, errorText, confirmDialog } from './dom.js';
import * as signin from './pages/signin.js';
import * as integrations from './pages/integrations.js';
import * as apikey from './pages/apikey.js';
import * as clients from './pages/clients.js';
import * as activity from './pages/activity.js';
import * as receipts from './pages/receipts.js';
import * as audit from './pages/audit.js';
import * as orgs from './pages/orgs.js';
import * as connect from './pages/connect.js';
import * as connectors from './pages/connectors.js';
import * as live from './pages/live.js';
import * as catalog from './pages/catalog.js';
import * as admin from './pages/admin.js';
import * as registry from './pages/registry.js';
import * as approvals from './pages/approvals.js';
import * as notfound from './pages/notfound.js';
import * as health from './pages/health.js';
import * as toolsets from './pages/toolsets.js';
import * as invitations from './pages/invitations.js';
import * as trytool from './pages/try.js';

// Routes in match order. public pages render without a session; nav names the highlighted link.
const ROUTES = [
  { re: /^\/signin$/, page: signin, public: true },
  { re: /^\/(integrations)?$/, page: integrations, nav: 'integrations' },
  { re: /^\/connectors$/, page: connectors, nav: 'connectors' },
  { re: /^\/approvals$/, page: approvals.inbox, nav: 'approvals' },
  // The page an agent's APPROVAL_REQUIRED links to (the server answers 404 for an id that is not one).
  { re: /^\/approvals\/([^/]+)$/, page: approvals.one, nav: 'approvals' },
  { re: /^\/toolsets$/, page: toolsets, nav: 'toolsets' },
  { re: /^\/try$/, page: trytool, nav: 'try' },
  { re: /^\/key$/, page: apikey, nav: 'key' },
  { re: /^\/clients$/, page: clients, nav: 'clients' },
  { re: /^\/activity$/, page: activity, nav: 'activity' },
  { re: /^\/receipts$/, page: receipts, nav: 'receipts' },
  { re: /^\/audit$/, page: audit, nav: 'audit' },
  { re: /^\/orgs$/, page: orgs.list, nav: 'orgs' },
  // The signed-in user's pending invitations (a notice above the other pages links here).
  { re: /^\/invitations$/, page: invitations.page, nav: 'orgs' },
  { re: /^\/orgs\/([0-9a-f-]{36})$/, page: orgs.org, nav: 'orgs' },
  { re: /^\/orgs\/([0-9a-f-]{36})\/guilds\/([0-9a-f-]{36})$/, page: orgs.guild, nav: 'orgs' },
  { re: /^\/connect\/([^/]+)$/, page: connect },
  { re: /^\/portal\/browser\/live$/, page: live },
  { re: /^\/admin\/catalog$/, page: catalog, nav: 'admin-catalog' },
  { re: /^\/admin\/platform-keys$/, page: admin.keys, nav: 'admin' },
  { re: /^\/admin\/caps$/, page: admin.caps, nav: 'admin-caps' },
  { re: /^\/admin\/registry$/, page: registry, nav: 'admin-registry' },
];

// Every entry has an icon of its own (no two look alike) and its label, shown beside it on every
// screen size.
const NAV = [
  { id: 'integrations', href: '/integrations', label: 'Integrations', icon: 'plug' },
  { id: 'connectors', href: '/connectors', label: 'Connectors', icon: 'server' },
  // badge: the count of approvals waiting for the signed-in user.
  { id: 'approvals', href: '/approvals', label: 'Approvals', icon: 'inbox', badge: true },
  // Toolsets: named lists of tools served to agents as MCP servers of their own.
  { id: 'toolsets', href: '/toolsets', label: 'Toolsets', icon: 'layers' },
  // Try a tool: run one tool from the portal, as one of your agents.
  { id: 'try', href: '/try', label: 'Try a tool', icon: 'play' },
  { id: 'key', href: '/key', label: 'API key', icon: 'key' },
  { id: 'clients', href: '/clients', label: 'MCP clients', icon: 'bot' },
  { id: 'activity', href: '/activity', label: 'Activity', icon: 'activity' },
  { id: 'receipts', href: '/receipts', label: 'Usage receipts', icon: 'receipt' },
  { id: 'audit', href: '/audit', label: 'Audit', icon: 'eye' },
  { id: 'orgs', href: '/orgs', label: 'Organisations', icon: 'users' },
  // admin: shown to instance admins alone (me.admin).
  { id: 'admin-catalog', href: '/admin/catalog', label: 'Connector catalog', icon: 'book', admin: true },
  { id: 'admin', href: '/admin/platform-keys', label: 'Platform keys', icon: 'lock', admin: true },
  { id: 'admin-caps', href: '/admin/caps', label: 'Caps usage', icon: 'chart', admin: true },
  { id: 'admin-registry', href: '/admin/registry', label: 'Connector registry', icon: 'download', admin: true },
];

const root = document.getElementById('app');
let me = null;
let generation = 0;
// pending is how many approvals wait for the signed-in user: null until known.
let pending = null;

function match(pathname) {
  for (const r of ROUTES) {
    const m = r.re.exec(pathname);
    if (m) return { route: r, params: m.slice(1) };
  }
  return { route: { page: notfound, public: true }, params: [] };
}

// navigate shows path; replace keeps the history entry (redirects).
export function navigate(path, { replace: rep = false } = {}) {
  if (rep) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  render();
}

function signInPath() {
  return '/signin?next=' + encodeURIComponent(location.pathname + location.search);
}

// paintBadge shows pending on the Approvals link: a badge, and the count in the link's name.
function paintBadge(link) {
  let badge = link.querySelector('.nav-badge');
  if (!pending) {
    if (badge) badge.remove();
    link.removeAttribute('aria-label');
    return;
  }
  if (!badge) {
    badge = h('span', { class: 'nav-badge', 'aria-hidden': 'true', 'data-testid': 'approvals-badge' });
    link.append(badge);
  }
  badge.textContent = pending > 99 ? '99+' : String(pending);
  link.setAttribute('aria-label', `Approvals, ${pending} pending`);
}

function setPending(n) {
  pending = n;
  const link = document.querySelector('nav a[data-nav=approvals]');
  if (link) paintBadge(link);
}

// refreshPending asks the server how many approvals wait; a failure keeps the badge as it was.
async function refreshPending() {
  try {
    setPending((((await api.approvals()) || {}).approvals || []).length);
  } catch { /* the badge is a hint; the Approvals page says what went wrong */ }
}

// The context every page gets.
function context(gen) {
  return {
    me,
    navigate,
    // current is false once the user has moved to another page: late answers are dropped.
    current: () => gen === generation,
    // approvalsChanged updates the Approvals badge: to n when the page knows the count, else from
    // the server (after a decision).
    approvalsChanged(n) {
      if (typeof n === 'number') setPending(n);
      else refreshPending();
    },
    // fail shows err inline in where, or sends a signed-out user to sign in.
    fail(where, err, title = 'That did not work') {
      if (err && err.status === 401) {
        me = null;
        navigate(signInPath(), { replace: true });
        return;
      }
      replace(where, notice('error', title, errorText(err)));
    },
    // signOut ends this browser's session, or with everywhere every session of the account, on the
    // server before leaving: when the server cannot record the end, the person is told and stays.
    async signOut({ everywhere = false } = {}) {
      try {
        await (everywhere ? api.logoutEverywhere() : api.logout());
      } catch (err) {
        if (err.status !== 401) {
          const main = document.getElementById('main');
          if (main) main.prepend(notice('error', everywhere ? 'You were not signed out everywhere' : 'You were not signed out', errorText(err)));
          return;
        }
      }
      me = null;
      location.assign('/signin');
    },
  };
}

// skipLink is the first thing Tab reaches on a signed-in page, before the banners and the sidebar: it
// moves focus to the page's heading (or the main content).
function skipLink() {
  return h('a', { class: 'skip-link', href: '#main', onclick: (e) => {
    e.preventDefault();
    const m = document.getElementById('main');
    if (m) (m.querySelector('h1') || m).focus();
  } }, 'Skip to main content');
}

// layout is the signed-in frame: the sidebar (on a phone, a bar whose Menu button opens
// the navigation and the account as a drawer) and the main content.
function layout(nav, main) {
  const toggle = h('button', { type: 'button', class: 'btn btn-ghost nav-toggle', 'aria-expanded': 'false', 'aria-controls': 'site-nav', 'data-testid': 'nav-toggle' },
    icon('menu'), h('span', {}, 'Menu'));
  const drawer = h('div', { class: 'drawer', id: 'site-nav' },
    h('nav', { 'aria-label': 'Main' },
      NAV.filter((n) => !n.admin || me.admin).map((n) => navLink(n, nav))),
    h('div', { class: 'account', 'data-testid': 'signed-in-as' },
      h('div', { class: 'account-label' }, 'Signed in as'),
      h('div', { class: 'account-email', title: me.email }, me.display_name || me.email),
      me.display_name ? h('div', { class: 'account-sub' }, me.email) : null,
      button('Sign out', { iconName: 'logout', kind: 'ghost', testid: 'sign-out', onclick: () => context(generation).signOut() }),
      button('Sign out everywhere', { iconName: 'logout', kind: 'ghost', testid: 'sign-out-everywhere', onclick: signOutEverywhere })));
  const mainEl = h('main', { class: 'content', id: 'main', tabindex: '-1' }, main);
  const shell = h('div', { class: 'shell' },
    h('aside', { class: 'sidebar' },
      h('div', { class: 'sidebar-top' },
        h('a', { class: 'brand', href: '/', 'data-link': true }, h('span', { class: 'brand-mark', 'aria-hidden': 'true' }, 'W'), h('span', {}, 'Workbench')),
        toggle),
      drawer),
    mainEl);
  // The drawer (a phone's navigation): the button says whether it is open; opening moves focus to
  // the current page's link, Escape closes it and gives focus back to the button.
  const setOpen = (open, focusBack) => {
    shell.classList.toggle('nav-open', open);
    toggle.setAttribute('aria-expanded', String(open));
    replace(toggle, icon(open ? 'x' : 'menu'), h('span', {}, 'Menu'));
    if (open) (drawer.querySelector('a[aria-current=page]') || drawer.querySelector('a, button')).focus();
    else if (focusBack) toggle.focus();
  };
  toggle.addEventListener('click', () => setOpen(toggle.getAttribute('aria-expanded') !== 'true', false));
  shell.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && toggle.getAttribute('aria-expanded') === 'true') {
      e.preventDefault();
      setOpen(false, true);
    }
  });
  return shell;
}

function navLink(n, nav) {
  const link = h('a', { href: n.href, 'data-link': true, 'data-nav': n.id, class: n.id === nav ? 'active' : null, 'aria-current': n.id === nav ? 'page' : null },
    icon(n.icon), h('span', {}, n.label));
  if (n.badge) paintBadge(link);
  return link;
}

// signOutEverywhere ends every session of the account, in every browser, after asking.
async function signOutEverywhere() {
  const ok = await confirmDialog({
    title: 'Sign out everywhere?',
    body: [h('p', {}, 'Every browser signed in to Workbench as you, this one included, is signed out at once. ',
      'Agents are not affected: your API key and the MCP clients you approved keep working.')],
    confirmLabel: 'Sign out everywhere',
  });
  if (ok) await context(generation).signOut({ everywhere: true });
}

async function render() {
  const gen = ++generation;
  const { route, params } = match(location.pathname);
  if (!route.public && !me) {
    try {
      me = await api.me();
      me.admin = await api.auditMe().then((x) => !!(x && x.admin), () => false);
      refreshPending();
    } catch (err) {
      if (gen !== generation) return;
      if (err.status === 401) {
        history.replaceState(null, '', signInPath());
        render();
        return;
      }
      replace(root, h('div', { class: 'center' }, h('div', { class: 'card narrow' },
        notice('error', 'The portal could not load', errorText(err)),
        button('Try again', { kind: 'primary', onclick: () => render() }))));
      return;
    }
    if (gen !== generation) return;
  }
  const main = h('div', { class: 'page' });
  const ctx = context(gen);
  ctx.me = me;
  if (route.public) {
    health.stop();
    invitations.stop();
    replace(root, h('main', { class: 'center', id: 'main' }, main));
  } else {
    // The connection-health banner and the pending-invitations notice above every signed-in page,
    // looked at again on each page.
    replace(root, skipLink(), health.slot, invitations.slot, layout(route.nav, main));
    health.refresh();
    invitations.refresh();
  }
  document.title = (route.page.title || 'Workbench') + ' · Workbench';
  try {
    await route.page.render(ctx, main, ...params);
  } catch (err) {
    if (gen === generation) ctx.fail(main, err, 'This page could not load');
  }
  if (gen === generation) {
    const heading = main.querySelector('h1');
    if (heading) heading.setAttribute('tabindex', '-1');
    if (!route.public) health.arrived();
  }
}

document.addEventListener('click', (e) => {
  const a = e.target.closest('a[data-link]');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin) return;
  e.preventDefault();
  navigate(url.pathname + url.search);
});
window.addEventListener('popstate', () => render());

render();
