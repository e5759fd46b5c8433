-- 006_datamove: data movement traces (kind 'datamove'): Chrome trace events
-- (Kineto / DMTracker) put in four categories, the data movements among
-- them, flows, metric samples (nvidia-smi), the hardware topology, and a
-- time-tile pyramid that answers window queries without scanning events.
-- Times are microseconds (the Chrome trace's unit) as REAL.
--
-- Categories: 0 data movement, 1 GPU compute, 2 CPU compute, 3 runtime API.

CREATE TABLE dm_tracks (
    trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    track_id INTEGER NOT NULL,       -- 0..n-1
    pid      TEXT NOT NULL,
    tid      TEXT NOT NULL,
    label    TEXT NOT NULL DEFAULT '', -- "GPU 0 / stream 7", "basic-gemm / 293040"
    device   INTEGER,                -- GPU number when the track is a GPU's, else NULL
    PRIMARY KEY (trace_id, track_id)
) WITHOUT ROWID;

CREATE TABLE dm_events (
    trace_id    INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    event_id    INTEGER NOT NULL,    -- 0..n-1 in the reader's order
    track_id    INTEGER NOT NULL,
    category    INTEGER NOT NULL,    -- see above
    name        TEXT NOT NULL,
    cat         TEXT NOT NULL DEFAULT '', -- the trace's own "cat"
    start       REAL NOT NULL,       -- µs
    dur         REAL NOT NULL,       -- µs, 0 for point events
    point       INTEGER NOT NULL DEFAULT 0, -- 1 for instants
    correlation INTEGER,
    args_json   TEXT,
    PRIMARY KEY (trace_id, event_id)
) WITHOUT ROWID;
CREATE INDEX dm_events_by_start ON dm_events(trace_id, start);

CREATE TABLE dm_movements (
    trace_id  INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    event_id  INTEGER NOT NULL,
    src       TEXT NOT NULL,         -- component key: 'host', 'gpu0', ...
    dst       TEXT NOT NULL,
    kind      TEXT NOT NULL,         -- memcpy HtoD, DtoH, DtoD, PtoP, memset, ...
    bytes     INTEGER NOT NULL,
    start     REAL NOT NULL,
    dur       REAL NOT NULL,
    bandwidth REAL,                  -- GB/s = bytes / dur(µs) / 1000, NULL if dur = 0
    trace_bandwidth REAL,            -- the trace's own "memory bandwidth (GB/s)", if any
    PRIMARY KEY (trace_id, event_id)
) WITHOUT ROWID;
CREATE INDEX dm_movements_by_start ON dm_movements(trace_id, start);

CREATE TABLE dm_flows (
    trace_id   INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    flow_id    TEXT NOT NULL,        -- the trace's id / bind_id
    from_event INTEGER NOT NULL,
    to_event   INTEGER NOT NULL
);
CREATE INDEX dm_flows_by_trace ON dm_flows(trace_id);

CREATE TABLE dm_metrics (
    trace_id  INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    metric_id INTEGER NOT NULL,
    name      TEXT NOT NULL,         -- "utilization_gpu", counter series name, ...
    component TEXT NOT NULL DEFAULT '', -- 'gpu0', 'host', '' if unknown
    source    TEXT NOT NULL DEFAULT '', -- 'nvidia-smi', 'counter'
    PRIMARY KEY (trace_id, metric_id)
) WITHOUT ROWID;

CREATE TABLE dm_samples (
    trace_id  INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    metric_id INTEGER NOT NULL,
    ts        REAL NOT NULL,         -- µs
    value     REAL NOT NULL
);
CREATE INDEX dm_samples_by_metric ON dm_samples(trace_id, metric_id, ts);

-- The topology: hwloc objects (machine, package, NUMA node, caches, cores,
-- PUs, bridges, PCI devices, OS devices such as GPUs) as a tree.
CREATE TABLE dm_components (
    trace_id  INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    comp_id   INTEGER NOT NULL,      -- parents before children
    parent_id INTEGER,
    kind      TEXT NOT NULL,         -- Machine, Package, NUMANode, L3Cache, Core, PU, PCIDev, GPU, ...
    name      TEXT NOT NULL DEFAULT '',
    os_index  INTEGER,
    logical_index INTEGER,
    key       TEXT NOT NULL DEFAULT '', -- movement endpoint it stands for: 'host', 'gpu0', ''
    attrs_json TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (trace_id, comp_id)
) WITHOUT ROWID;

-- Time tiles: per level L (2^L bins over [t0, t1] of the trace), bin, track
-- and category: events starting in the bin, busy µs overlapping it, and the
-- bytes moved in it (split in proportion to overlap).
CREATE TABLE dm_tiles (
    trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    level    INTEGER NOT NULL,
    bin      INTEGER NOT NULL,
    track_id INTEGER NOT NULL,
    category INTEGER NOT NULL,
    count    INTEGER NOT NULL,
    busy     REAL NOT NULL,
    bytes    REAL NOT NULL,
    PRIMARY KEY (trace_id, level, bin, track_id, category)
) WITHOUT ROWID;

-- Bytes and busy time per (source, destination) pair in the finest tile
-- bins (2^12 bins over [t0, t1], movements split in proportion to
-- overlap): the matrix and topology of a window sum whole bins here and
-- read raw movements only for the two partial bins at its edges.
CREATE TABLE dm_pair_bins (
    trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    bin      INTEGER NOT NULL,
    src      TEXT NOT NULL,
    dst      TEXT NOT NULL,
    bytes    REAL NOT NULL,
    busy     REAL NOT NULL,
    PRIMARY KEY (trace_id, bin, src, dst)
) WITHOUT ROWID;
