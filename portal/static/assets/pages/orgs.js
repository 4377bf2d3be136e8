// Organisations, guilds and agents (handlers/orgs): the list of the caller's organisations, one
// organisation's page (members and invitations, guilds, agents and their API keys), and one guild's
// page (its members and agents). What a person may change follows their role; the server decides
// again on every request.

import { request } from '../api.js';
import { h, replace, notice, button, busy, confirmDialog, pageHeader, emptyState, formatTime, ago, secretField, labelled } from '../dom.js';
import { orgTools } from './orgtools.js';
import { pluginSwitches } from './pluginswitches.js';
import { budgetsCard } from './budgets.js';
import { webhooksCard } from './webhooks.js';
import { invitationsApi, invitationsCard } from './invitations.js';

const enc = encodeURIComponent;
const orgsApi = {
  list: () => request('GET', '/api/orgs'),
  create: (name) => request('POST', '/api/orgs', { name }),
  get: (org) => request('GET', `/api/orgs/${enc(org)}`),
  rename: (org, name) => request('PATCH', `/api/orgs/${enc(org)}`, { name }),
  invite: (org, email, role) => request('POST', `/api/orgs/${enc(org)}/members`, { email, role }),
  setRole: (org, user, role) => request('PATCH', `/api/orgs/${enc(org)}/members/${enc(user)}`, { role }),
  removeMember: (org, user) => request('DELETE', `/api/orgs/${enc(org)}/members/${enc(user)}`),
  revokeInvitation: (org, email) => request('DELETE', `/api/orgs/${enc(org)}/invitations/${enc(email)}`),
  createGuild: (org, name) => request('POST', `/api/orgs/${enc(org)}/guilds`, { name }),
  guild: (org, guild) => request('GET', `/api/orgs/${enc(org)}/guilds/${enc(guild)}`),
  renameGuild: (org, guild, name) => request('PATCH', `/api/orgs/${enc(org)}/guilds/${enc(guild)}`, { name }),
  deleteGuild: (org, guild) => request('DELETE', `/api/orgs/${enc(org)}/guilds/${enc(guild)}`),
  addGuildMember: (org, guild, user) => request('PUT', `/api/orgs/${enc(org)}/guilds/${enc(guild)}/members/${enc(user)}`),
  removeGuildMember: (org, guild, user) => request('DELETE', `/api/orgs/${enc(org)}/guilds/${enc(guild)}/members/${enc(user)}`),
  createAgent: (org, name, guildID) => request('POST', `/api/orgs/${enc(org)}/agents`, guildID ? { name, guild_id: guildID } : { name }),
  updateAgent: (org, agent, body) => request('PATCH', `/api/orgs/${enc(org)}/agents/${enc(agent)}`, body),
  deleteAgent: (org, agent) => request('DELETE', `/api/orgs/${enc(org)}/agents/${enc(agent)}`),
  mintKey: (org, agent) => request('POST', `/api/orgs/${enc(org)}/agents/${enc(agent)}/apikey`),
  revokeKey: (org, agent) => request('DELETE', `/api/orgs/${enc(org)}/agents/${enc(agent)}/apikey`),
};

const ROLES = ['member', 'approver', 'admin', 'owner'];
const manages = (role) => role === 'owner' || role === 'admin';

function roleSelect(value, testid, allowOwner) {
  return h('select', { 'data-testid': testid, 'aria-label': 'Role' },
    ROLES.filter((r) => r !== 'owner' || allowOwner).map((r) => h('option', { value: r, selected: r === value }, r)));
}

// inlineForm is a one-line form: its inputs, then a submit button; onsubmit gets the form.
function inlineForm(testid, label, inputs, onsubmit) {
  const submit = button(label, { kind: 'primary', type: 'submit', testid: testid + '-submit' });
  const form = h('form', { class: 'form-actions', 'data-testid': testid, novalidate: true }, inputs.map((i) => (i.getAttribute('aria-label') ? labelled(i) : i)), submit);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    await busy(submit, () => onsubmit(form));
  });
  return form;
}

function card(title, ...body) {
  return h('section', { class: 'card' }, h('h2', {}, title), body);
}

