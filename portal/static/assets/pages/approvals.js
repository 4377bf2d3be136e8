// Approvals: the calls of tools switched to Ask that wait for a person (handlers/approvalshttp). The
// inbox at /approvals lists the ones waiting for the signed-in user; /approvals/{id} shows one, the
// page an agent's APPROVAL_REQUIRED links to, with Approve (and "always allow", which switches the
// tool On for the agent) and Deny. An approval no longer pending shows its status and who decided it,
// when. The arguments are shown as the server sends them: secrets already redacted.

import { api } from '../api.js';
import { h, replace, notice, button, busy, errorText, pageHeader, emptyState, formatTime, ago } from '../dom.js';

const STATUS = {
  pending: { label: 'Waiting for you', badge: 'badge-warn' },
  approved: { label: 'Approved', badge: 'badge-ok' },
  used: { label: 'Approved and run', badge: 'badge-ok' },
  denied: { label: 'Denied', badge: 'badge-err' },
  expired: { label: 'Expired', badge: '' },
};

const VIA = { portal: 'in the portal', elicitation: 'in the agent’s app' };

function statusBadge(a) {
  const s = STATUS[a.status] || { label: a.status, badge: '' };
  return h('span', { class: `badge ${s.badge}`, 'data-testid': 'approval-status', 'data-status': a.status }, s.label);
}

// argumentsBlock pretty-prints the call's arguments; a long value wraps rather than scrolling sideways.
function argumentsBlock(a, id) {
  let text;
  if (a.arguments === undefined || a.arguments === null) {
    text = '{}';
  } else {
    try { text = JSON.stringify(a.arguments, null, 2); } catch { text = String(a.arguments); }
  }
  return h('div', { class: 'approval-args' },
    h('h3', { class: 'approval-args-title', id }, 'Arguments'),
    h('pre', { class: 'args', 'aria-labelledby': id, 'data-testid': 'approval-arguments', tabindex: '0' }, text));
}

function time(iso) {
  return h('time', { datetime: iso, title: formatTime(iso) }, formatTime(iso));
}

// facts is the approval's description list: what would run, for whom, and when.
function facts(a) {
  const row = (term, ...def) => [h('dt', {}, term), h('dd', {}, def)];
  return h('dl', { class: 'approval-facts' },
    row('Tool', h('code', { 'data-testid': 'approval-tool' }, a.tool)),
    row('Integration', h('span', { 'data-testid': 'approval-integration' }, a.integration)),
    row('Account', h('span', { 'data-testid': 'approval-account' }, a.account || 'default')),
    a.agent_id ? row('Agent', h('code', {}, a.agent_id)) : null,
    a.client_id ? row('MCP client', h('code', {}, a.client_id)) : null,
    row('Requested', time(a.requested_at), h('span', { class: 'muted' }, ` (${ago(a.requested_at)})`)),
    row(a.status === 'pending' ? 'Expires' : 'Expiry', time(a.expires_at)));
}

// decision says who decided a non-pending approval and when.
function decision(ctx, a) {
  if (a.status === 'pending') return null;
  if (a.status === 'expired' && !a.decided_at) {
    return h('p', { class: 'approval-decision', 'data-testid': 'approval-decision' }, 'Nobody decided before it expired at ', time(a.expires_at), '. The agent has to ask again.');
  }
  const who = a.decided_by && ctx.me && a.decided_by === ctx.me.id ? 'you' : a.decided_by ? `user ${a.decided_by}` : 'someone';
  const verb = a.status === 'denied' ? 'Denied' : 'Approved';
  return h('p', { class: 'approval-decision', 'data-testid': 'approval-decision' },
    `${verb} by ${who}`, a.via ? ` ${VIA[a.via] || `(${a.via})`}` : '', a.decided_at ? [' on ', time(a.decided_at)] : null, '.',
    a.always ? ' This tool is now always allowed for this agent.' : '',
    a.status === 'used' ? ' The agent’s call has run.' : a.status === 'approved' ? ' The call runs once, when the agent makes it again with this approval.' : '',
    a.status === 'expired' ? ' It expired before the agent used it.' : '');
}

// ---- the inbox ----

export const inbox = {
  title: 'Approvals',
  async render(ctx, main) {
    const body = h('div', { 'data-testid': 'approvals' }, h('p', { class: 'muted' }, 'Loading approvals…'));
    replace(main,
      pageHeader('Approvals', 'Calls your agents made of tools switched to Ask. Each waits here until you approve or deny it, or until it expires.'),
      body);
    let list;
    try {
      list = ((await api.approvals()) || {}).approvals || [];
    } catch (err) { ctx.fail(body, err, 'Approvals could not be loaded'); return; }
    if (!ctx.current()) return;
    ctx.approvalsChanged(list.length);
    if (list.length === 0) {
      replace(body, emptyState('check', 'Nothing is waiting for you',
        h('p', {}, 'When an agent calls a tool switched to Ask, the call waits here for your approval.')));
      return;
    }
    replace(body, h('ul', { class: 'approval-list' }, list.map((a) => {
      const headingId = `approval-${a.id}`;
      return h('li', { class: 'card approval', 'data-approval': a.id, 'aria-labelledby': headingId },
        h('div', { class: 'approval-head' },
          h('h2', { id: headingId }, h('a', { href: `/approvals/${a.id}`, 'data-link': true }, h('code', {}, a.tool))),
          statusBadge(a)),
        h('p', { class: 'muted small approval-meta' },
          `${a.integration} · account ${a.account || 'default'} · requested `, h('time', { datetime: a.requested_at, title: formatTime(a.requested_at) }, ago(a.requested_at)),
          ' · expires ', time(a.expires_at)),
        argumentsBlock(a, `${headingId}-args`),
        h('div', { class: 'card-actions' },
          h('a', { class: 'btn btn-primary', href: `/approvals/${a.id}`, 'data-link': true, 'data-testid': 'review', 'aria-label': `Review ${a.tool}` }, h('span', {}, 'Review'))));
    })));
  },
};

