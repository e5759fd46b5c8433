// views/timeline.js: the "Timeline" tab: the Paje states of any trace by
// container (GET /traces/{id}/states), one row per container and state
// type, grouped by the container hierarchy (labels indented by level, the
// full path in the tooltip). A nested state (PushState inside a state) is
// drawn as a thinner bar inside its parent, one step thinner per depth.
// Rows with more states than pixels come from the server's per-pixel level
// of detail: per column and depth, the share of each value, stacked.
// Wheel zoom, drag to pan, shift+drag to zoom to a range, double-click to
// reset (lib/time_interactions.js); rows are paged (200 a page). The legend
// lists the values of the page with their colours (colors.js stateColor);
// CSV downloads every state of the window on the page's rows.
// Event traces (kind 'events', issue 19) come from GET /timeline: the same
// rows plus the messages, drawn as lines from send to receive over the
// states (lib/timeline_messages.js; hover for sender, receiver, bytes, tag,
// times; click a line to zoom onto it); functions have their colour of every
// view (colors.js functionColor) and a click on a state focuses its function
// in every view (lib/function_focus.js): its states stay, the others dim.
// URL params: start, end, offset, fn (the focused function, event traces).
import { api } from '../api.js';
import { h, clear } from '../dom.js';
import { getD3 } from '../d3.js';
import { registerView } from '../trace.js';
import { stateColor, functionColor, TIMELINE, EVENTS } from '../colors.js';
import { svg } from '../lib/svg.js';
import { fmtTime, fmtPercent, formatNumber } from '../lib/format.js';
import { originNote } from '../lib/origin.js';
import { attachTimeInteractions } from '../lib/time_interactions.js';
import { analysisError } from '../lib/errors.js';
import { drawMessages, messageAt, messageTip, messageLegend } from '../lib/timeline_messages.js';
import { getFocus, toggleFocus, subscribe, focusFromParams } from '../lib/function_focus.js';

registerView({ id: 'timeline', title: 'Timeline', kinds: ['paje', 'tasks', 'events'], render: renderTimeline });

const PAGE = 200;
const LABEL_COL = 210;
const TOP = 34;
const RIGHT = 12;
const DEBOUNCE_MS = 150;

function parseNum(s) {
  const v = Number.parseFloat(s);
  return Number.isFinite(v) ? v : null;
}

