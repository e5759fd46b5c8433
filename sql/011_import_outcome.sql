-- 011_import_outcome.sql: what an import job tells besides its traces.
-- skipped_json: the files it did not read, [{"name", "reason"}] (a log or a
-- file no reader knows, next to a StarPU bundle); duplicates_json: the
-- stored traces whose files are identical to those of the upload,
-- [{"trace_id", "name", "upload"}] (the upload's trace name).
-- The index finds a trace by its digest (traces.sha256) at each import.
ALTER TABLE jobs ADD COLUMN skipped_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE jobs ADD COLUMN duplicates_json TEXT NOT NULL DEFAULT '[]';
CREATE INDEX traces_by_sha256 ON traces(sha256);
