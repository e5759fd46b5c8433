// lib/view_frame.js: what every view of a trace gets from the frame around
// it (js/trace.js), without writing any of it itself:
//   - a progress indicator while the view's requests (those made with its
//     `signal`) have been pending for more than PROGRESS_DELAY_MS;
//   - a Download menu: the analysis URLs the view requested (the latest per
//     endpoint), each as JSON and as CSV (the same URL with &format=csv);
//   - the notice of a URL value that was refused (by the server: a 400
//     invalid_parameter, or by checkWindowParams) with a field to correct it,
//     shown above the view's own controls.
import { h, clear } from '../dom.js';
import { API_BASE, downloadUrl } from '../api.js';

export const PROGRESS_DELAY_MS = 300;

// The time-window parameters every view reads: start and end decimal
// numbers, start < end. Returns [{key, message}] of the bad ones (the
// server's wording).
export function checkWindowParams(params) {
  const bad = [];
  const num = (s) => (/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(String(s)) ? Number(s) : NaN);
  for (const key of ['start', 'end']) {
    if (params[key] !== undefined && !Number.isFinite(num(params[key]))) {
      bad.push({ key, message: `${key} must be a decimal number, got '${params[key]}'` });
    }
  }
  const s = num(params.start), e = num(params.end);
  if (Number.isFinite(s) && Number.isFinite(e) && !(s < e)) {
    bad.push({ key: 'start', also: 'end', message: `start (${params.start}) must be less than end (${params.end})` });
  }
  return bad;
}

// The URL parameter an error message names: its first word when that is a
// parameter of the URL, else the first parameter named as a word.
export function paramNamed(message, params) {
  const first = /^([a-z_][a-z0-9_]*)\b/i.exec(message || '');
  if (first && first[1] in params) return first[1];
  return Object.keys(params).find((k) => new RegExp(`\\b${k}\\b`).test(message || '')) || null;
}