async function renderTimeline(el, trace, params, setParams, { signal, onDispose }) {
  el.classList.add('timeline-view');
  const message = h('div', { class: 'gantt-message' });
  const toolbar = h('div', { class: 'gantt-toolbar' });
  const canvas = h('canvas', { class: 'gantt-canvas', 'aria-hidden': 'true' });
  const overlay = svg('svg', { class: 'gantt-svg', role: 'img', 'aria-label': `Timeline of the states of ${trace.name}` });
  const tooltip = h('div', { class: 'gantt-tooltip', role: 'tooltip', hidden: true });
  const chart = h('div', { class: 'gantt-chart timeline-chart', tabindex: 0 }, canvas, overlay, tooltip);
  const legendEl = h('div', { class: 'legend gantt-legend-items', 'aria-label': 'Legend' });
  const hint = h('p', { class: 'muted small gantt-hint' },
    'Wheel: zoom at the cursor · drag: pan · shift+drag or drag on the time axis: zoom to a range · double-click: whole trace · a nested state is a thinner bar inside its parent');
  el.append(toolbar, message, h('section', { class: 'panel gantt-panel', 'aria-label': 'Timeline' }, chart, legendEl, hint));

  const events = trace.kind === 'events';
  const endpoint = events ? 'timeline' : 'states';
  if (events) focusFromParams(params, trace.id);
  const st = { msgGeo: [], msgDetail: new Map(), domain: null, extent: null, doc: null, offset: Math.max(0, Number.parseInt(params.offset, 10) || 0), seq: 0, timer: 0, width: 0 };
  const start = parseNum(params.start), end = parseNum(params.end);
  if (start !== null && end !== null && start < end) st.domain = [start, end];
  onDispose(() => { clearTimeout(st.timer); st.seq++; });
  if (events) onDispose(subscribe(() => { writeUrl(); draw(); drawLegend(); }));
  const colorOf = (v) => (events ? functionColor(v.name) : stateColor(v.name, v.color));

  const plotBox = () => ({ left: LABEL_COL, top: TOP, width: Math.max(50, st.width - LABEL_COL - RIGHT), height: st.plotH || 0 });
  const unit = () => (st.doc && st.doc.time_unit) || trace.time_unit || '';

  const writeUrl = () => {
    const d = st.domain, x = st.extent;
    const full = x && d && d[0] <= x.start && d[1] >= x.end;
    setParams({ ...(d && !full ? { start: +d[0].toPrecision(10), end: +d[1].toPrecision(10) } : {}), offset: st.offset || '',
      ...(events ? { fn: getFocus() } : {}) });
  };

  async function fetchPage() {
    const seq = ++st.seq;
    st.width = Math.floor(chart.clientWidth || 1000);
    const q = { width: Math.min(4000, Math.round(plotBox().width)), offset: st.offset, limit: PAGE };
    if (st.domain) { q.start = st.domain[0]; q.end = st.domain[1]; }
    try {
      const doc = await api.get(`/traces/${trace.id}/${endpoint}`, q, { signal });
      if (seq !== st.seq) return;
      st.doc = doc;
      st.extent = doc.extent && Number.isFinite(doc.extent.start) ? doc.extent : { start: doc.start, end: doc.end };
      if (!st.domain) st.domain = [doc.start, doc.end];
      clear(message);
      draw();
      drawToolbar();
      drawLegend();
      if (events && !st.urlDone) { st.urlDone = true; writeUrl(); } // the focus of another tab goes to the URL
    } catch (e) {
      if (seq !== st.seq || e.name === 'AbortError') return;
      clear(message).appendChild(analysisError(e, 'load the states'));
    }
  }
  const scheduleFetch = () => { clearTimeout(st.timer); st.timer = setTimeout(fetchPage, DEBOUNCE_MS); };

  const clamp = ([a, b]) => {
    const x = st.extent;
    if (!x) return [a, b];
    const full = x.end - x.start;
    const span = Math.max(b - a, full * 1e-7, 1e-12);
    if (span >= full) return [x.start, x.end];
    if (a < x.start) { a = x.start; b = a + span; }
    if (b > x.end) { b = x.end; a = b - span; }
    return [a, b];
  };
  const setDomain = (d) => { st.domain = clamp(d); draw(); scheduleFetch(); writeUrl(); };

  attachTimeInteractions(chart, {
    plotBox, getDomain: () => st.domain, setDomain,
    reset: () => st.extent && setDomain([st.extent.start, st.extent.end]),
    onHover: (x, y) => hover(x, y), onLeave: () => { tooltip.hidden = true; }, brushHost: () => overlay,
  });
  if (events) attachClicks();

  // ---- drawing ----
  function rowHeight() {
    const n = Math.max(1, st.doc.rows.length);
    return Math.max(4, Math.min(28, Math.floor(Math.max(240, Math.min(520, window.innerHeight - 300)) / n)));
  }

  function draw() {
    if (!st.doc || !st.domain) return;
    st.width = Math.floor(chart.clientWidth || 1000);
    const rows = st.doc.rows, rh = rowHeight();
    st.rh = rh;
    st.plotH = Math.max(rh, rows.length * rh);
    const box = plotBox(), height = TOP + st.plotH + 8;
    chart.style.height = `${height}px`;
    const dpr = window.devicePixelRatio || 1;
    Object.assign(canvas.style, { left: `${box.left}px`, top: `${box.top}px`, width: `${box.width}px`, height: `${box.height}px` });
    canvas.width = Math.round(box.width * dpr);
    canvas.height = Math.round(box.height * dpr);
    const g = canvas.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, box.width, box.height);
    const [d0, d1] = st.domain, k = box.width / (d1 - d0), x = (t) => (t - d0) * k;
    const focus = events ? getFocus() : null;
    const colors = st.doc.values.map(colorOf);
    // the focused function's states as they are, the others under a veil
    const dim = st.doc.values.map((v) => focus !== null && v.name !== focus);
    chart.dataset.focus = focus || '';
    rows.forEach((r, i) => {
      const y = i * rh;
      if (i % 2 === 1) { g.fillStyle = TIMELINE.stripe; g.fillRect(0, y, box.width, rh); }
      const band = (depth) => depthBand(y, rh, depth, r.max_depth);
      if (r.mode === 'states') {
        for (const [v, depth, s, e] of r.states) {
          const x0 = Math.max(-1, x(s)), x1 = Math.min(box.width + 1, x(e));
          const [by, bh] = band(depth);
          g.fillStyle = colors[v];
          g.fillRect(x0, by, Math.max(1, x1 - x0), bh);
          if (dim[v]) { g.fillStyle = EVENTS.dimmed; g.fillRect(x0, by, Math.max(1, x1 - x0), bh); }
        }
      } else {
        const dt = (st.doc.end - st.doc.start) / st.doc.width, base = new Map();
        for (const [px, depth, v, share] of r.pixels) {
          const x0 = x(st.doc.start + px * dt), x1 = x(st.doc.start + (px + 1) * dt);
          const [by, bh] = band(depth), key = px * 1024 + depth;
          const b = base.get(key) || 0, hh = share * bh;
          g.fillStyle = colors[v];
          g.fillRect(x0, by + bh - b - hh, Math.max(0.5, x1 - x0 + 0.3), hh);
          if (dim[v]) { g.fillStyle = EVENTS.dimmed; g.fillRect(x0, by + bh - b - hh, Math.max(0.5, x1 - x0 + 0.3), hh); }
          base.set(key, b + hh);
        }
      }
      const prev = rows[i - 1];
      if (prev && prev.path.split(' / ')[0] !== r.path.split(' / ')[0]) { g.fillStyle = TIMELINE.groupLine; g.fillRect(0, y - 0.5, box.width, 1); }
    });
    drawOverlay(box, rh, height);
    chart.dataset.rows = String(rows.length);
    chart.dataset.start = String(d0);
    chart.dataset.end = String(d1);
  }

  function drawOverlay(box, rh, height) {
    const d3 = getD3();
    const s = d3.select(overlay).attr('width', st.width).attr('height', height);
    s.selectAll('*').remove();
    const x = d3.scaleLinear().domain(st.domain).range([0, box.width]);
    const ticks = Math.max(2, Math.floor(box.width / 95));
    const axis = s.append('g').attr('class', 'axis axis-time').attr('transform', `translate(${box.left},${TOP - 2})`)
      .call(d3.axisTop(x).ticks(ticks).tickSizeOuter(0).tickFormat(x.tickFormat(ticks)));
    axis.select('.domain').remove();
    // a label centred on a tick near the left edge would run into the axis
    // title (time (ns), which ends 8 px left of the plot): it is left out
    // (its tick stays; shifting it right could run into the next label,
    // ticks may be 60 px apart)
    axis.selectAll('.tick text').each(function (v) {
      const w = this.getComputedTextLength ? this.getComputedTextLength() : 0;
      if (x(v) - w / 2 < -6) this.remove();
    });
    s.append('text').attr('class', 'axis-unit').attr('x', box.left - 8).attr('y', TOP - 12).attr('text-anchor', 'end')
      .text(`time (${unit()})`);
    s.append('g').attr('class', 'grid').attr('transform', `translate(${box.left},${TOP})`)
      .selectAll('line').data(x.ticks(ticks)).join('line')
      .attr('x1', (v) => x(v)).attr('x2', (v) => x(v)).attr('y1', 0).attr('y2', box.height);
    s.append('rect').attr('class', 'plot-frame').attr('x', box.left).attr('y', TOP).attr('width', box.width).attr('height', box.height);
    // labels at 11-12 px; rows thinner than a label get one every few rows
    const rows = st.doc.rows, every = rh >= 12 ? 1 : Math.ceil(12 / rh), font = Math.max(11, Math.min(12, rh - 2));
    const labels = s.append('g').attr('class', 'row-labels');
    const multiType = new Set();
    rows.forEach((r, i) => { if (rows[i - 1] && rows[i - 1].container_id === r.container_id) { multiType.add(r.container_id); } });
    const minLevel = Math.min(...rows.map((r) => r.level));
    rows.forEach((r, i) => {
      if (i % every !== 0) return;
      const indent = Math.min(5, r.level - minLevel) * 8;
      // the first row of each parent container names the parent too, so that
      // threads or CPUs of the same name in two processes or nodes differ
      const parent = (p) => p.path.split(' / ').slice(-2, -1)[0] || '';
      const first = !rows[i - 1] || parent(rows[i - 1]) !== parent(r);
      const own = multiType.has(r.container_id) ? `${r.name} · ${r.type}` : r.name;
      const text = first && parent(r) && parent(r) !== 'root' ? `${parent(r)} › ${own}` : own;
      const maxChars = Math.floor((LABEL_COL - 10 - indent) / (font * 0.58));
      labels.append('text').attr('class', 'row-label').attr('x', 4 + indent).attr('y', TOP + i * rh + rh / 2)
        .attr('dy', '0.35em').style('font-size', `${font}px`).attr('data-row', r.container_id)
        .text(text.length > maxChars ? `${text.slice(0, Math.max(1, maxChars - 1))}…` : text)
        .append('title').text(`${r.path} (${r.type}): ${formatNumber(r.count)} states in the window, depth ≤ ${r.max_depth}`);
    });
    if (events) drawMessageLines(box, rh);
    overlay.appendChild(svg('g', { class: 'brush-layer' }));
  }

  // The messages over the states (event traces): lines in the overlay.
  function drawMessageLines(box, rh) {
    const rowIndex = new Map();
    st.doc.rows.forEach((r, i) => { if (!rowIndex.has(r.container_id)) rowIndex.set(r.container_id, i); });
    const g = svg('g', { class: 'timeline-messages', transform: `translate(${box.left},${TOP})`, 'pointer-events': 'none' });
    overlay.appendChild(g);
    const [d0, d1] = st.domain, k = box.width / (d1 - d0);
    st.msgGeo = drawMessages(g, st.doc.messages, {
      x: (t) => (t - d0) * k, width: box.width,
      rowY: (id) => (rowIndex.has(id) ? rowIndex.get(id) * rh + rh / 2 : null),
    });
    chart.dataset.messages = String(st.msgGeo.length);
    chart.dataset.messagesBundled = st.doc.messages_bundled ? '1' : '0';
  }

  const rowName = (id) => {
    const r = st.doc.rows.find((x) => x.container_id === id);
    return r ? r.path : `container ${id}`;
  };

  // A click (no drag) on a message zooms onto it; on a state, focuses its
  // function in every view (again: clears the focus).
  function attachClicks() {
    let down = null;
    chart.addEventListener('pointerdown', (e) => { down = [e.clientX, e.clientY, e.shiftKey]; });
    chart.addEventListener('click', (e) => {
      if (!down || down[2] || Math.hypot(e.clientX - down[0], e.clientY - down[1]) > 3 || !st.doc) return;
      const rect = chart.getBoundingClientRect(), px = e.clientX - rect.left, py = e.clientY - rect.top;
      const box = plotBox();
      const m = messageAt(st.msgGeo, px - box.left, py - box.top);
      if (m && (m.msg.count || 1) === 1) {
        const a = Math.min(m.msg.send, m.msg.recv), b = Math.max(m.msg.send, m.msg.recv);
        const pad = Math.max((b - a) * 0.25, 1);
        setDomain([a - pad, b + pad]);
        return;
      }
      const hit = stateAt(px, py);
      if (hit) toggleFocus(hit);
    });
  }

  // The name of the deepest state under (px, py) (exact rows only).
  function stateAt(px, py) {
    const box = plotBox();
    if (px < box.left || px > box.left + box.width || py < box.top || py > box.top + box.height) return null;
    const r = st.doc.rows[Math.floor((py - box.top) / st.rh)];
    if (!r) return null;
    const t = st.domain[0] + (px - box.left) / box.width * (st.domain[1] - st.domain[0]);
    if (r.mode === 'states') {
      const hits = r.states.filter(([, , s, e]) => s <= t && t <= e).sort((a, b) => b[1] - a[1]);
      return hits.length ? st.doc.values[hits[0][0]].name : null;
    }
    const dt = (st.doc.end - st.doc.start) / st.doc.width, p = Math.floor((t - st.doc.start) / dt);
    const cells = r.pixels.filter((c) => c[0] === p).sort((a, b) => b[1] - a[1] || b[3] - a[3]);
    return cells.length ? st.doc.values[cells[0][2]].name : null;
  }

  // The tooltip of the message under the pointer; its tag and communicator
  // come from /messages (looked up once per message).
  function messageHover(m, px, py) {
    const key = `${m.msg.src}:${m.msg.dst}:${m.msg.send}:${m.msg.recv}`;
    const detail = st.msgDetail.get(key);
    const show = (d) => {
      clear(tooltip).append(...messageTip(m.msg, rowName, unit(), d));
      tooltip.classList.add('msg-tooltip');
      tooltip.hidden = false;
      const tw = tooltip.offsetWidth;
      tooltip.style.left = `${Math.max(0, px + 14 + tw > st.width ? px - tw - 14 : px + 14)}px`;
      tooltip.style.top = `${Math.max(0, py + 14)}px`;
    };
    show(detail || null);
    if (detail !== undefined || (m.msg.count || 1) > 1) return;
    st.msgDetail.set(key, null);
    api.get(`/traces/${trace.id}/messages`, { start: Math.floor(m.msg.send) - 1, end: Math.ceil(m.msg.send) + 1, limit: 50 }, { signal })
      .then((doc) => {
        const found = (doc.messages || []).find((x) => Math.abs(x.send_time - m.msg.send) <= 1 && Math.abs(x.recv_time - m.msg.recv) <= 1)
          || { tag: '?', comm: '?' };
        st.msgDetail.set(key, found);
        if (!tooltip.hidden && tooltip.classList.contains('msg-tooltip') && st.hovered === key) show(found);
      })
      .catch(() => st.msgDetail.set(key, { tag: '?', comm: '?' }));
    st.hovered = key;
  }

  // The vertical band of depth `depth` in a row: each depth 2 px thinner per side.
  function depthBand(y, rh, depth, maxDepth) {
    const pad = rh >= 8 ? 1 : 0, inner = rh - 2 * pad;
    const step = maxDepth > 0 ? Math.min(inner / (2 * (maxDepth + 1)), 3) : 0;
    const inset = step * depth;
    return [y + pad + inset, Math.max(1, inner - 2 * inset)];
  }

  // ---- tooltips ----
  function hover(px, py) {
    const box = plotBox();
    if (!st.doc || px < box.left || px > box.left + box.width || py < box.top || py > box.top + box.height) { tooltip.hidden = true; return; }
    tooltip.classList.remove('msg-tooltip');
    if (events) {
      const m = messageAt(st.msgGeo, px - box.left, py - box.top);
      if (m) { st.hovered = `${m.msg.src}:${m.msg.dst}:${m.msg.send}:${m.msg.recv}`; messageHover(m, px, py); return; }
      st.hovered = null;
    }
    const i = Math.floor((py - box.top) / st.rh), r = st.doc.rows[i];
    if (!r) { tooltip.hidden = true; return; }
    const t = st.domain[0] + (px - box.left) / box.width * (st.domain[1] - st.domain[0]);
    const slack = 2 * (st.domain[1] - st.domain[0]) / box.width;
    const vals = st.doc.values;
    let body;
    if (r.mode === 'states') {
      const hits = r.states.filter(([, , s, e]) => s - slack <= t && t <= e + slack).sort((a, b) => a[1] - b[1]);
      if (!hits.length) { tooltip.hidden = true; return; }
      body = h('table', {}, hits.map(([v, depth, s, e]) => h('tr', {},
        h('td', {}, h('span', { class: 'swatch', style: `background:${colorOf(vals[v])}` }), vals[v].name),
        h('td', { class: 'small muted' }, `depth ${depth}`),
        h('td', { class: 'num' }, `${fmtTime(s)} – ${fmtTime(e, unit())} (${fmtTime(e - s, unit())})`))));
    } else {
      const dt = (st.doc.end - st.doc.start) / st.doc.width, p = Math.floor((t - st.doc.start) / dt);
      const cells = r.pixels.filter((c) => c[0] === p).sort((a, b) => a[1] - b[1] || b[3] - a[3]);
      if (!cells.length) { tooltip.hidden = true; return; }
      body = h('div', {}, h('div', { class: 'tt-sub' }, `${fmtTime(st.doc.start + p * dt)} – ${fmtTime(st.doc.start + (p + 1) * dt, unit())} (aggregated: share of the column)`),
        h('table', {}, cells.map(([, depth, v, share]) => h('tr', {},
          h('td', {}, h('span', { class: 'swatch', style: `background:${colorOf(vals[v])}` }), vals[v].name),
          h('td', { class: 'small muted' }, `depth ${depth}`), h('td', { class: 'num' }, fmtPercent(share))))),
        h('div', { class: 'tt-hint' }, 'Zoom in to see the individual states.'));
    }
    clear(tooltip).append(h('div', { class: 'tt-title' }, r.path), h('div', { class: 'tt-sub' }, r.type), body,
      ...(events ? [h('div', { class: 'tt-hint' }, 'Click: highlight this function in every view')] : []));
    tooltip.hidden = false;
    const tw = tooltip.offsetWidth;
    tooltip.style.left = `${Math.max(0, px + 14 + tw > st.width ? px - tw - 14 : px + 14)}px`;
    tooltip.style.top = `${Math.max(0, py + 14)}px`;
  }

  // ---- toolbar, legend, CSV ----
  function drawToolbar() {
    const d = st.doc, d0 = st.domain;
    const last = Math.min(d.total_rows, st.offset + d.rows.length);
    const page = (o) => { st.offset = Math.max(0, o); writeUrl(); fetchPage(); };
    const zoomBy = (f) => { const c = (d0[0] + d0[1]) / 2, s = (d0[1] - d0[0]) * f / 2; setDomain([c - s, c + s]); };
    clear(toolbar).append(
      h('div', { class: 'zoom-group', role: 'group', 'aria-label': 'Zoom' },
        h('button', { type: 'button', class: 'btn btn-small', 'aria-label': 'Zoom out', title: 'Zoom out', onclick: () => zoomBy(2) }, '−'),
        h('button', { type: 'button', class: 'btn btn-small', 'aria-label': 'Zoom in', title: 'Zoom in', onclick: () => zoomBy(0.5) }, '+'),
        h('button', { type: 'button', class: 'btn btn-small', onclick: () => setDomain([st.extent.start, st.extent.end]) }, 'Whole trace'),
        h('span', { class: 'range-label' }, `${fmtTime(d0[0])} – ${fmtTime(d0[1], unit())} (${fmtTime(d0[1] - d0[0], unit())})`)),
      h('div', { class: 'page-group', role: 'group', 'aria-label': 'Rows' },
        h('button', { type: 'button', class: 'btn btn-small', disabled: st.offset === 0, onclick: () => page(st.offset - PAGE) }, '‹ rows'),
        h('span', { class: 'small muted rows-info' }, `rows ${d.total_rows ? st.offset + 1 : 0}–${last} of ${formatNumber(d.total_rows)} (container × state type)`),
        h('button', { type: 'button', class: 'btn btn-small', disabled: last >= d.total_rows, onclick: () => page(st.offset + PAGE) }, 'rows ›')),
      h('span', { class: 'small muted origin-note' }, `time (${unit()}): ${originNote({ kind: trace.kind, time_origin: d.time_origin, time_unit: d.time_unit, has_tasks: (trace.summary || {}).tasks > 0 })}`),
      h('button', { type: 'button', class: 'btn btn-small', id: 'timeline-csv', title: 'Every state of these rows in the window, as CSV', onclick: downloadCsv }, 'CSV'),
      h('a', { class: 'btn btn-small', target: '_blank', rel: 'noopener', href: `api/v1/traces/${trace.id}/${endpoint}?start=${d0[0]}&end=${d0[1]}&offset=${st.offset}&limit=${PAGE}`, title: 'The JSON of this window (for scripts)' }, 'JSON'));
  }

  function drawLegend() {
    const vals = st.doc.values.map((v) => v).sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
    const focus = events ? getFocus() : null;
    const item = (v) => (events
      ? h('button', { type: 'button', class: `legend-item legend-fn${focus === v.name ? ' is-focused' : ''}${focus && focus !== v.name ? ' is-dimmed' : ''}`,
        'data-fn': v.name, 'aria-pressed': focus === v.name ? 'true' : 'false', title: 'Highlight this function in every view',
        onclick: () => toggleFocus(v.name) }, h('span', { class: 'swatch', style: `background:${colorOf(v)}` }), v.name)
      : h('span', { class: 'legend-item' }, h('span', { class: 'swatch', style: `background:${colorOf(v)}` }), v.name));
    clear(legendEl).append(...vals.map(item),
      h('span', { class: 'legend-item small muted' }, `time in ${unit() || 'trace units'}; thinner bar = nested state (depth 1, 2, …)`),
      ...(events ? [messageLegend(st.doc)] : []));
  }

  async function downloadCsv() {
    const q = { start: st.domain[0], end: st.domain[1], offset: st.offset, limit: PAGE, width: 4000, max_states: 1000000 };
    const doc = await api.get(`/traces/${trace.id}/${endpoint}`, { ...q, max_messages: 1 }, { signal });
    const esc = (s) => (/[",\n]/.test(s) ? `"${String(s).replace(/"/g, '""')}"` : String(s));
    const lines = [`container_path,container_id,state_type,value,depth,start_${doc.time_unit},end_${doc.time_unit}`];
    for (const r of doc.rows) for (const [v, depth, s, e] of r.states) {
      lines.push([esc(r.path), r.container_id, esc(r.type), esc(doc.values[v].name), depth, s, e].join(','));
    }
    const a = h('a', { href: URL.createObjectURL(new Blob([`${lines.join('\n')}\n`], { type: 'text/csv' })), download: `trace${trace.id}_states.csv` });
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }

  const ro = new ResizeObserver(() => { const w = Math.floor(chart.clientWidth); if (w && w !== st.width) { draw(); scheduleFetch(); } });
  ro.observe(chart);
  onDispose(() => ro.disconnect());
  await fetchPage();
}
