// api.js: the dashboard's client of the ariadne REST API (docs/api.md).
// JSON in and out; an error response {"error":{"code","message"}} becomes an
// ApiError carrying the status, code and message; the optional API token
// (kept in localStorage) is sent as "Authorization: Bearer <token>".
// Uploads go through XMLHttpRequest so that the bytes sent can be shown.
//
// Request tracking: trackSignal(signal, tracker) makes every request made
// with that AbortSignal call tracker.begin(method, url) -> token before it
// starts and tracker.end(token, error|null) when it settles. The view frame
// (lib/view_frame.js) uses it on each view's signal for the progress
// indicator, the downloads and the bad-parameter notice.

const TOKEN_KEY = 'ariadne.token';
export const API_BASE = '/api/v1';

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

const trackers = new WeakMap(); // AbortSignal -> {begin, end}

export function trackSignal(signal, tracker) {
  if (signal) trackers.set(signal, tracker);
}

export function getToken() {
  try { return localStorage.getItem(TOKEN_KEY) || ''; } catch { return ''; }
}

export function setToken(token) {
  const t = (token || '').trim();
  if (t) localStorage.setItem(TOKEN_KEY, t);
  else localStorage.removeItem(TOKEN_KEY);
}

function authHeaders(token = getToken()) {
  return token ? { Authorization: `Bearer ${token}` } : {};
}

// "/traces", {limit: 10, kind: ''} -> "/api/v1/traces?limit=10" (empty
// values are left out).
export function apiUrl(path, query = {}) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  }
  const qs = params.toString();
  return API_BASE + path + (qs ? `?${qs}` : '');
}

// Turns a non-2xx response body (text) into an ApiError.
function errorFrom(status, statusText, text) {
  try {
    const body = JSON.parse(text);
    if (body && body.error && body.error.message) {
      return new ApiError(status, body.error.code || 'error', body.error.message);
    }
  } catch { /* not JSON: fall through */ }
  const snippet = (text || '').trim().slice(0, 200);
  return new ApiError(status, 'http_error',
    `HTTP ${status} ${statusText || ''}`.trim() + (snippet ? `: ${snippet}` : ''));
}

// request('GET', '/traces', {query, body, token, signal}) -> parsed JSON
// (null for 204); an AbortSignal `signal` cancels the request (ApiError
// code 'aborted').
export async function request(method, path, opts = {}) {
  const tracker = opts.signal ? trackers.get(opts.signal) : null;
  if (!tracker) return send(method, path, opts);
  const tok = tracker.begin(method, apiUrl(path, opts.query));
  try {
    const out = await send(method, path, opts);
    tracker.end(tok, null);
    return out;
  } catch (e) {
    tracker.end(tok, e);
    throw e;
  }
}

async function send(method, path, { query, body, token, signal } = {}) {
  const headers = { Accept: 'application/json', ...authHeaders(token ?? getToken()) };
  const init = { method, headers };
  if (signal) init.signal = signal;
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(apiUrl(path, query), init);
  } catch (e) {
    if (e && e.name === 'AbortError') throw new ApiError(0, 'aborted', 'The request was cancelled.');
    throw new ApiError(0, 'network_error', `Cannot reach the ariadne server (${e.message}).`);
  }
  if (res.status === 204) return null;
  const text = await res.text();
  if (!res.ok) throw errorFrom(res.status, res.statusText, text);
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    throw new ApiError(res.status, 'invalid_response', `The server sent invalid JSON for ${path}.`);
  }
}

// GETs an API URL (as apiUrl makes them) with the token and saves the
// answer as the file `filename`. accept: a regex the Content-Type must
// match (else an ApiError 'unexpected_type' and nothing is saved).
export async function downloadUrl(url, filename, accept = null) {
  let res;
  try {
    res = await fetch(url, { headers: authHeaders() });
  } catch (e) {
    throw new ApiError(0, 'network_error', `Cannot reach the ariadne server (${e.message}).`);
  }
  if (!res.ok) throw errorFrom(res.status, res.statusText, await res.text());
  const type = res.headers.get('content-type') || '';
  if (accept && !accept.test(type)) {
    throw new ApiError(res.status, 'unexpected_type', `the server answered ${type.split(';')[0] || 'no type'}`);
  }
  const blob = await res.blob();
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10000);
  return { type, bytes: blob.size };
}

export const api = {
  get: (path, query, opts) => request('GET', path, { ...opts, query }),
  patch: (path, body) => request('PATCH', path, { body }),
  post: (path, body) => request('POST', path, { body }),
  del: (path) => request('DELETE', path),
};

// Uploads `files` (File objects) as one multipart POST /traces with an
// optional trace `name`. onProgress(loaded, total) follows the bytes sent.
// Resolves with the created job; rejects with an ApiError. Returns
// {promise, abort}.
export function uploadTraces(files, name, onProgress, query = {}) {
  const xhr = new XMLHttpRequest();
  const promise = new Promise((resolve, reject) => {
    const form = new FormData();
    if (name) form.append('name', name);
    for (const f of files) form.append('file', f, f.name);
    xhr.open('POST', apiUrl('/traces', query)); // query: e.g. { allow_duplicate: true }
    xhr.setRequestHeader('Accept', 'application/json');
    for (const [k, v] of Object.entries(authHeaders())) xhr.setRequestHeader(k, v);
    xhr.upload.addEventListener('progress', (ev) => {
      if (onProgress) onProgress(ev.loaded, ev.lengthComputable ? ev.total : 0);
    });
    xhr.addEventListener('load', () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          const body = JSON.parse(xhr.responseText);
          if (body && body.job) return resolve(body.job);
        } catch { /* fall through */ }
        return reject(new ApiError(xhr.status, 'invalid_response',
          'The server accepted the upload but did not return an import job.'));
      }
      reject(errorFrom(xhr.status, xhr.statusText, xhr.responseText));
    });
    xhr.addEventListener('error', () => reject(new ApiError(0, 'network_error',
      'The upload failed: the server closed the connection or could not be reached. '
      + 'If the files are large, they may exceed the server\'s upload limit (--max-upload).')));
    xhr.addEventListener('abort', () => reject(new ApiError(0, 'aborted', 'The upload was cancelled.')));
    xhr.send(form);
  });
  return { promise, abort: () => xhr.abort() };
}
