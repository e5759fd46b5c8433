// lib/timeline_messages.js: the messages of an event trace drawn over the
// Timeline's states (views/timeline.js, from GET /traces/{id}/timeline): one
// thin line per message from (send time, sender's row) to (receive time,
// receiver's row) with a small head at the receiving end; a bundle (the
// server's aggregation when the window holds more than max_messages: one
// entry per sender, receiver and send pixel column) is wider and more opaque
// by its count. Lines are SVG (in the overlay, pointer events off: the chart
// finds the message under the pointer with messageAt, so the states' hover
// and the pan/zoom gestures stay as they are).
//
//   const geo = drawMessages(svgGroup, doc.messages, { x, rowY, width });
//   const m = messageAt(geo, px, py);          // {msg, x0, y0, x1, y1} or null
//   messageTip(m.msg, rowName, unit, extra)    // the tooltip's content
//   messageLegend(doc)                         // what the lines mean
import { h } from '../dom.js';
import { svg } from './svg.js';
import { EVENTS } from '../colors.js';
import { fmtTime, formatBytes, formatNumber } from './format.js';
import { widthLegend } from './legend.js';

const HIT_PX = 5; // how far from a line the pointer may be
const HEADS_MAX = 500; // more lines than this: no heads (a dense window redraws fast)

// Stroke width of a message or bundle of `count` messages.
export const lineWidth = (count) => Math.min(6, 1.2 + Math.log2(Math.max(1, count || 1)));
const lineOpacity = (count) => Math.min(0.95, 0.55 + 0.1 * Math.log2(Math.max(1, count || 1)));

// Draws `messages` into the SVG group `g` (emptied first). x(t): the
// pixel of time t (in the group's frame); rowY(containerId): the pixel of the
// row's middle, or null when the row is not on the page; width: the plot's
// width (lines wholly outside are skipped). Returns the drawn geometry.
export function drawMessages(g, messages, { x, rowY, width }) {
  while (g.firstChild) g.firstChild.remove();
  const geo = [];
  for (const msg of messages || []) {
    const y0 = rowY(msg.src), y1 = rowY(msg.dst);
    if (y0 === null || y1 === null) continue;
    const x0 = x(msg.send), x1 = x(msg.recv);
    if ((x0 < 0 && x1 < 0) || (x0 > width && x1 > width)) continue;
    geo.push({ msg, x0, y0, x1, y1 });
  }
  const heads = geo.length <= HEADS_MAX;
  geo.forEach((s, i) => {
    const count = s.msg.count || 1;
    const backwards = s.msg.recv < s.msg.send;
    const colour = backwards ? EVENTS.messageBackwards : EVENTS.message;
    const line = svg('line', {
      class: `msg-line${count > 1 ? ' msg-bundle' : ''}`, x1: r1(s.x0), y1: r1(s.y0), x2: r1(s.x1), y2: r1(s.y1),
      stroke: colour, 'stroke-width': lineWidth(count), 'stroke-opacity': lineOpacity(count),
      'data-i': i, 'data-count': count,
    });
    g.appendChild(line);
    if (heads) g.appendChild(arrowHead(s, colour));
  });
  g.setAttribute('data-messages', String(geo.length));
  return geo;
}

const r1 = (v) => Math.round(v * 10) / 10;

// A message's times with every digit that matters (fmtTime keeps 6
// significant digits: 193,673,000 ns for 193,672,584.6 ns, too coarse to
// tell a message's send from its neighbour's).
const exact = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 12 });
const fmtExact = (v, unit) => (Number.isFinite(v) ? `${exact.format(Math.abs(v) >= 1000 ? Math.round(v * 10) / 10 : v)}${unit ? ` ${unit}` : ''}` : '—');

