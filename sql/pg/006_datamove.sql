-- 006_datamove (PostgreSQL): mirrors sql/006_datamove.sql: data movement
-- traces (Chrome trace events in four categories, data movements, flows,
-- metric samples, the hardware topology, a time-tile pyramid). Times are
-- microseconds as double precision. WITHOUT ROWID is dropped.
--
-- Categories: 0 data movement, 1 GPU compute, 2 CPU compute, 3 runtime API.
--
-- Partitioning (issue 20): dm_events, dm_movements, dm_flows, dm_samples
-- (the metric samples), dm_tiles and dm_pair_bins grow with the trace's
-- events or samples and are PARTITION BY LIST (trace_id) with a DEFAULT
-- partition. Their primary keys already start with trace_id, so no key
-- changes. dm_tracks, dm_metrics and dm_components (a few hundred rows per
-- trace) are plain tables.
-- Text columns are COLLATE "C" (SQLite's BINARY order; see 001).

CREATE TABLE dm_tracks (
    trace_id bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    track_id bigint NOT NULL,        -- 0..n-1
    pid      text COLLATE "C" NOT NULL,
    tid      text COLLATE "C" NOT NULL,
    label    text COLLATE "C" NOT NULL DEFAULT '', -- "GPU 0 / stream 7", "basic-gemm / 293040"
    device   bigint,                 -- GPU number when the track is a GPU's, else NULL
    PRIMARY KEY (trace_id, track_id)
);

CREATE TABLE dm_events (
    trace_id    bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    event_id    bigint NOT NULL,     -- 0..n-1 in the reader's order
    track_id    bigint NOT NULL,
    category    bigint NOT NULL,     -- see above
    name        text COLLATE "C" NOT NULL,
    cat         text COLLATE "C" NOT NULL DEFAULT '', -- the trace's own "cat"
    start       double precision NOT NULL, -- µs
    dur         double precision NOT NULL, -- µs, 0 for point events
    point       bigint NOT NULL DEFAULT 0, -- 1 for instants
    correlation bigint,
    args_json   text COLLATE "C",
    PRIMARY KEY (trace_id, event_id)
) PARTITION BY LIST (trace_id);
CREATE TABLE dm_events_default PARTITION OF dm_events DEFAULT;
CREATE INDEX dm_events_by_start ON dm_events(trace_id, start);

CREATE TABLE dm_movements (
    trace_id  bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    event_id  bigint NOT NULL,
    src       text COLLATE "C" NOT NULL,         -- component key: 'host', 'gpu0', ...
    dst       text COLLATE "C" NOT NULL,
    kind      text COLLATE "C" NOT NULL,         -- memcpy HtoD, DtoH, DtoD, PtoP, memset, ...
    bytes     bigint NOT NULL,
    start     double precision NOT NULL,
    dur       double precision NOT NULL,
    bandwidth double precision,      -- GB/s = bytes / dur(µs) / 1000, NULL if dur = 0
    trace_bandwidth double precision, -- the trace's own "memory bandwidth (GB/s)", if any
    PRIMARY KEY (trace_id, event_id)
) PARTITION BY LIST (trace_id);
CREATE TABLE dm_movements_default PARTITION OF dm_movements DEFAULT;
CREATE INDEX dm_movements_by_start ON dm_movements(trace_id, start);

CREATE TABLE dm_flows (
    trace_id   bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    flow_id    text COLLATE "C" NOT NULL,        -- the trace's id / bind_id
    from_event bigint NOT NULL,
    to_event   bigint NOT NULL
) PARTITION BY LIST (trace_id);
CREATE TABLE dm_flows_default PARTITION OF dm_flows DEFAULT;
CREATE INDEX dm_flows_by_trace ON dm_flows(trace_id);

CREATE TABLE dm_metrics (
    trace_id  bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    metric_id bigint NOT NULL,
    name      text COLLATE "C" NOT NULL,         -- "utilization_gpu", counter series name, ...
    component text COLLATE "C" NOT NULL DEFAULT '', -- 'gpu0', 'host', '' if unknown
    source    text COLLATE "C" NOT NULL DEFAULT '', -- 'nvidia-smi', 'counter'
    PRIMARY KEY (trace_id, metric_id)
);

CREATE TABLE dm_samples (
    trace_id  bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    metric_id bigint NOT NULL,
    ts        double precision NOT NULL, -- µs
    value     double precision NOT NULL
) PARTITION BY LIST (trace_id);
CREATE TABLE dm_samples_default PARTITION OF dm_samples DEFAULT;
CREATE INDEX dm_samples_by_metric ON dm_samples(trace_id, metric_id, ts);

-- The topology: hwloc objects (machine, package, NUMA node, caches, cores,
-- PUs, bridges, PCI devices, OS devices such as GPUs) as a tree.
CREATE TABLE dm_components (
    trace_id  bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    comp_id   bigint NOT NULL,       -- parents before children
    parent_id bigint,
    kind      text COLLATE "C" NOT NULL,         -- Machine, Package, NUMANode, L3Cache, Core, PU, PCIDev, GPU, ...
    name      text COLLATE "C" NOT NULL DEFAULT '',
    os_index  bigint,
    logical_index bigint,
    key       text COLLATE "C" NOT NULL DEFAULT '', -- movement endpoint it stands for: 'host', 'gpu0', ''
    attrs_json text COLLATE "C" NOT NULL DEFAULT '{}',
    PRIMARY KEY (trace_id, comp_id)
);

-- Time tiles: per level L (2^L bins over [t0, t1] of the trace), bin, track
-- and category: events starting in the bin, busy µs overlapping it, and the
-- bytes moved in it (split in proportion to overlap).
CREATE TABLE dm_tiles (
    trace_id bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    level    bigint NOT NULL,
    bin      bigint NOT NULL,
    track_id bigint NOT NULL,
    category bigint NOT NULL,
    count    bigint NOT NULL,
    busy     double precision NOT NULL,
    bytes    double precision NOT NULL,
    PRIMARY KEY (trace_id, level, bin, track_id, category)
) PARTITION BY LIST (trace_id);
CREATE TABLE dm_tiles_default PARTITION OF dm_tiles DEFAULT;

-- Bytes and busy time per (source, destination) pair in the finest tile
-- bins (2^12 bins over [t0, t1]).
CREATE TABLE dm_pair_bins (
    trace_id bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    bin      bigint NOT NULL,
    src      text COLLATE "C" NOT NULL,
    dst      text COLLATE "C" NOT NULL,
    bytes    double precision NOT NULL,
    busy     double precision NOT NULL,
    PRIMARY KEY (trace_id, bin, src, dst)
) PARTITION BY LIST (trace_id);
CREATE TABLE dm_pair_bins_default PARTITION OF dm_pair_bins DEFAULT;
