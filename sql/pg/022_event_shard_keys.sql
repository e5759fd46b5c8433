-- 022_event_shard_keys (PostgreSQL): the primary keys of the event tables
-- (events, ev_messages, event_chunks, message_chunks, state_chunks) become
-- plain indexes of the same columns, with the same lookups and orders, so that a
-- trace's partitions of those tables can be foreign tables on a shard:
-- PostgreSQL attaches no foreign table under a parent with a unique index
-- (src/store/pg_publish.c, placement_open; docs/postgresql.md, "Sharding
-- by trace"). As for 021, the rows are unique where they are made: an
-- import writes them into the SQLite staging file, which keeps the keys
-- (sql/016 to 019), and copies them here; nothing writes them
-- later. SQLite's schema is unchanged (sql/022_event_shard_keys.sql);
-- tests/tools/pg_schema_check.sh lists these keys as ones PostgreSQL keeps
-- as plain indexes.
ALTER TABLE events DROP CONSTRAINT events_pkey;
CREATE INDEX events_by_key ON events(trace_id, container_id, time, seq);
ALTER TABLE ev_messages DROP CONSTRAINT ev_messages_pkey;
CREATE INDEX ev_messages_by_key ON ev_messages(trace_id, send_time, seq);
ALTER TABLE event_chunks DROP CONSTRAINT event_chunks_pkey;
CREATE INDEX event_chunks_by_key ON event_chunks(trace_id, container_id, chunk);
ALTER TABLE message_chunks DROP CONSTRAINT message_chunks_pkey;
CREATE INDEX message_chunks_by_key ON message_chunks(trace_id, chunk);
ALTER TABLE state_chunks DROP CONSTRAINT state_chunks_pkey;
CREATE INDEX state_chunks_by_key ON state_chunks(trace_id, container_id, chunk);
