-- 009_trace_notes (PostgreSQL): mirrors sql/009_trace_notes.sql: how a
-- trace's time unit was decided, and the warnings of its import.
-- Text columns are COLLATE "C" (SQLite's BINARY order; see 001).
ALTER TABLE traces ADD COLUMN time_unit_source text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE traces ADD COLUMN warnings_json text COLLATE "C" NOT NULL DEFAULT '[]';
