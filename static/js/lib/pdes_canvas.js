// lib/pdes_canvas.js: the large-trace path of the Behaviour view's charts
// (lib/pdes_charts.js): above LARGE lines (or dots) a chart draws its marks
// on a device-pixel-ratio aware <canvas> under the SVG that keeps the axes,
// the boundaries and the pointer gestures. Polylines are rasterised in JS
// into per-colour pixel counts and composited once (drawLinesCanvas: the
// selected on top, thicker and opaque); dots are canvas arcs. Selections are
// computed from the data and the scales, never from the DOM: crossedRows
// (the freeform stroke over polylines), nearestRow (the line under the
// pointer, for the tooltip). Each canvas says what it drew in data
// attributes: data-marks, data-selected, data-colours "colour:count;...",
// data-drawn-at and data-painted-at (performance.now(), after the paint).

// Charts with more marks than this draw on a canvas.
export const LARGE = 1500;

// A canvas of css size w x h placed at (0, 0) of `holder` (position:
// relative), scaled for the device pixel ratio: returns {canvas, g2}.
export function hiDpiCanvas(holder, w, h, cls) {
  const dpr = Math.max(1, Math.min(3, window.devicePixelRatio || 1));
  const canvas = document.createElement('canvas');
  canvas.className = `pdes-canvas ${cls}`;
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(h * dpr);
  canvas.style.width = `${w}px`;
  canvas.style.height = `${h}px`;
  holder.appendChild(canvas);
  const g2 = canvas.getContext('2d');
  g2.setTransform(dpr, 0, 0, dpr, 0, 0);
  return { canvas, g2 };
}

// Groups `items` by colour, keeping the first-seen order: Map colour -> items.
function byColour(items, colourOf) {
  const m = new Map();
  for (const it of items) {
    const c = colourOf(it);
    if (!m.has(c)) m.set(c, []);
    m.get(c).push(it);
  }
  return m;
}

function describe(canvas, groups, nSelected, nMarks) {
  canvas.dataset.marks = String(nMarks);
  canvas.dataset.selected = String(nSelected);
  canvas.dataset.colours = [...groups].map(([c, items]) => `${c}:${items.length}`).join(';');
  canvas.dataset.drawnAt = String(performance.now());
  // after the next paint (the canvas is rasterised then)
  requestAnimationFrame(() => setTimeout(() => { canvas.dataset.paintedAt = String(performance.now()); }, 0));
}

const rgbOf = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

// A density raster of many polylines: canvas 2D stroking of millions of
// segments costs seconds (the paths are rasterised at paint time); adding
// each segment's pixels to a count per colour and compositing once costs a
// fraction of it. layer: {w, h (device pixels), dpr, buf: Map colour ->
// Float32Array w*h}.
export function densityLayer(w, h, dpr) {
  return { w, h, dpr, bufs: new Map() };
}

// Adds the rows `list` of chart (see drawLinesCanvas) in `colour`; heavy:
// two device pixels thick.
function rasterRows(layer, colour, chart, list, heavy) {
  const { w, h, dpr } = layer;
  if (!layer.bufs.has(colour)) layer.bufs.set(colour, new Float32Array(w * h));
  const buf = layer.bufs.get(colour);
  const { s, xs, y } = chart;
  const l = s.l;
  const X = Float64Array.from(xs, (v) => v * dpr);
  const lo = Math.max(0, Math.floor(chart.top * dpr) - 2), hi = Math.min(h - 1, Math.ceil(chart.bottom * dpr) + 2);
  // y(v) = ya + v * yk: the linear scale without its call per point
  const [d0, d1] = y.domain(), [r0, r1] = y.range();
  const yk = ((r1 - r0) / (d1 - d0)) * dpr, ya = r0 * dpr - d0 * yk + 0.5;
  const vals = s.values;
  for (const i of list) {
    const base = i * l;
    let px = NaN, py = NaN;
    for (let j = 0; j < l; j++) {
      const v = vals[base + j];
      if (v !== v) { px = NaN; continue; } // NaN: a gap
      const qx = X[j] + 0.5, qy = ya + v * yk;
      let n = 1, dx = 0, dy = 0, t = 1;
      if (px === px) {
        dx = qx - px; dy = qy - py;
        n = Math.max(1, Math.ceil(Math.max(Math.abs(dx), Math.abs(dy))));
      } else t = n; // the first point of a run: itself only
      for (; t <= n; t++) {
        const xi = (px === px ? px + dx * t / n : qx) | 0, yi = (px === px ? py + dy * t / n : qy) | 0;
        if (xi < 0 || xi >= w || yi < lo || yi > hi) continue;
        buf[yi * w + xi] += 1;
        if (heavy && yi < hi) buf[yi * w + w + xi] += 1;
      }
      px = qx; py = qy;
    }
  }
}