function table(heads, rows, testid) {
  return h('div', { class: 'table-card' }, h('table', { class: 'table', 'data-testid': testid },
    h('thead', {}, h('tr', {}, heads.map((x) => h('th', {}, x)))),
    h('tbody', {}, rows)));
}

// --- the list ---

export const list = {
  title: 'Organisations',
  async render(ctx, main) {
    const status = h('div', { class: 'status-slot' });
    const pending = h('div', { 'data-testid': 'pending-slot' });
    const body = h('div', {}, h('p', { class: 'muted' }, 'Loading organisations…'));
    const name = h('input', { type: 'text', name: 'name', placeholder: 'Organisation name', 'aria-label': 'Organisation name', 'data-testid': 'new-org-name' });
    const form = inlineForm('new-org', 'Create organisation', [name], async () => {
      try {
        const org = await orgsApi.create(name.value);
        ctx.navigate(`/orgs/${org.id}`);
      } catch (err) { ctx.fail(status, err, 'The organisation was not created'); }
    });
    replace(main, pageHeader('Organisations', 'The groups you belong to. Each has members with a role, guilds (teams), and agents: the identities your API keys and MCP clients act as.'),
      status, pending, body, card('New organisation', form));
    const loadPending = async () => {
      let invs;
      try {
        invs = ((await invitationsApi.mine()) || {}).invitations || [];
      } catch (err) { ctx.fail(pending, err, 'Your invitations could not be loaded'); return; }
      if (!ctx.current()) return;
      replace(pending, invitationsCard(ctx, invs, status, loadPending));
    };
    let orgs;
    try {
      [orgs] = await Promise.all([orgsApi.list().then((r) => (r || {}).organizations || []), loadPending()]);
    } catch (err) { ctx.fail(body, err, 'Organisations could not be loaded'); return; }
    if (!ctx.current()) return;
    replace(body, table(['Organisation', 'Your role', 'Created'], orgs.map((o) => h('tr', { 'data-org': o.id },
      h('td', {}, h('a', { href: `/orgs/${o.id}`, 'data-link': true, class: 'strong' }, o.name), o.personal ? h('span', { class: 'tag' }, 'personal') : null),
      h('td', {}, h('span', { class: 'tag' }, o.role)),
      h('td', { title: formatTime(o.created_at) }, ago(o.created_at)))), 'orgs'));
  },
};

// --- one organisation ---

export const org = {
  title: 'Organisation',
  async render(ctx, main, orgID) {
    const status = h('div', { class: 'status-slot' });
    const secret = h('div', { class: 'secret-slot', 'data-testid': 'key-slot' });
    const body = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
    replace(main, body);
    const load = async () => {
      let page;
      try {
        page = await orgsApi.get(orgID);
      } catch (err) {
        if (err.status === 404) { replace(body, emptyState('alert', 'No such organisation', h('p', {}, 'It does not exist, or you are not a member.'))); return; }
        ctx.fail(body, err, 'The organisation could not be loaded'); return;
      }
      if (!ctx.current()) return;
      replace(body, orgPage(ctx, page, status, secret, load));
    };
    await load();
  },
};

