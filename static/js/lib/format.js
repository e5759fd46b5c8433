// lib/format.js: every number, time, percentage, byte and date formatter of
// the dashboard, so that a value reads the same in every view.

const numberFormat = new Intl.NumberFormat('en-US');

// 12345.678 -> "12,345.7" (6 significant digits for non-integers).
export function formatNumber(n) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return String(n ?? '');
  return Number.isInteger(n) ? numberFormat.format(n)
    : numberFormat.format(Number(n.toPrecision(6)));
}

// 1536 -> "1.5 KiB".
export function formatBytes(n) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return i === 0 ? `${n} B` : `${n.toFixed(n < 10 ? 1 : 0)} ${units[i]}`;
}

// ISO 8601 UTC string -> "2026-11-21 20:18 UTC" (stable across time zones,
// so that a team sharing one server sees the same dates).
export function formatDate(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

// A time in the trace's unit, with a precision that suits its magnitude;
// '—' for a missing value. Below 1e-6 of the unit (under a nanosecond in
// ms: the rounding left by a tool that writes its times with fewer digits
// in one file than in another, e.g. StarPU's tasks.rec against paje.trace)
// it reads 0.
export function fmtTime(v, unit = '') {
  if (typeof v !== 'number' || !Number.isFinite(v)) return '—';
  const a = Math.abs(v);
  const s = a >= 1000 ? formatNumber(Math.round(v * 10) / 10)
    : a >= 10 ? v.toFixed(2) : a >= 0.01 ? v.toFixed(3) : a < 1e-6 ? '0' : v.toExponential(2);
  return unit ? `${s} ${unit}` : s;
}

// 0.123 -> "12%", 0.0123 -> "1.2%"; '—' for a missing value.
export function fmtPercent(x) {
  if (typeof x !== 'number' || !Number.isFinite(x)) return '—';
  const p = x * 100;
  return `${p >= 10 || p === 0 ? p.toFixed(0) : p.toFixed(1)}%`;
}

// A share with more digits for small ones: 0.0123 -> "1.2%", 0.00123 -> "0.12%".
export function fmtShare(x) {
  if (!Number.isFinite(x)) return '—';
  const p = x * 100;
  return `${p >= 10 ? p.toFixed(0) : p >= 1 ? p.toFixed(1) : p.toFixed(2)}%`;
}

// A number to `digits` significant digits, without trailing zeros: 0.12345 -> "0.123".
export function fmtPrecision(v, digits = 3) {
  return typeof v === 'number' && Number.isFinite(v) ? String(+v.toPrecision(digits)) : '—';
}

// A number to 4 significant digits, grouped, with an optional unit: 12345.6 -> "12,350 us".
export function fmtQuantity(v, unit = '') {
  return `${formatNumber(Number(v.toPrecision(4)))}${unit ? ` ${unit}` : ''}`;
}

// A count that may be a mean: 3 -> "3", 2.25 -> "2.3".
export function fmtCount(v) {
  return typeof v === 'number' && Number.isFinite(v) ? (Number.isInteger(v) ? String(v) : v.toFixed(1)) : '—';
}

// Microseconds in the best of s, ms and µs: 1500 -> "1.5 ms".
export function fmtMicroseconds(us) {
  return Math.abs(us) >= 1e6 ? `${(us / 1e6).toFixed(2)} s` : Math.abs(us) >= 1e3 ? `${(us / 1e3).toFixed(1)} ms` : `${us.toFixed(0)} µs`;
}

const UNIT_SECONDS = { s: 1, sec: 1, seconds: 1, ms: 1e-3, msec: 1e-3, us: 1e-6, usec: 1e-6, 'µs': 1e-6, ns: 1e-9, nsec: 1e-9 };

// A profile's metric value: in the best of s/ms/µs when the unit is a time
// unit, else as a number with the unit.
export function fmtValue(v, unit, digits = 4) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return '—';
  const k = UNIT_SECONDS[(unit || '').toLowerCase()];
  if (k) {
    const s = v * k, a = Math.abs(s);
    const p = (x) => (Number.isInteger(x) ? String(x) : x.toPrecision(digits).replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, ''));
    if (a === 0) return '0 s';
    if (a >= 1) return `${p(s)} s`;
    if (a >= 1e-3) return `${p(s * 1e3)} ms`;
    return `${p(s * 1e6)} µs`;
  }
  const a = Math.abs(v);
  const txt = a >= 1e5 ? formatNumber(Math.round(v)) : formatNumber(Number(v.toPrecision(5)));
  return unit ? `${txt} ${unit}` : txt;
}

// An information quantity (pIC's gain and loss): 1.23456 -> "1.23 bits".
export function fmtBits(x) {
  return typeof x === 'number' ? `${x.toPrecision(3)} bits` : '—';
}

// A small positive parameter (pIC's p): 3 significant digits, exponent below 1e-3.
export function fmtSmall(p) {
  if (!(p > 0)) return '0';
  return p < 1e-3 ? p.toExponential(2) : p.toPrecision(3);
}

// An axis tick of any magnitude: exponent beyond 1e4 and below 1e-3.
export function fmtTick(v) {
  const a = Math.abs(v);
  if (a === 0) return '0';
  if (a >= 1e4 || a < 1e-3) return v.toExponential(0);
  return String(+v.toPrecision(3));
}

// [0,1,2,3,7,9,10] -> "0-3,7,9-10"
export function rangesText(ranks) {
  const r = [...new Set(ranks)].sort((a, b) => a - b);
  const out = [];
  for (let i = 0; i < r.length;) {
    let j = i;
    while (j + 1 < r.length && r[j + 1] === r[j] + 1) j++;
    out.push(j > i ? `${r[i]}-${r[j]}` : `${r[i]}`);
    i = j + 1;
  }
  return out.join(',');
}
