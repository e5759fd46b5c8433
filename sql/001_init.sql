-- 001_init: traces, their source files, import jobs and API tokens.
-- Times of day are ISO 8601 UTC text; sizes are bytes.

CREATE TABLE traces (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('tasks', 'profile', 'pdes', 'datamove')),
    format      TEXT NOT NULL,
    created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    bytes       INTEGER NOT NULL DEFAULT 0,
    sha256      TEXT NOT NULL DEFAULT '',
    time_unit   TEXT NOT NULL DEFAULT 's',
    description TEXT NOT NULL DEFAULT '',
    meta_json   TEXT NOT NULL DEFAULT '{}',    -- reader-specific metadata
    counts_json TEXT NOT NULL DEFAULT '{}',    -- rows per entity, for the trace list
    summary_json TEXT NOT NULL DEFAULT '{}'    -- kind-specific summary, computed at import
);
CREATE INDEX traces_by_kind ON traces(kind, created_at);

-- The files an import read, as uploaded (names, sizes, digests).
CREATE TABLE trace_files (
    trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    name     TEXT NOT NULL,
    bytes    INTEGER NOT NULL,
    sha256   TEXT NOT NULL,
    role     TEXT NOT NULL DEFAULT ''          -- e.g. paje, tasks, dag, data
);
CREATE INDEX trace_files_by_trace ON trace_files(trace_id);

CREATE TABLE jobs (
    id            INTEGER PRIMARY KEY,
    kind          TEXT NOT NULL,               -- 'import'
    status        TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
    progress      REAL NOT NULL DEFAULT 0,
    phase         TEXT NOT NULL DEFAULT '',
    created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    finished_at   TEXT,
    trace_ids     TEXT NOT NULL DEFAULT '[]',  -- JSON array
    error_code    TEXT,
    error_message TEXT,
    params_json   TEXT NOT NULL DEFAULT '{}',
    owner_pid     INTEGER NOT NULL DEFAULT 0   -- process running it, to detect orphans
);

CREATE TABLE tokens (
    id           INTEGER PRIMARY KEY,
    name         TEXT NOT NULL,
    scope        TEXT NOT NULL CHECK (scope IN ('read', 'write', 'admin')),
    hash         TEXT NOT NULL UNIQUE,         -- hex SHA-256 of the whole secret
    created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    last_used_at TEXT,
    revoked_at   TEXT
);
