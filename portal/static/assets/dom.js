// Small DOM helpers. The app never assigns HTML as a string (the page runs under Trusted Types with
// no policy, so it could not): every element is built here.

const SVG = 'http://www.w3.org/2000/svg';

// h builds an element: h('button', {class: 'btn', onclick: fn}, 'Label', child, ...). Attributes
// named on* become event listeners; null, undefined and false children are skipped.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'value') el.value = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// replace empties el and fills it with children.
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// Icons: 24×24 stroked outlines, drawn with the text colour.
const ICONS = {
  plug: [['path', { d: 'M9 2v6M15 2v6M6 8h12v4a6 6 0 0 1-12 0zM12 18v4' }]],
  key: [['circle', { cx: 7.5, cy: 15.5, r: 4.5 }], ['path', { d: 'M10.7 12.3 21 2M17 6l3 3M14.5 8.5l2.5 2.5' }]],
  bot: [['rect', { x: 4, y: 7, width: 16, height: 12, rx: 3 }], ['path', { d: 'M12 3v4M9 12h.01M15 12h.01M9.5 15.5h5' }]],
  activity: [['path', { d: 'M22 12h-4l-3 9L9 3l-3 9H2' }]],
  logout: [['path', { d: 'M9 21H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h4M16 17l5-5-5-5M21 12H9' }]],
  copy: [['rect', { x: 9, y: 9, width: 13, height: 13, rx: 2 }], ['path', { d: 'M5 15H4a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2h9a2 2 0 0 1 2 2v1' }]],
  check: [['path', { d: 'M20 6 9 17l-5-5' }]],
  alert: [['circle', { cx: 12, cy: 12, r: 10 }], ['path', { d: 'M12 7v6M12 16.5h.01' }]],
  info: [['circle', { cx: 12, cy: 12, r: 10 }], ['path', { d: 'M12 16v-5M12 7.5h.01' }]],
  eye: [['path', { d: 'M1 12s4-8 11-8 11 8 11 8-4 8-11 8S1 12 1 12z' }], ['circle', { cx: 12, cy: 12, r: 3 }]],
  rotate: [['path', { d: 'M21 12a9 9 0 1 1-3-6.7L21 8M21 3v5h-5' }]],
  trash: [['path', { d: 'M3 6h18M8 6V4h8v2M6 6l1 14h10l1-14' }]],
  external: [['path', { d: 'M14 3h7v7M21 3l-9 9M19 14v5a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V7a2 2 0 0 1 2-2h5' }]],
  search: [['circle', { cx: 11, cy: 11, r: 7 }], ['path', { d: 'm21 21-4.3-4.3' }]],
  server: [['rect', { x: 2, y: 3, width: 20, height: 8, rx: 2 }], ['rect', { x: 2, y: 13, width: 20, height: 8, rx: 2 }], ['path', { d: 'M6 7h.01M6 17h.01' }]],
  inbox: [['path', { d: 'M22 12h-6l-2 3h-4l-2-3H2' }], ['path', { d: 'M5.45 5.11 2 12v6a2 2 0 0 0 2 2h16a2 2 0 0 0 2-2v-6l-3.45-6.89A2 2 0 0 0 16.76 4H7.24a2 2 0 0 0-1.79 1.11z' }]],
  layers: [['path', { d: 'M12 2 2 7l10 5 10-5-10-5zM2 17l10 5 10-5M2 12l10 5 10-5' }]],
  receipt: [['path', { d: 'M14 2H6a2 2 0 0 0-2 2v16a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V8zM14 2v6h6M16 13H8M16 17H8M10 9H8' }]],
  book: [['path', { d: 'M4 19.5A2.5 2.5 0 0 1 6.5 17H20M6.5 2H20v20H6.5A2.5 2.5 0 0 1 4 19.5v-15A2.5 2.5 0 0 1 6.5 2z' }]],
  lock: [['rect', { x: 3, y: 11, width: 18, height: 11, rx: 2 }], ['path', { d: 'M7 11V7a5 5 0 0 1 10 0v4' }]],
  chart: [['path', { d: 'M12 20V10M18 20V4M6 20v-4' }]],
  download: [['path', { d: 'M21 15v4a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-4M7 10l5 5 5-5M12 15V3' }]],
  menu: [['path', { d: 'M3 6h18M3 12h18M3 18h18' }]],
  play: [['circle', { cx: 12, cy: 12, r: 10 }], ['path', { d: 'm10 8 6 4-6 4z' }]],
  x: [['path', { d: 'M18 6 6 18M6 6l12 12' }]],
  users: [['circle', { cx: 9, cy: 8, r: 4 }], ['path', { d: 'M1 21v-1a6 6 0 0 1 6-6h4a6 6 0 0 1 6 6v1M16 3.1a4 4 0 0 1 0 7.8M23 21v-1a6 6 0 0 0-4-5.6' }]],
};

export function icon(name) {
  const svg = document.createElementNS(SVG, 'svg');
  for (const [k, v] of Object.entries({ viewBox: '0 0 24 24', width: 18, height: 18, fill: 'none', stroke: 'currentColor',
    'stroke-width': 2, 'stroke-linecap': 'round', 'stroke-linejoin': 'round', 'aria-hidden': 'true', class: 'icon' })) {
    svg.setAttribute(k, String(v));
  }
  for (const [tag, attrs] of ICONS[name] || []) {
    const el = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    svg.append(el);
  }
  return svg;
}

