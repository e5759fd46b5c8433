// views/pdes.js: the Behaviour view of a sampled-metrics (pdes) trace, after
// Fig. 5.7 of seed 004 ch. 5 (spec_pdes_dmv.md 4.1): the behaviour overview
// with a range brush, the behaviour detail (two metrics, one polyline per
// entity, cluster colours, freeform stroke, cluster settings), the
// similarity scatter (MDS / t-SNE, lasso), the segmentation (boundaries A,
// B, C... to move, add and delete) and the communication circles per
// segment. All are linked by lib/pdes_state.js (selection, filter, labels)
// and kept in the URL. Analyses run through lib/analysis_job.js (200, or 202
// and polling with a Cancel button); an endpoint the server lacks is said so
// in its panel.
import { api, ApiError } from '../api.js';
import { h, clear } from '../dom.js';
import { getD3 } from '../d3.js';
import { registerView } from '../trace.js';
import { clusterColor, commScale } from '../colors.js';
import { createTooltip } from '../lib/tooltip.js';
import { swatchLegend, rampLegend } from '../lib/legend.js';
import { formatNumber } from '../lib/format.js';
import { saveText, csvText } from '../lib/download.js';
import { PdesState, OPTIONS, segmentsOf } from '../lib/pdes_state.js';
import { loadSeries } from '../lib/pdes_series.js';
import { runAnalysis, analysisAvailable } from '../lib/analysis_job.js';
import { drawOverview, drawDetail, drawScatter, CHART_MARGINS } from '../lib/pdes_charts.js';
import { drawCommSegment, kpsOfPes } from '../lib/pdes_comm.js';

const select = (cls, label, options, value, onchange) => h('label', { class: 'pdes-field' }, label,
  h('select', { class: `input input-small ${cls}`, onchange: (e) => onchange(e.target.value) },
    options.map((o) => h('option', { value: o, selected: String(o) === String(value) }, o))));

// A panel: title, controls, downloads (JSON/CSV of what it shows), a status
// line (loading with progress and Cancel, empty, error) and a body.
function panel(cls, title, stem) {
  const status = h('div', { class: 'pdes-status', role: 'status', 'aria-live': 'polite' });
  const controls = h('div', { class: 'pdes-controls' });
  const dl = h('span', { class: 'pdes-downloads' });
  const body = h('div', { class: 'pdes-body' });
  const el = h('section', { class: `panel pdes-panel ${cls}`, 'aria-label': title },
    h('header', { class: 'pdes-panel-head' }, h('h2', { class: 'pdes-title' }, title), controls, dl), status, body);
  const p = { el, status, controls, body, data: null };
  p.setDownloads = (json, table) => {
    clear(dl);
    if (!json) return;
    dl.append(h('button', { type: 'button', class: 'btn btn-tiny', 'data-format': 'json', title: 'Save what this panel shows as JSON',
      onclick: () => saveText(`${stem}-${cls.replace('pdes-', '')}.json`, JSON.stringify(json()), 'application/json') }, 'JSON'),
    h('button', { type: 'button', class: 'btn btn-tiny', 'data-format': 'csv', title: 'Save what this panel shows as a CSV table',
      onclick: () => { const [hd, rows] = table(); saveText(`${stem}-${cls.replace('pdes-', '')}.csv`, csvText(hd, rows), 'text/csv'); } }, 'CSV'));
  };
  p.say = (kind, ...text) => {
    clear(status).className = `pdes-status pdes-status-${kind}`;
    if (text.length) status.append(...text);
  };
  return p;
}

