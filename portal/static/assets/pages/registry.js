// Install from registry: the connectors the server's connector registry (CONNECTOR_REGISTRY_DIR or CONNECTOR_REGISTRY_URL)
// offers, each with its publisher, version and whether the registry vouches for it, and an Install
// button for the instance admin (POST /api/admin/mcp/registry/{slug}/install). An entry that does not
// load lists its problems instead; an installed one says so. registrySection is the section alone,
// for an Admin page to mount; render is the page at /admin/registry.

import { request } from '../api.js';
import { h, replace, notice, button, busy, pageHeader, emptyState, errorText } from '../dom.js';

export const title = 'Install from registry';

export async function render(ctx, main) {
  replace(main,
    pageHeader('Install from registry', 'Connectors your connector registry offers. Installing one adds it to the catalog for every organisation, switched on.'),
    registrySection(ctx));
}

export function registrySection(ctx) {
  const status = h('div', { class: 'status-slot', 'data-testid': 'registry-status' });
  const list = h('div', { class: 'grid', 'data-testid': 'registry' }, h('p', { class: 'muted' }, 'Loading the registry…'));
  const section = h('section', { class: 'registry' }, h('h2', { class: 'section-title' }, 'Install from registry'), status, list);
  const refresh = async () => {
    try {
      const entries = ((await request('GET', '/api/admin/mcp/registry')) || {}).entries || [];
      if (ctx.current && !ctx.current()) return;
      if (entries.length === 0) {
        replace(list, emptyState('plug', 'The registry is empty', h('p', {}, 'Set CONNECTOR_REGISTRY_DIR to a directory of connector.json files, or CONNECTOR_REGISTRY_URL to the HTTPS URL of a registry index, to offer connectors here.')));
        return;
      }
      replace(list, entries.map((e) => entryCard(e, status, refresh)));
    } catch (err) {
      replace(list, notice('error', err.status === 403 ? 'Instance admins only' : 'The registry could not be read', errorText(err)));
    }
  };
  refresh();
  return section;
}

function entryCard(e, status, refresh) {
  const actions = h('div', { class: 'card-actions' });
  if (e.installed) {
    actions.append(h('span', { class: 'badge', 'data-testid': 'registry-installed' },
      e.installed_owner ? `Slug taken by an organisation's server` : `Installed (${e.installed_source})`));
  } else if (e.problems && e.problems.length) {
    actions.append(h('ul', { class: 'problems small', 'data-testid': 'registry-problems' }, e.problems.map((p) => h('li', {}, p))));
  } else {
    const install = button('Install', { kind: 'primary', iconName: 'plug', testid: 'registry-install' });
    install.addEventListener('click', () => busy(install, async () => {
      try {
        const res = await request('POST', `/api/admin/mcp/registry/${encodeURIComponent(e.slug)}/install`);
        const s = (res && res.server) || {};
        replace(status, notice('success', 'Installed', `${s.display_name || e.slug} is in the catalog as ${s.id || 'mcp_' + e.slug}.`));
        await refresh();
      } catch (err) {
        replace(status, notice('error', 'Not installed', errorText(err)));
      }
    }));
    actions.append(install);
  }
  return h('article', { class: 'card integration', 'data-registry': e.slug },
    h('div', { class: 'integration-head' },
      h('div', { class: 'integration-title' }, h('h2', {}, e.display_name || e.slug),
        h('div', { class: 'meta' },
          h('span', { class: 'tag' }, e.slug),
          e.version ? h('span', { class: 'tag' }, `v${e.version}`) : null,
          e.publisher ? h('span', { class: 'mode', 'data-testid': 'registry-publisher' }, e.publisher) : null,
          e.verified ? h('span', { class: 'badge badge-ok', 'data-testid': 'registry-verified' }, 'Verified') : null))),
    e.description ? h('p', { class: 'description' }, e.description) : null,
    actions);
}