// Paints layers (in order, each over the previous) into the canvas: each
// pixel gets the count-weighted mean colour of its lines, with an opacity
// growing with their count (1 - exp(-gain * count)).
function composite(g2, layers) {
  const { w, h } = layers[0];
  const img = g2.createImageData(w, h), d = img.data;
  const acc = new Float32Array(w * h * 4); // premultiplied r, g, b, a in 0..1
  for (const layer of layers) {
    const groups = [...layer.bufs].map(([c, buf]) => [rgbOf(c), buf]);
    if (!groups.length) continue;
    for (let p = 0; p < w * h; p++) {
      let n = 0, r = 0, g = 0, b = 0;
      for (const [rgb, buf] of groups) {
        const c = buf[p];
        if (c) { n += c; r += c * rgb[0]; g += c * rgb[1]; b += c * rgb[2]; }
      }
      if (!n) continue;
      const a = 1 - Math.exp(-layer.gain * n), k = p * 4, keep = 1 - a;
      acc[k] = a * r / n / 255 + keep * acc[k];
      acc[k + 1] = a * g / n / 255 + keep * acc[k + 1];
      acc[k + 2] = a * b / n / 255 + keep * acc[k + 2];
      acc[k + 3] = a + keep * acc[k + 3];
    }
  }
  for (let p = 0; p < w * h; p++) {
    const k = p * 4, a = acc[k + 3];
    if (!a) continue;
    d[k] = Math.round(255 * acc[k] / a); d[k + 1] = Math.round(255 * acc[k + 1] / a); d[k + 2] = Math.round(255 * acc[k + 2] / a);
    d[k + 3] = Math.round(255 * a);
  }
  g2.save();
  g2.setTransform(1, 0, 0, 1, 0, 0);
  g2.putImageData(img, 0, 0);
  g2.restore();
}

// The polylines of the charts on one canvas. chart: {s (a series), rows
// (row indices to draw), xs (x pixel of each column), y (value -> pixel),
// top, bottom, left, right}; style: {colourOf(id), selection (Set), dimmed
// (colour)}. The selected lines go on top, twice as thick and opaque; the
// others are dimmed while a selection exists. Returns per chart {groups,
// selGroups}: Map colour -> rows.
export function drawLinesCanvas(canvas, g2, charts, style) {
  const w = canvas.width, h = canvas.height, dpr = w / parseFloat(canvas.style.width);
  const plainL = { ...densityLayer(w, h, dpr), gain: 0.35 }, selL = { ...densityLayer(w, h, dpr), gain: 1.2 };
  const anySel = style.selection.size > 0;
  const out = charts.map((chart) => {
    const { s, rows } = chart;
    const plain = [], sel = [];
    for (const i of rows) (anySel && style.selection.has(s.entities[i].id) ? sel : plain).push(i);
    const groups = byColour(plain, (i) => (anySel ? style.dimmed : style.colourOf(s.entities[i].id)));
    const selGroups = byColour(sel, (i) => style.colourOf(s.entities[i].id));
    for (const [c, list] of groups) rasterRows(plainL, c, chart, list, false);
    for (const [c, list] of selGroups) rasterRows(selL, c, chart, list, true);
    return { groups, selGroups };
  });
  composite(g2, [plainL, selL]);
  return out;
}

// Marks the canvas of the detail with what its first chart drew.
export function describeLines(canvas, drawn, nRows) {
  const all = new Map(drawn.groups);
  for (const [c, l] of drawn.selGroups) all.set(c, (all.get(c) || []).concat(l));
  describe(canvas, all, [...drawn.selGroups.values()].reduce((a, l) => a + l.length, 0), nRows);
}

// Does segment p1-p2 cross segment p3-p4 (pixel coordinates)?
export function segmentsCross(p1, p2, p3, p4) {
  const d = (a, b, c) => (c[0] - a[0]) * (b[1] - a[1]) - (b[0] - a[0]) * (c[1] - a[1]);
  const d1 = d(p3, p4, p1), d2 = d(p3, p4, p2), d3 = d(p1, p2, p3), d4 = d(p1, p2, p4);
  return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0));
}

