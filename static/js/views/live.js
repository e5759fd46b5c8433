// views/live.js: the live-run page #/live/{id} (issue 18; Fig. 6.5 of seed
// 004 ch. 6, spec_pdes_dmv.md 4.2): watches a run while its samples arrive
// (lib/live_stream.js: /state, then one Server-Sent Event per time point)
// and shows the performance-behaviour views a1/a2 (lib/live_behaviour.js),
// the history views b1/b2 with the base-time line (lib/live_history.js),
// the similarity scatters c1/c2 with lasso (lib/live_scatter.js), the
// metric-causality table d (lib/live_causality.js) and the live, base and
// difference communication matrices e1-e3 with drill-down
// (lib/live_matrix.js); the analyses' settings are shared by the run's
// viewers (lib/live_controls.js, POST .../control). Pause freezes the page
// while the messages keep arriving; Resume fetches the snapshot. A closed
// run offers a replay at a chosen rate (?replay=HZ) and its offline views.
// app.js routes here; this module registers no trace-page view.
import { api, apiUrl, downloadUrl } from '../api.js';
import { updateParams } from '../router.js';
import { h, clear } from '../dom.js';
import { getD3 } from '../d3.js';
import { clusterColor, LIVE, liveGreyScale, liveDiffScale } from '../colors.js';
import { createTooltip } from '../lib/tooltip.js';
import { rampLegend } from '../lib/legend.js';
import { formatNumber } from '../lib/format.js';
import { saveText, csvText } from '../lib/download.js';
import { LiveStream } from '../lib/live_stream.js';
import { LiveModel } from '../lib/live_model.js';
import { drawBehaviour, clusterLegend } from '../lib/live_behaviour.js';
import { drawHistory } from '../lib/live_history.js';
import { drawLiveScatter } from '../lib/live_scatter.js';
import { causalityTable, causalityCsv } from '../lib/live_causality.js';
import { drawMatrix, matrixMax, matrixCsv } from '../lib/live_matrix.js';
import { liveControls, liveReadout } from '../lib/live_controls.js';

let current = null; // {dispose()} of the page on screen

// Stops the stream and the timers of the page on screen (app.js calls it
// before rendering any page).
export function disposeLivePage() {
  const c = current;
  current = null;
  if (c) c.dispose();
}

// A panel: title, controls, CSV/JSON downloads, a status line, a body.
function panel(cls, title, stem) {
  const status = h('div', { class: 'pdes-status', role: 'status', 'aria-live': 'polite' });
  const controls = h('div', { class: 'pdes-controls' });
  const dl = h('span', { class: 'pdes-downloads' });
  const body = h('div', { class: 'pdes-body' });
  const el = h('section', { class: `panel pdes-panel live-panel ${cls}`, 'aria-label': title },
    h('header', { class: 'pdes-panel-head' }, h('h2', { class: 'pdes-title' }, title), controls, dl), status, body);
  const p = { el, status, controls, body };
  p.setDownloads = (json, table, extra = []) => {
    clear(dl);
    const name = `${stem}-${cls.replace('live-', '')}`;
    if (json) {
      dl.append(h('button', { type: 'button', class: 'btn btn-tiny', 'data-format': 'json', title: 'Save what this panel shows as JSON',
        onclick: () => saveText(`${name}.json`, JSON.stringify(json()), 'application/json') }, 'JSON'));
    }
    if (table) {
      dl.append(h('button', { type: 'button', class: 'btn btn-tiny', 'data-format': 'csv', title: 'Save what this panel shows as a CSV table',
        onclick: () => saveText(`${name}.csv`, csvText(...table()), 'text/csv') }, 'CSV'));
    }
    dl.append(...extra);
  };
  p.say = (kind, ...text) => {
    clear(status).className = `pdes-status pdes-status-${kind}`;
    if (text.length) status.append(...text);
  };
  return p;
}