registerView({
  id: 'behaviour', title: 'Behaviour', kinds: ['pdes'],
  async render(el, trace, params, setParams, { signal, onDispose }) {
    const d3 = getD3();
    const summary = trace.summary || {};
    if (!(summary.metrics || []).length) {
      el.appendChild(h('div', { class: 'panel empty-state' }, h('h2', {}, 'No metrics in this trace'),
        h('p', {}, 'Import a ROSS run (its <Metric>.csv matrices) or a long or wide CSV of per-entity counters (docs/api.md, "Sampled metrics").')));
      return;
    }
    const st = new PdesState(params, summary);
    const stem = `trace${trace.id}`;
    const root = h('div', { class: 'pdes-view' });
    el.appendChild(root);
    const tip = createTooltip(root, 'pdes-tip');
    const jobs = new Map(); // panel name -> AbortController of its running analysis
    onDispose(() => { for (const c of jobs.values()) c.abort(); });
    const writeUrl = () => setParams(st.params());

    // ---- toolbar: selection and filter ---------------------------------------
    const selInfo = h('span', { class: 'pdes-selinfo', id: 'pdes-selinfo' });
    const toolbar = h('div', { class: 'pdes-toolbar' },
      select('pdes-gran', 'Granularity', st.levels, st.get('gran'), (v) => st.set({ gran: v, labels: null, selection: new Set(), hide: new Set() })),
      selInfo,
      h('button', { type: 'button', class: 'btn btn-small pdes-keep', onclick: () => filter(true) }, 'Keep selected'),
      h('button', { type: 'button', class: 'btn btn-small pdes-remove', onclick: () => filter(false) }, 'Remove selected'),
      h('button', { type: 'button', class: 'btn btn-small pdes-reset', onclick: () => st.set({ hide: new Set(), selection: new Set() }) }, 'Reset'),
      h('button', { type: 'button', class: 'btn btn-small pdes-reset-range', onclick: () => st.set({ range: null }) }, 'Whole run'));
    const filter = (keep) => {
      const sel = st.get('selection');
      if (!sel.size || !series) return;
      const hide = new Set(st.get('hide'));
      for (const e of series[0].entities) if (keep ? !sel.has(e.id) : sel.has(e.id)) hide.add(e.id);
      st.set({ hide, selection: new Set() });
    };
    const drawSelInfo = () => {
      const n = st.get('selection').size, hidden = st.get('hide').size;
      selInfo.textContent = `${n ? `${n} selected` : 'Nothing selected'}${hidden ? ` · ${hidden} filtered out` : ''}`;
      for (const b of toolbar.querySelectorAll('.pdes-keep, .pdes-remove')) b.disabled = !n;
      toolbar.querySelector('.pdes-reset').disabled = !n && !hidden;
      toolbar.querySelector('.pdes-reset-range').disabled = !st.get('range');
    };

    // ---- panels ----------------------------------------------------------------
    const ov = panel('pdes-overview', 'Behaviour overview', stem);
    const det = panel('pdes-detail', 'Behaviour detail', stem);
    const sim = panel('pdes-similarity', 'Similarity', stem);
    const seg = panel('pdes-segmentation', 'Segmentation', stem);
    const com = panel('pdes-comm', 'Communication per segment', stem);
    const legend = h('div', { class: 'pdes-legend', id: 'pdes-cluster-legend' });
    root.append(toolbar, h('div', { class: 'pdes-grid' }, ov.el, det.el, sim.el, seg.el, com.el));
    det.el.appendChild(legend);

    ov.controls.append(
      select('pdes-om', 'Metric', st.metrics, st.get('om'), (v) => st.set({ om: v })),
      select('pdes-stat', 'Statistic', OPTIONS.STATS, st.get('stat'), (v) => st.set({ stat: v })));
    const kInput = h('input', { class: 'input input-narrow pdes-k', type: 'number', min: 1, max: 20, value: st.get('k'), 'aria-label': 'k' });
    kInput.addEventListener('change', () => st.set({ k: Math.max(1, Math.min(20, Math.round(Number(kInput.value) || 3))) }));
    const distSel = select('pdes-dist', 'Distance', OPTIONS.DISTANCES, st.get('dist'), (v) => st.set({ dist: v }));
    det.controls.append(
      select('pdes-m1', 'Top', st.metrics, st.get('m1'), (v) => st.set({ m1: v, labels: null })),
      select('pdes-m2', 'Bottom', st.metrics, st.get('m2'), (v) => st.set({ m2: v, labels: null })),
      select('pdes-method', 'Cluster', OPTIONS.METHODS, st.get('method'), (v) => st.set(v === 'kmeans' ? { method: v, dist: 'euclidean' } : { method: v })),
      h('label', { class: 'pdes-field' }, 'k', kInput), distSel,
      h('button', { type: 'button', class: 'btn btn-small btn-primary pdes-run-cluster', onclick: () => { st.set({ clustered: true }); runCluster(); } }, 'Cluster'));
    sim.controls.append(
      select('pdes-proj', 'Method', OPTIONS.PROJECTIONS, st.get('proj'), (v) => st.set({ proj: v })),
      h('button', { type: 'button', class: 'btn btn-small btn-primary pdes-run-proj', onclick: () => { st.set({ projected: true }); runProjection(); } }, 'Project'));
    const delCut = h('button', { type: 'button', class: 'btn btn-small pdes-del-cut', disabled: true,
      onclick: () => { if (selectedCut !== null) setCuts(st.get('cuts').filter((c) => c !== selectedCut), null); } }, 'Delete boundary');
    seg.controls.append(
      h('button', { type: 'button', class: 'btn btn-small btn-primary pdes-run-cpd', onclick: () => runChangepoints() }, 'Find change points'),
      delCut,
      h('button', { type: 'button', class: 'btn btn-small pdes-clear-cuts', onclick: () => setCuts([], null) }, 'One segment'));
    const thr = h('input', { type: 'range', class: 'pdes-thr', min: 0, max: 100, step: 1, value: Math.round(st.get('thr') * 100), 'aria-label': 'Ribbon threshold' });
    const thrOut = h('output', { class: 'pdes-thr-out' });
    thr.addEventListener('input', () => { st.set({ thr: Number(thr.value) / 100 }); });
    com.controls.append(
      select('pdes-cm', 'Ribbons', OPTIONS.COMM, st.get('cm'), (v) => st.set({ cm: v })),
      select('pdes-ring', 'Ring', ['default', ...st.metrics], st.get('ring') || 'default', (v) => st.set({ ring: v === 'default' ? null : v })),
      h('label', { class: 'pdes-field' }, 'Hide ribbons under', thr, thrOut));
    const segList = h('ol', { class: 'pdes-seg-list' });
    seg.body.appendChild(segList);
    det.body.after(h('p', { class: 'small muted pdes-hint' },
      'Drag across lines to select them; double-click to add a segment boundary, drag one to move it, click one and press Delete to remove it.'));

    // ---- data --------------------------------------------------------------------
    let overview = null, series = null, cluster = null, proj = null, comm = null, selectedCut = null;
    let loadSeq = 0;
    const width = (p) => Math.max(260, Math.floor(p.body.clientWidth || p.el.clientWidth - 24));
    const labelMap = () => st.get('labels');
    const labelOf = (id) => { const m = labelMap(); return m && m.has(id) ? String(m.get(id)) : 'not clustered'; };
    const colourOf = (id) => { const m = labelMap(); return clusterColor(m && m.has(id) ? m.get(id) : -1); };
    const names = new Map();
    const nameOf = (id) => names.get(id) || `#${id}`;
    const visibleIds = () => (series ? series[0].entities.map((e) => e.id).filter((id) => st.visible(id)) : []);
    const selectionBody = (extra) => {
      const r = st.get('range');
      const b = { metrics: [st.get('m1'), st.get('m2')].filter((m, i, a) => a.indexOf(m) === i), granularity: st.get('gran'),
        time_domain: summary.time_domain, ...extra };
      if (r) { b.t0 = r[0]; b.t1 = r[1]; }
      if (st.get('hide').size) b.entities = visibleIds();
      return b;
    };

    async function loadOverview() {
      ov.say('loading', 'Loading the overview…');
      try {
        overview = await api.get(`/traces/${trace.id}/overview`, { metric: st.get('om'), stat: st.get('stat'),
          granularity: st.get('gran'), time_domain: summary.time_domain }, { signal });
        ov.say('ok');
        ov.setDownloads(() => overview, () => [['time', 'value'], overview.time.map((t, i) => [t, overview.value[i]])]);
      } catch (e) {
        if (e.code === 'aborted') return;
        overview = null;
        ov.say('error', `Could not load the overview: ${e.message}`);
      }
      drawOv();
    }
    function drawOv() {
      clear(ov.body);
      if (!overview) return;
      if (!overview.time.length) { ov.say('empty', 'This trace has no time points.'); return; }
      drawOverview(d3, ov.body, { data: overview, range: st.get('range'), cuts: st.get('cuts'), width: width(ov), tip,
        onBrush: (r) => st.set({ range: r }) });
    }

    async function loadDetail() {
      const seq = ++loadSeq;
      for (const name of ['cluster', 'projection', 'changepoints', 'comm']) if (jobs.has(name)) jobs.get(name).abort();
      det.say('loading', 'Loading the series…');
      const r = st.get('range');
      // at most one time column per pixel of the chart (the server averages buckets)
      const maxPoints = Math.max(2, width(det) - CHART_MARGINS);
      const q = (metric) => ({ metric, granularity: st.get('gran'), time_domain: summary.time_domain, t0: r ? r[0] : undefined, t1: r ? r[1] : undefined,
        max_points: maxPoints });
      try {
        const out = await Promise.all([loadSeries(trace.id, q(st.get('m1')), signal), loadSeries(trace.id, q(st.get('m2')), signal)]);
        if (seq !== loadSeq) return;
        series = out;
        for (const e of series[0].entities) names.set(e.id, e.name);
        det.say('ok');
        det.setDownloads(() => series.map((s) => ({ metric: s.metric, entities: s.entities, time: s.time,
          values: s.entities.map((e, i) => Array.from(s.values.subarray(i * s.l, (i + 1) * s.l), (v) => (Number.isNaN(v) ? null : v))) })),
        () => [['entity_id', 'entity', 'metric', 'time', 'value'], series.flatMap((s) => s.entities.flatMap((e, i) =>
          s.time.map((t, j) => [e.id, e.name, s.metric, t, Number.isNaN(s.values[i * s.l + j]) ? '' : s.values[i * s.l + j]])))]);
      } catch (e) {
        if (e.code === 'aborted' || seq !== loadSeq) return;
        series = null;
        det.say('error', `Could not load the series: ${e.message}`);
      }
      drawDet();
      drawSeg();
      if (!series) return;
      if (!series[0].l) { det.say('empty', 'No time point in the brushed range: brush a wider range or press "Whole run".'); return; }
      if (st.get('clustered')) runCluster(); else drawLegend();
      if (st.get('projected')) runProjection(); else drawSim();
      runComm();
    }
    function drawDet() {
      clear(det.body);
      if (!series || !series[0].l) return;
      drawDetail(d3, det.body, { series, width: width(det), tip, visible: (id) => st.visible(id), colourOf, labelOf,
        selection: st.get('selection'), cuts: st.get('cuts'), selectedCut,
        onStroke: (ids) => st.set({ selection: new Set(ids) }),
        onCuts: (cuts, sel) => setCuts(cuts, sel),
        onSelectCut: (c) => { selectedCut = c; delCut.disabled = c === null; drawDet(); } });
      det.body.dataset.highlighted = [...st.get('selection')].sort((a, b) => a - b).join(',');
    }
    function setCuts(cuts, sel) {
      selectedCut = sel !== undefined ? sel : selectedCut;
      if (selectedCut !== null && !cuts.includes(selectedCut)) selectedCut = null;
      delCut.disabled = selectedCut === null;
      st.set({ cuts });
    }
    function drawLegend() {
      clear(legend);
      const m = labelMap();
      if (!m) { legend.append(h('span', { class: 'small muted' }, 'Not clustered yet: choose a method, k and a distance, then press Cluster.')); return; }
      const k = cluster.sizes ? cluster.sizes.length : Math.max(...m.values()) + 1;
      const items = [];
      for (let c = 0; c < k; c++) {
        const ids = [...m].filter(([, l]) => l === c).map(([id]) => id);
        items.push(h('button', { type: 'button', class: 'pdes-legend-key', 'data-cluster': c,
          title: `Select the ${ids.length} entities of cluster ${c}`, onclick: () => st.set({ selection: new Set(ids) }) },
        h('span', { class: 'ari-swatch', style: `background:${clusterColor(c)}` }), `cluster ${c} (${ids.length})`));
      }
      legend.append(h('span', { class: 'ari-legend-title' }, `${cluster.method}, ${cluster.distance}, k = ${k}:`), ...items);
    }

    // one analysis of a panel: progress, Cancel, not-available and error states
    async function job(name, p, path, template, body, what) {
      if (jobs.has(name)) jobs.get(name).abort();
      if (!(await analysisAvailable(template))) {
        p.say('missing', `${what} is not available on this server yet (POST /api/v1${template} is not in its API). `,
          'Update ariadned, or ', h('button', { type: 'button', class: 'btn btn-tiny', onclick: () => job(name, p, path, null, body, what) }, 'try anyway'), '.');
        return null;
      }
      const ctl = new AbortController();
      const abort = () => ctl.abort();
      signal.addEventListener('abort', abort, { once: true });
      jobs.set(name, ctl);
      const bar = h('progress', { max: 1, value: 0, class: 'pdes-progress' });
      const phase = h('span', { class: 'pdes-phase' }, `${what}…`);
      p.say('loading', bar, phase, h('button', { type: 'button', class: 'btn btn-tiny pdes-cancel', onclick: abort }, 'Cancel'));
      try {
        const res = await runAnalysis(path, body, { signal: ctl.signal,
          onProgress: (a) => { bar.value = a.progress || 0; phase.textContent = `${what}: ${a.phase || a.status} ${Math.round(100 * (a.progress || 0))} %`; } });
        p.say('ok');
        return res;
      } catch (e) {
        if (e.code === 'aborted') { if (!signal.aborted && jobs.get(name) === ctl) p.say('cancelled', `${what} cancelled.`); return null; }
        if (e.code === 'not_available') p.say('missing', e.message);
        else p.say('error', `${what} failed: ${e.message}`);
        return null;
      } finally {
        signal.removeEventListener('abort', abort);
        if (jobs.get(name) === ctl) jobs.delete(name);
      }
    }
    const template = (x) => (x ? `/traces/{id}/${x}` : null);

    async function runCluster() {
      if (!series) return;
      const s = st.s;
      const res = await job('cluster', det, `/traces/${trace.id}/cluster`, template('cluster'),
        selectionBody({ method: s.method, distance: s.dist, k: Math.min(s.k, visibleIds().length || 1) }), 'Clustering');
      if (!res) { drawLegend(); return; }
      cluster = res;
      const m = new Map(res.entities.map((id, i) => [typeof id === 'object' ? id.id : id, res.labels[i]]));
      st.set({ labels: m });
      det.setDownloads(() => ({ cluster: res }), () => [['entity_id', 'entity', 'label'], [...m].map(([id, l]) => [id, nameOf(id), l])]);
    }
    async function runProjection() {
      if (!series) return;
      const res = await job('projection', sim, `/traces/${trace.id}/projection`, template('projection'),
        selectionBody({ method: st.get('proj'), distance: st.get('dist') }), 'Projection');
      if (!res) return;
      proj = res;
      sim.setDownloads(() => res, () => [['entity_id', 'entity', 'x', 'y', 'label'],
        res.entities.map((id, i) => [id, nameOf(id), res.xy[i][0], res.xy[i][1], labelMap() ? labelMap().get(id) : ''])]);
      drawSim();
    }
    function drawSim() {
      clear(sim.body);
      if (!proj) {
        if (!sim.status.textContent) sim.say('empty', 'Press Project to place the entities in 2-D by similarity of their series (the distance of the cluster settings).');
        return;
      }
      drawScatter(d3, sim.body, proj, { width: width(sim), tip, visible: (id) => st.visible(id), colourOf, labelOf, nameOf,
        selection: st.get('selection'), onLasso: (ids) => st.set({ selection: new Set(ids) }) });
      sim.body.dataset.highlighted = [...st.get('selection')].sort((a, b) => a - b).join(',');
    }
    async function runChangepoints() {
      if (!series) return;
      const res = await job('changepoints', seg, `/traces/${trace.id}/changepoints`, template('changepoints'), selectionBody({}), 'Change points');
      if (!res) return;
      seg.data = res;
      setCuts((res.segments || []).slice(1).map((g) => g.t0), null);
    }
    function drawSeg() {
      clear(segList);
      if (!series || !series[0].l) return;
      const segs = segmentsOf(series[0].time, st.get('cuts'));
      for (const g of segs) {
        segList.append(h('li', { class: 'pdes-seg-item', 'data-label': g.label },
          h('strong', {}, g.label), ` ${formatNumber(g.t0)} – ${formatNumber(g.t1)} (${g.i1 - g.i0 + 1} samples)`));
      }
      seg.setDownloads(() => ({ change_points: seg.data, segments: segs }),
        () => [['label', 't0', 't1', 'i0', 'i1'], segs.map((g) => [g.label, g.t0, g.t1, g.i0, g.i1])]);
    }

    async function runComm() {
      clear(com.body);
      comm = null;
      if (!series || !series[0].l) return;
      if (!summary.has_comm) {
        com.say('empty', 'This trace has no communication data: the ROSS record CSVs (the kpgid*.csv files with CommData) give it; import them with the run.');
        return;
      }
      const segs = segmentsOf(series[0].time, st.get('cuts'));
      const body = { segments: segs.map((g) => [g.t0, g.t1]), level: 'PE', comm_metric: st.get('cm'), agg: 'mean',
        time_domain: summary.time_domain };
      if (st.get('ring')) body.ring_metrics = [st.get('ring')];
      const res = await job('comm', com, `/traces/${trace.id}/comm/segments`, template('comm/segments'), body, 'Communication');
      if (!res) return;
      comm = res;
      comm.labels = segs.map((g) => g.label);
      com.setDownloads(() => res, () => [['segment', 't0', 't1', 'source', 'target', 'value'],
        res.segments.flatMap((sg, k) => sg.matrix.flatMap((row, i) => row.map((v, j) => [comm.labels[k], sg.t0, sg.t1, res.entities[i].name, res.entities[j].name, v])))]);
      drawComm();
    }
    function drawComm() {
      clear(com.body);
      if (!comm) return;
      const ring = st.get('ring') && comm.scales && comm.scales[st.get('ring')] ? st.get('ring') : Object.keys(comm.scales || {})[0];
      const colour = commScale(d3, comm.matrix_scale || [0, 1]);
      const max = (comm.matrix_scale || [0, 1])[1];
      thrOut.textContent = `${formatNumber(+(st.get('thr') * max).toPrecision(3))} events`;
      const n = comm.segments.length;
      const size = Math.max(170, Math.min(280, Math.floor((width(com) - 12 * n) / Math.max(1, n))));
      const gran = st.get('gran');
      const pick = (kp, pe) => (gran === 'PE' ? pe : kp);
      const sel = st.get('selection');
      const ctx = { segs: comm.labels, ring, thr: st.get('thr'), colour, size, tip, anySelection: sel.size > 0, nameOf,
        colourOfKp: (kp, pe) => colourOf(pick(kp, pe)), labelOf: (kp, pe) => labelOf(pick(kp, pe)),
        isVisible: (kp, pe) => st.visible(pick(kp, pe)), isSelected: (kp, pe) => sel.has(pick(kp, pe)) };
      for (const e of comm.entities) names.set(e.id, e.name);
      kpsOfPes(comm).flat().forEach((id) => { if (!names.has(id)) names.set(id, `KP #${id}`); });
      const row = h('div', { class: 'pdes-comm-row' });
      com.body.append(row);
      for (let k = 0; k < n; k++) drawCommSegment(d3, row, comm, k, ctx);
      const [lo, hi] = (comm.scales && comm.scales[ring]) || [0, 0];
      com.body.append(h('div', { class: 'pdes-legends' },
        rampLegend({ title: `Ribbons: ${st.get('cm')} events per sample (mean)`, colour: (t) => colour(t * max), lo: '0', hi: formatNumber(+max.toPrecision(4)) }),
        h('span', { class: 'small muted' }, `Ring: ${ring || '–'} per KP (mean), bar height from ${formatNumber(+(+lo).toPrecision(4))} to ${formatNumber(+(+hi).toPrecision(4))}, one scale for all segments; colour = cluster`)));
      com.body.dataset.highlighted = [...sel].sort((a, b) => a - b).join(',');
    }

    // ---- linking -------------------------------------------------------------------
    st.on((changed) => {
      writeUrl();
      drawSelInfo();
      const has = (...keys) => keys.some((k) => changed.has(k));
      if (has('om', 'stat', 'gran')) loadOverview();
      else if (has('range', 'cuts')) drawOv();
      if (has('range', 'm1', 'm2', 'gran')) {
        if (has('range', 'gran')) { proj = null; cluster = null; st.s.labels = null; }
        loadDetail();
        return;
      }
      if (has('k', 'method', 'dist')) {
        kInput.value = st.get('k');
        distSel.querySelector('select').value = st.get('dist');
      }
      if (has('labels', 'selection', 'hide', 'cuts')) { drawDet(); drawSim(); drawComm(); }
      if (has('labels')) drawLegend();
      if (has('cuts')) { drawSeg(); runComm(); } else if (has('cm', 'ring')) runComm();
      else if (has('thr')) drawComm();
    });
    // redraw when the width changes (not the height: drawing changes it)
    let lastWidth = -1;
    const ro = new ResizeObserver((entries) => {
      const w = Math.round(entries[entries.length - 1].contentRect.width);
      if (w === lastWidth) return;
      const first = lastWidth < 0;
      lastWidth = w;
      if (!first) { drawOv(); drawDet(); drawSim(); drawComm(); }
    });
    onDispose(() => ro.disconnect());
    drawSelInfo();
    writeUrl();
    await Promise.all([loadOverview(), loadDetail()]);
    ro.observe(root);
  },
});
