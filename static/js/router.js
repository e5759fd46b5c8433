// router.js: the URL scheme of the dashboard. The hash holds the page, the
// trace id, the view and its parameters, e.g. "#/traces/3/gantt?start=0&end=100",
// so a copied link reopens the same view. app.js renders the page a hash
// names; views call updateParams() to keep the URL in step with their state.

// "#/traces/3/gantt?start=0" -> {segments: ['traces','3','gantt'], params: {start: '0'}}
export function parseHash(hash) {
  const raw = (hash || '').replace(/^#/, '');
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const params = Object.fromEntries(new URLSearchParams(q < 0 ? '' : raw.slice(q + 1)));
  const segments = path.split('/').filter(Boolean).map(decodeURIComponent);
  return { segments, params };
}

// ['traces', 3, 'gantt'], {start: 0} -> "#/traces/3/gantt?start=0"; empty
// parameter values are left out.
export function buildHash(segments, params = {}) {
  const path = '#/' + segments.map((s) => encodeURIComponent(String(s))).join('/');
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') qs.set(k, String(v));
  }
  const s = qs.toString();
  return s ? `${path}?${s}` : path;
}

export function navigate(segments, params = {}) {
  location.hash = buildHash(segments, params);
}

// Rewrites the parameters of the current URL without re-rendering the page
// (the caller has already updated itself). push=true adds a history entry,
// so Back returns to the previous parameters.
export function updateParams(params, { push = false } = {}) {
  const { segments } = parseHash(location.hash);
  const hash = buildHash(segments, params);
  if (hash === location.hash) return;
  if (push) history.pushState(null, '', hash);
  else history.replaceState(null, '', hash);
}
