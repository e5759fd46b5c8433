// views/events_comm.js: the "Communication" tab of an event trace (issue 19):
//   - the communication matrix (GET /comm-matrix?kind=bytes|count): a heat
//     map, sender rows and receiver columns, its colour legend with the
//     scale, the value of a cell in its tooltip, a note when the ranks are
//     grouped in blocks (many ranks);
//   - bytes (or messages) sent and received per process, from the same answer;
//   - the message-size histogram (GET /message-histogram?bins=);
//   - communication over time (GET /comm-over-time?bins=&kind=&side=);
//   - the wait states (GET /wait-states): late sender / late receiver per
//     pair of ranks.
// Every panel saves what it shows as CSV (lib/download.js); the frame's
// Download menu has the endpoints' JSON and CSV. URL params: kind, hbins,
// tbins, side (and fn, the focused function of the other tabs, kept).
import { api } from '../api.js';
import { h, clear } from '../dom.js';
import { getD3 } from '../d3.js';
import { registerView } from '../trace.js';
import { EVENTS, matrixScale } from '../colors.js';
import { svg } from '../lib/svg.js';
import { formatBytes, formatNumber, fmtTime, fmtTick, fmtValue } from '../lib/format.js';
import { createTooltip, tipContent } from '../lib/tooltip.js';
import { rampLegend, swatchLegend } from '../lib/legend.js';
import { saveText, csvText } from '../lib/download.js';
import { analysisError } from '../lib/errors.js';
import { getFocus } from '../lib/function_focus.js';
import { eventPanel, selectField, switchField, barsChart, columnsChart } from '../lib/event_charts.js';

registerView({ id: 'communication', title: 'Communication', kinds: ['events'], render: renderComm });

const BIN_CHOICES = [5, 10, 20, 50, 100, 200];
const MATRIX_MAX = 560;  // pixels of the matrix's side at most
const SVG_CELLS = 64;    // ranks drawn as SVG cells; more on a canvas

const bytesOrCount = (kind) => (kind === 'count' ? (v) => `${formatNumber(v)} message${v === 1 ? '' : 's'}` : (v) => `${formatBytes(v)} (${formatNumber(v)} B)`);
const shortValue = (kind, v) => (kind === 'count' ? formatNumber(v) : formatBytes(v));

