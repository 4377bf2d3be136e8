// Any path the app does not know.

import { h, replace } from '../dom.js';

export const title = 'Page not found';

export async function render(ctx, main) {
  replace(main, h('div', { class: 'card narrow' },
    h('h1', {}, 'There is no page here'),
    h('p', {}, 'The address ', h('code', {}, location.pathname), ' is not part of the Workbench portal.'),
    h('p', {}, h('a', { href: '/', 'data-link': true }, 'Go to your integrations'))));
}
