-- 016_events (PostgreSQL): mirrors sql/016_events.sql: MPI and HPC event
-- traces (kind 'events', issue 19): locations and matched messages as plain
-- numbers, and states packed per container for the timeline. BLOB ->
-- bytea; WITHOUT ROWID is dropped.
--
-- The trace kind 'events': SQLite's store widens the CHECK of traces.kind
-- in place after this migration (store.c, widen_trace_kinds: writable_schema,
-- because SQLite cannot alter a CHECK); here ALTER TABLE replaces the
-- constraint named in 001.
--
-- Partitioning (issue 20): ev_messages (one row per message; 017 rebuilds
-- it) and state_chunks (an event trace's calls) are PARTITION BY LIST
-- (trace_id) with a DEFAULT partition. ev_messages has no key; state_chunks'
-- primary key already starts with trace_id: no key change. ev_locations
-- (one row per thread) is a plain table.

ALTER TABLE traces DROP CONSTRAINT traces_kind_check,
    ADD CONSTRAINT traces_kind_check CHECK (kind IN ('tasks', 'profile', 'pdes', 'datamove', 'events'));

-- One row per location (Thread container): its process and numbers.
CREATE TABLE ev_locations (
    trace_id     bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    container_id bigint NOT NULL,   -- the Thread container (containers.id)
    process_id   bigint NOT NULL,   -- its Process container (containers.id)
    rank         bigint NOT NULL,   -- MPI rank, Charm++ PE, HPCToolkit rank
    thread       bigint NOT NULL,   -- thread number within the rank
    PRIMARY KEY (trace_id, container_id)
);

-- One row per matched point-to-point message.
CREATE TABLE ev_messages (
    trace_id      bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    src_container bigint NOT NULL,  -- sending Thread container
    dst_container bigint NOT NULL,  -- receiving Thread container
    src_rank      bigint NOT NULL,
    dst_rank      bigint NOT NULL,
    tag           bigint NOT NULL,  -- -1 unknown
    comm          bigint NOT NULL,  -- communicator handle, -1 unknown
    bytes         bigint NOT NULL,
    send_time     double precision NOT NULL,
    recv_time     double precision NOT NULL
) PARTITION BY LIST (trace_id);
CREATE TABLE ev_messages_default PARTITION OF ev_messages DEFAULT;
CREATE INDEX ev_messages_by_send ON ev_messages(trace_id, send_time);

-- The states of a container packed for the timeline (store/state_chunks.c):
-- up to 2,048 states of one (container, type) per chunk, 24 bytes each
-- little-endian: value_id int32, depth int32, start float64, end float64.
CREATE TABLE state_chunks (
    trace_id     bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    container_id bigint NOT NULL,
    chunk        bigint NOT NULL,   -- 0, 1, ... per container
    type_id      bigint NOT NULL,
    min_start    double precision NOT NULL,
    max_end      double precision NOT NULL,
    n            bigint NOT NULL,
    data         bytea NOT NULL,
    PRIMARY KEY (trace_id, container_id, chunk)
) PARTITION BY LIST (trace_id);
CREATE TABLE state_chunks_default PARTITION OF state_chunks DEFAULT;
