-- 011_import_outcome (PostgreSQL): mirrors sql/011_import_outcome.sql: the
-- files an import job skipped and the stored traces its upload duplicates
-- (JSON arrays), and an index to find a trace by its digest.
-- Text columns are COLLATE "C" (SQLite's BINARY order; see 001).
ALTER TABLE jobs ADD COLUMN skipped_json text COLLATE "C" NOT NULL DEFAULT '[]';
ALTER TABLE jobs ADD COLUMN duplicates_json text COLLATE "C" NOT NULL DEFAULT '[]';
CREATE INDEX traces_by_sha256 ON traces(sha256);
