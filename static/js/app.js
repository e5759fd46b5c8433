// app.js: entry point of the dashboard. Owns the hash router: the URL holds
// the page, the trace id, the view and its parameters, so a link reopens the
// same view:
//   #/traces?name=chol&kind=tasks&page=2     trace list (filters, page)
//   #/upload                                 upload form
//   #/traces/3                               trace 3, Overview tab
//   #/traces/3/gantt?start=0&end=100         trace 3, view "gantt" + params
//   #/compare?traces=3,4                     task traces side by side
//   #/ensembles/2                            ensemble 2: members and parameters
//   #/live/7                                 live run 7 (views/live.js; a closed one replays)
import { api } from './api.js';
import { parseHash } from './router.js';
import { h, clear } from './dom.js';
import { openSettings } from './settings.js';
import { renderTraceList } from './traces.js';
import { renderUpload } from './upload.js';
import { renderTracePage, disposeCurrentView, showParams } from './trace.js';
import './views/index.js';
import { renderCompare } from './compare.js';
import { renderEnsemblePage, showEnsembleParams } from './ensembles.js';
import { renderLivePage, disposeLivePage } from './views/live.js';

function setActiveNav(name) {
  for (const a of document.querySelectorAll('[data-nav]')) {
    if (a.dataset.nav === name) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

function notFound(main, hash) {
  document.title = 'Not found · ariadne';
  main.appendChild(h('section', { class: 'panel empty-state' },
    h('h1', {}, 'Page not found'),
    h('p', {}, `Nothing lives at ${hash || '#/'}.`),
    h('a', { class: 'btn btn-primary', href: '#/traces' }, 'Back to the traces')));
}

// Renders the page the current hash names into a fresh container in <main>;
// a page still loading when the hash changes again renders into its own,
// by then detached, container and so cannot overwrite the newer page.
// A real hashchange (Back, Forward, a typed URL) that stays on the view on
// screen only draws that view again with the new parameters; a synthetic
// one (rename, new time unit) renders the whole page.
async function route(ev) {
  const main = document.getElementById('main');
  const { segments, params } = parseHash(location.hash);
  const [page, id, view] = segments;
  if (ev && ev.isTrusted && page === 'traces' && id !== undefined && segments.length <= 3
      && showParams(id, view, params)) return;
  if (ev && ev.isTrusted && page === 'ensembles' && id !== undefined && segments.length === 2
      && showEnsembleParams(id, params)) return;
  const el = h('div', { class: 'page' });
  disposeCurrentView();
  disposeLivePage();
  clear(main).appendChild(el);
  main.setAttribute('aria-busy', 'true');
  try {
    if (!page || (page === 'traces' && id === undefined)) {
      setActiveNav('traces');
      await renderTraceList(el, params);
    } else if (page === 'upload' && id === undefined) {
      setActiveNav('upload');
      renderUpload(el);
    } else if (page === 'compare' && id === undefined) {
      setActiveNav('traces');
      await renderCompare(el, params);
    } else if (page === 'ensembles' && id !== undefined && segments.length === 2) {
      setActiveNav('traces');
      await renderEnsemblePage(el, id);
    } else if (page === 'live' && id !== undefined && segments.length === 2) {
      setActiveNav('traces');
      await renderLivePage(el, id, params);
    } else if (page === 'traces' && segments.length <= 3) {
      setActiveNav('traces');
      await renderTracePage(el, id, view || 'overview', params);
    } else {
      setActiveNav('');
      notFound(el, location.hash);
    }
  } finally {
    if (el.isConnected) main.removeAttribute('aria-busy');
  }
}

async function showVersion() {
  const el = document.getElementById('server-version');
  try {
    const v = await api.get('/version');
    el.textContent = `${v.name || 'ariadne'} ${v.version || ''} · API ${v.api || 'v1'}`;
    el.title = `SQLite ${v.sqlite || '?'} · readers: ${(v.formats || []).join(', ') || 'none'}`;
  } catch (e) {
    el.textContent = 'server unreachable';
    el.title = e.message;
    el.classList.add('text-error');
  }
}

function start() {
  document.getElementById('settings-button').addEventListener('click', () => openSettings());
  window.addEventListener('hashchange', route);
  window.addEventListener('ariadne:token-changed', route);
  showVersion();
  route();
}

start();
