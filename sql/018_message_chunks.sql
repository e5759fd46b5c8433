-- 018_message_chunks: an event trace's matched messages packed in chunks,
-- as its calls are (state_chunks, 016), instead of one ev_messages row
-- each: at 10 M events the ev_messages rows (a B-tree entry per message,
-- written at import then copied again when the staging database is
-- published) were about a quarter of the import's time.
-- A chunk holds up to 2,048 messages of one trace in the order they were
-- matched (FIFO per sender, receiver, tag and communicator): message i of
-- chunk c has seq c * 2048 + i (every chunk but the last is full), its
-- key as a link (GET /links: "m<seq>"). Each message is 56 bytes,
-- little-endian: src_container int32, dst_container int32, src_rank
-- int32, dst_rank int32, tag int64, comm int64, bytes int64, send_time
-- float64, recv_time float64 (times in the trace's time unit). t0 is the
-- chunk's smallest send time and t1 its largest receive time, so that a
-- time window reads only the chunks that overlap it.
-- Written by src/store/event_writer.c through src/store/message_chunks.c,
-- read only through message_chunks.c, which also reads the ev_messages
-- rows of the traces imported before this migration (they are left as
-- they are: a trace has either rows or chunks).
CREATE TABLE message_chunks (
    trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    chunk    INTEGER NOT NULL,  -- 0, 1, ... per trace, in matching order
    t0       REAL NOT NULL,     -- smallest send_time of its messages
    t1       REAL NOT NULL,     -- largest recv_time of its messages
    n        INTEGER NOT NULL,  -- messages in data (1 to 2,048)
    data     BLOB NOT NULL,     -- n records of 56 bytes
    PRIMARY KEY (trace_id, chunk)
) WITHOUT ROWID;
