-- 010_gantt_rows (PostgreSQL): mirrors sql/010_gantt_rows.sql: each worker's
-- tasks (start, end, type) sorted by start, as three packed arrays (native
-- float64, float64, int32) stored at import for the first Gantt chart, and
-- the type names they index. BLOB -> bytea; WITHOUT ROWID is dropped.
-- (The arrays are in the writer's native byte order, as in SQLite: a
-- database moved between machines of different endianness must rebuild
-- them; deleting the rows is safe, they are rebuilt on the first request.)
--
-- Partitioning (issue 20): gantt_rows holds as many bytes as the trace has
-- tasks (one row per worker, three arrays of its tasks): PARTITION BY LIST
-- (trace_id) with a DEFAULT partition; its primary key already starts with
-- trace_id. gantt_row_types (one row per task type) is a plain table.
-- Text columns are COLLATE "C" (SQLite's BINARY order; see 001).
CREATE TABLE gantt_rows (
    trace_id  bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    worker_id bigint NOT NULL,       -- containers.id
    ntasks    bigint NOT NULL,
    starts    bytea NOT NULL,        -- ntasks x float64
    ends      bytea NOT NULL,        -- ntasks x float64
    types     bytea NOT NULL,        -- ntasks x int32, gantt_row_types.type_no
    PRIMARY KEY (trace_id, worker_id)
) PARTITION BY LIST (trace_id);
CREATE TABLE gantt_rows_default PARTITION OF gantt_rows DEFAULT;

CREATE TABLE gantt_row_types (
    trace_id bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    type_no  bigint NOT NULL,
    name     text COLLATE "C" NOT NULL,
    PRIMARY KEY (trace_id, type_no)
);
