// lib/tooltip.js: the dashboard's one hover tooltip for views that have no
// tooltip of their own (data movement, super graph, aggregation): a dark box
// that follows the pointer, kept inside the window, with the Gantt's content
// classes (tt-title, tt-sub, table, tt-hint). It replaces native SVG <title>
// tooltips, which appear late, cannot be styled and vanish on touch.
//
//   const tip = createTooltip(el);                 // appended to el; removed with it
//   tip.show(ev, tipContent('gpu0', [['Bytes', '8 MiB']], 'Click to …'));
//   tip.hide();
//   hoverTip(element, tip, () => content);         // mouse and keyboard focus
//   sel.call(d3Tip, tip, (d) => content);          // every element of a d3 selection
import { h, clear } from '../dom.js';

const GAP = 14; // pixels between the pointer and the box

// A hidden tooltip appended to `host`; extra classes in `className`.
export function createTooltip(host, className = '') {
  const el = h('div', { class: `ari-tooltip${className ? ` ${className}` : ''}`, role: 'tooltip', hidden: true });
  host.appendChild(el);
  return {
    el,
    // ev: a pointer event (clientX/Y) or an element (keyboard focus).
    show(ev, content) {
      clear(el).append(...[content].flat().filter(Boolean));
      el.hidden = false;
      place(el, anchorOf(ev));
    },
    hide() { el.hidden = true; },
  };
}

// Where to put the box: the pointer, or the top right of a focused element.
function anchorOf(ev) {
  if (ev && Number.isFinite(ev.clientX)) return { x: ev.clientX, y: ev.clientY };
  const target = ev && (ev.getBoundingClientRect ? ev : ev.target);
  const r = target && target.getBoundingClientRect ? target.getBoundingClientRect() : { right: 0, top: 0 };
  return { x: r.right, y: r.top };
}

// Fixed position beside the anchor, flipped left/up when it would leave the window.
function place(el, { x, y }) {
  const tw = el.offsetWidth, th = el.offsetHeight;
  const vw = document.documentElement.clientWidth, vh = window.innerHeight;
  let left = x + GAP, top = y + GAP;
  if (left + tw > vw - 4) left = x - tw - GAP;
  if (top + th > vh - 4) top = y - th - GAP;
  el.style.left = `${Math.max(4, Math.min(left, vw - tw - 4))}px`;
  el.style.top = `${Math.max(4, top)}px`;
}

// The usual content: a title, an optional subtitle, rows [label, value], a hint.
export function tipContent(title, rows = [], hint = null, sub = null) {
  return [
    h('div', { class: 'tt-title' }, title),
    sub ? h('div', { class: 'tt-sub' }, sub) : null,
    rows.length ? h('table', {}, h('tbody', {}, rows.map(([k, v]) =>
      h('tr', {}, h('th', { scope: 'row' }, k), h('td', { class: 'num' }, v))))) : null,
    hint ? h('div', { class: 'tt-hint' }, hint) : null,
  ].filter(Boolean);
}

// Shows `content()` while the pointer is over `target` or it has the focus.
export function hoverTip(target, tip, content) {
  target.addEventListener('mousemove', (ev) => tip.show(ev, content(ev)));
  target.addEventListener('mouseleave', () => tip.hide());
  target.addEventListener('focus', () => tip.show(target, content()));
  target.addEventListener('blur', () => tip.hide());
}

// The d3 form: selection.call(d3Tip, tip, (datum) => content).
export function d3Tip(selection, tip, content) {
  selection
    .on('mousemove.tip', (ev, d) => tip.show(ev, content(d)))
    .on('mouseleave.tip', () => tip.hide());
}
