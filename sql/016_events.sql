-- 016_events: MPI and HPC event traces (kind 'events', issue 19): OTF2 from
-- Score-P, Charm++ Projections, HPCToolkit's trace.db. Their functions,
-- instants, counters and messages are Paje rows (002: a "Process" container
-- per rank, a "Thread" container per location, states of type "Function"
-- with their depth, events of type "Instant", variables per counter, links
-- of type "Message"); these two tables add what the communication analyses
-- need as plain numbers. Written by the event-trace import
-- (src/import/format_events.c), read by src/store/event_queries.c.
-- (The store widens traces.kind's CHECK to accept 'events' when it applies
-- this migration: see store.c, widen_trace_kinds.)

-- One row per location (Thread container): its process and numbers.
CREATE TABLE ev_locations (
    trace_id     INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    container_id INTEGER NOT NULL,  -- the Thread container (containers.id)
    process_id   INTEGER NOT NULL,  -- its Process container (containers.id)
    rank         INTEGER NOT NULL,  -- MPI rank, Charm++ PE, HPCToolkit rank
    thread       INTEGER NOT NULL,  -- thread number within the rank
    PRIMARY KEY (trace_id, container_id)
) WITHOUT ROWID;

-- One row per matched point-to-point message (send matched to its receive,
-- FIFO per sender, receiver, tag and communicator). Times in the trace's
-- time unit (traces.time_unit), like the Paje rows.
CREATE TABLE ev_messages (
    trace_id      INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    src_container INTEGER NOT NULL, -- sending Thread container
    dst_container INTEGER NOT NULL, -- receiving Thread container
    src_rank      INTEGER NOT NULL,
    dst_rank      INTEGER NOT NULL,
    tag           INTEGER NOT NULL, -- -1 unknown
    comm          INTEGER NOT NULL, -- communicator handle, -1 unknown
    bytes         INTEGER NOT NULL,
    send_time     REAL NOT NULL,
    recv_time     REAL NOT NULL
);
CREATE INDEX ev_messages_by_send ON ev_messages(trace_id, send_time);

-- The states of a container packed for the timeline (store/state_chunks.c),
-- written beside the `states` rows by imports that ask for it (event
-- traces: millions of nested Function states). A chunk holds up to 2,048
-- states of one (container, type) in the order the importer wrote them
-- (event traces: the order the calls ended), each 24 bytes little-endian:
-- value_id int32, depth int32, start float64, end float64; min_start and
-- max_end bound them, so a window reads only the chunks that overlap it.
CREATE TABLE state_chunks (
    trace_id     INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    container_id INTEGER NOT NULL,
    chunk        INTEGER NOT NULL,  -- 0, 1, ... per container
    type_id      INTEGER NOT NULL,
    min_start    REAL NOT NULL,
    max_end      REAL NOT NULL,
    n            INTEGER NOT NULL,
    data         BLOB NOT NULL,
    PRIMARY KEY (trace_id, container_id, chunk)
) WITHOUT ROWID;
