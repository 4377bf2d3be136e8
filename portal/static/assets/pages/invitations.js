// Invitations: the signed-in user's pending invitations to organisations (GET /api/orgs/invitations),
// each with Accept (a member at once; the portal opens the organisation) and Decline. They show on
// their own page (/invitations), on the Organisations page, and as a notice above every other
// signed-in page while any waits, so a person who signs in for the first time finds them.
//
// The notice lives in one element the layout mounts above every page (app.js), beside the
// connection-health banner; it is a polite live region.

import { request } from '../api.js';
import { h, replace, notice, button, busy, pageHeader, emptyState, formatTime, ago, icon } from '../dom.js';

const enc = encodeURIComponent;
export const invitationsApi = {
  mine: () => request('GET', '/api/orgs/invitations'),
  accept: (id) => request('POST', `/api/orgs/invitations/${enc(id)}/accept`),
  decline: (id) => request('POST', `/api/orgs/invitations/${enc(id)}/decline`),
};

// The pages that list the invitations themselves, where the notice would only repeat them.
const LISTED = ['/invitations', '/orgs'];

// slot is the notice's place: empty (and taking no room) while nothing waits.
export const slot = h('div', { class: 'invite-slot', role: 'status', 'data-testid': 'invite-slot' });

let seq = 0;
let known = [];

function draw() {
  if (!known.length || LISTED.includes(location.pathname)) {
    replace(slot);
    return;
  }
  const title = known.length === 1
    ? `You are invited to join ${known[0].organization_name}`
    : `You are invited to join ${known.length} organisations`;
  replace(slot, h('aside', { class: 'invite-banner', 'aria-labelledby': 'invite-banner-title', 'data-testid': 'invite-banner' },
    icon('users'),
    h('div', { class: 'invite-banner-body' },
      h('h2', { id: 'invite-banner-title', class: 'invite-banner-title' }, title),
      h('p', { class: 'invite-banner-text' }, 'You become a member when you accept.'),
      h('a', { href: '/invitations', 'data-link': true, class: 'btn btn-primary btn-small', 'data-testid': 'invite-review' },
        h('span', {}, known.length === 1 ? 'Review the invitation' : 'Review the invitations')))));
}

// refresh asks the server for the invitations and redraws the notice; a failure keeps it as it was
// (the Invitations page says what went wrong).
export async function refresh() {
  const n = ++seq;
  try {
    const invs = ((await invitationsApi.mine()) || {}).invitations || [];
    if (n !== seq) return;
    known = invs;
  } catch { /* a hint only */ }
  if (n !== seq) return;
  draw();
  // checks counts the looks that finished (tests wait on it).
  slot.dataset.checks = String(Number(slot.dataset.checks || 0) + 1);
}

// stop forgets the notice (signed out).
export function stop() {
  seq++;
  known = [];
  replace(slot);
}

// invitationsCard lists invs (the caller's pending invitations) with Accept and Decline; null when
// none. Accept opens the organisation; Decline calls rerender, then says it is done in status.
export function invitationsCard(ctx, invs, status, rerender) {
  if (!invs.length) return null;
  const items = invs.map((inv) => {
    const name = inv.organization_name;
    const accept = button('Accept', { kind: 'primary', testid: 'accept-invitation' });
    const decline = button('Decline', { kind: 'danger-outline', testid: 'decline-invitation' });
    accept.setAttribute('aria-label', `Accept the invitation to ${name}`);
    decline.setAttribute('aria-label', `Decline the invitation to ${name}`);
    accept.addEventListener('click', () => busy(accept, async () => {
      let o;
      try {
        o = await invitationsApi.accept(inv.id);
      } catch (err) { ctx.fail(status, err, 'The invitation was not accepted'); return; }
      refresh();
      ctx.navigate(`/orgs/${o.id}`);
    }));
    decline.addEventListener('click', () => busy(decline, async () => {
      try {
        await invitationsApi.decline(inv.id);
      } catch (err) { ctx.fail(status, err, 'The invitation was not declined'); return; }
      refresh();
      await rerender();
      replace(status, notice('success', `You declined the invitation to ${name}`));
    }));
    return h('li', { class: 'invitation', 'data-invitation-org': name, 'data-invitation-id': inv.id },
      h('div', { class: 'invitation-what' },
        h('span', { class: 'strong' }, name), ' ',
        h('span', { class: 'tag' }, inv.role),
        h('span', { class: 'muted small', title: formatTime(inv.invited_at) }, ` invited ${ago(inv.invited_at)}`)),
      h('div', { class: 'invitation-actions' }, accept, decline));
  });
  return h('section', { class: 'card', 'aria-labelledby': 'my-invitations-title' },
    h('h2', { id: 'my-invitations-title' }, 'Invitations'),
    h('p', { class: 'muted' }, 'You become a member when you accept.'),
    h('ul', { class: 'invitation-list', 'data-testid': 'my-invitations' }, items));
}

// page is /invitations: the caller's pending invitations, or a word that none waits.
export const page = {
  title: 'Invitations',
  async render(ctx, main) {
    const status = h('div', { class: 'status-slot' });
    const body = h('div', {}, h('p', { class: 'muted' }, 'Loading invitations…'));
    replace(main, pageHeader('Invitations', 'Organisations that invited the address you signed in with.',
      h('a', { href: '/orgs', 'data-link': true, class: 'btn btn-ghost' }, 'All organisations')), status, body);
    const load = async () => {
      let invs;
      try {
        invs = ((await invitationsApi.mine()) || {}).invitations || [];
      } catch (err) { ctx.fail(body, err, 'Your invitations could not be loaded'); return; }
      if (!ctx.current()) return;
      replace(body, invitationsCard(ctx, invs, status, load) || emptyState('check', 'No invitations wait for you',
        h('p', {}, 'When an organisation invites your address, it shows here until you accept or decline.')));
    };
    await load();
  },
};
