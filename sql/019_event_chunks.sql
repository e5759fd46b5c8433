-- 019_event_chunks: the Paje events of an event trace (its instants:
-- collectives, ProgramBegin/End, Projections' user events) packed in
-- chunks per container, as its calls (state_chunks, 016) and messages
-- (message_chunks, 018) are, instead of one `events` row each: at 10 M
-- events the 833k rows of the collectives were a fifth of the import.
-- Imports that ask (ari_trace_writer_pack_events: event traces) write
-- these instead of `events` rows; other traces keep their rows, and event
-- traces imported before this migration keep theirs (readers take both).
-- A chunk holds up to 1,024 events of one container in the order they
-- were written, each a little-endian record: seq int64 (the event's
-- number in the trace, in writing order, as events.seq), type_id int32,
-- value_id int32, time float64, fields_len uint32, then fields_len bytes
-- of the fields' JSON text (0: NULL, as events.fields). t0 and t1 are the
-- smallest and largest time of its events.
-- Written by src/store/trace_sink.c through src/store/event_chunks.c.
CREATE TABLE event_chunks (
    trace_id     INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    container_id INTEGER NOT NULL,
    chunk        INTEGER NOT NULL,  -- 0, 1, ... per container
    t0           REAL NOT NULL,
    t1           REAL NOT NULL,
    n            INTEGER NOT NULL,  -- events in data (1 to 1,024)
    data         BLOB NOT NULL,
    PRIMARY KEY (trace_id, container_id, chunk)
) WITHOUT ROWID;
