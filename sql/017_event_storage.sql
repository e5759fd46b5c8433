-- 017_event_storage: event traces (016) stored leaner, as their imports
-- now write them: their calls only in state_chunks, their messages only in
-- ev_messages (no `states` or `links` rows), and ev_messages clustered by
-- send time.
-- ev_messages (016) was a rowid table with an index on (trace_id,
-- send_time): two B-trees written per message at import, and copied twice
-- (staging, then publication). As a WITHOUT ROWID table keyed by
-- (trace_id, send_time, seq) it is one B-tree, appended to in nearly
-- sorted order, and the timeline's window queries read it by that key.
-- seq numbers a trace's messages in the order they were matched (0, 1,
-- ...): the key of each message as a link (GET /links: "m<seq>").
CREATE TABLE ev_messages_017 (
    trace_id      INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    send_time     REAL NOT NULL,
    seq           INTEGER NOT NULL, -- 0, 1, ... per trace, in matching order
    src_container INTEGER NOT NULL, -- sending Thread container
    dst_container INTEGER NOT NULL, -- receiving Thread container
    src_rank      INTEGER NOT NULL,
    dst_rank      INTEGER NOT NULL,
    tag           INTEGER NOT NULL, -- -1 unknown
    comm          INTEGER NOT NULL, -- communicator handle, -1 unknown
    bytes         INTEGER NOT NULL,
    recv_time     REAL NOT NULL,
    PRIMARY KEY (trace_id, send_time, seq)
) WITHOUT ROWID;
INSERT INTO ev_messages_017(trace_id, send_time, seq, src_container, dst_container, src_rank, dst_rank, tag,
                            comm, bytes, recv_time)
    SELECT trace_id, send_time,
           row_number() OVER (PARTITION BY trace_id ORDER BY rowid) - 1,
           src_container, dst_container, src_rank, dst_rank, tag, comm, bytes, recv_time
    FROM ev_messages m;
DROP TABLE ev_messages;
ALTER TABLE ev_messages_017 RENAME TO ev_messages;

-- Traces imported before this migration kept their calls twice (state
-- rows beside the chunks) and their messages twice (links beside
-- ev_messages): the readers now take the chunks and ev_messages.
DELETE FROM states WHERE trace_id IN (SELECT DISTINCT trace_id FROM state_chunks);
DELETE FROM links WHERE trace_id IN (SELECT id FROM traces WHERE kind = 'events');

-- Paje events (instants: an event trace's collectives, ProgramBegin/End;
-- a StarPU trace's events) clustered by (trace, container, time) like
-- their former index, so that an import writes one B-tree per event, not
-- two. seq numbers a trace's events in the order they were written.
CREATE TABLE events_017 (
    trace_id     INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    container_id INTEGER NOT NULL,
    time         REAL NOT NULL,
    seq          INTEGER NOT NULL,  -- 0, 1, ... per trace, in writing order
    type_id      INTEGER NOT NULL,
    value_id     INTEGER NOT NULL,
    fields       TEXT,
    PRIMARY KEY (trace_id, container_id, time, seq)
) WITHOUT ROWID;
INSERT INTO events_017(trace_id, container_id, time, seq, type_id, value_id, fields)
    SELECT trace_id, container_id, time, row_number() OVER (PARTITION BY trace_id ORDER BY rowid) - 1,
           type_id, value_id, fields
    FROM events;
DROP TABLE events;
ALTER TABLE events_017 RENAME TO events;
