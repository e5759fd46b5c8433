// lib/axes.js: scales and tick values for the charts that draw their own
// axes (views/atree.js, views/regression.js, views/pic.js). The scales are
// d3's; the tick values keep the dashboard's rules, which d3.ticks does not
// follow (it rounds the step geometrically, so it would move the grid lines):
//   stepTicks: the multiples of the smallest 1-2-5 step that gives at most
//              `count` intervals over the domain;
//   decadeTicks: the powers of ten inside a log domain;
//   evenTicks: `count` equal intervals, ends included (not rounded).
import { getD3 } from '../d3.js';

// d3.scaleLinear over [d0, d1] -> [r0, r1]; an empty domain is widened to
// one unit, so that values still spread from r0.
export function linearScale([d0, d1], range) {
  return getD3().scaleLinear().domain([d0, d1 === d0 ? d0 + 1 : d1]).range(range);
}

// d3.scaleLog over a positive domain.
export function logScale(domain, range) {
  return getD3().scaleLog().domain(domain).range(range);
}

// `eps`: how far beyond the domain's end the last tick may fall (rounding).
export function stepTicks(scale, count = 8, eps = 1e-9) {
  const [lo, hi] = scale.domain();
  const span = hi - lo || 1;
  const raw = span / count, p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((x) => x >= raw) || p * 10;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + eps; v += step) out.push(+v.toPrecision(12));
  return out;
}

export function decadeTicks(scale) {
  const [lo, hi] = scale.domain();
  const l0 = Math.log10(lo), l1 = Math.log10(hi);
  const out = [];
  for (let e = Math.floor(l0); e <= Math.ceil(l1); e++) if (e >= l0 - 1e-9 && e <= l1 + 1e-9) out.push(10 ** e);
  if (out.length < 2) out.push(lo, hi);
  return out;
}

export function evenTicks(scale, count) {
  const [lo, hi] = scale.domain();
  return Array.from({ length: count + 1 }, (_, i) => lo + ((hi - lo) * i) / count);
}