// "/api/v1/traces/3/gantt?start=0" -> "gantt"; "/api/v1/compare?..." -> "compare".
function endpointOf(url) {
  const path = url.slice(API_BASE.length).split('?')[0];
  return path.replace(/^\/traces\/\d+\/?/, '').replace(/^\//, '') || 'trace';
}

export class ViewFrame {
  // fileStem: the downloads' file name prefix; onFix(key, value|null): the
  // user corrected (or removed) the URL parameter `key`.
  constructor({ fileStem, onFix }) {
    this.fileStem = fileStem;
    this.onFix = onFix;
    this.progress = h('div', { class: 'view-progress', role: 'status', 'aria-live': 'polite', hidden: true },
      h('span', { class: 'view-progress-bar', 'aria-hidden': 'true' }), h('span', { class: 'view-progress-text' }));
    this.menu = h('div', { class: 'view-downloads-list', id: 'view-downloads-list' });
    this.downloads = h('details', { class: 'view-downloads', id: 'view-downloads' },
      h('summary', { class: 'btn btn-small', title: 'The data of this view, as the API answered it (JSON) or as a table (CSV)' },
        'Download'), this.menu);
    this.notice = h('div', { class: 'view-notice', id: 'view-notice' });
    this.el = h('div', { class: 'view-frame' },
      h('div', { class: 'view-frame-bar' }, this.progress, this.downloads), this.notice);
    this.session = null;
  }

  // A new render of the view: forgets the requests of the previous one.
  // Returns the tracker to give api.trackSignal; onError(err) gets the
  // failed requests.
  startView(onError) {
    if (this.session) this.session.stop();
    const s = { pending: 0, since: 0, urls: new Map(), timer: 0, tick: 0, stopped: false };
    s.stop = () => { s.stopped = true; clearTimeout(s.timer); clearInterval(s.tick); };
    this.session = s;
    this.drawProgress();
    this.drawDownloads();
    return {
      begin: (method, url) => {
        if (s.stopped) return null;
        if (method === 'GET') { s.urls.delete(endpointOf(url)); s.urls.set(endpointOf(url), url); this.drawDownloads(); }
        if (s.pending++ === 0) {
          s.since = Date.now();
          s.timer = setTimeout(() => { this.drawProgress(); s.tick = setInterval(() => this.drawProgress(), 500); }, PROGRESS_DELAY_MS);
        }
        return url;
      },
      end: (tok, err) => {
        if (s.stopped || tok === null) return;
        if (--s.pending === 0) { clearTimeout(s.timer); clearInterval(s.tick); }
        this.drawProgress();
        if (err && onError) onError(err);
      },
    };
  }

  drawProgress() {
    const s = this.session;
    const show = !!s && s.pending > 0 && Date.now() - s.since >= PROGRESS_DELAY_MS - 5;
    this.progress.hidden = !show;
    if (!show) return;
    const secs = ((Date.now() - s.since) / 1000).toFixed(1);
    this.progress.lastChild.textContent = `Loading… ${s.pending} request${s.pending > 1 ? 's' : ''}, ${secs} s`;
  }

  drawDownloads() {
    const urls = this.session ? [...this.session.urls] : [];
    this.downloads.hidden = urls.length === 0;
    const status = h('p', { class: 'small muted view-downloads-status', role: 'status' });
    const row = ([name, url]) => h('div', { class: 'view-download', 'data-endpoint': name },
      h('span', { class: 'view-download-name', title: url }, name),
      h('button', { type: 'button', class: 'btn btn-tiny', 'data-format': 'json',
        onclick: () => this.save(url, `${this.fileStem}-${name}.json`, /json/, status, name, 'JSON') }, 'JSON'),
      h('button', { type: 'button', class: 'btn btn-tiny', 'data-format': 'csv',
        onclick: () => this.save(`${url}${url.includes('?') ? '&' : '?'}format=csv`,
          `${this.fileStem}-${name}.csv`, /text\/csv/, status, name, 'CSV') }, 'CSV'));
    clear(this.menu).append(h('p', { class: 'small muted' }, 'The data this view requested:'), ...urls.map(row), status);
  }

  async save(url, filename, accept, status, name, what) {
    status.textContent = `Downloading ${name} as ${what}…`;
    try {
      const { bytes } = await downloadUrl(url, filename, accept);
      status.textContent = `Saved ${filename} (${bytes} bytes).`;
    } catch (e) {
      status.textContent = e.code === 'unexpected_type'
        ? `${what} is not available for ${name} yet (${e.message}).` : `Could not download ${name}: ${e.message}`;
    }
  }

  // Shows that the URL's `key=value` was not applied, and why; the user can
  // correct the value or remove it. items: [{key, value, message}].
  showRefused(items) {
    clear(this.notice);
    if (!items.length) return;
    this.notice.appendChild(h('div', { class: 'alert alert-error view-refused', role: 'alert' },
      h('strong', {}, items.length > 1 ? 'These values of the link were not applied' : 'A value of the link was not applied'),
      items.map((it) => this.refusedItem(it))));
  }

  refusedItem({ key, value, message }) {
    if (!key) return h('div', { class: 'view-refused-item' }, h('p', {}, message));
    const input = h('input', { class: 'input', value: value || '', 'aria-label': `New value of ${key}`, id: `fix-${key}` });
    const apply = () => this.onFix(key, input.value.trim() || null);
    input.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); apply(); } });
    return h('div', { class: 'view-refused-item', 'data-param': key },
      h('p', {}, h('code', {}, `${key}=${value}`), ': ', message),
      h('div', { class: 'view-refused-fix' },
        h('label', { for: `fix-${key}`, class: 'small' }, `${key} =`), input,
        h('button', { type: 'button', class: 'btn btn-small', onclick: apply }, 'Apply'),
        h('button', { type: 'button', class: 'btn btn-small', onclick: () => this.onFix(key, null) }, `Remove ${key}`)));
  }

  dispose() {
    if (this.session) this.session.stop();
    this.session = null;
  }
}
