-- 020_gantt_summaries (PostgreSQL): mirrors sql/020_gantt_summaries.sql:
-- per worker, level and chunk of 4096 time buckets, the packed per-bucket
-- task and state counts, task-type times and exclusive state times that a
-- Gantt of a large window reads instead of the raw rows. BLOB -> bytea;
-- WITHOUT ROWID is dropped.
--
-- Partitioning (issue 20): gantt_summaries grows with the trace (a few
-- megabytes per busy worker): PARTITION BY LIST (trace_id) with a DEFAULT
-- partition, so that pg_publish.c loads a trace's rows into its own
-- partition; its primary key starts with trace_id. gantt_summary_levels
-- and gantt_summary_rows (a few rows per trace) are plain tables.
CREATE TABLE gantt_summary_levels (
    trace_id bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    level    bigint NOT NULL,    -- 0 = the coarsest
    nbuckets bigint NOT NULL,
    t0       double precision NOT NULL,
    t1       double precision NOT NULL,
    PRIMARY KEY (trace_id, level)
);

CREATE TABLE gantt_summary_rows (
    trace_id  bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    worker_id bigint NOT NULL,   -- containers.id
    ntasks    bigint NOT NULL,
    nstates   bigint NOT NULL,
    max_state double precision NOT NULL, -- the longest state's end - start (0 without states)
    PRIMARY KEY (trace_id, worker_id)
);

CREATE TABLE gantt_summaries (
    trace_id  bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    worker_id bigint NOT NULL,   -- containers.id
    level     bigint NOT NULL,
    chunk     bigint NOT NULL,   -- buckets [chunk * 4096, (chunk + 1) * 4096)
    counts    bytea NOT NULL,
    tasks     bytea NOT NULL,
    states    bytea NOT NULL,
    PRIMARY KEY (trace_id, worker_id, level, chunk)
) PARTITION BY LIST (trace_id);
CREATE TABLE gantt_summaries_default PARTITION OF gantt_summaries DEFAULT;
