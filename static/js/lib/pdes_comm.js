// lib/pdes_comm.js: the communication view of the Behaviour view
// (views/pdes.js): per segment (left to right) a hierarchical circular view
// after Fig. 5.7 (d): PE-to-PE ribbons (d3.ribbon) coloured on a blue-to-red
// scale of the mean events per sample, weak ones hidden under a threshold,
// and an outer ring of per-KP bars of one metric coloured by the KP's
// cluster. Each PE has an equal sector (its KPs' bars inside it); within a
// sector the ribbon ends are as wide as the events, on one width scale for
// all segments, and the bars use the ring scale the API gives for all
// segments (scales[metric]), so circles compare side by side.
import { PDES } from '../colors.js';
import { tipContent, d3Tip } from './tooltip.js';
import { formatNumber } from './format.js';

const TAU = Math.PI * 2;
const fmt = (v) => (Number.isFinite(v) ? formatNumber(v) : '–');

// The largest sum of a PE's sent and received events over all segments.
function widthScaleMax(res) {
  let s = 0;
  for (const seg of res.segments) {
    const m = seg.matrix.length;
    for (let i = 0; i < m; i++) {
      let t = 0;
      for (let j = 0; j < m; j++) t += (seg.matrix[i][j] || 0) + (seg.matrix[j][i] || 0);
      s = Math.max(s, t);
    }
  }
  return s || 1;
}

// The KPs of each PE of the matrix, in order: [[kp id, ...] per PE].
export function kpsOfPes(res) {
  return res.entities.map((e) => (res.hierarchy && (res.hierarchy[e.id] || res.hierarchy[String(e.id)])) || []);
}

