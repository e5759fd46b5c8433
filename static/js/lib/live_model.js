// lib/live_model.js: what the live-run page (views/live.js) knows of a run,
// kept in step with the snapshot (GET /streams/{id}/state) and the point
// messages (contract18 section 3): the entities and their hierarchy, the
// entities of the current granularity in the hub's order, the metrics, the
// time keys by time index, the per-metric mean over entities since the
// start (the history views b1, b2), the change points and the latest point
// message. A point inserted before the last one (late) shifts the later
// time indices: the model inserts it; a gap (a message missed) asks for a
// new snapshot (needsState).

export class LiveModel {
  constructor() {
    this.trace = null;
    this.entities = [];        // [{id, name, level, parent}]
    this.byId = new Map();
    this.levels = [];          // level names, root first
    this.ids = [];             // the entity ids of the current granularity, in the hub's order
    this.metrics = [];
    this.times = [];           // key of each time index
    this.summary = {};         // metric -> [mean over entities per time index]
    this.changePoints = [];    // time indices
    this.controls = {};
    this.controlsVersion = null;
    this.last = null;          // the latest point message
    this.nPoints = 0;
    this.state = 'open';
    this.needsState = false;
    this.hasComm = null;      // whether the run has communication (null: not said)
  }

  applyState(st) {
    this.trace = { id: st.trace_id, name: st.name };
    this.state = st.state || 'open';
    this.entities = st.entities || [];
    this.byId = new Map(this.entities.map((e) => [e.id, e]));
    const levels = [];
    for (const e of this.entities) if (!levels.includes(e.level)) levels.push(e.level);
    // roots first: a level whose entities have no parent
    const depth = (lv) => { const e = this.entities.find((x) => x.level === lv); let d = 0, p = e; while (p && p.parent !== null && p.parent !== undefined && this.byId.has(p.parent) && d < 8) { p = this.byId.get(p.parent); d += 1; } return d; };
    this.levels = Array.isArray(st.levels) && st.levels.length ? st.levels.slice() : levels.sort((a, b) => depth(a) - depth(b));
    this.hasComm = st.has_comm === undefined ? null : Boolean(st.has_comm);
    this.metrics = (st.metrics || []).map((m) => (typeof m === 'object' ? m.name : m));
    this.times = (st.times || []).slice();
    this.summary = {};
    for (const [m, arr] of Object.entries(st.summary || {})) this.summary[m] = arr.map((v) => (v === null ? NaN : v));
    this.changePoints = (st.change_points || []).slice();
    this.controls = st.controls || {};
    this.nPoints = st.n_points ?? this.times.length;
    this.last = st.last || null;
    this.controlsVersion = this.last ? this.last.controls_version : null;
    const gran = this.controls.granularity || this.levels[this.levels.length - 1];
    this.ids = this.entities.filter((e) => e.level === gran).map((e) => e.id);
    if (this.last && this.last.entity_ids) this.ids = this.last.entity_ids.slice();
    this.needsState = false;
  }

  // Applies a point message; returns what changed: {newPoint, late, controls}.
  applyPoint(msg, kind) {
    const out = { newPoint: false, late: false, controls: false };
    if (msg.entity_ids) this.ids = msg.entity_ids.slice();
    if (msg.controls_version !== undefined && msg.controls_version !== this.controlsVersion) {
      out.controls = this.controlsVersion !== null;
      this.controlsVersion = msg.controls_version;
    }
    if (msg.controls) this.controls = msg.controls;
    const t = msg.t_idx;
    const means = (msg.summary && msg.summary.means) || {};
    // a new point (at the end, or inserted late) makes n_points one more than
    // the points known; else the point at t changed (a duplicate key: mean)
    const grows = msg.n_points === undefined ? t === this.times.length && kind === 'point' : msg.n_points === this.times.length + 1;
    if (t <= this.times.length && grows) {
      const late = t < this.times.length;
      this.times.splice(t, 0, msg.time);
      for (const m of new Set([...Object.keys(this.summary), ...Object.keys(means)])) {
        if (!this.summary[m]) this.summary[m] = new Array(this.times.length - 1).fill(NaN);
        this.summary[m].splice(t, 0, means[m] === null || means[m] === undefined ? NaN : means[m]);
      }
      out.newPoint = true;
      out.late = late;
    } else if (t < this.times.length && msg.n_points === this.times.length) {
      for (const [m, v] of Object.entries(means)) if (this.summary[m]) this.summary[m][t] = v === null ? NaN : v;
    } else if (t >= this.times.length || msg.n_points > this.times.length) {
      this.needsState = true; // a point was missed
    }
    if (msg.cpd && msg.cpd.change_points) this.changePoints = msg.cpd.change_points.slice();
    this.nPoints = msg.n_points ?? this.times.length;
    this.last = msg;
    return out;
  }

  nameOf(id) {
    const e = this.byId.get(id);
    return e ? e.name : `#${id}`;
  }

  // The children of entity `id` (one level down).
  childrenOf(id) {
    return this.entities.filter((e) => e.parent === id).map((e) => e.id);
  }

  levelOf(id) {
    const e = this.byId.get(id);
    return e ? e.level : null;
  }

  // The level below `level`, or null.
  childLevel(level) {
    const i = this.levels.indexOf(level);
    return i >= 0 && i + 1 < this.levels.length ? this.levels[i + 1] : null;
  }

  // Map entity id -> cluster label of the latest message (current granularity).
  labels() {
    const c = this.last && this.last.clusters;
    const m = new Map();
    if (!c || !c.labels) return m;
    c.labels.forEach((l, i) => { if (i < this.ids.length) m.set(this.ids[i], l); });
    return m;
  }

  // The cluster label of each of `ids` (any level): its own, or the majority
  // label of its clustered descendants, or -1.
  labelsOf(ids) {
    const own = this.labels();
    const memo = new Map();
    const of = (id, depth) => {
      if (own.has(id)) return [own.get(id)];
      if (memo.has(id)) return memo.get(id);
      const out = depth > 6 ? [] : this.childrenOf(id).flatMap((c) => of(c, depth + 1));
      memo.set(id, out);
      return out;
    };
    // parents of clustered entities: majority over the clustered leaves below
    return ids.map((id) => {
      const ls = of(id, 0);
      if (!ls.length) {
        // a child of a clustered entity takes its parent's label
        let p = this.byId.get(id);
        for (let d = 0; p && d < 6; d++) { if (own.has(p.id)) return own.get(p.id); p = this.byId.get(p.parent); }
        return -1;
      }
      const count = new Map();
      for (const l of ls) count.set(l, (count.get(l) || 0) + 1);
      return [...count].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0][0];
    });
  }
}
