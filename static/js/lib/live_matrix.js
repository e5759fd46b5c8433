// lib/live_matrix.js: the communication adjacency matrices e1 (live), e2
// (base) and e3 (difference per change point) of the live-run page (Fig.
// 6.5; spec_pdes_dmv.md 4.2): cells on a canvas (up to 256 x 256), a
// cluster-colour strip along the top and the left (the cluster of each row
// entity, or the majority of a group's), the row and column names when
// they fit, a tooltip naming source, destination and value, and a
// double-click on a cell to drill into the row's group (onDrill). The
// colour maps come from the caller (colors.js: grey sequential for e1 and
// e2, red-blue divergent for e3).
import { h } from '../dom.js';
import { tipContent } from './tooltip.js';
import { formatNumber } from './format.js';

const STRIP = 6;   // width of the cluster strips
const GAP = 2;
const fmt = (v) => (v === null || v === undefined || Number.isNaN(v) ? '–' : formatNumber(+Number(v).toPrecision(5)));

// The largest |value| of a matrix (rows of numbers or nulls).
export function matrixMax(matrix, abs = false) {
  let mx = 0;
  for (const row of matrix || []) for (const v of row) if (v !== null && Number.isFinite(v)) mx = Math.max(mx, abs ? Math.abs(v) : v);
  return mx;
}

// m: {ids, names, labels (cluster per row, -1 none), matrix[m][m]};
// ctx: {title, colour(v), stripColour(label), textColour, size (px of the
// square), tip, kind 'live'|'base'|'diff', valueLabel, onDrill(rowId,
// colId) | null, childLevel, caption}. `prev`: the figure this slot showed
// before: when it has the same shape it is repainted in place (so that a
// double-click survives the next message). Returns the figure element.
export function drawMatrix(m, ctx, prev = null) {
  const n = (m.ids || []).length;
  const showNames = n > 0 && n <= 24;
  const labelW = showNames ? 46 : 0;
  const off = labelW + STRIP + GAP;
  const size = ctx.size;
  const cell = n ? size / n : size;
  const shape = `${n}:${size}:${ctx.kind}`;
  if (prev && prev.dataset.shape === shape && prev.liveState) {
    prev.liveState.m = m;
    prev.liveState.ctx = ctx;
    describe(prev, m, ctx);
    paint(prev.querySelector('canvas'), m, ctx, { n, showNames, labelW, off, cell });
    return prev;
  }
  const W = off + size, H = off + size;
  const dpr = Math.max(1, Math.min(3, window.devicePixelRatio || 1));
  const canvas = h('canvas', { class: 'live-matrix-canvas', width: Math.round(W * dpr), height: Math.round(H * dpr),
    style: `width:${W}px;height:${H}px`, role: 'img', tabindex: 0 });
  const fig = h('figure', { class: `live-matrix live-matrix-${ctx.kind}`, 'data-shape': shape, 'data-off': off, 'data-cell': cell },
    h('figcaption', { class: 'live-matrix-caption' }), canvas);
  const state = { m, ctx };
  fig.liveState = state;
  describe(fig, m, ctx);
  paint(canvas, m, ctx, { n, showNames, labelW, off, cell });
  const at = (ev) => {
    const r = canvas.getBoundingClientRect();
    const px = ev.clientX - r.left - off, py = ev.clientY - r.top - off;
    if (px < 0 || py < 0 || !n) return null;
    const i = Math.floor(py / cell), j = Math.floor(px / cell);
    return i < n && j < n ? [i, j] : null;
  };
  canvas.addEventListener('mousemove', (ev) => {
    const c = at(ev);
    const { m: mm, ctx: cc } = state;
    if (!c) { cc.tip.hide(); return; }
    const [i, j] = c;
    const v = (mm.matrix[i] || [])[j];
    cc.tip.show(ev, tipContent(`${mm.names[i]} → ${mm.names[j]}`, [[cc.valueLabel || 'Events', fmt(v)],
      ['Clusters', `${labelText(mm.labels, i)} → ${labelText(mm.labels, j)}`]],
    cc.onDrill ? `Double-click to show the ${cc.childLevel || 'children'}s of ${mm.names[i]}` : null, cc.title));
  });
  canvas.addEventListener('mouseleave', () => state.ctx.tip.hide());
  canvas.addEventListener('dblclick', (ev) => {
    const c = at(ev);
    if (c && state.ctx.onDrill) state.ctx.onDrill(state.m.ids[c[0]], state.m.ids[c[1]]);
  });
  return fig;
}

function describe(fig, m, ctx) {
  const n = (m.ids || []).length;
  fig.dataset.m = String(n);
  fig.dataset.level = m.level || '';
  fig.dataset.group = m.group === null || m.group === undefined ? '' : String(m.group);
  fig.dataset.tIdx = m.t_idx === null || m.t_idx === undefined ? '' : String(m.t_idx);
  fig.querySelector('figcaption').textContent = ctx.caption || ctx.title;
  const canvas = fig.querySelector('canvas');
  canvas.classList.toggle('is-drillable', Boolean(ctx.onDrill));
  canvas.setAttribute('aria-label', `${ctx.title}: ${n} x ${n} communication matrix${ctx.onDrill ? '; double-click a cell to drill into its group' : ''}`);
}

function paint(canvas, m, ctx, { n, showNames, labelW, off, cell }) {
  const dpr = canvas.width / parseFloat(canvas.style.width);
  const g = canvas.getContext('2d');
  g.setTransform(1, 0, 0, 1, 0, 0);
  g.clearRect(0, 0, canvas.width, canvas.height);
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  for (let i = 0; i < n; i++) {
    const row = m.matrix[i] || [];
    for (let j = 0; j < n; j++) {
      const v = row[j];
      g.fillStyle = ctx.colour(v === null || v === undefined ? 0 : v);
      g.fillRect(off + j * cell, off + i * cell, Math.ceil(cell), Math.ceil(cell));
    }
    g.fillStyle = ctx.stripColour(m.labels ? m.labels[i] : -1);
    g.fillRect(labelW, off + i * cell, STRIP, Math.ceil(cell));   // left strip: rows
    g.fillRect(off + i * cell, labelW, Math.ceil(cell), STRIP);   // top strip: columns
  }
  if (!showNames) return;
  g.font = '10px sans-serif';
  g.fillStyle = ctx.textColour;
  g.textAlign = 'right';
  g.textBaseline = 'middle';
  for (let i = 0; i < n; i++) g.fillText(short(m.names[i]), labelW - 3, off + (i + 0.5) * cell, labelW - 4);
  for (let j = 0; j < n; j++) {
    g.setTransform(dpr, 0, 0, dpr, dpr * (off + (j + 0.5) * cell), dpr * (labelW - 3));
    g.rotate(-Math.PI / 2);
    g.textAlign = 'left';
    g.fillText(short(m.names[j]), 0, 0, labelW - 4);
  }
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
}

const short = (s) => { const t = String(s ?? ''); return t.length > 9 ? `${t.slice(0, 8)}…` : t; };
const labelText = (labels, i) => (labels && labels[i] >= 0 ? `cluster ${labels[i]}` : 'none');

// A matrix as CSV rows [header, rows]: one row per cell.
export function matrixCsv(m, extra = {}) {
  const keys = Object.keys(extra);
  return [[...keys, 'source_id', 'source', 'target_id', 'target', 'value'],
    (m.ids || []).flatMap((a, i) => m.ids.map((b, j) => [...keys.map((k) => extra[k]), a, m.names[i], b, m.names[j], (m.matrix[i] || [])[j]]))];
}
