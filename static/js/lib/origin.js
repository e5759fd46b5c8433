// lib/origin.js: one wording of a trace's time origin for every time axis
// (issue 14). Every time-based answer carries `time_origin`: where its 0
// lies in the file's clock. Task traces (StarPU, StarVZ) count from the
// first application task's start (runtime states before it are negative),
// plain Paje traces have origin 0 (times as in the file), data-movement
// traces count from the run's first event (the file holds epoch µs).
import { fmtTime } from './format.js';

// The unit as printed: "us" -> "µs".
export function unitLabel(unit) {
  return unit === 'us' || unit === 'usec' ? 'µs' : unit || '';
}

// The file's time of the origin, grouped ("1,665,130,864,679,268 µs").
function fileTime(origin, unit) {
  return fmtTime(origin, unitLabel(unit));
}

// The short note shown next to a time axis label:
//   "time from the first application task (t = 675.0 ms in the file)"
//   "time as in the file" (origin 0)
//   "time from the run's start (t = 1,665,130,864,679,268 µs in the file)"
// `info`: { kind, time_origin, time_unit, has_tasks } (a trace, an answer,
// or both; has_tasks false: a trace without application tasks).
export function originNote(info = {}) {
  const origin = Number(info.time_origin);
  const unit = info.time_unit;
  if (info.kind === 'datamove') {
    return Number.isFinite(origin) && origin !== 0
      ? `time from the run's start (t = ${fileTime(origin, unit || 'us')} in the file)` : "time from the run's start";
  }
  if (!Number.isFinite(origin) || origin === 0) return 'time as in the file';
  // a trace without application tasks (Chrome slices) counts from its first event
  const from = info.has_tasks === false ? 'the first event' : 'the first application task';
  return `time from ${from} (t = ${fileTime(origin, unit)} in the file)`;
}

// The origin of a trace from its summary: datamove traces use the run's
// start (summary.start, absolute), task traces summary.time_origin.
export function traceOrigin(trace) {
  const s = (trace && trace.summary) || {};
  const kind = trace && trace.kind;
  const unit = s.time_unit || (trace && trace.time_unit) || (kind === 'datamove' ? 'us' : '');
  const origin = kind === 'datamove' ? s.start : s.time_origin;
  return { kind, time_origin: Number.isFinite(origin) ? origin : 0, time_unit: unit };
}

// An axis label with its origin note: "Time (ms) — time from the first …".
export function axisLabelWithOrigin(label, info) {
  return `${label} · ${originNote(info)}`;
}

// The extent of a trace relative to its origin, for the Overview: rows of
// [label, text]. Start before 0 on a task trace is the runtime's start-up.
export function extentRows(trace) {
  const s = (trace && trace.summary) || {};
  const o = traceOrigin(trace);
  const u = unitLabel(o.time_unit);
  const shift = o.kind === 'datamove' ? o.time_origin : 0;
  const rows = [['Time origin', originNote(o)]];
  if (Number.isFinite(s.start)) {
    const start = s.start - shift;
    const note = start < 0 && o.kind !== 'datamove' ? ' (runtime start-up, before the first task)' : '';
    rows.push(['Start', `${fmtTime(start, u)}${note}`]);
  }
  if (Number.isFinite(s.end)) rows.push(['End', fmtTime(s.end - shift, u)]);
  if (Number.isFinite(s.duration)) rows.push(['Duration', fmtTime(s.duration, u)]);
  return rows;
}
