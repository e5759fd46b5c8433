-- 022_event_shard_keys: nothing changes in SQLite. In PostgreSQL
-- (sql/pg/022_event_shard_keys.sql) the primary keys of the event tables
-- (events, ev_messages, their chunks, state_chunks) become plain indexes
-- of the same columns, so that a trace's partitions of those tables can live on
-- a shard, as 021 did for profile_values and mt_values (issue 20). Their
-- rows are unique where they are made: an import writes them in an SQLite
-- staging file, which keeps the keys, and nothing writes them later. This
-- file keeps the two backends' migrations numbered alike (store.c checks
-- their counts).
SELECT 1;