async function renderComm(el, trace, params, setParams, { signal }) {
  el.classList.add('ev-view', 'ev-comm-view');
  const st = {
    kind: params.kind === 'count' ? 'count' : 'bytes',
    hbins: BIN_CHOICES.includes(Number(params.hbins)) ? Number(params.hbins) : 20,
    tbins: BIN_CHOICES.includes(Number(params.tbins)) ? Number(params.tbins) : 50,
    side: params.side === 'receive' ? 'receive' : 'send',
  };
  const save = () => setParams({ kind: st.kind === 'bytes' ? null : st.kind, hbins: st.hbins === 20 ? null : st.hbins,
    tbins: st.tbins === 50 ? null : st.tbins, side: st.side === 'send' ? null : st.side, fn: getFocus() });
  const tip = createTooltip(el, 'ev-tooltip');
  const unit = trace.time_unit || 'ns';
  const stem = `trace${trace.id}`;

  const matrix = eventPanel({ id: 'ev-matrix', title: 'Communication matrix', note: 'Rows: sender · columns: receiver.' });
  const procs = eventPanel({ id: 'ev-procs', title: 'Sent and received per process' });
  const hist = eventPanel({ id: 'ev-hist', title: 'Message sizes' });
  const time = eventPanel({ id: 'ev-time', title: 'Communication over time' });
  const waits = eventPanel({ id: 'ev-waits', title: 'Wait states (late sender, late receiver)' });
  el.append(h('div', { class: 'ev-grid' }, matrix.el, procs.el), h('div', { class: 'ev-grid' }, hist.el, time.el), waits.el);

  // ---- the matrix and the per-process bars (one request) ----
  const kindSwitch = () => switchField('ev-kind', 'Value', [['bytes', 'Bytes'], ['count', 'Messages']], st.kind, (v) => {
    st.kind = v; save(); loadMatrix(); loadTime();
  });
  async function loadMatrix() {
    clear(matrix.toolbar).append(kindSwitch());
    matrix.status.textContent = 'Loading…';
    let doc;
    try {
      doc = await api.get(`/traces/${trace.id}/comm-matrix`, { kind: st.kind }, { signal });
    } catch (e) {
      if (e.name === 'AbortError' || e.code === 'aborted') return;
      matrix.status.textContent = '';
      clear(matrix.body).appendChild(analysisError(e, 'load the communication matrix'));
      return;
    }
    drawMatrix(doc);
    drawProcesses(doc);
  }

  function drawMatrix(doc) {
    const d3 = getD3();
    const n = doc.ranks.length, fmt = bytesOrCount(doc.kind);
    const block = doc.block || 1;
    const un = doc.unmatched || {};
    matrix.status.textContent = `${formatNumber(n)} ${block > 1 ? 'blocks' : 'ranks'} · total ${fmt(doc.total)}`
      + (un.sends || un.receives ? ` · unmatched: ${formatNumber(un.sends || 0)} sends, ${formatNumber(un.receives || 0)} receives` : '');
    clear(matrix.body);
    if (!n) { matrix.body.appendChild(h('p', { class: 'muted' }, 'No messages in this trace.')); matrix.setCsv(null); return; }
    if (block > 1) {
      matrix.body.appendChild(h('p', { class: 'alert alert-info small ev-block-note', role: 'note' },
        `${formatNumber(n * block)} ranks or so, grouped in blocks of ${formatNumber(block)} consecutive ranks: a cell sums the messages from one block to another.`));
    }
    const colour = matrixScale(d3, doc.max);
    const avail = Math.min(MATRIX_MAX, Math.max(160, (matrix.body.clientWidth || 500) - 90));
    const cell = Math.max(1, Math.min(110, Math.floor(avail / n)));
    const side = cell * n, labelW = 70, top = 34;
    const wrap = h('div', { class: 'ev-matrix-wrap', style: `width:${labelW + side + 8}px;height:${top + side + 8}px` });
    matrix.body.appendChild(wrap);
    const labelEvery = Math.max(1, Math.ceil((String(doc.ranks[n - 1]).length * 7 + 8) / cell)); // labels ~7 px a digit
    const s = svg('svg', { width: labelW + side + 8, height: top + side + 8, class: 'ev-matrix', role: 'img',
      'aria-label': `Communication matrix, ${doc.kind}, ${n} by ${n}` });
    const sel = d3.select(s);
    sel.append('text').attr('class', 'axis-unit').attr('x', labelW + side / 2).attr('y', 11).attr('text-anchor', 'middle').text('receiver →');
    sel.append('text').attr('class', 'axis-unit').attr('x', 4).attr('y', top - 6).text('sender ↓');
    const lab = (r) => (doc.labels && doc.labels[r] ? doc.labels[r] : `rank ${doc.ranks[r]}`);
    const shortLab = (i) => (block > 1 ? String(doc.ranks[i]) : String(doc.ranks[i]));
    for (let i = 0; i < n; i += labelEvery) {
      sel.append('text').attr('class', 'ev-matrix-label').attr('x', labelW - 4).attr('y', top + i * cell + cell / 2).attr('dy', '0.35em')
        .attr('text-anchor', 'end').text(shortLab(i));
      sel.append('text').attr('class', 'ev-matrix-label').attr('x', labelW + i * cell + cell / 2).attr('y', top - 4)
        .attr('text-anchor', 'middle').text(shortLab(i));
    }
    if (n <= SVG_CELLS) {
      const g = sel.append('g').attr('transform', `translate(${labelW},${top})`);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          const v = doc.matrix[i][j];
          g.append('rect').attr('class', 'ev-cell').attr('x', j * cell).attr('y', i * cell).attr('width', cell - (cell > 4 ? 1 : 0))
            .attr('height', cell - (cell > 4 ? 1 : 0)).attr('fill', v > 0 ? colour(v) : EVENTS.matrixEmpty)
            .attr('data-sender', doc.ranks[i]).attr('data-receiver', doc.ranks[j]).attr('data-value', v);
          if (cell >= 44 && v > 0) {
            g.append('text').attr('class', 'ev-cell-text').attr('x', j * cell + cell / 2).attr('y', i * cell + cell / 2).attr('dy', '0.35em')
              .attr('text-anchor', 'middle').attr('fill', Math.sqrt(v / (doc.max || 1)) > 0.6 ? EVENTS.matrixEmpty : EVENTS.cellText)
              .text(shortValue(doc.kind, v));
          }
        }
      }
      wrap.appendChild(s);
    } else {
      const dpr = window.devicePixelRatio || 1;
      const c = h('canvas', { class: 'ev-matrix-canvas', width: side * dpr, height: side * dpr,
        style: `left:${labelW}px;top:${top}px;width:${side}px;height:${side}px` });
      const g = c.getContext('2d');
      g.scale(dpr, dpr);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          const v = doc.matrix[i][j];
          g.fillStyle = v > 0 ? colour(v) : EVENTS.matrixEmpty;
          g.fillRect(j * cell, i * cell, cell, cell);
        }
      }
      wrap.append(c, s);
    }
    wrap.addEventListener('mousemove', (ev) => {
      const r = wrap.getBoundingClientRect();
      const j = Math.floor((ev.clientX - r.left - labelW) / cell), i = Math.floor((ev.clientY - r.top - top) / cell);
      if (i < 0 || j < 0 || i >= n || j >= n) { tip.hide(); return; }
      const v = doc.matrix[i][j];
      tip.show(ev, tipContent(`${lab(i)} → ${lab(j)}`, [
        [doc.kind === 'count' ? 'Messages' : 'Bytes', fmt(v)],
        ['Share of the total', doc.total > 0 ? `${(100 * v / doc.total).toFixed(1)}%` : '—'],
        ...(block > 1 ? [['Block', `${formatNumber(block)} ranks each`]] : []),
      ], null, 'sender → receiver'));
    });
    wrap.addEventListener('mouseleave', () => tip.hide());
    matrix.body.appendChild(rampLegend({ title: doc.kind === 'count' ? 'Messages sent (row → column)' : 'Bytes sent (row → column)',
      colour: (t) => colour(t * t * (doc.max || 1)), lo: '0', hi: shortValue(doc.kind, doc.max || 0), note: 'square-root scale' }));
    matrix.body.dataset.kind = doc.kind;
    matrix.setCsv(() => {
      const rows = [];
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) rows.push([doc.ranks[i], doc.ranks[j], doc.matrix[i][j]]);
      saveText(`${stem}_comm_matrix_${doc.kind}.csv`, csvText(['sender', 'receiver', doc.kind], rows), 'text/csv');
    });
  }

  function drawProcesses(doc) {
    const list = doc.processes || [];
    const key = st.kind === 'count' ? 'count' : 'bytes';
    const fmt = bytesOrCount(st.kind);
    procs.status.textContent = `${formatNumber(list.length)} processes · ${st.kind === 'count' ? 'messages' : 'bytes'} (the matrix's switch)`;
    clear(procs.toolbar).append(swatchLegend([[EVENTS.sent, 'sent'], [EVENTS.received, 'received']]));
    barsChart(procs.body, list.map((p) => ({ label: p.label || `rank ${p.rank}`, key: p.rank, p,
      values: [p[`sent_${key}`], p[`received_${key}`]] })),
    [{ name: 'sent', colour: EVENTS.sent }, { name: 'received', colour: EVENTS.received }], {
      labelW: 90, format: st.kind === 'count' ? fmtTick : (v) => formatBytes(v), tooltip: tip, label: 'sent and received per process',
      tip: (r) => tipContent(r.label, [['Sent', fmt(r.values[0])], ['Received', fmt(r.values[1])],
        ['Sent (other unit)', st.kind === 'count' ? formatBytes(r.p.sent_bytes) : `${formatNumber(r.p.sent_count)} messages`],
        ['Received (other unit)', st.kind === 'count' ? formatBytes(r.p.received_bytes) : `${formatNumber(r.p.received_count)} messages`]]),
    });
    procs.setCsv(() => saveText(`${stem}_per_process.csv`, csvText(['rank', 'label', 'sent_bytes', 'sent_count', 'received_bytes', 'received_count'],
      list.map((p) => [p.rank, p.label, p.sent_bytes, p.sent_count, p.received_bytes, p.received_count])), 'text/csv'));
  }

  // ---- the message-size histogram ----
  async function loadHist() {
    clear(hist.toolbar).append(selectField('ev-hist-bins', 'Bins', BIN_CHOICES.map((b) => [b, String(b)]), st.hbins,
      (v) => { st.hbins = Number(v); save(); loadHist(); }));
    let doc;
    try {
      doc = await api.get(`/traces/${trace.id}/message-histogram`, { bins: st.hbins }, { signal });
    } catch (e) {
      if (e.name === 'AbortError' || e.code === 'aborted') return;
      clear(hist.body).appendChild(analysisError(e, 'load the message sizes'));
      return;
    }
    const narrow = doc.edges[doc.edges.length - 1] - doc.edges[0] < 100 * 1024; // KiB ticks would all read the same
    hist.status.textContent = `${formatNumber(doc.messages)} messages in ${doc.bins} bins of size`;
    columnsChart(hist.body, doc.edges, doc.counts, {
      colour: EVENTS.histogram, xLabel: narrow ? 'message size (bytes)' : 'message size',
      xFormat: narrow ? (v) => formatNumber(+v.toPrecision(6)) : (v) => formatBytes(v), yLabel: 'messages', tooltip: tip, label: 'message-size histogram',
      tip: (i) => tipContent(`${formatBytes(doc.edges[i])} – ${formatBytes(doc.edges[i + 1])}`, [['Messages', formatNumber(doc.counts[i])],
        ['Range (bytes)', `${formatNumber(doc.edges[i])} – ${formatNumber(doc.edges[i + 1])}${i === doc.counts.length - 1 ? ' (closed)' : ''}`]]),
    });
    hist.setCsv(() => saveText(`${stem}_message_sizes.csv`, csvText(['bin_start_bytes', 'bin_end_bytes', 'messages'],
      doc.counts.map((c, i) => [doc.edges[i], doc.edges[i + 1], c])), 'text/csv'));
  }

  // ---- communication over time ----
  async function loadTime() {
    clear(time.toolbar).append(
      selectField('ev-time-bins', 'Bins', BIN_CHOICES.map((b) => [b, String(b)]), st.tbins, (v) => { st.tbins = Number(v); save(); loadTime(); }),
      switchField('ev-side', 'Side', [['send', 'Send'], ['receive', 'Receive']], st.side, (v) => { st.side = v; save(); loadTime(); }));
    let doc;
    try {
      doc = await api.get(`/traces/${trace.id}/comm-over-time`, { bins: st.tbins, kind: st.kind, side: st.side }, { signal });
    } catch (e) {
      if (e.name === 'AbortError' || e.code === 'aborted') return;
      clear(time.body).appendChild(analysisError(e, 'load the communication over time'));
      return;
    }
    const fmt = bytesOrCount(doc.kind);
    time.status.textContent = `${doc.kind === 'count' ? 'messages' : 'bytes'} by ${doc.side === 'receive' ? 'receive' : 'send'} time, ${doc.bins} bins`;
    columnsChart(time.body, doc.edges, doc.values, {
      colour: EVENTS.overTime, xLabel: 'time from the trace’s start', xFormat: (v) => fmtValue(v, doc.time_unit || unit, 3), yLabel: doc.kind === 'count' ? 'messages' : 'bytes',
      yFormat: doc.kind === 'count' ? fmtTick : (v) => formatBytes(v), tooltip: tip, label: 'communication over time',
      tip: (i) => tipContent(`${fmtTime(doc.edges[i])} – ${fmtTime(doc.edges[i + 1], doc.time_unit || unit)}`, [[doc.kind === 'count' ? 'Messages' : 'Bytes', fmt(doc.values[i])]]),
    });
    time.setCsv(() => saveText(`${stem}_comm_over_time_${doc.kind}_${doc.side}.csv`,
      csvText([`bin_start_${doc.time_unit || unit}`, `bin_end_${doc.time_unit || unit}`, doc.kind], doc.values.map((v, i) => [doc.edges[i], doc.edges[i + 1], v])), 'text/csv'));
  }

  // ---- wait states ----
  async function loadWaits() {
    let doc;
    try {
      doc = await api.get(`/traces/${trace.id}/wait-states`, {}, { signal });
    } catch (e) {
      if (e.name === 'AbortError' || e.code === 'aborted') return;
      clear(waits.body).appendChild(analysisError(e, 'load the wait states'));
      return;
    }
    const u = doc.time_unit || unit;
    const t = doc.totals || {};
    clear(waits.status).append(`Total: ${formatNumber(t.late_sender_count || 0)} late senders (${fmtTime(t.late_sender_time || 0, u)} waited by the receivers), `
      + `${formatNumber(t.late_receiver_count || 0)} late receivers (${fmtTime(t.late_receiver_time || 0, u)} waited by the senders). `,
    doc.definition ? h('details', { class: 'ev-definition' }, h('summary', {}, 'How they are counted'), doc.definition) : '');
    const pairs = doc.pairs || [];
    const maxT = Math.max(1e-12, ...pairs.map((p) => Math.max(p.late_sender_time, p.late_receiver_time)));
    const bar = (v, colour) => h('span', { class: 'ev-inline-bar', style: `width:${Math.round(60 * v / maxT)}px;background:${colour}` });
    clear(waits.body).appendChild(pairs.length ? h('div', { class: 'table-wrap ev-table-wrap' }, h('table', { class: 'table compact ev-table', id: 'ev-waits-table' },
      h('thead', {}, h('tr', {}, ['Sender', 'Receiver', 'Late sender: count', 'Late sender: time', 'Late receiver: count', 'Late receiver: time']
        .map((c, i) => h('th', { scope: 'col', class: i > 1 ? 'num' : null }, c)))),
      h('tbody', {}, pairs.map((p) => h('tr', {},
        h('td', {}, `rank ${p.sender}`), h('td', {}, `rank ${p.receiver}`),
        h('td', { class: 'num' }, formatNumber(p.late_sender_count)),
        h('td', { class: 'num' }, bar(p.late_sender_time, EVENTS.lateSender), fmtTime(p.late_sender_time, u)),
        h('td', { class: 'num' }, formatNumber(p.late_receiver_count)),
        h('td', { class: 'num' }, bar(p.late_receiver_time, EVENTS.lateReceiver), fmtTime(p.late_receiver_time, u)))))))
      : h('p', { class: 'muted' }, 'No message between ranks.'));
    waits.setCsv(() => saveText(`${stem}_wait_states.csv`, csvText(['sender', 'receiver', 'late_sender_count', `late_sender_time_${u}`, 'late_receiver_count', `late_receiver_time_${u}`],
      pairs.map((p) => [p.sender, p.receiver, p.late_sender_count, p.late_sender_time, p.late_receiver_count, p.late_receiver_time])), 'text/csv'));
  }

  save();
  await Promise.all([loadMatrix(), loadHist(), loadTime(), loadWaits()]);
}
