// lib/ensemble_colors.js: the colours of the ensemble views (spec_callflow.md
// 2.13), shared by the Sankey and the detail panels: the white-to-red scale
// of gradient bin counts (how many runs fall in a bin), the blue scale of the
// border (max exclusive time), the target green and the ensemble grey.
// `d3` is getD3(), passed in so that this module needs no d3.
export const TARGET = '#16a34a';    // the target run, everywhere
export const ENSEMBLE = '#9ca3af';  // the ensemble (grey) under the target
export const HIGHLIGHT = '#f97316'; // hovered / selected call sites

const spread = ([lo, hi]) => (hi > lo ? [lo, hi] : [lo, lo + 1]);

// White to red over the bin counts [lo, hi] (spec 2.13: single-hue white-red).
export function countScale(d3, domain) {
  return d3.scaleSequential(d3.interpolateReds).domain(spread(domain));
}

// Light to dark blue over [0, max] of the border value (exc_max).
export function borderScale(d3, max) {
  return d3.scaleSequential((t) => d3.interpolateBlues(0.25 + 0.75 * t)).domain(spread([0, max || 1]));
}