function orgPage(ctx, page, status, secret, reload) {
  const o = page.organization;
  const me = ctx.me.id;
  const admin = manages(o.role);
  const emails = new Map(page.members.map((m) => [m.user_id, m.email]));
  const guildNames = new Map(page.guilds.map((g) => [g.id, g.name]));
  // act runs a change, then reloads the page, then says it is done: a notice on screen means the
  // page already shows the change.
  const act = (what, fn, done) => async () => {
    let msg;
    try {
      await fn();
      msg = typeof done === 'function' ? done() : done;
    } catch (err) { ctx.fail(status, err, what); return; }
    replace(secret);
    await reload();
    if (msg) replace(status, notice('success', msg));
  };

  // Members. The last owner is offered neither Leave nor Remove: the server refuses both (an
  // organisation keeps an owner), so the page says what to do instead.
  const owners = page.members.filter((m) => m.role === 'owner').length;
  const memberRows = page.members.map((m) => {
    let roleCell = h('span', { class: 'tag', 'data-testid': 'member-role' }, m.role);
    if (admin && m.user_id !== me) {
      const sel = roleSelect(m.role, 'member-role-select', o.role === 'owner');
      sel.addEventListener('change', act(`The role of ${m.email} was not changed`, () => orgsApi.setRole(o.id, m.user_id, sel.value), () => `${m.email} is now ${sel.value}`));
      roleCell = sel;
    }
    const soleOwner = m.role === 'owner' && owners === 1;
    // Only an owner removes an owner.
    const canRemove = (admin || m.user_id === me) && !(o.personal && m.role === 'owner') && !soleOwner
      && !(m.role === 'owner' && o.role !== 'owner');
    const remove = canRemove ? button(m.user_id === me ? 'Leave' : 'Remove', { kind: 'danger-outline', testid: 'remove-member' }) : null;
    if (remove) remove.setAttribute('aria-label', m.user_id === me ? `Leave ${o.name}` : `Remove ${m.email}`);
    const why = soleOwner && m.user_id === me && !o.personal
      ? h('span', { class: 'muted small', 'data-testid': 'sole-owner' }, 'The only owner: make another member owner before you can leave.')
      : null;
    if (remove) {
      remove.addEventListener('click', async () => {
        const ok = await confirmDialog({ title: m.user_id === me ? `Leave ${o.name}?` : `Remove ${m.email}?`,
          body: [h('p', {}, 'Their agents in this organisation are deleted and the agents\u2019 API keys stop working at once.')], confirmLabel: m.user_id === me ? 'Leave' : 'Remove' });
        if (!ok) return;
        await busy(remove, act('The member was not removed', () => orgsApi.removeMember(o.id, m.user_id), `${m.email} is no longer a member`));
        if (m.user_id === me) ctx.navigate('/orgs');
      });
    }
    return h('tr', { 'data-member': m.email },
      h('td', {}, h('span', { class: 'strong' }, m.email), m.user_id === me ? h('span', { class: 'muted small' }, ' (you)') : null),
      h('td', {}, roleCell),
      h('td', { title: formatTime(m.added_at) }, ago(m.added_at)),
      h('td', { class: 'right' }, remove || why));
  });
  const inviteEmail = h('input', { type: 'text', name: 'email', placeholder: 'name@example.com', 'aria-label': 'Email address', 'data-testid': 'invite-email' });
  const inviteRole = roleSelect('member', 'invite-role', o.role === 'owner');
  const invite = admin ? inlineForm('invite', 'Invite', [inviteEmail, inviteRole], async () => {
    let res;
    try {
      res = await orgsApi.invite(o.id, inviteEmail.value, inviteRole.value);
    } catch (err) { ctx.fail(status, err, 'The invitation was not sent'); return; }
    replace(secret);
    await reload();
    replace(status, notice('success', `${res.email} is invited`,
      'They become a member when they accept, signed in with that address.'));
  }) : null;
  const invitations = admin && page.invitations.length ? table(['Invited address', 'Role', 'Invited', ''], page.invitations.map((inv) => {
    const revoke = button('Withdraw', { kind: 'danger-outline', testid: 'revoke-invitation' });
    revoke.addEventListener('click', () => busy(revoke, act('The invitation was not withdrawn', () => orgsApi.revokeInvitation(o.id, inv.erased ? inv.id : inv.email), `The invitation of ${inv.email} was withdrawn`)));
    return h('tr', { 'data-invitation': inv.email }, h('td', {}, inv.email), h('td', {}, h('span', { class: 'tag' }, inv.role)),
      h('td', { title: formatTime(inv.invited_at) }, ago(inv.invited_at)), h('td', { class: 'right' }, revoke));
  }), 'invitations') : null;

  // Guilds.
  const guildName = h('input', { type: 'text', name: 'guild', placeholder: 'Guild name', 'aria-label': 'Guild name', 'data-testid': 'new-guild-name' });
  const newGuild = admin ? inlineForm('new-guild', 'Create guild', [guildName], act('The guild was not created', () => orgsApi.createGuild(o.id, guildName.value), 'The guild was created')) : null;
  const guilds = page.guilds.length ? table(['Guild', 'Members', 'Agents'], page.guilds.map((g) => h('tr', { 'data-guild': g.name },
    h('td', {}, h('a', { href: `/orgs/${o.id}/guilds/${g.id}`, 'data-link': true, class: 'strong' }, g.name)),
    h('td', {}, String(g.members.length)),
    h('td', {}, String(page.agents.filter((a) => a.guild_id === g.id).length)))), 'guilds')
    : h('p', { class: 'muted' }, 'No guilds yet.', admin ? ' A guild is a team: its agents share the logins the guild holds.' : '');

  // Agents: a row's Plugin tools button shows that agent's switches below the table.
  const agentTools = h('div', { 'data-testid': 'agent-plugin-switches' });
  // An agent's budgets show to its owner alone (the server answers anyone else 403 or 404, and the
  // card stays hidden).
  const showAgentTools = (a) => replace(agentTools, pluginSwitches({ scope: 'agent', id: a.id, label: `agent ${a.name}` }),
    budgetsCard({ scope: 'agent', id: a.id, label: `agent ${a.name}` }));
  const agentName = h('input', { type: 'text', name: 'agent', placeholder: 'Agent name', 'aria-label': 'Agent name', 'data-testid': 'new-agent-name' });
  const agentGuild = h('select', { 'aria-label': 'Guild', 'data-testid': 'new-agent-guild' }, h('option', { value: '' }, 'No guild'),
    page.guilds.map((g) => h('option', { value: g.id }, g.name)));
  const newAgent = inlineForm('new-agent', 'Create agent', [agentName, agentGuild],
    act('The agent was not created', () => orgsApi.createAgent(o.id, agentName.value, agentGuild.value), 'The agent was created'));

  return [
    pageHeader(o.name, `You are ${/^[aeiou]/.test(o.role) ? 'an' : 'a'} ${o.role} of this ${o.personal ? 'personal ' : ''}organisation.`,
      h('a', { href: '/orgs', 'data-link': true, class: 'btn btn-ghost' }, 'All organisations')),
    status, secret,
    card('Members', table(['Member', 'Role', 'Joined', ''], memberRows, 'members'), invite, invitations),
    card('Guilds', guilds, newGuild),
    card('Agents', h('p', { class: 'muted small' }, 'An agent is what an MCP credential acts as: its API key, or the MCP clients you approve for it. Its logins and tool switches come from this organisation, then its guild, then the agent itself.'),
      agentsTable(ctx, o, page.agents, page.guilds, emails, guildNames, status, secret, act, reload, showAgentTools), newAgent),
    admin ? orgTools(o) : null,
    admin ? pluginSwitches({ scope: 'organization', id: o.id, label: 'this organisation' }) : null,
    agentTools,
    admin ? budgetsCard({ scope: 'organization', id: o.id, label: 'this organisation' }) : null,
    admin ? webhooksCard(o) : null,
  ];
}

