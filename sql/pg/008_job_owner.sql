-- 008_job_owner (PostgreSQL): mirrors sql/008_job_owner.sql: which process
-- owns a queued or running job, as "<boot id>/<pid>/<start time>".
-- Text columns are COLLATE "C" (SQLite's BINARY order; see 001).
ALTER TABLE jobs ADD COLUMN owner_key text COLLATE "C" NOT NULL DEFAULT '';
