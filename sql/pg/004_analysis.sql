-- 004_analysis (PostgreSQL): mirrors sql/004_analysis.sql: results of the
-- analyses cached per trace, analysis and canonical parameters (JSON
-- documents written by the server; deleting any is always safe). A few rows
-- per trace: a plain table. WITHOUT ROWID is dropped.
-- Text columns are COLLATE "C" (SQLite's BINARY order; see 001).

CREATE TABLE analysis_cache (
    trace_id    bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    analysis    text COLLATE "C" NOT NULL,      -- name@version: bounds@1, outliers@1, meta@1, ...
    params      text COLLATE "C" NOT NULL,      -- canonical parameters (sorted lists, %.17g numbers)
    result_json text COLLATE "C" NOT NULL,
    created_at  text COLLATE "C" NOT NULL
                    DEFAULT to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
    PRIMARY KEY (trace_id, analysis, params)
);