function agentsTable(ctx, o, agents, guilds, emails, guildNames, status, secret, act, reload, showTools) {
  const me = ctx.me.id;
  if (!agents.length) return h('p', { class: 'muted' }, 'No agents yet.');
  return table(['Agent', 'Owner', 'Guild', 'Credentials', ''], agents.map((a) => {
    const mine = a.owner_id === me;
    const actions = [];
    if (mine) {
      const mint = button(a.api_key ? 'Rotate key' : 'Create key', { kind: 'secondary', iconName: 'key', testid: 'agent-key' });
      mint.addEventListener('click', async () => {
        if (a.api_key) {
          const ok = await confirmDialog({ title: `Rotate the key of ${a.name}?`, body: [h('p', {}, 'The current key stops working at once.')], confirmLabel: 'Rotate' });
          if (!ok) return;
        }
        await busy(mint, async () => {
          let k;
          try {
            k = await orgsApi.mintKey(o.id, a.id);
          } catch (err) { ctx.fail(status, err, 'The key was not made'); return; }
          await reload();
          replace(status);
          replace(secret, notice('success', `The API key of ${a.name} is ready`, 'Copy it now: it is shown once. Use it as a Bearer token at ', h('code', {}, location.origin + '/mcp'), '.'),
            secretField(k.key, `API key of ${a.name}`));
        });
      });
      actions.push(mint);
    }
    if (mine && a.api_key) {
      const revoke = button('Revoke key', { kind: 'danger-outline', testid: 'agent-key-revoke' });
      revoke.addEventListener('click', () => busy(revoke, act('The key was not revoked', () => orgsApi.revokeKey(o.id, a.id), `The key of ${a.name} was revoked`)));
      actions.push(revoke);
    }
    if (mine || manages(o.role)) {
      const tools = button('Plugin tools', { kind: 'secondary', testid: 'agent-plugin-tools' });
      tools.addEventListener('click', () => showTools(a));
      actions.push(tools);
    }
    if ((mine || manages(o.role)) && !a.default) {
      const del = button('Delete', { kind: 'danger-outline', iconName: 'trash', testid: 'agent-delete' });
      del.addEventListener('click', async () => {
        const ok = await confirmDialog({ title: `Delete ${a.name}?`, body: [h('p', {}, 'Its API key stops working at once.')], confirmLabel: 'Delete agent' });
        if (ok) await busy(del, act('The agent was not deleted', () => orgsApi.deleteAgent(o.id, a.id), `${a.name} was deleted`));
      });
      actions.push(del);
    }
    return h('tr', { 'data-agent': a.id, 'data-agent-name': a.name },
      h('td', {}, h('span', { class: 'strong' }, a.name), a.default ? h('span', { class: 'tag' }, 'default') : null,
        a.default ? h('div', { class: 'muted small' }, 'Keys and MCP clients made before agents existed act as this agent.') : null),
      h('td', {}, emails.get(a.owner_id) || a.owner_id),
      h('td', { 'data-testid': 'agent-guild' }, guildCell(o, a, mine, guilds, guildNames, act)),
      h('td', {}, a.api_key ? h('code', { 'data-testid': 'agent-key-prefix', title: 'made ' + formatTime(a.api_key.minted_at) }, a.api_key.prefix)
        : h('span', { class: 'muted', 'data-testid': 'agent-key-prefix' }, 'none'),
      (a.oauth_clients || []).length ? h('div', { class: 'small', 'data-testid': 'agent-clients' }, 'MCP clients: ',
        a.oauth_clients.map((c) => h('span', { class: 'tag', title: 'last used ' + formatTime(c.last_used_at) }, c.client_name || c.client_id))) : null),
      h('td', { class: 'right' }, h('div', { class: 'actions' }, actions)));
  }), 'agents');
}

