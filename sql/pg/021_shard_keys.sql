-- 021_shard_keys (PostgreSQL): the unique keys of profile_values (its
-- unique index) and mt_values (its primary key) become plain indexes of
-- the same columns, with the same lookups, so that a trace's partitions of
-- those tables can be foreign tables on a shard: PostgreSQL attaches no
-- foreign table under a parent with a unique index (src/store/pg_publish.c,
-- placement_open; docs/postgresql.md, "Sharding by trace"). The rows are
-- unique where they are made: an import writes them into an SQLite staging
-- file, which keeps the keys (sql/005, sql/014), and copies them here;
-- nothing writes them later but a live run's close, through the same
-- writer, once per (metric, entity). SQLite's schema is unchanged
-- (sql/021_shard_keys.sql); tests/tools/pg_schema_check.sh lists mt_values'
-- key as one PostgreSQL keeps as a plain index.
DROP INDEX profile_values_by_node;
CREATE INDEX profile_values_by_node ON profile_values(trace_id, metric_id, node_id);
ALTER TABLE mt_values DROP CONSTRAINT mt_values_pkey;
CREATE INDEX mt_values_by_key ON mt_values(trace_id, metric_id, entity_id);
