// lib/svg.js: the one SVG element builder of the dashboard (dom.js's h() is
// its HTML twin).
//
// svg('line', {x1: 0, class: 'grid'}) -> <line>; null/undefined attributes
// are left out; children (nested arrays allowed) are appended, strings as
// text nodes, falsy ones skipped: svg('text', {x, y}, 'label').
const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) el.setAttribute(k, String(v));
  for (const c of children.flat(Infinity)) if (c) el.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  return el;
}
