-- 020_gantt_summaries: multi-resolution summaries of the Gantt chart's
-- rows (issue 20), written at import (src/store/gantt_summaries.c) so that a
-- Gantt of the whole trace, or of a large part of it, does not read every
-- task and runtime state of every worker. A level cuts the trace's task
-- extent [t0, t1) into nbuckets equal buckets; per worker and level the
-- buckets are stored in chunks of 4096 buckets, each with three packed
-- arrays (native byte order, as gantt_rows):
--   counts: per bucket of the chunk, int32 tasks and int32 states starting in it;
--   tasks:  cells (int32 bucket, int32 type_no of gantt_row_types, float64
--           time covered by tasks of that type), by bucket, non-zero only;
--   states: cells (int32 bucket, int32 names.id, float64 exclusive time of
--           that state value: a nested state's time is taken from its
--           parent), by bucket, non-zero only.
-- Only workers with many tasks or states get rows (small rows are read raw);
-- gantt_summary_rows lists them with their longest state, which bounds the
-- raw read of a window too narrow for the levels (states starting after
-- t0 - max_state only can reach t0).
-- Traces imported before this migration have none: their Gantt reads the
-- raw rows, as before (no data migration).
CREATE TABLE gantt_summary_levels (
    trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    level    INTEGER NOT NULL,   -- 0 = the coarsest
    nbuckets INTEGER NOT NULL,
    t0       REAL NOT NULL,
    t1       REAL NOT NULL,
    PRIMARY KEY (trace_id, level)
) WITHOUT ROWID;

CREATE TABLE gantt_summary_rows (
    trace_id  INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    worker_id INTEGER NOT NULL,  -- containers.id
    ntasks    INTEGER NOT NULL,
    nstates   INTEGER NOT NULL,
    max_state REAL NOT NULL,     -- the longest state's end - start (0 without states)
    PRIMARY KEY (trace_id, worker_id)
) WITHOUT ROWID;

CREATE TABLE gantt_summaries (
    trace_id  INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    worker_id INTEGER NOT NULL,  -- containers.id
    level     INTEGER NOT NULL,
    chunk     INTEGER NOT NULL,  -- buckets [chunk * 4096, (chunk + 1) * 4096)
    counts    BLOB NOT NULL,
    tasks     BLOB NOT NULL,
    states    BLOB NOT NULL,
    PRIMARY KEY (trace_id, worker_id, level, chunk)
) WITHOUT ROWID;
