-- 021_shard_keys: nothing changes in SQLite. In PostgreSQL
-- (sql/pg/021_shard_keys.sql) the unique keys of profile_values and
-- mt_values become plain indexes of the same columns, so that a trace's
-- partitions of those tables can live on a shard (issue 20: PostgreSQL
-- attaches no foreign table under a unique index). Their rows are unique
-- where they are made: an import writes them in an SQLite staging file,
-- which keeps the keys, and nothing writes them later. This file keeps the
-- two backends' migrations numbered alike (store.c checks their counts).
SELECT 1;
