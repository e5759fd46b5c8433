// lib/analysis_job.js: runs one POST analysis of the API (cluster,
// projection, changepoints, comm/segments; docs/api.md "Analyses of sampled
// metrics"): the server answers 200 with the result when it is cached or
// cheap, or 202 {"analysis": {id, status, progress, phase}}; then this polls
// GET /analyses/{id} until the status is succeeded (the result is in
// "result"), failed or cancelled. Aborting `signal` stops the polling and
// DELETEs the analysis (the server cancels it).
//
//   const result = await runAnalysis(`/traces/3/cluster`, body,
//     { signal, onProgress: (a) => show(a.progress, a.phase) });
//
// A server without the endpoint (404 not_found "no such endpoint") rejects
// with an ApiError whose code is 'not_available'.
import { request, ApiError } from '../api.js';

const POLL_MS = [250, 400, 700, 1000]; // growing, then every second

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal && signal.aborted) { reject(new ApiError(0, 'aborted', 'The request was cancelled.')); return; }
    const t = setTimeout(() => { if (signal) signal.removeEventListener('abort', stop); resolve(); }, ms);
    const stop = () => { clearTimeout(t); reject(new ApiError(0, 'aborted', 'The request was cancelled.')); };
    if (signal) signal.addEventListener('abort', stop, { once: true });
  });
}

// True when the answer is a queued analysis rather than a result.
function isPending(body) {
  return !!(body && body.analysis && typeof body.analysis === 'object' && body.analysis.id !== undefined
    && body.result === undefined && body.trace_id === undefined);
}

export async function runAnalysis(path, body, { signal = null, onProgress = null } = {}) {
  let first;
  try {
    first = await request('POST', path, { body, signal });
  } catch (e) {
    if (e.status === 404 && /no such endpoint/i.test(e.message)) {
      throw new ApiError(404, 'not_available', `${path.replace(/^\/traces\/\d+\//, '')} is not available on this server yet (${e.message}).`);
    }
    throw e;
  }
  if (!isPending(first)) return first;
  let a = first.analysis;
  const id = a.id;
  const cancel = () => { request('DELETE', `/analyses/${id}`).catch(() => {}); };
  if (signal) signal.addEventListener('abort', cancel, { once: true });
  try {
    for (let i = 0; ; i++) {
      if (onProgress) onProgress(a);
      if (a.status === 'succeeded') return a.result !== undefined ? a.result : null;
      await sleep(POLL_MS[Math.min(i, POLL_MS.length - 1)], signal);
      const r = await request('GET', `/analyses/${id}`, { signal });
      a = r.analysis || {};
      if (a.status === 'succeeded') { if (onProgress) onProgress(a); return r.result; }
      if (a.status === 'failed') {
        const err = r.error || {};
        throw new ApiError(500, err.code || 'analysis_failed', err.message || `analysis ${id} failed`);
      }
      if (a.status === 'cancelled') throw new ApiError(0, 'aborted', `analysis ${id} was cancelled`);
    }
  } finally {
    if (signal) signal.removeEventListener('abort', cancel);
  }
}

let spec = null; // the server's OpenAPI document, fetched once per page load

// Whether the server describes `POST /api/v1<pathTemplate>` (e.g.
// '/traces/{id}/cluster') in its openapi.json, so a view can say "not
// available on this server yet" without a failing request. Resolves true
// when the document cannot be read (the request itself will tell).
export async function analysisAvailable(pathTemplate) {
  try {
    if (!spec) spec = request('GET', '/openapi.json').catch((e) => { spec = null; throw e; });
    const doc = await spec;
    const item = doc && doc.paths && doc.paths[`/api/v1${pathTemplate}`];
    return !!(item && item.post);
  } catch (e) {
    return true;
  }
}