// guildCell shows an agent's guild, as a select that moves it when the person may (its owner, an
// owner or an admin; the server checks that the agent's owner is in the guild unless a manager moves it).
function guildCell(o, a, mine, guilds, guildNames, act) {
  if (!(mine || manages(o.role)) || guilds.length === 0) {
    return a.guild_id ? (guildNames.get(a.guild_id) || a.guild_id) : h('span', { class: 'muted' }, 'none');
  }
  const sel = h('select', { 'aria-label': `Guild of ${a.name}`, 'data-testid': 'agent-guild-select' },
    h('option', { value: '', selected: !a.guild_id }, 'No guild'),
    guilds.map((g) => h('option', { value: g.id, selected: g.id === a.guild_id }, g.name)));
  sel.addEventListener('change', act(`${a.name} was not moved`, () => orgsApi.updateAgent(o.id, a.id, { guild_id: sel.value || null }),
    () => (sel.value ? `${a.name} is now in ${guildNames.get(sel.value)}` : `${a.name} is in no guild now`)));
  return sel;
}

// --- one guild ---

export const guild = {
  title: 'Guild',
  async render(ctx, main, orgID, guildID) {
    const status = h('div', { class: 'status-slot' });
    const body = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
    replace(main, status, body);
    const load = async () => {
      let page, orgPage;
      try {
        [page, orgPage] = await Promise.all([orgsApi.guild(orgID, guildID), orgsApi.get(orgID)]);
      } catch (err) {
        if (err.status === 404) { replace(body, emptyState('alert', 'No such guild', h('p', {}, 'It does not exist, or you are not a member of its organisation.'))); return; }
        ctx.fail(body, err, 'The guild could not be loaded'); return;
      }
      if (!ctx.current()) return;
      replace(body, guildPage(ctx, page, orgPage, status, load));
    };
    await load();
  },
};

