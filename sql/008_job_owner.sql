-- 008_job_owner.sql: which process owns a queued or running job, as
-- "<boot id>/<pid>/<start time>": a pid alone is reused (a restarted
-- server in a container is PID 1 again), so a job of a dead server was
-- taken for a live one and stayed 'running' forever.
ALTER TABLE jobs ADD COLUMN owner_key TEXT NOT NULL DEFAULT '';
