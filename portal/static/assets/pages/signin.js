// Sign in: the SSO providers the server has, or — when it has none — where to find the one-time
// sign-in link the server printed in its log. ?next= is carried through sign-in.

import { api } from '../api.js';
import { h, replace, notice, errorText, safeNext } from '../dom.js';

export const title = 'Sign in';

export async function render(ctx, main) {
  const next = safeNext(new URLSearchParams(location.search).get('next') || '');
  // Already signed in: go where the user was headed.
  try {
    await api.me();
    location.replace(next || '/');
    return;
  } catch (err) {
    if (err.status !== 401) {
      replace(main, card(notice('error', 'The server could not be reached', errorText(err))));
      return;
    }
  }
  const body = h('div', { class: 'signin-body' }, h('p', { class: 'muted' }, 'Checking how this server signs people in…'));
  replace(main, card(body));
  let providers = [];
  try {
    const res = await api.providers();
    providers = (res && res.providers) || [];
  } catch (err) {
    replace(body, notice('error', 'Sign-in options could not be loaded', errorText(err)));
    return;
  }
  if (!ctx.current()) return;
  if (providers.length === 0) {
    replace(body,
      h('div', { class: 'onetime', 'data-testid': 'one-time-link-help' },
        h('h2', {}, 'Use the sign-in link from the server log'),
        h('p', {}, 'This server has no single sign-on configured, so it printed a one-time sign-in link in its log when it started.'),
        h('ol', {},
          h('li', {}, 'Look at the output of ', h('code', {}, 'workbench serve'), ' (or your container logs) for a line with ', h('code', {}, '/auth/link/'), '.'),
          h('li', {}, 'Open that link in this browser. It works once and expires 15 minutes after the server started.'),
          h('li', {}, 'If it has expired or was used, print a new one: run ', h('code', {}, 'workbench signin-link'), ' beside the server, with the same environment (it prints a link for the admin user; ', h('code', {}, '--email'), ' names someone else).')),
        h('p', { class: 'muted small' }, 'To let people sign in with Google or Keycloak instead, configure single sign-on in the server\'s environment.')));
    return;
  }
  const q = next ? '?next=' + encodeURIComponent(next) : '';
  replace(body,
    h('p', { class: 'muted' }, 'Use your organisation\'s account. Workbench has no passwords of its own.'),
    h('div', { class: 'providers' },
      providers.map((p) => h('a', { class: 'btn btn-provider', href: `/api/auth/${encodeURIComponent(p.id)}/login${q}`, 'data-testid': `provider-${p.id}` },
        h('span', { class: 'provider-initial', 'aria-hidden': 'true' }, (p.name || p.id).slice(0, 1).toUpperCase()),
        h('span', {}, `Continue with ${p.name || p.id}`)))));
}

function card(...body) {
  return h('div', { class: 'card signin' },
    h('div', { class: 'signin-brand' }, h('span', { class: 'brand-mark large' }, 'W')),
    h('h1', {}, 'Sign in to Workbench'),
    h('p', { class: 'lead' }, 'Workbench holds the credentials your AI agents use. Sign in to manage your API key, integrations and connected clients.'),
    body);
}