function guildPage(ctx, page, orgPage, status, reload) {
  const o = page.organization;
  const g = page.guild;
  const admin = manages(o.role);
  const me = ctx.me.id;
  const act = (what, fn, done) => async () => {
    try {
      await fn();
    } catch (err) { ctx.fail(status, err, what); return; }
    await reload();
    if (done) replace(status, notice('success', done));
  };
  const members = page.members.length ? table(['Member', 'Role in the organisation', ''], page.members.map((m) => {
    const remove = admin || m.user_id === me ? button(m.user_id === me ? 'Leave guild' : 'Remove', { kind: 'danger-outline', testid: 'remove-guild-member' }) : null;
    if (remove) remove.addEventListener('click', () => busy(remove, act('The member was not removed', () => orgsApi.removeGuildMember(o.id, g.id, m.user_id), `${m.email} left ${g.name}`)));
    return h('tr', { 'data-member': m.email }, h('td', {}, m.email), h('td', {}, h('span', { class: 'tag' }, m.role)), h('td', { class: 'right' }, remove));
  }), 'guild-members') : h('p', { class: 'muted' }, 'No members yet.');
  const outside = orgPage.members.filter((m) => !g.members.includes(m.user_id));
  const pick = h('select', { 'aria-label': 'Member to add', 'data-testid': 'add-guild-member-select' }, outside.map((m) => h('option', { value: m.user_id }, m.email)));
  const add = admin && outside.length ? inlineForm('add-guild-member', 'Add to guild', [pick],
    act('The member was not added', () => orgsApi.addGuildMember(o.id, g.id, pick.value), 'The member was added')) : null;
  const newName = h('input', { type: 'text', name: 'name', value: g.name, 'aria-label': 'Guild name', 'data-testid': 'guild-name' });
  const rename = admin ? inlineForm('rename-guild', 'Rename', [newName], act('The guild was not renamed', () => orgsApi.renameGuild(o.id, g.id, newName.value), 'The guild was renamed')) : null;
  const del = admin ? button('Delete guild', { kind: 'danger-outline', iconName: 'trash', testid: 'delete-guild' }) : null;
  if (del) {
    del.addEventListener('click', async () => {
      const ok = await confirmDialog({ title: `Delete ${g.name}?`, body: [h('p', {}, 'Its agents stay, in no guild.')], confirmLabel: 'Delete guild' });
      if (!ok) return;
      try {
        await orgsApi.deleteGuild(o.id, g.id);
        ctx.navigate(`/orgs/${o.id}`);
      } catch (err) { ctx.fail(status, err, 'The guild was not deleted'); }
    });
  }
  const emails = new Map(orgPage.members.map((m) => [m.user_id, m.email]));
  const agents = page.agents.length ? table(['Agent', 'Owner', 'API key'], page.agents.map((a) => h('tr', { 'data-agent': a.id, 'data-agent-name': a.name },
    h('td', {}, h('span', { class: 'strong' }, a.name)),
    h('td', {}, emails.get(a.owner_id) || a.owner_id),
    h('td', {}, a.api_key ? h('code', { 'data-testid': 'agent-key-prefix' }, a.api_key.prefix) : h('span', { class: 'muted' }, 'none')))), 'guild-agents')
    : h('p', { class: 'muted' }, 'No agents in this guild.');
  return [
    pageHeader(g.name, `A guild of ${o.name}.`, h('a', { href: `/orgs/${o.id}`, 'data-link': true, class: 'btn btn-ghost' }, `Back to ${o.name}`), del),
    card('Members', members, add),
    card('Agents', h('p', { class: 'muted small' }, 'Agents in this guild inherit what the guild holds. Members create and manage their agents on the organisation page.'), agents),
    admin ? card('Settings', rename) : null,
    admin || g.members.includes(me) ? pluginSwitches({ scope: 'guild', id: g.id, label: `guild ${g.name}` }) : null,
    admin || g.members.includes(me) ? budgetsCard({ scope: 'guild', id: g.id, label: `guild ${g.name}` }) : null,
  ];
}