// Defers the redraws of `el` while a pointer is pressed in it (a lasso, a
// drag, a click on a button that the next message would replace): draw()
// runs at once when idle, else just after the release (after its click).
function gestureGuard(el) {
  let down = false, pending = null;
  el.addEventListener('pointerdown', () => { down = true; });
  const up = () => {
    if (!down) return;
    setTimeout(() => { down = false; if (pending) { const f = pending; pending = null; f(); } }, 0);
  };
  window.addEventListener('pointerup', up);
  window.addEventListener('pointercancel', up);
  return {
    run(draw) { if (down) pending = draw; else draw(); },
    dispose() { window.removeEventListener('pointerup', up); window.removeEventListener('pointercancel', up); },
  };
}

export async function renderLivePage(el, id, params = {}) {
  disposeLivePage();
  const d3 = getD3();
  const model = new LiveModel();
  const stem = `run${id}`;
  const disposers = [];
  const page = { dispose() { for (const f of disposers.splice(0)) { try { f(); } catch (e) { console.warn('live page:', e); } } } };
  current = page;
  document.title = `Live run ${id} · ariadne`;

  const title = h('h1', {}, `Live run ${id}`);
  const badge = h('span', { class: 'badge badge-live', 'data-state': 'open' }, 'live');
  const pauseBtn = h('button', { type: 'button', class: 'btn btn-small live-pause', 'aria-pressed': 'false' }, 'Pause');
  const replayRate = h('input', { class: 'input input-narrow live-replay-rate', type: 'number', min: 1, max: 100, step: 1, value: Number(params.rate) || 10,
    'aria-label': 'Replay rate (time points per second)' });
  const replayBtn = h('button', { type: 'button', class: 'btn btn-small btn-primary live-replay' }, 'Replay');
  const replayBox = h('span', { class: 'live-replay-box', hidden: true },
    h('label', { class: 'pdes-field' }, 'Replay at', replayRate, 'points/s'), replayBtn,
    h('a', { class: 'btn btn-small live-offline', href: `#/traces/${id}` }, 'Offline views'));
  const clearSel = h('button', { type: 'button', class: 'btn btn-small live-clear-selection', disabled: true }, 'Clear selection');
  const selInfo = h('span', { class: 'pdes-selinfo live-selinfo' }, 'Nothing selected');
  const readout = liveReadout();
  const errorLine = h('p', { class: 'alert alert-error live-error', hidden: true, role: 'alert' });
  const controls = liveControls((partial) => sendControl(partial));
  const head = h('div', { class: 'page-header live-header' },
    h('div', {}, h('div', { class: 'live-title' }, title, badge), readout.el),
    h('div', { class: 'live-actions' }, selInfo, clearSel, pauseBtn, replayBox));
  el.append(head, errorLine, controls.el);

  const pa = panel('live-behaviour', 'Performance behaviour (a1, a2)', stem);
  const pc = panel('live-similarity', 'Behaviour similarity (c1, c2): progressive PCA', stem);
  const pb = panel('live-history', 'History (b1, b2): mean over entities since the start', stem);
  const pd = panel('live-causality', 'Metric causality (d)', stem);
  const pe = panel('live-comm', 'Communication (e1 live, e2 base, e3 difference per change point)', stem);
  const legend = h('div', { class: 'live-legend-slot' });
  pa.el.insertBefore(legend, pa.body);
  const grid = h('div', { class: 'pdes-grid live-grid' }, pa.el, pc.el, pb.el, pd.el, pe.el);
  const root = h('div', { class: 'pdes-view live-view', 'data-trace-id': id }, grid);
  el.append(root);
  const tip = createTooltip(root, 'pdes-tip');
  const guards = [pa, pc, pb, pd].map((p) => gestureGuard(p.el));
  disposers.push(() => guards.forEach((g) => g.dispose()));

  let selection = new Set();
  let base = params.base !== undefined ? Number(params.base) : null;
  let causalSort = { key: 'ir1', dir: 1 };
  let drill = []; // stack of {level, group, name}
  let closed = false;

  const labelMap = () => model.labels();
  const colourOf = (id2) => { const l = labelMap().get(id2); return clusterColor(l === undefined ? -1 : l); };
  const labelOf = (id2) => { const l = labelMap().get(id2); return l === undefined ? 'not clustered' : `cluster ${l}`; };
  const nameOf = (id2) => model.nameOf(id2);
  const width = (p) => Math.max(240, Math.floor(p.body.clientWidth || p.el.clientWidth - 20));
  const domain = () => (model.last && model.last.time_domain) || 'LastGvt';

  const setSelection = (ids) => {
    selection = new Set(ids);
    selInfo.textContent = selection.size ? `${selection.size} selected` : 'Nothing selected';
    clearSel.disabled = !selection.size;
    drawBehaviourPanel(); drawScatterPanel();
  };
  clearSel.addEventListener('click', () => setSelection([]));

  // ---- a1, a2 ------------------------------------------------------------------
  function drawBehaviourPanel() {
    guards[0].run(() => {
      clear(pa.body);
      const m = model.last;
      clear(legend).append(clusterLegend(m && m.clusters, model.ids, clusterColor, setSelection));
      if (!m || !m.top) { pa.say('empty', 'Waiting for the first time point…'); return; }
      pa.say('ok');
      const w = width(pa);
      const cpdOn = (m.cpd && m.cpd.target) || 'top';
      for (const [key, tag] of [['top', 'a1'], ['bottom', 'a2']]) {
        const b = m[key];
        if (!b) continue;
        const cap = h('div', { class: 'live-chart-title' }, h('strong', {}, `${tag}: ${b.metric}`), h('span', { class: 'small muted' }, ` over ${domain()}, last ${b.times.length} points`),
          cpdOn === key ? h('span', { class: 'small muted' }, ` · change points (teal) detected on this view, alpha ${m.cpd.alpha ?? ''}`) : null);
        const holder = h('div', { class: `live-chart live-chart-${key}`, 'data-view': tag });
        pa.body.append(cap, holder);
        drawBehaviour(d3, holder, b, { ids: model.ids, nameOf, colourOf, labelOf, selection, changePoints: model.changePoints,
          width: w, height: 150, tip, domain: domain() });
      }
      pa.setDownloads(() => ({ top: m.top, bottom: m.bottom, entity_ids: model.ids, clusters: m.clusters, change_points: model.changePoints }),
        () => [['view', 'metric', 'entity_id', 'entity', 'cluster', 'time', 'value'], ['top', 'bottom'].filter((k) => m[k]).flatMap((k) =>
          m[k].values.flatMap((row, i) => row.map((v, j) => [k, m[k].metric, model.ids[i], nameOf(model.ids[i]), labelMap().get(model.ids[i]) ?? '', m[k].times[j], v])))]);
    });
  }

  // ---- c1, c2 ------------------------------------------------------------------
  function drawScatterPanel() {
    guards[1].run(() => {
      clear(pc.body);
      const m = model.last;
      if (!m || !m.dr || !m.dr.top_xy) { pc.say('empty', 'Waiting for the first projection…'); return; }
      pc.say('ok');
      const w = Math.max(200, Math.floor((width(pc) - 10) / 2));
      const row = h('div', { class: 'live-scatter-row' });
      pc.body.append(row, h('p', { class: 'small muted pdes-hint' }, 'Drag around points to select them (lasso); the others turn grey. Colours: the clusters of a1.'));
      for (const [key, tag, xy] of [['top', 'c1', m.dr.top_xy], ['bottom', 'c2', m.dr.bottom_xy]]) {
        if (!xy) continue;
        const holder = h('div', { class: `live-scatter live-scatter-${key}`, 'data-view': tag });
        row.append(h('div', { class: 'live-scatter-cell' }, h('div', { class: 'live-chart-title' }, h('strong', {}, `${tag}: ${(m[key] || {}).metric || key}`)), holder));
        drawLiveScatter(d3, holder, { ids: model.ids, xy, metric: (m[key] || {}).metric || key, nameOf, colourOf, labelOf, selection, width: w, tip,
          onLasso: setSelection });
      }
      pc.body.dataset.highlighted = [...selection].sort((a, b) => a - b).join(',');
      pc.setDownloads(() => ({ entity_ids: model.ids, dr: m.dr }), () => [['entity_id', 'entity', 'cluster', 'top_x', 'top_y', 'bottom_x', 'bottom_y'],
        model.ids.map((eid, i) => [eid, nameOf(eid), labelMap().get(eid) ?? '', ...((m.dr.top_xy || [])[i] || ['', '']), ...((m.dr.bottom_xy || [])[i] || ['', ''])])]);
    });
  }

  // ---- b1, b2 ------------------------------------------------------------------
  function drawHistoryPanel() {
    guards[2].run(() => {
      clear(pb.body);
      const c = model.controls;
      const metrics = [c.top || (model.last && model.last.top && model.last.top.metric), c.bottom || (model.last && model.last.bottom && model.last.bottom.metric)]
        .filter(Boolean);
      if (!model.times.length || !metrics.length) { pb.say('empty', 'No time point yet.'); return; }
      pb.say('ok');
      const w = width(pb);
      metrics.forEach((metric, k) => {
        const holder = h('div', { class: `live-history-chart live-history-${k ? 'bottom' : 'top'}`, 'data-view': k ? 'b2' : 'b1' });
        pb.body.append(h('div', { class: 'live-chart-title' }, h('strong', {}, `${k ? 'b2' : 'b1'}: mean ${metric}`), h('span', { class: 'small muted' }, ` over ${domain()}`)), holder);
        drawHistory(d3, holder, { metric, times: model.times, means: model.summary[metric] || [], changePoints: model.changePoints,
          base: base ?? 0, width: w, height: 110, tip, domain: domain(), onBase: setBase });
      });
      pb.body.append(h('p', { class: 'small muted pdes-hint' },
        `Base time (brown): index ${base ?? 0}, ${domain()} ${formatNumber(model.times[Math.min(base ?? 0, model.times.length - 1)])}. Drag it or click a chart to move it.`));
      pb.setDownloads(() => ({ times: model.times, summary: model.summary, change_points: model.changePoints, base: base ?? 0 }),
        () => [['t_idx', 'time', ...Object.keys(model.summary), 'change_point'], model.times.map((t, i) =>
          [i, t, ...Object.keys(model.summary).map((mm) => (Number.isFinite(model.summary[mm][i]) ? model.summary[mm][i] : '')), model.changePoints.includes(i) ? 1 : 0])]);
    });
  }
  // the base time and the matrices' level stay in the URL (#/live/7?base=12&comm_level=PE)
  const writeUrl = () => updateParams({ base: base ?? '', comm_level: commLevel ?? '' });
  function setBase(t) {
    if (t === base) return;
    base = t;
    writeUrl();
    drawHistoryPanel();
    loadBase();
    loadDiff();
  }

  // ---- d -------------------------------------------------------------------------
  function drawCausalityPanel() { guards[3].run(drawCausality); }
  function drawCausality() {
    clear(pd.body);
    const c = model.last && model.last.causality;
    if (!c || !c.rows) { pd.say('empty', 'The progressive VAR needs a few time points first.'); return; }
    if (c.note) pd.say('empty', `Not yet: ${c.note}.`); else pd.say('ok');
    const dirText = c.direction === 'to' ? `${c.target} → metric` : `metric → ${c.target}`;
    if (!c.note) pd.body.append(h('p', { class: 'small live-causality-info' },
      `Granger causality ${dirText}; VAR order p = ${c.p ?? '–'} on the last ${formatNumber(c.t_used ?? 0)} time points; `,
      `significant (yellow) when p < ${c.threshold ?? model.controls.causality?.threshold ?? 0.05}; IR = impulse response at horizon 1, VD = share of the variance; `,
      `${formatNumber(+(c.latency_ms ?? 0).toPrecision(3))} ms.`));
    pd.body.append(h('div', { class: 'table-wrap live-causality-wrap' }, causalityTable(c, causalSort, (key) => {
      causalSort = { key, dir: causalSort.key === key ? -causalSort.dir : 1 };
      drawCausalityPanel();
    })));
    pd.setDownloads(() => c, () => causalityCsv(c));
  }

  // ---- e1, e2, e3 ----------------------------------------------------------------
  const liveBox = h('div', { class: 'live-matrix-slot live-matrix-slot-live' });
  const baseBox = h('div', { class: 'live-matrix-slot live-matrix-slot-base' });
  const diffBox = h('div', { class: 'live-matrix-slot live-matrix-slot-diff' });
  const crumbs = h('nav', { class: 'live-crumbs', 'aria-label': 'Matrix level' });
  const commLegends = h('div', { class: 'pdes-legends live-comm-legends' });
  pe.body.append(crumbs, h('div', { class: 'live-matrix-row' }, liveBox, baseBox, diffBox), commLegends);
  const comm = { live: null, base: null, diff: null };
  // the level of the matrices: chosen here (commLevel), else the message's
  // (the granularity); when it differs from the message's, or after a
  // drill-down, e1 is asked for at each point (GET /comm?t=live)
  let commLevel = params.comm_level || null;
  const msgLevel = () => (model.last && model.last.comm_live && model.last.comm_live.level) || undefined;
  // by default a matrix of more than 64 rows starts at the root level (PEs), the drill-down goes from there
  const msgRows = () => (model.last && model.last.comm_live && model.last.comm_live.ids ? model.last.comm_live.ids.length : 0);
  const topLevel = () => commLevel || (msgRows() > 64 && model.levels.length > 1 ? model.levels[0] : msgLevel());
  const fromMessage = () => !drill.length && topLevel() === msgLevel();
  const level = () => (drill.length ? drill[drill.length - 1].level : topLevel());
  const group = () => (drill.length ? drill[drill.length - 1].group : undefined);
  const levelSel = h('select', { class: 'input input-small live-comm-level', 'aria-label': 'Level of the matrices',
    onchange: () => { commLevel = levelSel.value; drill = []; writeUrl(); refreshComm(); } });
  pe.controls.append(h('label', { class: 'pdes-field' }, 'Level', levelSel));
  const fillLevels = () => {
    const want = model.levels.join(',');
    if (levelSel.dataset.options !== want) {
      levelSel.replaceChildren(...model.levels.map((l) => h('option', { value: l }, `${l}s`)));
      levelSel.dataset.options = want;
    }
    if (document.activeElement !== levelSel && topLevel()) levelSel.value = topLevel();
  };
  const commQuery = (extra) => ({ level: level(), group: group(), ...extra });

  // rebuilt only when they change (a button replaced under the pointer cannot be clicked)
  function drawCrumbs() {
    const lv0 = topLevel() || model.levels[0] || 'group';
    fillLevels();
    const rows = (comm.live || comm.base || {}).ids || [];
    const canDrill = Boolean(model.childLevel(level() || '')) && rows.length > 0;
    const key = JSON.stringify([lv0, drill, canDrill ? rows : []]);
    if (crumbs.dataset.key === key) return;
    crumbs.dataset.key = key;
    clear(crumbs);
    crumbs.append(drill.length
      ? h('button', { type: 'button', class: 'btn btn-tiny live-drill-top', onclick: () => goUp(0) }, `All ${lv0}s`)
      : h('strong', {}, `All ${lv0}s`));
    drill.forEach((d, i) => {
      crumbs.append(' › ');
      crumbs.append(i === drill.length - 1 ? h('strong', { class: 'live-drill-current' }, `${d.level}s of ${d.name}`)
        : h('button', { type: 'button', class: 'btn btn-tiny', onclick: () => goUp(i + 1) }, `${d.level}s of ${d.name}`));
    });
    if (drill.length) crumbs.append(' ', h('button', { type: 'button', class: 'btn btn-tiny live-drill-up', onclick: () => goUp(drill.length - 1) }, 'Up one level'));
    else crumbs.append(h('span', { class: 'small muted' }, ' · double-click a cell to show the children of its row group'));
    // the keyboard's way down
    if (canDrill) {
      const pick = h('select', { class: 'input input-small live-drill-select', 'aria-label': 'Show the children of a group',
        onchange: () => { if (pick.value !== '') onDrill(Number(pick.value)); } },
      h('option', { value: '' }, `children of…`), rows.map((rid) => h('option', { value: rid }, nameOf(rid))));
      crumbs.append(' ', pick);
    }
    crumbs.dataset.depth = String(drill.length);
  }
  function goUp(depth) {
    drill = drill.slice(0, depth);
    refreshComm();
  }
  function onDrill(rowId) {
    const lv = model.levelOf(rowId) || level();
    const child = model.childLevel(lv);
    if (!child || !model.childrenOf(rowId).length) { pe.say('empty', `${nameOf(rowId)} has no children to show.`); return; }
    tip.hide();
    drill = [...drill, { level: child, group: rowId, name: nameOf(rowId) }];
    refreshComm();
  }
  function refreshComm() {
    comm.live = fromMessage() ? (model.last && model.last.comm_live) || null : null;
    comm.base = null;
    comm.diff = null;
    drawCrumbs();
    drawComm();
    if (!fromMessage()) loadLive();
    loadBase();
    loadDiff();
  }
  const withLabels = (mx) => (mx ? { ...mx, labels: mx.labels || model.labelsOf(mx.ids || []) } : mx);
  const stripColour = (l) => clusterColor(Number.isInteger(l) ? l : -1);
  const matrixSize = () => Math.max(150, Math.min(260, Math.floor((width(pe) - 40) / 4)));
  function drawComm() {
    const m = model.last;
    drawCrumbs();
    if (m && m.comm_live === null && model.hasComm !== true && fromMessage()) {
      pe.say('empty', 'This run sends no communication data (CommData).');
      clear(liveBox); clear(baseBox); clear(diffBox); clear(commLegends);
      return;
    }
    pe.say('ok');
    const size = matrixSize();
    const drillable = Boolean(model.childLevel(level() || ''));
    const grey = liveGreyScale(d3, Math.max(matrixMax(comm.live && comm.live.matrix), matrixMax(comm.base && comm.base.matrix)));
    const common = { stripColour, tip, textColour: LIVE.matrixText, onDrill: drillable ? onDrill : null, childLevel: model.childLevel(level() || ''),
      valueLabel: 'Events (mean of the block)' };
    // each slot keeps its figure while the shape stays (repainted in place)
    const put = (box, fig) => { if (box.firstChild !== fig || box.childNodes.length !== 1) clear(box).append(fig); };
    const prevOf = (box) => (box.firstChild && box.firstChild.liveState ? box.firstChild : null);
    if (comm.live) {
      put(liveBox, drawMatrix(withLabels(comm.live), { ...common, kind: 'live', title: 'e1 live', size,
        caption: `e1 live (index ${comm.live.t_idx ?? (m ? m.t_idx : '')})`, colour: (v) => (v ? grey(v) : LIVE.matrixEmpty) }, prevOf(liveBox)));
    } else clear(liveBox).append(h('p', { class: 'small muted' }, 'e1: waiting for the live matrix…'));
    if (comm.base) {
      put(baseBox, drawMatrix(withLabels(comm.base), { ...common, kind: 'base', title: 'e2 base', size,
        caption: `e2 base (index ${comm.base.t_idx ?? base ?? 0})`, colour: (v) => (v ? grey(v) : LIVE.matrixEmpty) }, prevOf(baseBox)));
    } else clear(baseBox).append(h('p', { class: 'small muted' }, 'e2: loading the base matrix…'));
    const diffs = (comm.diff && comm.diff.diffs) || [];
    const lim = Math.max(0, ...diffs.map((d) => matrixMax(d.matrix, true)));
    const div = liveDiffScale(d3, lim);
    // the differences share the rest of the row: smaller when there are many
    const offOf = (n) => (n <= 24 ? 54 : 8);
    const rest = width(pe) - 2 * (size + offOf(comm.live ? comm.live.ids.length : 0) + 16) - 8;
    const nd = Math.max(1, diffs.length);
    const small = Math.max(90, Math.min(170, size - 60, Math.floor(rest / nd) - offOf((comm.diff && comm.diff.ids || []).length) - 10));
    const oldDiffs = [...diffBox.children].filter((c) => c.liveState);
    const figs = diffs.map((d, i) => {
      const k = model.changePoints.indexOf(d.t_idx);
      return drawMatrix(withLabels({ ...comm.diff, matrix: d.matrix, t_idx: d.t_idx }), { ...common, kind: 'diff', size: small,
        title: `e3 change point ${k >= 0 ? k + 1 : ''} − base`, caption: `e3: cp ${k >= 0 ? k + 1 : '?'} (index ${d.t_idx}) − base`,
        colour: (v) => div(v), valueLabel: 'Difference (cp − base)' }, oldDiffs[i] || null);
    });
    if (figs.length !== diffBox.childNodes.length || figs.some((f, i) => diffBox.childNodes[i] !== f)) clear(diffBox).append(...figs);
    if (!comm.diff) clear(diffBox).append(h('p', { class: 'small muted' }, 'e3: loading the differences…'));
    else if (!diffs.length) clear(diffBox).append(h('p', { class: 'small muted live-no-diff' }, 'e3: no change point yet: one difference matrix per change point will appear here.'));
    const gmax = grey.domain()[1];
    clear(commLegends).append(
      rampLegend({ title: 'e1, e2: events per interval (mean of each block)', colour: (t) => grey(t * t * gmax), lo: '0', hi: formatNumber(+gmax.toPrecision(4)),
        mid: 'square-root scale' }),
      rampLegend({ title: 'e3: change point − base', colour: (t) => div((t * 2 - 1) * (lim || 1)), lo: `−${formatNumber(+(lim || 1).toPrecision(3))}`,
        hi: `+${formatNumber(+(lim || 1).toPrecision(3))}`, mid: 'blue: fewer, red: more' }),
      h('span', { class: 'small muted' }, 'Strips: the cluster of each row and column (majority for a group).'));
    pe.setDownloads(() => ({ level: level(), group: group() ?? null, live: comm.live, base: comm.base, diff: comm.diff }),
      () => {
        const out = [];
        let header = null;
        for (const [kind, mx] of [['live', comm.live], ['base', comm.base], ...diffs.map((d) => [`diff_${d.t_idx}`, { ...comm.diff, matrix: d.matrix }])]) {
          if (!mx) continue;
          const [hd, rows] = matrixCsv(mx, { matrix: kind });
          header = hd;
          out.push(...rows);
        }
        return [header || ['matrix'], out];
      },
      [h('button', { type: 'button', class: 'btn btn-tiny live-base-csv', title: 'The base matrix from the server as CSV (?format=csv)',
        onclick: () => downloadUrl(apiUrl(`/streams/${id}/comm`, commQuery({ t: base ?? 0, format: 'csv' })), `${stem}-comm-base.csv`, /csv/)
          .catch((e) => pe.say('error', `The base matrix as CSV: ${e.message}`)) }, 'Base CSV')]);
  }
  // one request at a time per matrix; a change meanwhile asks again after it
  function loader(key, fetcher) {
    let busy = false, again = false;
    const run = async () => {
      if (busy) { again = true; return; }
      busy = true;
      const want = JSON.stringify([drill, base, commLevel]);
      try {
        const res = await fetcher();
        if (current === page && want === JSON.stringify([drill, base, commLevel])) { comm[key] = res; drawComm(); }
      } catch (e) {
        if (current === page && e.status !== 409) pe.say('error', `The ${key} matrix: ${e.message}`);
      } finally {
        busy = false;
        if (again && current === page) { again = false; run(); }
      }
    };
    return run;
  }
  const loadLive = loader('live', () => api.get(`/streams/${id}/comm`, commQuery({ t: 'live' })));
  const loadBase = loader('base', () => api.get(`/streams/${id}/comm`, commQuery({ t: base ?? 0 })));
  const loadDiff = loader('diff', () => api.get(`/streams/${id}/comm/diff`, commQuery({ base: base ?? 0, cps: 'all' })));

  // ---- the stream ----------------------------------------------------------------
  let frame = 0, dirty = new Set();
  const schedule = (...what) => {
    for (const w of what) dirty.add(w);
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      const d = dirty;
      dirty = new Set();
      if (d.has('a')) drawBehaviourPanel();
      if (d.has('b')) drawHistoryPanel();
      if (d.has('c')) drawScatterPanel();
      if (d.has('d')) drawCausalityPanel();
      if (d.has('e')) drawComm();
    });
  };
  disposers.push(() => cancelAnimationFrame(frame));
  let lastCps = '';
  function afterData(fromState) {
    controls.set(model.controls, model);
    readout.update(model.last, null, model);
    if (base !== null && base >= model.times.length) base = Math.max(0, model.times.length - 1);
    if (fromMessage()) comm.live = (model.last && model.last.comm_live) || null;
    else loadLive();
    const cps = model.changePoints.join(',');
    if (fromState || cps !== lastCps) { lastCps = cps; loadDiff(); }
    if (fromState || !comm.base) loadBase();
    schedule('a', 'b', 'c', 'd', 'e');
  }
  let stateTimer = 0;
  const stream = new LiveStream(id, {
    onState(st) {
      model.applyState(st);
      title.textContent = `Live run: ${st.name || id}`;
      document.title = `${st.name || `Run ${id}`} · live · ariadne`;
      setClosed(st.state === 'closed');
      afterData(true);
    },
    onPoint(msg, kind) {
      const out = model.applyPoint(msg, kind);
      if (model.needsState || out.controls) {
        clearTimeout(stateTimer);
        stateTimer = setTimeout(() => { stream.fetchState().then((st) => { if (!stream.paused) stream.applyState(st); }).catch(() => {}); }, 200);
      }
      afterData(false);
    },
    onStatus(s) { readout.update(null, s, null); },
    onClosed() { setClosed(true); },
    onError(e) { errorLine.hidden = false; errorLine.textContent = e.message; },
  });
  disposers.push(() => { stream.stop(); clearTimeout(stateTimer); });

  function setClosed(isClosed) {
    closed = isClosed;
    badge.textContent = closed ? 'closed' : 'live';
    badge.dataset.state = closed ? 'closed' : 'open';
    badge.title = closed ? 'The run has ended: replay it, or open its offline views' : 'Samples are arriving';
    replayBox.hidden = !closed;
  }
  pauseBtn.addEventListener('click', async () => {
    if (!stream.paused) {
      stream.pause();
      pauseBtn.textContent = 'Resume';
      pauseBtn.setAttribute('aria-pressed', 'true');
      root.classList.add('is-paused');
    } else {
      pauseBtn.disabled = true;
      await stream.resume();
      pauseBtn.disabled = false;
      pauseBtn.textContent = 'Pause';
      pauseBtn.setAttribute('aria-pressed', 'false');
      root.classList.remove('is-paused');
    }
  });
  replayBtn.addEventListener('click', () => {
    const hz = Math.max(1, Math.min(100, Math.round(Number(replayRate.value) || 10)));
    replayRate.value = hz;
    // a replay starts from an empty page: the points come again from index 0
    model.applyState({ trace_id: id, name: model.trace && model.trace.name, state: 'closed', entities: model.entities, levels: model.levels,
      has_comm: model.hasComm === null ? undefined : model.hasComm,
      metrics: model.metrics, times: [], summary: {}, change_points: [], controls: model.controls, n_points: 0, last: null });
    drill = [];
    comm.live = comm.base = comm.diff = null;
    lastCps = '';
    root.dataset.replay = String(hz);
    stream.replay(hz);
    afterData(true);
  });

  async function sendControl(partial) {
    try {
      const c = await api.post(`/streams/${id}/control`, partial);
      model.controls = c.controls || c;
      errorLine.hidden = true;
      controls.set(model.controls, model);
      schedule('b');
    } catch (e) {
      errorLine.hidden = false;
      errorLine.textContent = `The settings were not changed: ${e.message}`;
      controls.set(model.controls, model);
    }
  }

  // redraw when the width changes
  let lastWidth = -1;
  const ro = new ResizeObserver((entries) => {
    const w = Math.round(entries[entries.length - 1].contentRect.width);
    if (w === lastWidth) return;
    const first = lastWidth < 0;
    lastWidth = w;
    if (!first) schedule('a', 'b', 'c', 'e');
  });
  disposers.push(() => ro.disconnect());

  drawCrumbs();
  try {
    await stream.start();
  } catch (e) {
    errorLine.hidden = false;
    errorLine.textContent = e.status === 404 ? `There is no live run ${id} (it was deleted, or this server has no live runs).`
      : `Could not open run ${id}: ${e.message}`;
    return;
  }
  if (current === page) ro.observe(root);
}
