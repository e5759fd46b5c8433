-- 004_analysis: results of the task-trace analyses (bounds, outliers,
-- iterations, critical paths, and the per-trace metadata the Gantt chart
-- needs), cached per trace, analysis and canonical parameters. A trace's
-- cache goes with it. Entries are JSON documents written by the server;
-- deleting any of them is always safe (they are recomputed on demand).

CREATE TABLE analysis_cache (
    trace_id    INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    analysis    TEXT NOT NULL,      -- name@version: bounds@1, outliers@1, meta@1, ...
    params      TEXT NOT NULL,      -- canonical parameters (sorted lists, %.17g numbers)
    result_json TEXT NOT NULL,
    created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    PRIMARY KEY (trace_id, analysis, params)
) WITHOUT ROWID;