// A 5 px head at the receiving end, along the line.
function arrowHead(s, colour) {
  const dx = s.x1 - s.x0, dy = s.y1 - s.y0, len = Math.hypot(dx, dy) || 1;
  const ux = dx / len, uy = dy / len, L = Math.min(6, len / 2), W = Math.min(3, len / 4);
  const bx = s.x1 - ux * L, by = s.y1 - uy * L;
  const pts = [[s.x1, s.y1], [bx - uy * W, by + ux * W], [bx + uy * W, by - ux * W]];
  return svg('polygon', { class: 'msg-head', points: pts.map((p) => p.map(r1).join(',')).join(' '), fill: colour });
}

// The drawn message nearest to (px, py) within HIT_PX, in the same frame as
// drawMessages' coordinates; null if none.
export function messageAt(geo, px, py) {
  let best = null, bestD = HIT_PX;
  for (const s of geo || []) {
    const d = segmentDistance(px, py, s) - lineWidth(s.msg.count) / 2;
    if (d <= bestD) { best = s; bestD = d; }
  }
  return best;
}

function segmentDistance(px, py, { x0, y0, x1, y1 }) {
  const dx = x1 - x0, dy = y1 - y0, l2 = dx * dx + dy * dy;
  const t = l2 ? Math.max(0, Math.min(1, ((px - x0) * dx + (py - y0) * dy) / l2)) : 0;
  return Math.hypot(px - (x0 + t * dx), py - (y0 + t * dy));
}

// The tooltip of a message: sender, receiver, bytes, tag (when known: from
// `detail`, a /messages entry), send and receive times, duration.
export function messageTip(msg, rowName, unit, detail = null) {
  const count = msg.count || 1;
  const rows = [
    ['Sender', rowName(msg.src)],
    ['Receiver', rowName(msg.dst)],
    [count > 1 ? 'Bytes (sum)' : 'Bytes', `${formatBytes(msg.bytes)} (${formatNumber(msg.bytes)} B)`],
  ];
  if (count === 1) rows.push(['Tag', detail ? String(detail.tag) : '…'], ['Communicator', detail ? String(detail.comm) : '…']);
  rows.push([count > 1 ? 'Send (mean)' : 'Send', fmtExact(msg.send, unit)],
    [count > 1 ? 'Receive (mean)' : 'Receive', fmtExact(msg.recv, unit)],
    [count > 1 ? 'Duration (mean)' : 'Duration', fmtTime(msg.recv - msg.send, unit)]);
  return [
    h('div', { class: 'tt-title' }, count > 1 ? `${formatNumber(count)} messages (bundled)` : 'Message'),
    msg.recv < msg.send ? h('div', { class: 'tt-sub' }, 'received before it was sent: the ranks’ clocks differ') : null,
    h('table', { class: 'msg-tip' }, h('tbody', {}, rows.map(([k, v]) => h('tr', {}, h('th', { scope: 'row' }, k), h('td', { class: 'num' }, v))))),
    h('div', { class: 'tt-hint' }, count > 1 ? 'Zoom in to see the single messages.' : 'Click to zoom onto this message.'),
  ].filter(Boolean);
}

// The legend of the lines: what one line is, and the bundle widths.
export function messageLegend(doc) {
  const total = doc.messages_total ?? (doc.messages || []).length;
  const note = h('span', { class: 'legend-item small muted msg-legend-note' },
    `${formatNumber((doc.messages || []).length)} ${doc.messages_bundled ? 'bundles' : 'lines'} of ${formatNumber(total)} messages in the window`
    + (doc.messages_bundled ? ' (bundled by sender, receiver and send pixel: zoom in for single messages)' : ''));
  if (!doc.messages_bundled) {
    return h('span', { class: 'msg-legend' }, widthLegend({ title: 'Message: send → receive', items: [[lineWidth(1), '1 message']] }), note);
  }
  return h('span', { class: 'msg-legend' },
    widthLegend({ title: 'Bundle width: messages', items: [1, 8, 64].map((c) => [lineWidth(c), formatNumber(c)]) }), note);
}
