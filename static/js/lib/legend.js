// lib/legend.js: legends of quantitative encodings, so that every colour
// ramp and every width says what it encodes and in which unit.
//
//   rampLegend({ title: 'Bytes moved (from → to)', colour: (t) => scale(t * max),
//                lo: '0 B', hi: '8 MiB' })       // a horizontal colour ramp
//   widthLegend({ title: 'Link width: bytes', items: [[2, '1 MiB'], [10, '8 MiB']] })
//   swatchLegend([[colour, 'label'], ...])           // categorical keys
// colour(t) is called for t in [0, 1]; lo/hi/mid are the formatted ends
// (with their unit). Colours come from the caller (colors.js).
import { h } from '../dom.js';
import { svg } from './svg.js';

const RAMP_W = 150, RAMP_H = 11;
let rampCount = 0;

export function rampLegend({ title, colour, lo, hi, mid = null, note = null, className = '' }) {
  const id = `ari-ramp-${++rampCount}`;
  const grad = svg('linearGradient', { id });
  for (let i = 0; i <= 10; i++) grad.appendChild(svg('stop', { offset: `${i * 10}%`, 'stop-color': colour(i / 10) }));
  const ramp = svg('svg', { width: RAMP_W, height: RAMP_H, class: 'ari-ramp', 'aria-hidden': 'true' },
    svg('defs', {}, grad), svg('rect', { width: RAMP_W, height: RAMP_H, rx: 2, fill: `url(#${id})` }));
  return h('div', { class: `ari-legend ari-legend-ramp${className ? ` ${className}` : ''}`, role: 'group', 'aria-label': `${title}: ${lo} to ${hi}` },
    h('span', { class: 'ari-legend-title' }, title),
    h('span', { class: 'ari-legend-scale' },
      h('span', { class: 'ari-legend-end' }, lo), ramp, h('span', { class: 'ari-legend-end' }, hi)),
    mid ? h('span', { class: 'ari-legend-note' }, mid) : null,
    note ? h('span', { class: 'ari-legend-note' }, note) : null);
}

// Line widths (pixels) and what they stand for.
export function widthLegend({ title, items, className = '' }) {
  return h('div', { class: `ari-legend ari-legend-width${className ? ` ${className}` : ''}`, role: 'group', 'aria-label': title },
    h('span', { class: 'ari-legend-title' }, title),
    ...items.map(([w, label]) => h('span', { class: 'ari-legend-key' },
      svg('svg', { width: 26, height: 14, 'aria-hidden': 'true' },
        svg('line', { x1: 1, x2: 25, y1: 7, y2: 7, class: 'ari-legend-line', 'stroke-width': Math.min(13, w) })),
      label)));
}

// Categorical keys: [[colour, label], ...].
export function swatchLegend(items, { title = null, className = '' } = {}) {
  return h('div', { class: `ari-legend ari-legend-swatches${className ? ` ${className}` : ''}` },
    title ? h('span', { class: 'ari-legend-title' }, title) : null,
    ...items.map(([colour, label]) => h('span', { class: 'ari-legend-key' },
      h('span', { class: 'ari-swatch', style: `background:${colour}` }), label)));
}
