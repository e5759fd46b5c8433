-- 005_profiles: call-graph profiles (traces of kind 'profile'): the calling
-- context tree, its metrics and processes, and the measured values. Values
-- are stored as one BLOB per (trace, metric, node) holding nprocs
-- little-endian float64 (NaN where the node was not measured on a process),
-- in the order of profile_procs.proc: a CCT of 100,000 nodes on 1,024 ranks
-- is 100,000 rows per metric, not 100 million. Node ids are numbered with
-- every parent before its children (parent_id < node_id), as src/analysis/cct.h.

CREATE TABLE cct_nodes (
    trace_id  INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    node_id   INTEGER NOT NULL,      -- 0..n-1, depth-first order
    parent_id INTEGER,               -- NULL for a root
    name      TEXT NOT NULL,
    module    TEXT NOT NULL DEFAULT '',
    file      TEXT NOT NULL DEFAULT '',
    line      INTEGER NOT NULL DEFAULT 0,
    kind      TEXT NOT NULL DEFAULT 'function', -- function, loop, statement, callsite, region, ...
    depth     INTEGER NOT NULL DEFAULT 0,       -- roots 0
    PRIMARY KEY (trace_id, node_id)
) WITHOUT ROWID;
CREATE INDEX cct_nodes_by_parent ON cct_nodes(trace_id, parent_id);

CREATE TABLE profile_metrics (
    trace_id  INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    metric_id INTEGER NOT NULL,      -- 0..m-1
    name      TEXT NOT NULL,         -- Hatchet's column name: "time (inc)", "time", ...
    unit      TEXT NOT NULL DEFAULT '',
    inclusive INTEGER NOT NULL,      -- 1 inclusive, 0 exclusive
    partner   INTEGER,               -- metric_id of the other variant, NULL if none
    derived   INTEGER NOT NULL DEFAULT 0, -- 1: computed at import from its partner
    source    TEXT NOT NULL DEFAULT '',   -- the name in the file, e.g. "sum#time.duration"
    PRIMARY KEY (trace_id, metric_id)
) WITHOUT ROWID;

CREATE TABLE profile_procs (
    trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    proc     INTEGER NOT NULL,       -- 0..p-1, ordered by (rank, thread)
    rank     INTEGER NOT NULL,
    thread   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (trace_id, proc)
) WITHOUT ROWID;

CREATE TABLE profile_values (
    trace_id  INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    metric_id INTEGER NOT NULL,
    node_id   INTEGER NOT NULL,
    vals      BLOB NOT NULL,         -- nprocs little-endian float64, NaN = not measured
    vmin      REAL,                  -- over the measured processes; NULL if none
    vmax      REAL,
    vmean     REAL,
    vsum      REAL
);
CREATE UNIQUE INDEX profile_values_by_node ON profile_values(trace_id, metric_id, node_id);

-- Ensembles: several profiles of one experiment (runs with different
-- parameters). No API yet; the model is ready for Ensemble CallFlow.
CREATE TABLE ensembles (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

CREATE TABLE ensemble_members (
    ensemble_id INTEGER NOT NULL REFERENCES ensembles(id) ON DELETE CASCADE,
    trace_id    INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    params_json TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (ensemble_id, trace_id)
) WITHOUT ROWID;
CREATE INDEX ensemble_members_by_trace ON ensemble_members(trace_id);
