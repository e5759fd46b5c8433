// lib/pdes_series.js: the entity x time matrices of a sampled-metrics trace
// (GET /traces/{id}/series, docs/api.md "Sampled metrics"): the axes (entity
// ids and names, time values) as JSON and the values as little-endian
// Float32 (X-Shape: n,l), NaN where there is no sample.
//
//   const s = await loadSeries(traceId, {metric, t0, t1, granularity}, signal);
//   s.values[i * s.l + j]   // entity s.entities[i] at time s.time[j]
import { apiUrl, getToken, ApiError } from '../api.js';

// Raw fetches (not the frame's Download menu: a binary body has no CSV form;
// the view offers its own downloads).
async function fetchRaw(url, signal, accept) {
  const headers = { Accept: accept };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  let res;
  try {
    res = await fetch(url, { headers, signal });
  } catch (e) {
    if (e && e.name === 'AbortError') throw new ApiError(0, 'aborted', 'The request was cancelled.');
    throw new ApiError(0, 'network_error', `Cannot reach the ariadne server (${e.message}).`);
  }
  if (!res.ok) {
    const text = await res.text();
    let msg = `HTTP ${res.status}`, code = 'http_error';
    try { const b = JSON.parse(text); if (b.error) { msg = b.error.message; code = b.error.code; } } catch { /* not JSON */ }
    throw new ApiError(res.status, code, msg);
  }
  return res;
}

async function binary(url, signal) {
  const res = await fetchRaw(url, signal, 'application/octet-stream');
  const shape = (res.headers.get('X-Shape') || '').split(',').map(Number);
  return { shape, buf: await res.arrayBuffer() };
}

async function json(url, signal) {
  return (await fetchRaw(url, signal, 'application/json')).json();
}

// Float32 little-endian -> Float32Array (copied when the host is big-endian).
function decode(buf) {
  const n = buf.byteLength >> 2;
  const little = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  if (little) return new Float32Array(buf, 0, n);
  const dv = new DataView(buf), out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = dv.getFloat32(i * 4, true);
  return out;
}

// A server without max_points answers 400 to it: then it is no longer sent.
let maxPointsRefused = false;

// query: {metric, t0, t1, granularity, time_domain, entities (array),
// max_points (at most that many time columns, each the mean of a bucket of
// consecutive time points: the view asks for its chart's pixel width)}.
export async function loadSeries(traceId, query, signal) {
  const q = { ...query, entities: query.entities && query.entities.length ? query.entities.join(',') : undefined };
  if (maxPointsRefused || !(q.max_points >= 1)) delete q.max_points;
  else q.max_points = Math.floor(q.max_points);
  const path = `/traces/${traceId}/series`;
  let axes, bin;
  try {
    [axes, bin] = await Promise.all([
      json(apiUrl(path, { ...q, format: 'axes' }), signal),
      binary(apiUrl(path, q), signal),
    ]);
  } catch (e) {
    if (!(q.max_points && e.status === 400)) throw e;
    const s = await loadSeries(traceId, { ...query, max_points: undefined }, signal);
    maxPointsRefused = true; // the same request without it is accepted
    return s;
  }
  const [n, l] = bin.shape;
  const values = decode(bin.buf);
  if (!(n === axes.entities.length && l === axes.time.length && values.length === n * l)) {
    throw new ApiError(0, 'invalid_response', `series of ${query.metric}: shape ${bin.shape} does not match its axes`);
  }
  return { metric: query.metric, n, l, entities: axes.entities, time: axes.time, values, granularity: axes.granularity };
}

// The values of row i as a plain array (NaN kept).
export function rowOf(s, i) {
  return Array.from(s.values.subarray(i * s.l, (i + 1) * s.l));
}
