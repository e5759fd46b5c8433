// lib/live_scatter.js: the behaviour-similarity views c1 and c2 of the
// live-run page (Fig. 6.5; spec_pdes_dmv.md 4.2): the progressive PCA
// layout of the entities (the message's dr.top_xy / dr.bottom_xy, aligned
// by the server to the previous layout with Procrustes), coloured by the a1
// clusters; a lasso selects, and while a selection exists the unselected
// entities turn grey with a low opacity. Drawing and lasso are the offline
// Behaviour view's (lib/pdes_charts.js drawScatter, canvas above LARGE).
import { PDES } from '../colors.js';
import { drawScatter } from './pdes_charts.js';

// ctx: {ids, xy [[x, y]...] (row i = ids[i]), metric, nameOf, colourOf,
// labelOf, selection, width, tip, onLasso(ids)}.
export function drawLiveScatter(d3, holder, ctx) {
  const n = Math.min(ctx.ids.length, (ctx.xy || []).length);
  const proj = { method: `progressive PCA of ${ctx.metric}`, entities: ctx.ids.slice(0, n), xy: ctx.xy.slice(0, n) };
  const anySel = ctx.selection.size > 0;
  drawScatter(d3, holder, proj, {
    width: ctx.width, tip: ctx.tip, visible: () => true, nameOf: ctx.nameOf, labelOf: ctx.labelOf,
    colourOf: (id) => (anySel && !ctx.selection.has(id) ? PDES.dimmed : ctx.colourOf(id)),
    selection: ctx.selection, onLasso: ctx.onLasso,
  });
  const svg = holder.querySelector('.pdes-scatter-svg');
  if (svg) { svg.classList.add('live-scatter-svg'); svg.dataset.metric = ctx.metric; }
  return n;
}
