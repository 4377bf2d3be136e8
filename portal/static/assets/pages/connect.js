// The claim link an agent hands its user: /connect/<token>. The link names the workbench account it
// was made for; redeeming it proves, with this browser's session, that the person opening it is that
// account, and only then does the server build the provider's consent URL (spec: "Connecting an
// integration").

import { api } from '../api.js';
import { h, replace, notice, errorText, button, pageHeader } from '../dom.js';

export const title = 'Connect';

export async function render(ctx, main, token) {
  const body = h('div', { class: 'card connect', 'data-testid': 'connect-status' }, h('p', { class: 'muted' }, 'Checking the link…'));
  replace(main, pageHeader('Connect an integration', 'Your agent asked to connect an integration on your behalf.'), body);
  let res;
  try {
    res = await api.redeem(decodeURIComponent(token));
  } catch (err) {
    if (!ctx.current()) return;
    if (err.status === 401) { ctx.fail(body, err); return; }
    replace(body, explain(ctx, err));
    return;
  }
  if (!ctx.current()) return;
  if (res && res.url) {
    replace(body, notice('info', `Taking you to ${res.integration || 'the provider'}…`, 'Approve access there; you will come back here when it is done.'));
    location.assign(res.url);
    return;
  }
  if (res && res.type === 'cookie') {
    // A cookie integration: the person signs in to the service in their live browser session, then
    // captures its cookies there.
    try {
      const live = await api.liveURL(res.integration, true);
      if (!ctx.current()) return;
      const u = new URL(live.url, location.href);
      // The link's account (none or "default": the default account) is the one the capture stores.
      if (res.account && res.account !== 'default') u.searchParams.set('account', res.account);
      ctx.navigate(u.pathname + u.search, { replace: true });
    } catch (err) {
      if (ctx.current()) replace(body, notice('error', 'The live browser could not start', errorText(err)));
    }
    return;
  }
  replace(body, notice('success', 'Nothing more to do here', 'This connection needs no consent page.'),
    h('p', {}, h('a', { href: '/integrations', 'data-link': true }, 'See your integrations')));
}

function explain(ctx, err) {
  switch (err.code) {
    case 'ACCOUNT_MISMATCH':
      return h('div', { 'data-testid': 'account-mismatch' },
        notice('error', 'This link was made for another workbench account',
          h('p', {}, 'You are signed in as ', h('strong', {}, ctx.me.email), '. The agent that made this link acts for a different account, so it cannot connect an integration to yours.'),
          h('p', {}, 'Sign out and sign in as the account the agent uses, then open the link again — or ask the agent for a new link made for you.')),
        h('div', { class: 'actions' }, button('Sign out', { kind: 'primary', iconName: 'logout', onclick: () => ctx.signOut() })));
    case 'LINK_EXPIRED':
      return notice('error', 'This link has expired or was already used',
        'Connect links work once and only for a few minutes. Ask your agent to start the connection again for a fresh link.');
    case 'INVALID_LINK':
      return notice('error', 'This link is not valid',
        'It may have been cut off when it was copied. Open the full link the agent gave you, or ask it for a new one.');
  }
  return notice('error', 'The connection could not start', errorText(err));
}
