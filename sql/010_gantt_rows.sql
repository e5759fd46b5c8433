-- 010_gantt_rows: what the first Gantt chart of a task trace needs, stored
-- at import (src/store/gantt_rows.c) so that the first request does not
-- read and sort the whole tasks table: each worker's tasks (start, end and
-- type) sorted by start, end, type, as three packed arrays (native float64,
-- float64 and int32). The type numbers index gantt_row_types of the same
-- trace. Empty for traces imported before: built on the first request and
-- stored then (so this migration costs nothing on an existing database).
CREATE TABLE gantt_rows (
    trace_id  INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    worker_id INTEGER NOT NULL,      -- containers.id
    ntasks    INTEGER NOT NULL,
    starts    BLOB NOT NULL,         -- ntasks x float64
    ends      BLOB NOT NULL,         -- ntasks x float64
    types     BLOB NOT NULL,         -- ntasks x int32, gantt_row_types.type_no
    PRIMARY KEY (trace_id, worker_id)
) WITHOUT ROWID;

CREATE TABLE gantt_row_types (
    trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    type_no  INTEGER NOT NULL,
    name     TEXT NOT NULL,
    PRIMARY KEY (trace_id, type_no)
) WITHOUT ROWID;