// notice is an inline message box: kind is 'error', 'success', 'warning' or 'info'.
export function notice(kind, title, ...body) {
  const ic = kind === 'success' ? 'check' : kind === 'info' ? 'info' : 'alert';
  return h('div', { class: `notice notice-${kind}`, role: kind === 'error' ? 'alert' : 'status' },
    icon(ic), h('div', {}, title ? h('strong', {}, title) : null, body.length ? h('div', { class: 'notice-body' }, body) : null));
}

// errorText turns a failure into words a person can act on.
export function errorText(err) {
  if (err && err.code === 'unauthenticated') return 'Your session has ended. Sign in again to continue.';
  if (err && err.message) return err.message;
  return 'Something went wrong. Try again in a moment.';
}

// button builds a button; busy(btn, promise) disables it while the promise runs.
export function button(label, { kind = 'secondary', iconName, onclick, type = 'button', testid } = {}) {
  return h('button', { type, class: `btn btn-${kind}`, onclick, 'data-testid': testid }, iconName ? icon(iconName) : null, h('span', {}, label));
}

export async function busy(btn, work) {
  btn.disabled = true;
  btn.setAttribute('aria-busy', 'true');
  try {
    return await work();
  } finally {
    btn.disabled = false;
    btn.removeAttribute('aria-busy');
  }
}

// confirmDialog asks before something that cannot be undone and resolves true only on confirm.
export function confirmDialog({ title, body, confirmLabel, danger = true }) {
  return new Promise((resolve) => {
    const dialog = h('dialog', { class: 'dialog', 'aria-labelledby': 'dialog-title' });
    const done = (ok) => { dialog.close(); dialog.remove(); resolve(ok); };
    dialog.append(
      h('h2', { id: 'dialog-title' }, title),
      h('div', { class: 'dialog-body' }, body),
      h('div', { class: 'dialog-actions' },
        button('Cancel', { onclick: () => done(false), testid: 'dialog-cancel' }),
        button(confirmLabel, { kind: danger ? 'danger' : 'primary', onclick: () => done(true), testid: 'dialog-confirm' })),
    );
    dialog.addEventListener('cancel', (e) => { e.preventDefault(); done(false); });
    document.body.append(dialog);
    dialog.showModal();
  });
}

// secretField shows a secret with a copy button.
export function secretField(value, label) {
  const input = h('input', { class: 'secret', type: 'text', readonly: true, value, 'aria-label': label, spellcheck: 'false', 'data-testid': 'secret' });
  input.addEventListener('focus', () => input.select());
  return h('div', { class: 'secret-row' }, input, copyButton(value));
}

export function copyButton(text, label = 'Copy') {
  const btn = button(label, { iconName: 'copy', testid: 'copy' });
  btn.addEventListener('click', async () => {
    const span = btn.querySelector('span');
    try {
      await navigator.clipboard.writeText(text);
      span.textContent = 'Copied';
    } catch {
      span.textContent = 'Select and copy';
    }
    setTimeout(() => { span.textContent = label; }, 2000);
  });
  return btn;
}

const dateFmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatTime(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : dateFmt.format(d);
}

// ago says how long ago iso was, in rough words.
export function ago(iso) {
  if (!iso) return 'never';
  const s = (Date.now() - new Date(iso).getTime()) / 1000;
  if (Number.isNaN(s)) return String(iso);
  if (s < 10) return 'just now';
  if (s < 60) return `${Math.floor(s)} s ago`;
  const n = (v, unit) => `${v} ${unit}${v === 1 ? '' : 's'} ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return n(Math.floor(s / 3600), 'hour');
  if (s < 86400 * 30) return n(Math.floor(s / 86400), 'day');
  return formatTime(iso);
}

// safeNext keeps next only when it is a path on this origin (never //host or a scheme).
export function safeNext(next) {
  if (typeof next !== 'string' || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '';
  try {
    const u = new URL(next, location.origin);
    return u.origin === location.origin ? u.pathname + u.search + u.hash : '';
  } catch {
    return '';
  }
}

// labelled gives a field a visible <label> (text, or the field's aria-label, which the label then
// replaces): a placeholder is not a label.
export function labelled(field, text = field.getAttribute('aria-label')) {
  field.removeAttribute('aria-label');
  return h('label', { class: 'inline-field' }, h('span', { class: 'inline-label' }, text), field);
}

// pageHeader is the title block at the top of every page.
export function pageHeader(title, lead, ...actions) {
  return h('header', { class: 'page-header' },
    h('div', {}, h('h1', {}, title), lead ? h('p', { class: 'lead' }, lead) : null),
    actions.length ? h('div', { class: 'page-actions' }, actions) : null);
}

export function emptyState(iconName, title, ...body) {
  return h('div', { class: 'empty' }, h('div', { class: 'empty-icon' }, icon(iconName)), h('h2', {}, title), h('div', { class: 'empty-body' }, body));
}
