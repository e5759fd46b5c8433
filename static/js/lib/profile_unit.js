// lib/profile_unit.js: the unit of a profile's metric as the dashboard shows
// it (super graph, call sites), and where that unit comes from.
//
// A unit the profile declares (HPCToolkit's "(usec)", Caliper's
// attribute.unit) is used as it is. Caliper profiles written before Caliper
// declared units carry none; its timer service documented time.duration in
// microseconds (Caliper doc/services.rst, "Timestamp": "Measure duration (in
// microseconds)"), while later versions measure seconds and declare "sec".
// So an undeclared Caliper time metric is read in microseconds when its
// largest value cannot be seconds (over a day, 86,400), else in the trace's
// time unit; the note says which, so the user can tell an inferred unit.
const DAY_S = 86400;
const CALIPER = new Set(['caliper_json_split', 'cali']);

// metric: {name, unit}; maxValue: the largest value shown (root inclusive).
// Returns {unit, note}: note is '' for a declared unit.
export function profileUnit(trace, metric, maxValue) {
  const declared = metric && metric.unit;
  if (declared) return { unit: declared, note: '' };
  const timeLike = /time|duration/i.test((metric && metric.name) || '');
  if (!timeLike) return { unit: '', note: 'no unit recorded in the profile' };
  if (CALIPER.has(trace.format) && Number.isFinite(maxValue) && maxValue > DAY_S) {
    return { unit: 'usec', note: 'µs inferred: the profile records no unit, and Caliper\'s timer measured µs before it recorded units' };
  }
  const unit = trace.time_unit || '';
  return { unit, note: unit ? `${unit} assumed: the profile records no unit` : 'no unit recorded in the profile' };
}