// ---- one approval ----

export const one = {
  title: 'Approval',
  async render(ctx, main, id) {
    const status = h('div', { class: 'status-slot', 'data-testid': 'approval-message' });
    const body = h('div', {}, h('p', { class: 'muted' }, 'Loading the approval…'));
    replace(main,
      pageHeader('Approve a tool call', 'An agent wants to run this call. Nothing runs until you approve it.'),
      status, body,
      h('p', {}, h('a', { href: '/approvals', 'data-link': true, 'data-testid': 'back-to-inbox' }, 'All approvals waiting for you')));
    let a;
    try {
      a = await api.approval(id);
    } catch (err) {
      if (!ctx.current()) return;
      if (err.status === 404) {
        replace(body);
        replace(status, notice('error', 'There is no such approval', errorText(err), ' It may belong to someone else, or the link may be wrong.'));
        return;
      }
      ctx.fail(body, err, 'The approval could not be loaded');
      return;
    }
    if (!ctx.current()) return;
    draw(ctx, body, status, a);
  },
};

// draw fills body with approval a; pending ones get the decision form.
function draw(ctx, body, status, a) {
  const card = h('section', { class: 'card approval', 'data-approval': a.id, 'aria-labelledby': 'approval-title' },
    h('div', { class: 'approval-head' },
      h('h2', { id: 'approval-title' }, a.status === 'pending' ? ['Run ', h('code', {}, a.tool), '?'] : h('code', {}, a.tool)),
      statusBadge(a)),
    facts(a),
    argumentsBlock(a, 'approval-args-title'),
    decision(ctx, a),
    a.status === 'pending' ? decideForm(ctx, body, status, a) : null);
  replace(body, card);
}

function decideForm(ctx, body, status, a) {
  const always = h('input', { type: 'checkbox', id: 'approval-always', name: 'always', 'aria-describedby': 'approval-always-help', 'data-testid': 'approval-always' });
  const approve = button('Approve', { kind: 'primary', iconName: 'check', testid: 'approve' });
  const deny = button('Deny', { kind: 'danger-outline', testid: 'deny' });
  const decide = (yes) => async () => {
    const b = yes ? approve : deny;
    deny.disabled = true;
    approve.disabled = true;
    await busy(b, async () => {
      let decided;
      let warning = '';
      try {
        const res = (await (yes ? api.approve(a.id, always.checked) : api.deny(a.id))) || {};
        decided = res.approval;
        warning = res.warning || '';
      } catch (err) {
        if (err.status === 401) { ctx.fail(status, err); return; }
        // Show where it stands now: a 409 means it was decided elsewhere meanwhile, or expired.
        let now = null;
        try { now = await api.approval(a.id); } catch { /* the message below stands */ }
        if (!ctx.current()) return;
        if (now) draw(ctx, body, status, now);
        const title = err.status === 409 ? 'This approval can no longer be decided'
          : yes && now && (now.status === 'approved' || now.status === 'used') ? `Approved once, but ${a.tool} is not always allowed`
            : yes ? 'The call was not approved' : 'The call was not denied';
        say(status, notice('error', title, errorText(err)));
        return;
      }
      if (!ctx.current()) return;
      draw(ctx, body, status, decided || { ...a, status: yes ? 'approved' : 'denied' });
      say(status, yes && warning
        ? notice('error', `Approved once, but ${a.tool} is not always allowed`, warning)
        : yes
        ? notice('success', `Approved: ${a.tool}`, decided && decided.always
          ? `The call runs once when the agent makes it again, and ${a.tool} is now always allowed for this agent.`
          : 'The call runs once when the agent makes it again with this approval.')
        : notice('success', `Denied: ${a.tool}`, 'The call will not run. The agent is told it was denied.'));
    });
    // busy re-enabled the pressed button; a decided approval has no buttons left, a failed one keeps both.
    deny.disabled = false;
    approve.disabled = false;
    ctx.approvalsChanged();
  };
  approve.addEventListener('click', decide(true));
  deny.addEventListener('click', decide(false));
  return h('div', { class: 'approval-decide', 'data-testid': 'decide' },
    h('div', { class: 'checkbox-field' },
      always,
      h('label', { for: 'approval-always' }, 'Always allow this tool for this agent')),
    h('p', { class: 'field-help', id: 'approval-always-help' }, `Switches ${a.tool} On for this agent, so its later calls run without asking.`),
    h('div', { class: 'form-actions' }, approve, deny));
}

// say shows an outcome in the status slot and moves the keyboard there, so a screen reader reads it
// and the next Tab continues from the outcome (the pressed button is gone).
function say(status, el) {
  replace(status, el);
  el.setAttribute('tabindex', '-1');
  el.focus();
}
