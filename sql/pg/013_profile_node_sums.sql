-- 013_profile_node_sums (PostgreSQL): mirrors sql/013_profile_node_sums.sql:
-- per (profile, metric) the sum and the mean of every CCT node's measured
-- values over the processes, each one bytea of nnodes little-endian float64
-- in node order (NaN where no process measured the node). BLOB -> bytea;
-- WITHOUT ROWID is dropped.
--
-- Partitioning (issue 20): few rows per trace but bytes proportional to
-- the profile's nodes x metrics, read with the trace's profile_values:
-- PARTITION BY LIST (trace_id) with a DEFAULT partition, so that a trace's
-- profile data sit in one place. The primary key already starts with
-- trace_id: no key change.
CREATE TABLE profile_node_sums (
    trace_id  bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    metric_id bigint NOT NULL,
    sums      bytea NOT NULL,
    means     bytea NOT NULL,
    PRIMARY KEY (trace_id, metric_id)
) PARTITION BY LIST (trace_id);
CREATE TABLE profile_node_sums_default PARTITION OF profile_node_sums DEFAULT;
