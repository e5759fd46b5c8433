-- 015_streams (PostgreSQL): mirrors sql/015_streams.sql: live runs (issue
-- 18), traces of kind 'pdes', format 'stream', that grow while a producer
-- appends samples. BLOB -> bytea; WITHOUT ROWID is dropped.
--
-- mt_streams.trace_id is `INTEGER PRIMARY KEY` in SQLite (a rowid alias),
-- but it is always a given trace's id (a foreign key), never drawn: a plain
-- bigint primary key here, not an identity. One row per run: not
-- partitioned. mt_stream_points (one row per record of an open run) is
-- PARTITION BY LIST (trace_id) with a DEFAULT partition; its primary key
-- already starts with trace_id: no key change.
-- Text columns are COLLATE "C" (SQLite's BINARY order; see 001).

CREATE TABLE mt_streams (
    trace_id    bigint PRIMARY KEY REFERENCES traces(id) ON DELETE CASCADE,
    token_hash  text COLLATE "C" NOT NULL,
    state       text COLLATE "C" NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'closed')),
    created     text COLLATE "C" NOT NULL
                    DEFAULT to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
    closed      text COLLATE "C",
    n_points    bigint NOT NULL DEFAULT 0,    -- distinct time points
    n_records   bigint NOT NULL DEFAULT 0,    -- records received (the last seq)
    last_key    double precision,             -- largest key received, NULL before any
    key_domain  bigint,                       -- 0 LastGvt, 3 time; NULL before any record
    kps_per_pe  bigint NOT NULL DEFAULT 0,    -- ROSS KPs per PE, 0 unknown
    controls    text COLLATE "C" NOT NULL DEFAULT '{}'    -- the live hub's shared controls (JSON)
);

-- The records of an open run, one row each in arrival order (seq 1..N).
CREATE TABLE mt_stream_points (
    trace_id bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    seq      bigint NOT NULL,
    key      double precision NOT NULL,
    domains  bytea NOT NULL,
    cells    bytea NOT NULL,
    comm     bytea NOT NULL,
    PRIMARY KEY (trace_id, seq)
) PARTITION BY LIST (trace_id);
CREATE TABLE mt_stream_points_default PARTITION OF mt_stream_points DEFAULT;
CREATE INDEX mt_stream_points_by_key ON mt_stream_points(trace_id, key);

-- Appends find a run's entities by name.
CREATE INDEX mt_entities_by_name ON mt_entities(trace_id, level, name);
