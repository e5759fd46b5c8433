-- 017_event_storage (PostgreSQL): mirrors sql/017_event_storage.sql: event
-- traces stored leaner: their calls only in state_chunks, their messages
-- only in ev_messages (no `states` or `links` rows); ev_messages keyed by
-- (trace_id, send_time, seq) and events by (trace_id, container_id, time,
-- seq), seq numbering a trace's rows in the order they were written.
--
-- Both tables are rebuilt as in SQLite (new table, copy, drop, rename), not
-- altered: the new column seq and the columns' new order (send_time second,
-- time third) cannot be made by ALTER TABLE. Both stay PARTITION BY LIST
-- (trace_id) with a DEFAULT partition (issue 20); their new primary keys
-- start with trace_id, as partitioning requires (no change was needed).
-- The copy puts every row in the new DEFAULT partition: per-trace partitions
-- the store had attached to the old tables go with them (the rows are kept).
--
-- seq: SQLite numbers the rows by rowid, their insertion order. PostgreSQL
-- has no rowid: ctid, the row's place in its table, is the insertion order
-- of a table that is only appended to and deleted from as a whole trace (a
-- trace's rows are all in one partition), which is how the importers write
-- these two tables. (PostgreSQL databases start empty at 017 today.)
-- Constraints and the default partitions get the final tables' names
-- (a foreign key's name is per table: given at once; an index's is per
-- schema: renamed after the old table is gone).
-- Text columns are COLLATE "C" (SQLite's BINARY order; see 001).

CREATE TABLE ev_messages_017 (
    trace_id      bigint NOT NULL CONSTRAINT ev_messages_trace_id_fkey
                      REFERENCES traces(id) ON DELETE CASCADE,
    send_time     double precision NOT NULL,
    seq           bigint NOT NULL,  -- 0, 1, ... per trace, in matching order
    src_container bigint NOT NULL,  -- sending Thread container
    dst_container bigint NOT NULL,  -- receiving Thread container
    src_rank      bigint NOT NULL,
    dst_rank      bigint NOT NULL,
    tag           bigint NOT NULL,  -- -1 unknown
    comm          bigint NOT NULL,  -- communicator handle, -1 unknown
    bytes         bigint NOT NULL,
    recv_time     double precision NOT NULL,
    CONSTRAINT ev_messages_017_pkey PRIMARY KEY (trace_id, send_time, seq)
) PARTITION BY LIST (trace_id);
CREATE TABLE ev_messages_017_default PARTITION OF ev_messages_017 DEFAULT;
INSERT INTO ev_messages_017(trace_id, send_time, seq, src_container, dst_container, src_rank, dst_rank, tag,
                            comm, bytes, recv_time)
    SELECT trace_id, send_time,
           row_number() OVER (PARTITION BY trace_id ORDER BY ctid) - 1,
           src_container, dst_container, src_rank, dst_rank, tag, comm, bytes, recv_time
    FROM ev_messages m;
DROP TABLE ev_messages;
ALTER TABLE ev_messages_017 RENAME TO ev_messages;
ALTER TABLE ev_messages_017_default RENAME TO ev_messages_default;
ALTER TABLE ev_messages RENAME CONSTRAINT ev_messages_017_pkey TO ev_messages_pkey;
ALTER INDEX ev_messages_017_default_pkey RENAME TO ev_messages_default_pkey;

-- Traces imported before this migration kept their calls twice (state
-- rows beside the chunks) and their messages twice (links beside
-- ev_messages): the readers now take the chunks and ev_messages.
DELETE FROM states WHERE trace_id IN (SELECT DISTINCT trace_id FROM state_chunks);
DELETE FROM links WHERE trace_id IN (SELECT id FROM traces WHERE kind = 'events');

-- Paje events clustered by (trace, container, time) like their former
-- index; seq numbers a trace's events in the order they were written.
CREATE TABLE events_017 (
    trace_id     bigint NOT NULL CONSTRAINT events_trace_id_fkey
                     REFERENCES traces(id) ON DELETE CASCADE,
    container_id bigint NOT NULL,
    time         double precision NOT NULL,
    seq          bigint NOT NULL,   -- 0, 1, ... per trace, in writing order
    type_id      bigint NOT NULL,
    value_id     bigint NOT NULL,
    fields       text COLLATE "C",
    CONSTRAINT events_017_pkey PRIMARY KEY (trace_id, container_id, time, seq)
) PARTITION BY LIST (trace_id);
CREATE TABLE events_017_default PARTITION OF events_017 DEFAULT;
INSERT INTO events_017(trace_id, container_id, time, seq, type_id, value_id, fields)
    SELECT trace_id, container_id, time, row_number() OVER (PARTITION BY trace_id ORDER BY ctid) - 1,
           type_id, value_id, fields
    FROM events;
DROP TABLE events;
ALTER TABLE events_017 RENAME TO events;
ALTER TABLE events_017_default RENAME TO events_default;
ALTER TABLE events RENAME CONSTRAINT events_017_pkey TO events_pkey;
ALTER INDEX events_017_default_pkey RENAME TO events_default_pkey;