// res: the /comm/segments answer; ctx: {segs (labels), ring (metric), thr (0..1),
// colour (commScale), colourOfKp(kpId, peId), isVisible(kpId, peId),
// isSelected(kpId, peId), anySelection, nameOf(id), labelOf(kpId, peId), size, tip}.
export function drawCommSegment(d3, holder, res, k, ctx) {
  const seg = res.segments[k];
  const size = ctx.size, R = size / 2 - 4, r0 = R * 0.68, rIn = r0 - 12;
  const m = res.entities.length;
  const pad = m > 1 ? Math.min(0.04, TAU / m * 0.15) : 0;
  const sector = TAU / Math.max(1, m);
  const kps = kpsOfPes(res);
  const ringValues = (seg.rings && seg.rings[ctx.ring]) || [];
  const [, ringMax] = (res.scales && res.scales[ctx.ring]) || [0, 1];
  const sMax = widthScaleMax(res);
  const mMax = (res.matrix_scale && res.matrix_scale[1]) || 1;
  const wrap = d3.select(holder).append('figure').attr('class', 'pdes-comm-seg').attr('data-segment', ctx.segs[k] || k);
  wrap.append('figcaption').attr('class', 'pdes-comm-caption')
    .text(`${ctx.segs[k] || k}: ${fmt(seg.t0)} – ${fmt(seg.t1)}`);
  const svg = wrap.append('svg').attr('width', size).attr('height', size).attr('class', 'pdes-comm-svg')
    .attr('role', 'img').attr('aria-label', `Communication of segment ${ctx.segs[k] || k}`);
  const g = svg.append('g').attr('transform', `translate(${size / 2},${size / 2})`);
  // PE sectors
  const arc = d3.arc();
  const peArc = (i) => ({ innerRadius: rIn + 2, outerRadius: r0 - 2, startAngle: i * sector + pad / 2, endAngle: (i + 1) * sector - pad / 2 });
  g.append('g').selectAll('path').data(res.entities).join('path').attr('class', 'pdes-pe-arc')
    .attr('data-id', (e) => e.id).attr('d', (e, i) => arc(peArc(i)))
    .attr('fill', (e, i) => (kps[i].some((kp) => ctx.isSelected(kp, e.id)) ? PDES.selected : PDES.unclustered))
    .call(d3Tip, ctx.tip, (e) => {
      const i = res.entities.indexOf(e);
      const sent = d3.sum(seg.matrix[i]), recv = d3.sum(seg.matrix, (row) => row[i]);
      return tipContent(e.name, [['Sent (mean per sample)', fmt(sent)], ['Received', fmt(recv)], ['KPs', String(kps[i].length)]]);
    });
  // ribbons: sector i holds its outgoing ends, then its incoming ends
  const used = new Array(m).fill(0);
  const span = (i, v) => {
    const a0 = i * sector + pad / 2 + used[i];
    const w = v / sMax * (sector - pad);
    used[i] += w;
    return { startAngle: a0, endAngle: a0 + w, radius: rIn };
  };
  const ends = [];
  for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) { const v = seg.matrix[i][j] || 0; if (v > 0) ends.push({ i, j, v }); }
  for (const e of ends) e.source = span(e.i, e.v);
  for (let j = 0; j < m; j++) for (const e of ends) if (e.j === j) e.target = span(j, e.v);
  const shown = ends.filter((e) => e.v >= ctx.thr * mMax);
  const ribbon = d3.ribbon().radius(rIn);
  const touches = (e) => kps[e.i].some((kp) => ctx.isSelected(kp, res.entities[e.i].id))
    || kps[e.j].some((kp) => ctx.isSelected(kp, res.entities[e.j].id));
  shown.sort((a, b) => a.v - b.v);
  g.append('g').attr('class', 'pdes-ribbons').selectAll('path').data(shown).join('path')
    .attr('class', (e) => `pdes-ribbon${ctx.anySelection && !touches(e) ? ' is-dimmed' : ''}`)
    .attr('data-source', (e) => res.entities[e.i].id).attr('data-target', (e) => res.entities[e.j].id)
    .attr('d', (e) => ribbon(e)).attr('fill', (e) => ctx.colour(e.v))
    .call(d3Tip, ctx.tip, (e) => tipContent(`${res.entities[e.i].name} → ${res.entities[e.j].name}`,
      [['Events per sample (mean)', fmt(e.v)]], null, `segment ${ctx.segs[k] || k}`));
  // KP bars
  const bars = [];
  kps.forEach((list, i) => {
    const a0 = i * sector + pad / 2, w = (sector - pad) / Math.max(1, list.length);
    list.forEach((kp, q) => {
      const idx = ringIndex(res, kp);
      bars.push({ kp, pe: res.entities[i].id, v: idx >= 0 ? ringValues[idx] : null, a0: a0 + q * w, a1: a0 + (q + 1) * w });
    });
  });
  const hb = (v) => (Number.isFinite(v) && ringMax > 0 ? Math.max(0.5, (R - r0) * Math.min(1, v / ringMax)) : 0);
  g.append('g').attr('class', 'pdes-ring').selectAll('path').data(bars.filter((b) => ctx.isVisible(b.kp, b.pe))).join('path')
    .attr('class', (b) => `pdes-bar${ctx.isSelected(b.kp, b.pe) ? ' is-selected' : ''}${ctx.anySelection && !ctx.isSelected(b.kp, b.pe) ? ' is-dimmed' : ''}`)
    .attr('data-id', (b) => b.kp)
    .attr('d', (b) => arc({ innerRadius: r0, outerRadius: r0 + hb(b.v), startAngle: b.a0 + 0.002, endAngle: b.a1 - 0.002 }))
    .attr('fill', (b) => (ctx.anySelection && !ctx.isSelected(b.kp, b.pe) ? PDES.dimmed : ctx.colourOfKp(b.kp, b.pe)))
    .call(d3Tip, ctx.tip, (b) => tipContent(ctx.nameOf(b.kp), [[`${ctx.ring} (mean)`, fmt(b.v)], ['Cluster', ctx.labelOf(b.kp, b.pe)]],
      null, `${ctx.nameOf(b.pe)}, segment ${ctx.segs[k] || k}`));
  svg.attr('data-ribbons', shown.length);
}

// The index of KP `kp` in the rings' arrays: the KPs of the hierarchy in
// matrix order (the answer's order), cached per answer.
const ringOrder = new WeakMap();
function ringIndex(res, kp) {
  let map = ringOrder.get(res);
  if (!map) {
    map = new Map();
    kpsOfPes(res).flat().forEach((id, i) => map.set(id, i));
    ringOrder.set(res, map);
  }
  return map.has(kp) ? map.get(kp) : -1;
}
