-- 013_profile_node_sums.sql: per (profile, metric) the sum and the mean of
-- every CCT node's measured values over the processes, each as one BLOB of
-- nnodes little-endian float64 in node order (NaN where no process measured
-- the node). An ensemble of 300 profiles of 2,000 call sites then reads 600
-- rows of 16 KB instead of 1.2 million rows of per-rank BLOBs: the ensemble
-- super graph, gradients, statistics, projection and scaling need only these
-- (a member's supernode value collapsed by mean over its ranks is the sum of
-- its nodes' sums divided by its process count). Written by every profile
-- import; a profile imported before this migration has no row and is read
-- from profile_values' vsum/vmean columns instead (store/profile_queries.c).
CREATE TABLE profile_node_sums (
    trace_id  INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    metric_id INTEGER NOT NULL,
    sums      BLOB NOT NULL,
    means     BLOB NOT NULL,
    PRIMARY KEY (trace_id, metric_id)
) WITHOUT ROWID;
