-- 015_streams: live runs (issue 18). A live run is a trace of kind 'pdes',
-- format 'stream', that grows while a producer appends samples to it
-- (POST /api/v1/streams/{id}/samples) and stays when it is closed.
-- Written and read by src/store/stream_store.c.

-- One row per live run: its write token's SHA-256 (hex), its state and
-- counts. n_records is the last arrival seq; last_key the largest key.
CREATE TABLE mt_streams (
    trace_id    INTEGER PRIMARY KEY REFERENCES traces(id) ON DELETE CASCADE,
    token_hash  TEXT NOT NULL,
    state       TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'closed')),
    created     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    closed      TEXT,
    n_points    INTEGER NOT NULL DEFAULT 0,   -- distinct time points
    n_records   INTEGER NOT NULL DEFAULT 0,   -- records received (the last seq)
    last_key    REAL,                         -- largest key received, NULL before any
    key_domain  INTEGER,                      -- 0 LastGvt, 3 time; NULL before any record
    kps_per_pe  INTEGER NOT NULL DEFAULT 0,   -- ROSS KPs per PE, 0 unknown
    controls    TEXT NOT NULL DEFAULT '{}'    -- the live hub's shared controls (JSON)
);

-- The records of an open run, one row each in arrival order (seq 1..N).
-- domains: float64[4] (LastGvt, VirtualTs, RealTs, time; NaN unknown);
-- cells: (int32 entity, int32 metric, float64 value) little-endian, 16
-- bytes each; comm: rows of (int32 src, uint32 n, n x (int32 dst,
-- float64 count)). Entity and metric ids are the run's (mt_entities,
-- mt_metrics). Deleted when the run is closed (its data are then in
-- mt_domains, mt_values and mt_comm like an offline import's).
CREATE TABLE mt_stream_points (
    trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    seq      INTEGER NOT NULL,
    key      REAL NOT NULL,
    domains  BLOB NOT NULL,
    cells    BLOB NOT NULL,
    comm     BLOB NOT NULL,
    PRIMARY KEY (trace_id, seq)
) WITHOUT ROWID;
CREATE INDEX mt_stream_points_by_key ON mt_stream_points(trace_id, key);

-- Appends find a run's entities by name.
CREATE INDEX mt_entities_by_name ON mt_entities(trace_id, level, name);