// The first column whose x is >= px (xs ascending).
function lowerBound(xs, px) {
  let lo = 0, hi = xs.length;
  while (lo < hi) { const m = (lo + hi) >> 1; if (xs[m] < px) lo = m + 1; else hi = m; }
  return lo;
}

// The entity ids whose polyline (in any of `charts`) the freeform `stroke`
// ([[x, y]...] in the charts' pixel space) crosses, from the values and the
// scales: each stroke segment is tested only against the line segments of
// the columns its x extent covers.
export function crossedRows(charts, stroke) {
  const hit = new Set();
  for (const ch of charts) {
    const { s, rows, xs, y } = ch;
    if (xs.length < 2) continue;
    for (let k = 1; k < stroke.length; k++) {
      const c = stroke[k - 1], e = stroke[k];
      const ylo = Math.min(c[1], e[1]), yhi = Math.max(c[1], e[1]);
      if (yhi < ch.top - 2 || ylo > ch.bottom + 2) continue;
      const j0 = Math.max(1, lowerBound(xs, Math.min(c[0], e[0]))), j1 = Math.min(xs.length - 1, lowerBound(xs, Math.max(c[0], e[0])));
      for (const i of rows) {
        const id = s.entities[i].id;
        if (hit.has(id)) continue;
        const base = i * s.l;
        for (let j = j0; j <= j1; j++) {
          const va = s.values[base + j - 1], vb = s.values[base + j];
          if (Number.isNaN(va) || Number.isNaN(vb)) continue;
          const ya = y(va), yb = y(vb);
          if (Math.max(ya, yb) < ylo || Math.min(ya, yb) > yhi) continue;
          if (segmentsCross([xs[j - 1], ya], [xs[j], yb], c, e)) { hit.add(id); break; }
        }
      }
    }
  }
  return [...hit];
}

// The row of `chart` whose line passes nearest (vertically, within `tol`
// pixels) to (px, py), or -1.
export function nearestRow(chart, px, py, tol = 6) {
  const { s, rows, xs, y } = chart;
  if (!xs.length || py < chart.top - tol || py > chart.bottom + tol) return -1;
  let j = lowerBound(xs, px);
  if (j >= xs.length) j = xs.length - 1;
  if (j > 0 && px - xs[j - 1] < xs[j] - px) j -= 1;
  let best = -1, bestD = tol;
  for (const i of rows) {
    const v = s.values[i * s.l + j];
    if (Number.isNaN(v)) continue;
    const d = Math.abs(y(v) - py);
    if (d <= bestD) { bestD = d; best = i; }
  }
  return best;
}

// The dots of the scatter: pts [{id, px, py}], drawn by colour, the
// selected on top with an outline.
export function drawDotsCanvas(canvas, g2, pts, style) {
  const anySel = style.selection.size > 0;
  const plain = pts.filter((p) => !style.selection.has(p.id)), sel = pts.filter((p) => style.selection.has(p.id));
  const r = pts.length > 5000 ? 2 : 3;
  const groups = byColour(plain, (p) => style.colourOf(p.id));
  g2.globalAlpha = anySel ? 0.2 : 0.8;
  for (const [colour, list] of groups) {
    g2.fillStyle = colour;
    g2.beginPath();
    for (const p of list) { g2.moveTo(p.px + r, p.py); g2.arc(p.px, p.py, r, 0, 2 * Math.PI); }
    g2.fill();
  }
  const selGroups = byColour(sel, (p) => style.colourOf(p.id));
  g2.globalAlpha = 1;
  g2.lineWidth = 1;
  g2.strokeStyle = style.outline;
  const outline = sel.length <= 500; // thousands of outlines would paint a black blob
  for (const [colour, list] of selGroups) {
    g2.fillStyle = colour;
    g2.beginPath();
    for (const p of list) { g2.moveTo(p.px + r + 1, p.py); g2.arc(p.px, p.py, r + 1, 0, 2 * Math.PI); }
    g2.fill();
    if (outline) g2.stroke();
  }
  const all = new Map(groups);
  for (const [c, l] of selGroups) all.set(c, (all.get(c) || []).concat(l));
  describe(canvas, all, sel.length, pts.length);
}
