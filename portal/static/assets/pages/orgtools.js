// Organisation settings, Tools: the organisation's own remote MCP servers, visible to it alone. Its
// owners and admins add one (a slug, a public HTTPS URL, optional copy, and how it signs in: none, a
// token, or OAuth with dynamic registration), edit its copy and address, and delete it with its logins
// and the switches that name it. The server decides again on every request (a member gets a 403).

import { request } from '../api.js';
import { h, replace, notice, button, busy, confirmDialog, errorText, labelled } from '../dom.js';

const enc = encodeURIComponent;
const toolsApi = {
  list: (org) => request('GET', `/api/orgs/${enc(org)}/mcp/servers`),
  add: (org, body) => request('POST', `/api/orgs/${enc(org)}/mcp/servers`, body),
  edit: (org, id, body) => request('PATCH', `/api/orgs/${enc(org)}/mcp/servers/${enc(id)}`, body),
  remove: (org, id) => request('DELETE', `/api/orgs/${enc(org)}/mcp/servers/${enc(id)}`),
};

// orgTools is the Tools card of an organisation the caller owns or administers.
export function orgTools(o) {
  const status = h('div', { class: 'status-slot', 'data-testid': 'tools-status' });
  const list = h('div', { 'data-testid': 'org-servers' }, h('p', { class: 'muted' }, 'Loading…'));
  const say = (kind, title, body) => replace(status, notice(kind, title, body));
  const load = async () => {
    let servers;
    try {
      servers = ((await toolsApi.list(o.id)) || {}).servers || [];
    } catch (err) { replace(list, notice('error', 'The servers could not be loaded', errorText(err))); return; }
    replace(list, servers.length ? servers.map((s) => serverRow(o, s, say, load)) : h('p', { class: 'muted', 'data-testid': 'no-servers' }, 'No servers of this organisation yet.'));
  };
  load();
  return h('section', { class: 'card', 'data-testid': 'org-tools' },
    h('h2', {}, 'Tools'),
    h('p', { class: 'muted small' }, 'Remote MCP servers of this organisation alone. Its members connect them on the Connectors page, where their cards read “This organisation’s”.'),
    status, list, addForm(o, say, load));
}

function input(testid, placeholder, value = '') {
  return h('input', { type: 'text', placeholder, value, 'data-testid': testid, 'aria-label': placeholder });
}

function serverRow(o, s, say, reload) {
  const name = input('server-name', 'Display name', s.display_name === s.slug ? '' : s.display_name);
  const desc = input('server-description', 'Description', s.description || '');
  const url = input('server-url', 'URL', s.endpoint || '');
  const save = button('Save', { kind: 'secondary', testid: 'server-save' });
  save.addEventListener('click', () => busy(save, async () => {
    const body = { description: desc.value.trim() === '' ? null : desc.value, url: url.value.trim() };
    if (name.value.trim() !== '') body.display_name = name.value;
    try {
      await toolsApi.edit(o.id, s.id, body);
    } catch (err) { say('error', `${s.display_name} was not saved`, errorText(err)); return; }
    await reload();
    say('success', `${s.slug} saved`);
  }));
  const del = button('Delete', { kind: 'danger', iconName: 'trash', testid: 'server-delete' });
  del.addEventListener('click', async () => {
    const ok = await confirmDialog({ title: `Delete ${s.display_name}?`, body: [h('p', {}, 'Its logins, at every scope, and every tool switch that names it are removed with it.')], confirmLabel: 'Delete' });
    if (!ok) return;
    await busy(del, async () => {
      try {
        await toolsApi.remove(o.id, s.id);
      } catch (err) { say('error', `${s.display_name} was not deleted`, errorText(err)); return; }
      await reload();
      say('success', `${s.slug} was deleted`);
    });
  });
  return h('article', { class: 'card', 'data-server': s.id, 'data-slug': s.slug },
    h('div', { class: 'card-head' }, h('h3', {}, s.display_name), h('span', { class: 'tag' }, 'This organisation’s'), h('span', { class: 'tag' }, s.auth_kind)),
    h('p', { class: 'muted small' }, 'Tools named ', h('code', {}, s.tool_prefix + '_…')),
    h('div', { class: 'form-actions' }, name, desc, url, save, del));
}

function addForm(o, say, reload) {
  const slug = input('new-server-slug', 'slug');
  const url = input('new-server-url', 'https://mcp.example.com/mcp');
  const name = input('new-server-name', 'Display name (optional)');
  const desc = input('new-server-description', 'Description (optional)');
  const auth = h('select', { 'data-testid': 'new-server-auth', 'aria-label': 'Sign-in' },
    h('option', { value: 'none' }, 'No sign-in'), h('option', { value: 'token' }, 'Token'), h('option', { value: 'oauth' }, 'OAuth'));
  const submit = button('Add server', { kind: 'primary', type: 'submit', testid: 'new-server-submit' });
  const form = h('form', { class: 'form-actions', 'data-testid': 'new-server', novalidate: true }, labelled(slug, 'Slug'), labelled(url, 'URL'), labelled(name, 'Display name (optional)'), labelled(desc, 'Description (optional)'), auth, submit);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    await busy(submit, async () => {
      try {
        await toolsApi.add(o.id, { slug: slug.value.trim(), url: url.value.trim(), display_name: name.value, description: desc.value, auth: auth.value });
      } catch (err) { say('error', 'The server was not added', errorText(err)); return; }
      const added = slug.value.trim();
      slug.value = url.value = name.value = desc.value = '';
      await reload();
      say('success', `${added} was added`);
    });
  });
  return form;
}
