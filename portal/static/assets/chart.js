// Bar charts drawn by hand in SVG: one stacked bar per bucket (a day or an hour), one colour per
// series (an integration or an agent). A charting library would be tens of kilobytes for this one
// chart and would have to be embedded and kept up to date; this is under a hundred lines. Colours are
// CSS variables (--series-0 … --series-5), so a theme changes them in style.css.
//
// Each chart is an <svg role="img"> with an aria-label and a <title> that say what it shows, and a
// table of the same numbers for screen readers (and anyone who wants the figures).

import { h } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';
const SERIES = 6; // colours; the rest of the series share the last ("other")

function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) el.setAttribute(k, String(v));
  for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

// seriesIndex gives each series key its colour number, in the order of keys.
export function seriesIndex(keys) {
  const m = new Map();
  keys.forEach((k, i) => m.set(k, Math.min(i, SERIES - 1)));
  return m;
}

// barChart draws buckets ([{start, calls, groups: {key: n}}]) stacked by series keys (in order),
// labelled with label(key); tick(bucket) is the text under a bar (shown every few bars).
export function barChart({ title, buckets, keys, label, tick, testid }) {
  const W = 640, H = 180, pad = { l: 34, r: 6, t: 10, b: 24 };
  const colours = seriesIndex(keys);
  const max = Math.max(1, ...buckets.map((b) => b.calls));
  const iw = W - pad.l - pad.r, ih = H - pad.t - pad.b;
  const slot = iw / Math.max(1, buckets.length);
  const bw = Math.max(2, slot * 0.72);
  const y = (v) => pad.t + ih - (v / max) * ih;
  const total = buckets.reduce((n, b) => n + b.calls, 0);
  const summary = `${title}: ${total} call${total === 1 ? '' : 's'} in ${buckets.length} bars; the most in one bar is ${max === 1 && total === 0 ? 0 : max}.`;
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': summary, class: 'chart', 'data-testid': testid },
    s('title', {}, summary),
    // Gridlines at 0, half and the maximum.
    [0, 0.5, 1].map((f) => [
      s('line', { x1: pad.l, x2: W - pad.r, y1: y(max * f), y2: y(max * f), class: 'chart-grid' }),
      s('text', { x: pad.l - 4, y: y(max * f) + 4, 'text-anchor': 'end', class: 'chart-axis' }, String(Math.round(max * f))),
    ]));
  const every = Math.ceil(buckets.length / 8);
  buckets.forEach((b, i) => {
    const x = pad.l + i * slot + (slot - bw) / 2;
    let base = 0;
    const g = s('g', { 'data-bucket': b.start, 'data-calls': b.calls, class: 'chart-bar' },
      s('title', {}, `${tick(b, true)}: ${b.calls} call${b.calls === 1 ? '' : 's'}` + (b.errors ? `, ${b.errors} failed` : '') + (b.refused ? `, ${b.refused} refused` : '')));
    for (const k of keys) {
      const n = (b.groups || {})[k] || 0;
      if (!n) continue;
      g.append(s('rect', { x, width: bw, y: y(base + n), height: y(base) - y(base + n), class: `series-${colours.get(k)}`, 'data-series': k, 'data-count': n }));
      base += n;
    }
    svg.append(g);
    if (i % every === 0) svg.append(s('text', { x: x + bw / 2, y: H - 6, 'text-anchor': 'middle', class: 'chart-axis' }, tick(b, false)));
  });
  // The table sits in an .sr-only box: a table itself ignores overflow, and would widen the page.
  const table = h('table', {},
    h('caption', {}, title),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'When'), h('th', { scope: 'col' }, 'Calls'), keys.map((k) => h('th', { scope: 'col' }, label(k))))),
    h('tbody', {}, buckets.filter((b) => b.calls > 0).map((b) => h('tr', {}, h('th', { scope: 'row' }, tick(b, true)), h('td', {}, String(b.calls)),
      keys.map((k) => h('td', {}, String((b.groups || {})[k] || 0)))))));
  return h('figure', { class: 'chart-figure' }, svg, h('div', { class: 'sr-only' }, table));
}

// legend names each series with its colour.
export function legend(keys, label) {
  const colours = seriesIndex(keys);
  return h('ul', { class: 'chart-legend', 'aria-label': 'Series' }, keys.map((k) => h('li', { 'data-series': k },
    h('span', { class: `swatch series-${colours.get(k)}`, 'aria-hidden': 'true' }), label(k))));
}
